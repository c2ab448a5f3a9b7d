// SPDX-License-Identifier: MIT
#include "app/cli/parameter_options.h"

#include <cctype>

#include "compute/core/error.h"

namespace cs::cli {

ParameterOptions::ParameterOptions(CLI::App& command, const AlgorithmDescriptor& algorithm,
                                   const std::map<std::string, std::string>& callerDefaults,
                                   const std::set<std::string>& leaveOut)
    : m_algorithm(algorithm) {
    for (const ParameterSpec& p : algorithm.parameters) {
        if (leaveOut.count(p.name)) continue;
        std::string help = p.help;
        if (!help.empty()) help[0] = char(std::toupper(static_cast<unsigned char>(help[0])));
        const std::string flag = "--" + p.option;
        if (p.type == ParameterSpec::Type::Bool && p.defaultValue == ParameterValue(false)) {
            command.add_flag(flag, m_flags[p.name], help);
            continue;
        }
        const auto callers = callerDefaults.find(p.name);
        const bool required = p.requiredOnCommandLine && callers == callerDefaults.end();
        help += " (" + p.expected() +
                (callers != callerDefaults.end() ? "; default " + callers->second + ")"
                 : required                      ? ")"
                                                 : "; default " + p.format(p.defaultValue) + ")");
        CLI::Option* option = command.add_option(flag, m_text[p.name], help);
        option->type_name(p.type == ParameterSpec::Type::Int      ? "INT"
                          : p.type == ParameterSpec::Type::Double ? "NUMBER"
                                                                  : "TEXT");
        if (required) option->required();
        m_options[p.name] = option;
    }
}

ParameterValues ParameterOptions::values(const DataShape* data) const {
    ParameterValues values = m_algorithm.defaults();
    for (const ParameterSpec& p : m_algorithm.parameters) {
        if (const auto flag = m_flags.find(p.name); flag != m_flags.end()) {
            values.set(p.name, flag->second);
            continue;
        }
        const auto option = m_options.find(p.name);
        if (option == m_options.end() || option->second->count() == 0)
            continue;  // left out or not given: the default
        const std::string& text = m_text.at(p.name);
        std::string error;
        const auto value = p.parse(text, &error);
        if (!value) throw Error("--" + p.option + " " + text + ": expected " + p.expected());
        values.set(p.name, *value);
    }
    for (const ParameterSpec& p : m_algorithm.parameters) {
        const std::string why = p.check(*values.find(p.name), data, values);
        if (!why.empty()) throw Error("--" + p.option + ": " + why);
    }
    return values;
}

bool ParameterOptions::given(const std::string& name) const {
    if (const auto flag = m_flags.find(name); flag != m_flags.end()) return flag->second;
    const auto option = m_options.find(name);
    return option != m_options.end() && option->second->count() > 0;
}

}  // namespace cs::cli
