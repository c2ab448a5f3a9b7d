// SPDX-License-Identifier: MIT
#pragma once

#include <charconv>
#include <cstdio>
#include <string>
#include <system_error>

namespace cs {

/// The shortest text that reads back as the same double: tables and JSON carry exact values.
inline std::string exactNumberText(double value) {
    char text[40];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

/// A time in milliseconds to six significant digits: a few digits are all it means.
inline std::string millisecondsText(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

}  // namespace cs
