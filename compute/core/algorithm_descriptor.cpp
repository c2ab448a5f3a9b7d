// SPDX-License-Identifier: MIT
#include "compute/core/algorithm_descriptor.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "compute/core/error.h"

namespace cs {
namespace {

std::string numberText(double v) {
    char buffer[64];
    // Integral bounds print as integers ("2147483647", not "2.147483647e+09").
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, static_cast<long long>(v));
        return {buffer, r.ptr};
    }
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);  // shortest exact
    return {buffer, r.ptr};
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

const char* typeName(ParameterSpec::Type type) {
    switch (type) {
        case ParameterSpec::Type::Int:
            return "an integer";
        case ParameterSpec::Type::Double:
            return "a number";
        case ParameterSpec::Type::Bool:
            return "true or false";
        case ParameterSpec::Type::Choice:
            return "a word";
    }
    return "a value";
}

std::optional<double> asNumber(const ParameterValue& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) return double(*i);
    if (const auto* d = std::get_if<double>(&value)) return *d;
    return std::nullopt;
}

}  // namespace

// --- ParameterValues --------------------------------------------------------------------------

const ParameterValue* ParameterValues::find(std::string_view name) const {
    const auto it = m_values.find(name);
    return it == m_values.end() ? nullptr : &it->second;
}

std::int64_t ParameterValues::integer(std::string_view name) const {
    const ParameterValue* v = find(name);
    if (const auto* i = v ? std::get_if<std::int64_t>(v) : nullptr) return *i;
    throw Error("parameter '" + std::string(name) + "' is missing or not an integer");
}

double ParameterValues::number(std::string_view name) const {
    const ParameterValue* v = find(name);
    if (const auto n = v ? asNumber(*v) : std::nullopt) return *n;
    throw Error("parameter '" + std::string(name) + "' is missing or not a number");
}

bool ParameterValues::flag(std::string_view name) const {
    const ParameterValue* v = find(name);
    if (const auto* b = v ? std::get_if<bool>(v) : nullptr) return *b;
    throw Error("parameter '" + std::string(name) + "' is missing or not true/false");
}

const std::string& ParameterValues::word(std::string_view name) const {
    const ParameterValue* v = find(name);
    if (const auto* s = v ? std::get_if<std::string>(v) : nullptr) return *s;
    throw Error("parameter '" + std::string(name) + "' is missing or not a word");
}

// --- ParameterSpec ----------------------------------------------------------------------------

std::string ParameterSpec::expected() const {
    switch (type) {
        case Type::Bool:
            return "true or false";
        case Type::Choice: {
            std::string out = "one of: ";
            for (std::size_t i = 0; i < choices.size(); ++i)
                out += (i ? ", " : "") + choices[i];
            return out;
        }
        case Type::Int:
        case Type::Double:
            break;
    }
    if (type == Type::Int && !minimumWord.empty())
        return minimumWord + " or " + typeName(type) + " in [" + numberText(minimum + 1) + ", " +
               numberText(maximum) + "]";
    return std::string(typeName(type)) + " in [" + numberText(minimum) + ", " +
           numberText(maximum) + "]";
}

std::optional<ParameterValue> ParameterSpec::parse(std::string_view text,
                                                   std::string* error) const {
    const std::string_view t = trimmed(text);
    std::optional<ParameterValue> value;
    switch (type) {
        case Type::Bool:
            if (t == "true" || t == "1" || t == "on" || t == "yes") value = true;
            if (t == "false" || t == "0" || t == "off" || t == "no") value = false;
            break;
        case Type::Choice:
            if (std::find(choices.begin(), choices.end(), t) != choices.end())
                value = std::string(t);
            break;
        case Type::Int: {
            if (!minimumWord.empty() && t == minimumWord) {
                value = std::int64_t(minimum);
                break;
            }
            // Integers only: "1e23", "2.5" and anything past int64 are refused, never rounded.
            std::int64_t v = 0;
            const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
            if (!t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size() &&
                double(v) >= minimum && double(v) <= maximum)
                value = v;
            break;
        }
        case Type::Double: {
            double v = 0.0;
            const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
            if (!t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size() &&
                std::isfinite(v) && v >= minimum && v <= maximum)
                value = v;
            break;
        }
    }
    if (!value && error)
        *error =
            "invalid value '" + std::string(text) + "' for " + name + ": expected " + expected();
    return value;
}

std::string ParameterSpec::format(const ParameterValue& value) const {
    if (const auto* i = std::get_if<std::int64_t>(&value))
        return !minimumWord.empty() && double(*i) == minimum ? minimumWord : std::to_string(*i);
    if (const auto* d = std::get_if<double>(&value)) {
        char buffer[64];
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, *d);
        return {buffer, r.ptr};
    }
    if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    return std::get<std::string>(value);
}

std::string ParameterSpec::check(const ParameterValue& value, const DataShape* data,
                                 const ParameterValues& values) const {
    const bool rightType = (type == Type::Int && std::holds_alternative<std::int64_t>(value)) ||
                           (type == Type::Double && asNumber(value)) ||
                           (type == Type::Bool && std::holds_alternative<bool>(value)) ||
                           (type == Type::Choice && std::holds_alternative<std::string>(value));
    if (!rightType) return name + " must be " + expected();
    if (type == Type::Choice) {
        const auto& w = std::get<std::string>(value);
        if (std::find(choices.begin(), choices.end(), w) == choices.end())
            return name + " = " + w + " is not " + expected();
        return {};
    }
    if (type == Type::Bool) return {};
    const double v = *asNumber(value);
    if (!std::isfinite(v) || v < minimum || v > maximum)
        return name + " = " + format(value) + " is outside its range: expected " + expected();
    if (bounds)
        if (const auto b = bounds(data, values); b && (v < b->minimum || v > b->maximum))
            return name + " = " + format(value) + " is too " +
                   (v < b->minimum ? "small" : "large") + ": it must be " + b->why;
    return {};
}

ParameterValue ParameterSpec::clamp(const ParameterValue& value, const DataShape* data,
                                    const ParameterValues& values) const {
    if (type == Type::Bool || type == Type::Choice)
        return check(value, data, values).empty() ? value : defaultValue;
    const auto number = asNumber(value);
    if (!number || !std::isfinite(*number)) return defaultValue;
    double lo = minimum, hi = maximum;
    if (bounds)
        if (const auto b = bounds(data, values)) {
            lo = std::max(lo, b->minimum);
            hi = std::min(hi, b->maximum);
        }
    // Bounds that contradict each other (3 points and k-Shape k ≥ 1 … ≤ 3 is fine; 0 points is
    // not): the parameter's own range wins, and the run reports the problem.
    if (lo > hi) lo = minimum, hi = maximum;
    const double v = std::clamp(*number, lo, hi);
    if (type == Type::Int) return std::int64_t(std::llround(v));
    return v;
}

ParameterSpec seedParameter(std::uint64_t defaultSeed, std::string help) {
    return {.name = "seed",
            .option = "seed",
            .label = "S&eed",
            .type = ParameterSpec::Type::Int,
            .minimum = 0,
            .maximum = double(kMaxSeed),
            .defaultValue = std::int64_t(defaultSeed),
            .help = std::move(help)};
}

// --- AlgorithmDescriptor ----------------------------------------------------------------------

const ParameterSpec* AlgorithmDescriptor::parameter(std::string_view parameterName) const {
    for (const auto& p : parameters)
        if (p.name == parameterName) return &p;
    return nullptr;
}

ParameterValues AlgorithmDescriptor::defaults() const {
    ParameterValues values;
    for (const auto& p : parameters)
        values.set(p.name, p.defaultValue);
    return values;
}

std::vector<std::string> AlgorithmDescriptor::check(const ParameterValues& values,
                                                    const DataShape* data) const {
    std::vector<std::string> problems;
    for (const auto& p : parameters) {
        const ParameterValue* v = values.find(p.name);
        if (!v) {
            problems.push_back(p.name + " is missing");
            continue;
        }
        if (std::string why = p.check(*v, data, values); !why.empty())
            problems.push_back(std::move(why));
    }
    return problems;
}

std::string AlgorithmDescriptor::describe(const ParameterValues& values) const {
    std::string out = name;
    for (const auto& p : parameters)
        if (const ParameterValue* v = values.find(p.name)) out += " " + p.name + "=" + p.format(*v);
    return out;
}

std::optional<ExportMatch> matchExport(const std::vector<const AlgorithmDescriptor*>& algorithms,
                                       std::string_view path) {
    std::optional<ExportMatch> best;
    std::size_t bestLength = 0;
    auto endsWith = [&](std::string_view suffix) {
        if (suffix.size() > path.size()) return false;
        return std::equal(suffix.rbegin(), suffix.rend(), path.rbegin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) ==
                   std::tolower(static_cast<unsigned char>(b));
        });
    };
    for (const AlgorithmDescriptor* a : algorithms)
        for (const ExportSpec& e : a->exports)
            if (e.suffix.size() > bestLength && endsWith(e.suffix)) {
                best = ExportMatch{a, &e};
                bestLength = e.suffix.size();
            }
    return best;
}

}  // namespace cs
