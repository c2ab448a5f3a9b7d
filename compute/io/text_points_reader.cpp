// SPDX-License-Identifier: MIT
// CSV / TSV / semicolon / whitespace point tables (readPointsText), and the same machinery for
// `.xyz` files (readXyz in point_readers.cpp).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compute/core/error.h"
#include "compute/io/point_common.h"
#include "compute/io/point_readers.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace detail {
namespace {

bool isBlank(char c) {
    return c == ' ' || c == '\t';
}

bool isContent(std::string_view line) {
    line = trim(line);
    return !line.empty() && line.front() != '#';
}

std::string_view unquote(std::string_view s) {
    s = trim(s);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    return s;
}

// Index just past the quote closing the one at `open` ("" inside is an escaped quote), or the
// end of the line when it is never closed.
std::size_t pastQuote(std::string_view line, std::size_t open) {
    std::size_t i = open + 1;
    while (i < line.size()) {
        if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        ++i;
    }
    return line.size();
}

// Splits a line into fields; delim ' ' means runs of blanks. The quote-aware path is taken only
// for lines holding a quote, so that plain numeric rows stay a memchr per field.
void splitFields(std::string_view line, char delim, std::vector<std::string_view>& out) {
    out.clear();
    const bool quotes = line.find('"') != std::string_view::npos;
    const std::size_t n = line.size();
    std::size_t i = 0;
    if (delim == ' ') {
        while (true) {
            while (i < n && isBlank(line[i]))
                ++i;
            if (i >= n) return;
            const std::size_t start = i;
            while (i < n && !isBlank(line[i]))
                i = quotes && line[i] == '"' ? pastQuote(line, i) : i + 1;
            out.push_back(line.substr(start, i - start));
        }
    }
    std::size_t start = 0;
    while (true) {
        if (quotes) {
            i = start;
            while (i < n && line[i] != delim)
                i = line[i] == '"' ? pastQuote(line, i) : i + 1;
        } else {
            i = line.find(delim, start);
            if (i == std::string_view::npos) i = n;
        }
        out.push_back(line.substr(start, i - start));
        if (i >= n) return;
        start = i + 1;
    }
}

std::size_t countOutsideQuotes(std::string_view line, char c) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < line.size();) {
        if (line[i] == '"') {
            i = pastQuote(line, i);
            continue;
        }
        count += line[i] == c;
        ++i;
    }
    return count;
}

// The delimiter that occurs on the first content line and, when there is one, equally often on
// the second; failing that the first that occurs at all (the ragged row is then reported).
char detectDelimiter(std::string_view first, std::string_view second, bool hasSecond) {
    static constexpr char kCandidates[] = {'\t', ',', ';'};
    char fallback = ' ';
    for (char c : kCandidates) {
        const std::size_t count = countOutsideQuotes(first, c);
        if (count == 0) continue;
        if (!hasSecond || countOutsideQuotes(second, c) == count) return c;
        if (fallback == ' ') fallback = c;
    }
    return fallback;
}

std::string describeDelimiter(char delim) {
    switch (delim) {
        case ',':
            return "comma-separated ";
        case '\t':
            return "tab-separated ";
        case ';':
            return "semicolon-separated ";
        default:
            return "";
    }
}

bool isNumber(std::string_view field) {
    float v;
    return parseFloat(unquote(field), v);
}

struct Column {
    enum class Role { Coord, Scalar, Label };
    std::string name;
    Role role = Role::Coord;
    std::size_t slot = 0;  // index among the columns of its role
};

// Categories of one label column, keyed by their text in the file.
struct LabelColumn {
    std::unordered_map<std::string_view, std::int32_t> index;
    std::vector<std::string_view> names;  // in order of first appearance
    std::vector<std::int32_t> values;     // per kept row
};

// Numeric labels ("3", "1", "2.0") are ordered by value, so that category k means the k-th
// smallest class, as users of numbered ground truth expect; equal values ("2", "2.0") merge.
void finishLabels(LabelColumn& column, PointAttribute& attribute) {
    std::vector<double> numbers(column.names.size());
    bool numeric = !column.names.empty();
    for (std::size_t k = 0; k < column.names.size() && numeric; ++k)
        numeric = parseDouble(column.names[k], numbers[k]) && std::isfinite(numbers[k]);
    if (!numeric) {
        for (auto name : column.names)
            attribute.categories.emplace_back(name);
        attribute.labels = std::move(column.values);
        return;
    }
    std::vector<std::int32_t> order(column.names.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = std::int32_t(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int32_t a, std::int32_t b) { return numbers[a] < numbers[b]; });
    std::vector<std::int32_t> remap(order.size());
    for (std::size_t r = 0; r < order.size(); ++r) {
        if (r == 0 || numbers[order[r]] != numbers[order[r - 1]])
            attribute.categories.emplace_back(column.names[order[r]]);
        remap[order[r]] = std::int32_t(attribute.categories.size() - 1);
    }
    attribute.labels = std::move(column.values);
    for (auto& v : attribute.labels)
        if (v >= 0) v = remap[v];
}

}  // namespace

PointSet readTextPointsBytes(const std::string& file, std::string_view bytes, TextLayout layout) {
    if (bytes.empty()) throw InputError(file, "is empty");
    if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);  // spreadsheet BOM

    LineCursor cursor(bytes);
    const auto nextContent = [](LineCursor& c, std::string_view& line) {
        while (c.next(line))
            if (isContent(line)) return true;
        return false;
    };
    std::string_view first;
    if (!nextContent(cursor, first))
        throw InputError(file, "holds no data, only blank or comment lines");
    const std::size_t firstLine = cursor.lineNumber();
    LineCursor peek = cursor;
    std::string_view second;
    const bool hasSecond = nextContent(peek, second);

    const char delim = detectDelimiter(first, second, hasSecond);
    std::vector<std::string_view> fields;
    fields.reserve(64);
    splitFields(first, delim, fields);
    const std::size_t columnCount = fields.size();
    std::vector<bool> text(columnCount);
    std::size_t textCount = 0;
    for (std::size_t j = 0; j < columnCount; ++j) {
        text[j] = !isNumber(fields[j]);
        textCount += text[j];
    }

    // A first line with a word in it is a header, except in headerless files with one class
    // column (UCI style "5.1,3.5,1.4,0.2,Iris-setosa"), recognised by the next line having its
    // words in the same column.
    bool header = textCount > 0;
    std::size_t textColumn = columnCount;
    if (header && textCount == 1 && textCount < columnCount && hasSecond) {
        std::vector<std::string_view> next;
        splitFields(second, delim, next);
        bool same = next.size() == columnCount;
        for (std::size_t j = 0; j < columnCount && same; ++j)
            same = isNumber(next[j]) != text[j];
        if (same) {
            header = false;
            textColumn = std::size_t(std::find(text.begin(), text.end(), true) - text.begin());
        }
    }

    std::vector<Column> columns(columnCount);
    std::size_t coordCount = 0, scalarCount = 0, labelCount = 0;
    for (std::size_t j = 0; j < columnCount; ++j) {
        Column& c = columns[j];
        bool label = j == textColumn;
        if (header) {
            c.name = std::string(unquote(fields[j]));
            const std::string lower = lowerAscii(c.name);
            label = lower == "label" || lower == "class";
        }
        if (label) {
            c.role = Column::Role::Label;
            c.slot = labelCount++;
            if (c.name.empty()) c.name = "label";
        } else if (layout == TextLayout::Table || coordCount < 3) {
            c.role = Column::Role::Coord;
            c.slot = coordCount++;
        } else {
            c.role = Column::Role::Scalar;
            c.slot = scalarCount++;
        }
    }
    if (coordCount == 0)
        throw InputError(file, InputError::Unit::Line, firstLine, "has no numeric columns");
    if (layout == TextLayout::Xyz && coordCount < 3)
        throw InputError(file, InputError::Unit::Line, firstLine,
                         "has " + std::to_string(coordCount) +
                             " numeric columns; an .xyz file needs at least x y z");
    static const char* kAxes[] = {"x", "y", "z"};
    for (std::size_t j = 0; j < columnCount; ++j) {
        Column& c = columns[j];
        if (!c.name.empty()) continue;
        if (c.role == Column::Role::Coord)
            c.name = coordCount <= 3 ? kAxes[c.slot] : "c" + std::to_string(c.slot);
        else
            c.name = "column" + std::to_string(j + 1);
    }

    PointSet set;
    set.source = file;
    set.dims = coordCount;
    // Rows are bounded by the line count, which the buffer itself bounds.
    const std::size_t rowEstimate =
        std::size_t(
            std::count(bytes.begin() + std::ptrdiff_t(cursor.offset()), bytes.end(), '\n')) +
        2;
    set.coords.reserve(rowEstimate * coordCount);
    std::vector<std::vector<float>> scalars(scalarCount);
    for (auto& s : scalars)
        s.reserve(rowEstimate);
    std::vector<LabelColumn> labels(labelCount);
    for (auto& l : labels)
        l.values.reserve(rowEstimate);

    std::vector<float> coords(coordCount);
    std::vector<float> scalarRow(scalarCount);
    const auto where = header ? " (as in the header on line " + std::to_string(firstLine) + ")"
                              : " (as on line " + std::to_string(firstLine) + ")";
    const auto parseRow = [&](std::string_view line, std::size_t lineNo) {
        splitFields(line, delim, fields);
        if (fields.size() != columnCount)
            throw InputError(file, InputError::Unit::Line, lineNo,
                             "has " + std::to_string(fields.size()) + " " +
                                 describeDelimiter(delim) + "fields, expected " +
                                 std::to_string(columnCount) + where);
        bool finite = true;
        for (std::size_t j = 0; j < columnCount; ++j) {
            const Column& c = columns[j];
            if (c.role == Column::Role::Label) continue;
            float v;
            if (!parseFloat(fields[j], v) && !parseFloat(unquote(fields[j]), v)) {
                const std::string_view token = unquote(fields[j]);
                throw InputError(file, InputError::Unit::Line, lineNo,
                                 "column " + std::to_string(j + 1) + " ('" + c.name + "') " +
                                     (token.empty() ? std::string("is empty")
                                                    : io::quoted(token) + " is not a number"));
            }
            if (c.role == Column::Role::Coord) {
                coords[c.slot] = v;
                finite = finite && std::isfinite(v);
            } else {
                scalarRow[c.slot] = v;
            }
        }
        countRow(set, set.n, finite);
        if (!finite) return;
        set.coords.insert(set.coords.end(), coords.begin(), coords.end());
        for (std::size_t s = 0; s < scalarCount; ++s)
            scalars[s].push_back(scalarRow[s]);
        for (std::size_t j = 0; j < columnCount; ++j) {
            if (columns[j].role != Column::Role::Label) continue;
            LabelColumn& l = labels[columns[j].slot];
            const std::string_view key = unquote(fields[j]);
            if (key.empty()) {
                l.values.push_back(-1);
                continue;
            }
            auto it = l.index.find(key);
            if (it == l.index.end()) {
                if (l.names.size() >= std::size_t(std::numeric_limits<std::int32_t>::max()))
                    throw InputError(file, InputError::Unit::Line, lineNo, "has too many classes");
                it = l.index.emplace(key, std::int32_t(l.names.size())).first;
                l.names.push_back(key);
            }
            l.values.push_back(it->second);
        }
        ++set.n;
    };

    if (!header) parseRow(first, firstLine);
    std::string_view line;
    while (nextContent(cursor, line))
        parseRow(line, cursor.lineNumber());
    if (set.n == 0 && set.droppedNonFinite == 0)
        throw InputError(file, InputError::Unit::Line, firstLine,
                         "has a header line but no data rows");
    requirePoints(set, file);

    for (const Column& c : columns) {
        if (c.role == Column::Role::Coord) set.dimNames.push_back(c.name);
        if (c.role == Column::Role::Coord) continue;
        PointAttribute a;
        a.name = c.name;
        if (c.role == Column::Role::Scalar) {
            a.kind = PointAttribute::Kind::Scalar;
            a.scalars = std::move(scalars[c.slot]);
        } else {
            a.kind = PointAttribute::Kind::Label;
            finishLabels(labels[c.slot], a);
        }
        set.attributes.push_back(std::move(a));
    }
    return set;
}

}  // namespace detail

PointSet readPointsText(const std::filesystem::path& file) {
    const std::string name = file.string();
    return detail::readTextPointsBytes(name, readFileBytes(file), detail::TextLayout::Table);
}

}  // namespace cs::io
