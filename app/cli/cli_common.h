// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
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

/// Wall milliseconds from start to now.
double millisecondsSince(std::chrono::steady_clock::time_point start);

/// The last component of a path ("bunny.pcd"), for one-line summaries.
std::string fileName(const std::string& path);

}  // namespace cs::cli
