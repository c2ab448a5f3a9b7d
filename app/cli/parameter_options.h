// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "compute/core/algorithm_descriptor.h"

namespace cs::cli {

/// An algorithm's parameters as options of its subcommand, made from its descriptor: the
/// option names ("--min-pts"), the help with the range and the default, and what is required
/// all come from the one declaration, and every value is parsed the way the GUI parses it (no
/// silent coercion: "--seed 1e23" is refused, not rounded).
/// @code
/// auto params = std::make_shared<ParameterOptions>(*cmd, cs::dbscanDescriptor());
/// ... in the callback: DbscanParams p = cs::dbscanParams(params->values(&shape));
/// @endcode
class ParameterOptions {
public:
    /// callerDefaults: parameters whose default the command decides (a benchmark's generated
    /// data), by name, with the text the help gives for it ("the distribution's"); they are
    /// never required, and given() tells whether the user set them.
    /// leaveOut: parameters the command has no use for (a benchmark times no feature order):
    /// no option, their default in values().
    ParameterOptions(CLI::App& command, const AlgorithmDescriptor& algorithm,
                     const std::map<std::string, std::string>& callerDefaults = {},
                     const std::set<std::string>& leaveOut = {});
    ParameterOptions(const ParameterOptions&) = delete;
    ParameterOptions& operator=(const ParameterOptions&) = delete;

    /// Every parameter's value: the one given, else the default. Throws cs::Error naming the
    /// option and what it expects, for a value that does not parse, is out of its range or,
    /// with data, out of the range these data allow (MinPts above the number of points).
    ParameterValues values(const DataShape* data = nullptr) const;
    /// True when the parameter was on the command line.
    bool given(const std::string& name) const;

private:
    const AlgorithmDescriptor& m_algorithm;
    std::map<std::string, std::string> m_text;  // by parameter name, as typed
    std::map<std::string, bool> m_flags;        // Bool parameters, by name
    std::map<std::string, CLI::Option*> m_options;
};

}  // namespace cs::cli
