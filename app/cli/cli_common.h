// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace cs::cli {

/// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 2;  ///< bad input, bad parameters, a failed job

/// Runs a subcommand body; any exception becomes "clusterscope-cli: <what>" on stderr and
/// kExitError, so every subcommand reports errors the same way.
int runReportingErrors(const std::function<int()>& body);

/// Prints one JSON object on one line to stdout.
void printJson(const nlohmann::json& object);

}  // namespace cs::cli
