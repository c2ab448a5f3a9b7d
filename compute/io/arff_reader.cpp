// SPDX-License-Identifier: MIT
#include <cmath>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/io/series_parse.h"
#include "compute/io/series_readers.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace detail {
namespace {

using Unit = InputError::Unit;

bool isQuote(char c) {
    return c == '\'' || c == '"';
}

std::string_view unquote(std::string_view token) {
    token = trim(token);
    if (token.size() >= 2 && isQuote(token.front()) && token.back() == token.front())
        return token.substr(1, token.size() - 2);
    return token;
}

// Splits on commas outside quotes (class values such as 'a,b' may be quoted).
void splitQuoted(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    char quote = 0;
    std::size_t start = 0;
    for (std::size_t k = 0; k < line.size(); ++k) {
        const char c = line[k];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (isQuote(c)) {
            quote = c;
        } else if (c == ',') {
            out.push_back(trim(line.substr(start, k - start)));
            start = k + 1;
        }
    }
    out.push_back(trim(line.substr(start)));
}

class ArffParser {
public:
    explicit ArffParser(const std::string& file) : m_file(file) {}

    SeriesSet parse(std::string_view text) {
        text = stripBom(text);
        if (trim(text).empty()) throw InputError(m_file, "is empty");
        m_acc.channels = 1;
        LineCursor cursor(text);
        std::string_view line;
        bool inData = false;
        while (cursor.next(line)) {
            const std::string_view t = trim(line);
            if (t.empty() || t.front() == '%') continue;
            m_line = cursor.lineNumber();
            if (!inData) {
                inData = headerLine(t);
            } else {
                if (t.front() == '@') fail("header line " + io::quoted(t) + " after @data");
                dataLine(t);
            }
        }
        if (!inData) throw InputError(m_file, Unit::Line, cursor.lineNumber(), "has no @data line");
        if (m_acc.lengths.empty())
            throw InputError(m_file, Unit::Line, cursor.lineNumber(),
                             "holds no series after @data");
        if (!m_hasClass) {
            m_acc.labels.clear();
            return assemble(m_file, std::move(m_acc), {});
        }
        m_classes.sortNumeric(m_acc.labels);
        return assemble(m_file, std::move(m_acc), m_classes.names());
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_file, Unit::Line, m_line, problem);
    }

    // One line before @data; true when it is @data.
    bool headerLine(std::string_view t) {
        if (t.front() != '@')
            fail("expected @relation, @attribute or @data before the data, found " + io::quoted(t));
        const std::size_t blank = t.find_first_of(" \t");
        const std::string keyword = lower(t.substr(0, blank));
        const std::string_view rest =
            blank == std::string_view::npos ? std::string_view() : trim(t.substr(blank));
        if (keyword == "@relation") return false;
        if (keyword == "@attribute") {
            attribute(rest);
            return false;
        }
        if (keyword == "@data") {
            if (m_numeric == 0) fail("@data before any numeric @attribute");
            return true;
        }
        if (keyword == "@end")
            fail("relational (multivariate) ARFF is not supported; use the .ts file");
        fail("unknown header line " + io::quoted(t));
    }

    void attribute(std::string_view rest) {
        if (rest.empty()) fail("@attribute without a name");
        std::string_view name, type;
        if (isQuote(rest.front())) {
            const std::size_t close = rest.find(rest.front(), 1);
            if (close == std::string_view::npos)
                fail("@attribute name " + io::quoted(rest) + " is not closed");
            name = rest.substr(1, close - 1);
            type = trim(rest.substr(close + 1));
        } else {
            const std::size_t end = std::min(rest.find_first_of(" \t{"), rest.size());
            name = rest.substr(0, end);
            type = trim(rest.substr(end));
        }
        if (type.empty()) fail("@attribute " + io::quoted(name) + " has no type");
        // The class goes last by convention; a nominal attribute before a numeric one would
        // make the row layout ambiguous, so only the last may be nominal.
        if (m_hasClass)
            fail("@attribute " + io::quoted(name) + " follows the nominal attribute " +
                 io::quoted(m_className) + "; only the last attribute (the class) may be nominal");
        const std::string kind = lower(type.substr(0, type.find_first_of(" \t")));
        if (kind == "numeric" || kind == "real" || kind == "integer") {
            ++m_numeric;
            return;
        }
        if (type.front() == '{') {
            if (type.back() != '}')
                fail("nominal @attribute " + io::quoted(name) + " is not closed by '}'");
            std::vector<std::string_view> values;
            splitQuoted(type.substr(1, type.size() - 2), values);
            for (const auto value : values) {
                const std::string_view v = unquote(value);
                if (v.empty())
                    fail("nominal @attribute " + io::quoted(name) + " has an empty value");
                m_classes.add(canonicalLabel(v));
            }
            m_hasClass = true;
            m_className = std::string(name);
            return;
        }
        if (kind == "relational")
            fail("relational @attribute " + io::quoted(name) +
                 ": multivariate ARFF is not supported; use the .ts file");
        fail("@attribute " + io::quoted(name) + " has the type " + io::quoted(type) +
             ", which is not supported (numeric, real, integer or {nominal values})");
    }

    void dataLine(std::string_view t) {
        const std::string series = "series " + std::to_string(m_acc.lengths.size() + 1);
        if (t.front() == '{') fail(series + " is a sparse ARFF row, which is not supported");
        splitQuoted(t, m_tokens);
        const std::size_t expected = m_numeric + (m_hasClass ? 1 : 0);
        if (m_tokens.size() != expected)
            fail(series + " has " + std::to_string(m_tokens.size()) + " values, expected " +
                 std::to_string(expected) + " (one per @attribute)");

        // As in the UCR files, trailing '?' pad a shorter series; a gap inside is refused.
        std::size_t count = 0, firstMissing = 0;
        for (std::size_t k = 0; k < m_numeric; ++k) {
            const std::string_view token = unquote(m_tokens[k]);
            const std::string where = " at sample " + std::to_string(k + 1);
            if (token.empty()) fail(series + " has an empty value" + where);
            float v = 0;
            bool missing = token == "?";
            if (!missing) {
                if (!parseFloat(token, v))
                    fail(series + " has the value " + io::quoted(token) + where +
                         ", which is not a number (or is out of float range)");
                missing = std::isnan(v);
                if (std::isinf(v)) fail(series + " has an infinite value" + where);
            }
            if (missing) {
                if (firstMissing == 0) firstMissing = k + 1;
                continue;
            }
            if (firstMissing != 0)
                fail(series + " has a missing/NaN value at sample " + std::to_string(firstMissing) +
                     " followed by values (only trailing '?', as padding, are allowed)");
            m_acc.flat.push_back(v);
            ++count;
        }
        if (count == 0) fail(series + " has no values (all are missing)");
        if (count > UINT32_MAX) fail(series + " is longer than this program supports");
        m_acc.lengths.push_back(static_cast<std::uint32_t>(count));

        if (m_hasClass) {
            const std::string_view token = unquote(m_tokens.back());
            if (token.empty()) fail(series + " has an empty class value");
            // '?' is ARFF's unknown class: the series stays, unlabelled (-1).
            std::int32_t index = -1;
            if (token != "?") {
                index = m_classes.find(canonicalLabel(token));
                if (index < 0)
                    fail(series + " has the class " + io::quoted(token) +
                         ", which the nominal attribute " + io::quoted(m_className) +
                         " does not declare");
            }
            m_acc.labels.push_back(index);
        }
    }

    const std::string& m_file;
    std::size_t m_line = 0;
    std::size_t m_numeric = 0;
    bool m_hasClass = false;
    std::string m_className;
    ClassTable m_classes;
    SeriesAccumulator m_acc;
    std::vector<std::string_view> m_tokens;
};

}  // namespace

SeriesSet readArffText(const std::string& file, std::string_view text) {
    return ArffParser(file).parse(text);
}

}  // namespace detail

SeriesSet readArff(const std::filesystem::path& file) {
    const std::string bytes = readFileBytes(file);
    return detail::readArffText(file.string(), bytes);
}

}  // namespace cs::io
