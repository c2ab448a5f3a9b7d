// SPDX-License-Identifier: MIT
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/io/series_parse.h"
#include "compute/io/series_readers.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace detail {
namespace {

enum class Delimiter { Tab, Comma, Blank };

// The UCR 2018 archive uses tabs, older copies commas or runs of spaces ("  1.0000000e+00
// -6.4e-01 ..."); one file keeps one delimiter, so the first series decides.
Delimiter detect(std::string_view line) {
    if (line.find('\t') != std::string_view::npos) return Delimiter::Tab;
    if (line.find(',') != std::string_view::npos) return Delimiter::Comma;
    return Delimiter::Blank;
}

void split(std::string_view line, Delimiter d, std::vector<std::string_view>& out) {
    out.clear();
    if (d == Delimiter::Blank) {
        std::size_t at = 0;
        while (at < line.size()) {
            while (at < line.size() && (line[at] == ' ' || line[at] == '\t'))
                ++at;
            std::size_t end = at;
            while (end < line.size() && line[end] != ' ' && line[end] != '\t')
                ++end;
            if (end > at) out.push_back(line.substr(at, end - at));
            at = end;
        }
        return;
    }
    const char sep = d == Delimiter::Tab ? '\t' : ',';
    for (std::size_t at = 0;;) {
        const std::size_t end = line.find(sep, at);
        out.push_back(trim(line.substr(at, end == std::string_view::npos ? end : end - at)));
        if (end == std::string_view::npos) break;
        at = end + 1;
    }
    // One trailing delimiter, as some exporters write, does not make an empty last sample.
    if (out.size() > 1 && out.back().empty()) out.pop_back();
}

bool isNumber(std::string_view token) {
    double v = 0;
    return token == "?" || parseDouble(token, v);
}

}  // namespace

SeriesSet readUcrText(const std::string& file, std::string_view text) {
    using Unit = InputError::Unit;
    text = stripBom(text);
    if (trim(text).empty()) throw InputError(file, "is empty");

    SeriesAccumulator acc;
    acc.channels = 1;
    ClassTable classes;
    std::optional<Delimiter> delimiter;
    std::vector<std::string_view> tokens;
    bool firstLine = true;
    LineCursor cursor(text);
    std::string_view line;
    while (cursor.next(line)) {
        const std::string_view t = trim(line);
        if (t.empty() || t.front() == '#') continue;
        const std::size_t lineNo = cursor.lineNumber();
        if (!delimiter) delimiter = detect(t);
        split(t, *delimiter, tokens);
        // A column-name row ("label,t1,t2,...") is not a series: skip it, once, at the top.
        if (firstLine) {
            firstLine = false;
            if (tokens.size() >= 2 && !isNumber(tokens[0]) && !isNumber(tokens[1])) continue;
        }
        const std::string series = "series " + std::to_string(acc.lengths.size() + 1);
        const auto fail = [&](const std::string& problem) {
            throw InputError(file, Unit::Line, lineNo, series + " " + problem);
        };
        if (tokens.size() < 2) fail("has a class label but no values");
        if (tokens[0].empty()) fail("has an empty class label");
        const std::string label = canonicalLabel(tokens[0]);
        double numeric = 0;
        if (parseDouble(label, numeric) && !std::isfinite(numeric))
            fail("has the class label " + io::quoted(label) + ", which is not a class");

        // Trailing NaNs are the 2018 archive's padding of shorter series: they end the series.
        // A NaN with a value after it is a real gap, which k-Shape and ROCKET cannot take.
        std::size_t count = 0, firstMissing = 0;
        for (std::size_t k = 1; k < tokens.size(); ++k) {
            const std::string_view token = tokens[k];
            if (token.empty()) fail("has an empty value at sample " + std::to_string(k));
            float v = 0;
            bool missing = token == "?";
            if (!missing) {
                if (!parseFloat(token, v))
                    fail("has the value " + io::quoted(token) + " at sample " + std::to_string(k) +
                         ", which is not a number (or is out of float range)");
                missing = std::isnan(v);
                if (std::isinf(v)) fail("has an infinite value at sample " + std::to_string(k));
            }
            if (missing) {
                if (firstMissing == 0) firstMissing = k;
                continue;
            }
            if (firstMissing != 0)
                fail("has a missing/NaN value at sample " + std::to_string(firstMissing) +
                     " followed by values (only trailing NaNs, as padding, are allowed)");
            acc.flat.push_back(v);
            ++count;
        }
        if (count == 0) fail("has no values (all are missing/NaN)");
        if (count > UINT32_MAX) fail("is longer than this program supports");
        acc.lengths.push_back(static_cast<std::uint32_t>(count));
        acc.labels.push_back(classes.add(label));
    }
    if (acc.lengths.empty()) throw InputError(file, "holds no series");
    classes.sortNumeric(acc.labels);
    return assemble(file, std::move(acc), classes.names());
}

}  // namespace detail

SeriesSet readUcr(const std::filesystem::path& file) {
    const std::string bytes = readFileBytes(file);
    return detail::readUcrText(file.string(), bytes);
}

}  // namespace cs::io
