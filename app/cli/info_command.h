// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `info FILE [--as auto|points|series]`: one JSON object describing the file.
void addInfoCommand(CLI::App& app, int& exitCode);
/// `backends`: one JSON object listing this build's backends and whether each is usable here.
void addBackendsCommand(CLI::App& app, int& exitCode);

}  // namespace cs::cli
