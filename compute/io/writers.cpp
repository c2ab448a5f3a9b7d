// SPDX-License-Identifier: MIT
#include "compute/io/writers.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <numeric>
#include <string>
#include <system_error>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/io/atomic_output.h"
#include "compute/io/npy.h"

namespace cs::io {
namespace {

// Text is formatted with to_chars into one buffer and handed to the file in large blocks:
// iostream formatting of tens of millions of numbers would dominate an export.
class CsvOut {
public:
    // A half-written export is worse than none: AtomicOutput leaves the old file (or none)
    // when an exception or a signal comes before finish().
    explicit CsvOut(const std::filesystem::path& file) : m_out(file) {
        m_buffer.reserve(kFlushAt + 256);
    }
    CsvOut(const CsvOut&) = delete;
    CsvOut& operator=(const CsvOut&) = delete;

    void header(std::string_view parameters, std::string_view columns) {
        m_buffer += "# ";
        // One header line, whatever the caller's text holds.
        for (char c : parameters)
            m_buffer += (c == '\n' || c == '\r') ? ' ' : c;
        m_buffer += '\n';
        m_buffer += columns;
        m_buffer += '\n';
    }
    template <typename T>
    void number(T value) {
        char text[64];
        const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
        m_buffer.append(text, ec == std::errc() ? end : text);
    }
    void put(char c) { m_buffer += c; }
    // Every text field of every writer goes through here. RFC 4180: a field holding a comma,
    // a quote or a line break is quoted, its quotes doubled; so is one with a blank at an end,
    // which readers that trim fields would lose.
    void field(std::string_view value) {
        const bool quote = value.find_first_of(",\"\r\n") != std::string_view::npos ||
                           (!value.empty() && (isBlank(value.front()) || isBlank(value.back())));
        if (!quote) {
            m_buffer += value;
            return;
        }
        m_buffer += '"';
        for (char c : value) {
            if (c == '"') m_buffer += '"';
            m_buffer += c;
        }
        m_buffer += '"';
    }
    void endRow() {
        m_buffer += '\n';
        if (m_buffer.size() >= kFlushAt) flush();
    }
    void finish() {
        flush();
        m_out.commit();
    }

private:
    static constexpr std::size_t kFlushAt = std::size_t(1) << 20;
    static bool isBlank(char c) { return c == ' ' || c == '\t'; }
    void flush() {
        m_out.write(m_buffer);
        m_buffer.clear();
    }

    AtomicOutput m_out;
    std::string m_buffer;
};

// The size check every writer makes before it opens the file.
void requireSize(const std::filesystem::path& file, std::string_view what, std::size_t size,
                 std::size_t expected) {
    if (size != expected)
        throw Error(file.string() + ": cannot write " + std::to_string(expected) + " rows from " +
                    std::to_string(size) + " " + std::string(what));
}

void requireRows(const std::filesystem::path& file, FileRows rows, std::size_t points) {
    if (!rows.rows.empty()) requireSize(file, "file rows", rows.rows.size(), points);
}

// Per-point rows of `width` values laid out by file row, the dropped rows `missing`.
template <typename T>
std::vector<T> byFileRow(const std::filesystem::path& file, std::span<const T> values,
                         std::size_t width, FileRows rows, T missing) {
    const std::size_t n = width == 0 ? 0 : values.size() / width;
    requireRows(file, rows, n);
    const std::size_t count = rows.rows.empty() ? n : rows.count;
    std::vector<T> out(count * width, missing);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t row = rows.of(i);
        if (row >= count)
            throw Error(file.string() + ": point " + std::to_string(i) + " has the file row " +
                        std::to_string(row) + ", past the " + std::to_string(count) + " rows");
        std::copy_n(values.data() + i * width, width, out.data() + row * width);
    }
    return out;
}

}  // namespace

void writeLabelsCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const std::uint8_t> isCore, std::string_view parameters,
                    FileRows rows) {
    if (!isCore.empty() && isCore.size() != labels.size())
        throw Error(file.string() + ": cannot write " + std::to_string(labels.size()) +
                    " labels with " + std::to_string(isCore.size()) + " core flags");
    requireRows(file, rows, labels.size());
    CsvOut out(file);
    // Once rows were dropped, a point's index (the legend's, the inspector's, the selection's)
    // and its file row differ: both are written, so that the labels of an organised cloud map
    // back to its pixels (row = y * width + x).
    const bool dropped = !rows.rows.empty();
    out.header(parameters, dropped ? "index,original_index,label,core" : "index,label,core");
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] == kNotRun) continue;  // a run on a selection did not reach it
        out.number(i);
        out.put(',');
        if (dropped) {
            out.number(rows.of(i));
            out.put(',');
        }
        out.number(labels[i]);
        out.put(',');
        out.put(!isCore.empty() && isCore[i] ? '1' : '0');
        out.endRow();
    }
    out.finish();
}

void writeLabelsNpy(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    FileRows rows) {
    const auto out = byFileRow(file, labels, 1, rows, kNotRead);
    writeNpy(file, std::span<const std::int32_t>(out), {out.size()});
}

namespace {

void requireGraph(const std::filesystem::path& file, std::size_t n, std::size_t k,
                  std::span<const std::int32_t> indices, std::span<const float> distances) {
    if (k != 0 && n > indices.size() / k)
        throw Error(file.string() + ": cannot write a kNN graph of " + std::to_string(n) + " x " +
                    std::to_string(k) + " from " + std::to_string(indices.size()) + " indices");
    if (indices.size() != n * k || distances.size() != n * k)
        throw Error(file.string() + ": cannot write a kNN graph of " + std::to_string(n) + " x " +
                    std::to_string(k) + " from " + std::to_string(indices.size()) +
                    " indices and " + std::to_string(distances.size()) + " distances");
}

// A neighbour's file row: its point's, when it is one of the n points (< 0: none).
std::int64_t targetRow(const std::filesystem::path& file, std::int32_t target, std::size_t n,
                       FileRows rows) {
    if (target < 0) return -1;
    if (std::size_t(target) >= n)
        throw Error(file.string() + ": neighbour " + std::to_string(target) +
                    " is not one of the " + std::to_string(n) + " points");
    return std::int64_t(rows.of(std::size_t(target)));
}

}  // namespace

void writeKnnEdgesCsv(const std::filesystem::path& file, std::size_t n, std::size_t k,
                      std::span<const std::int32_t> indices, std::span<const float> distances,
                      std::string_view parameters, FileRows rows) {
    requireGraph(file, n, k, indices, distances);
    requireRows(file, rows, n);
    CsvOut out(file);
    out.header(parameters, "source,target,distance");
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < k; ++j) {
            const std::int64_t target = targetRow(file, indices[i * k + j], n, rows);
            if (target < 0) continue;
            out.number(rows.of(i));
            out.put(',');
            out.number(target);
            out.put(',');
            out.number(distances[i * k + j]);
            out.endRow();
        }
    out.finish();
}

void writeKnnNpy(const std::filesystem::path& indicesFile,
                 const std::filesystem::path& distancesFile, std::size_t n, std::size_t k,
                 std::span<const std::int32_t> indices, std::span<const float> distances,
                 FileRows rows) {
    requireGraph(indicesFile, n, k, indices, distances);
    requireRows(indicesFile, rows, n);
    std::vector<std::int32_t> targets(indices.size());
    for (std::size_t e = 0; e < indices.size(); ++e) {
        const std::int64_t row = targetRow(indicesFile, indices[e], n, rows);
        if (row > std::numeric_limits<std::int32_t>::max())
            throw Error(indicesFile.string() + ": file row " + std::to_string(row) +
                        " does not fit the int32 indices");
        targets[e] = std::int32_t(row);
    }
    const auto byRow = byFileRow(indicesFile, std::span<const std::int32_t>(targets), k, rows, -1);
    const auto distancesByRow =
        byFileRow(distancesFile, distances, k, rows, std::numeric_limits<float>::quiet_NaN());
    const std::size_t count = k == 0 ? 0 : byRow.size() / k;
    writeNpy(indicesFile, std::span<const std::int32_t>(byRow), {count, k});
    writeNpy(distancesFile, std::span<const float>(distancesByRow), {count, k});
}

void writeKDistanceCsv(const std::filesystem::path& file, std::span<const float> perPoint,
                       std::string_view parameters, FileRows rows) {
    requireRows(file, rows, perPoint.size());
    std::vector<std::size_t> order(perPoint.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return perPoint[a] < perPoint[b]; });
    CsvOut out(file);
    out.header(parameters, "rank,index,distance");
    for (std::size_t r = 0; r < order.size(); ++r) {
        out.number(r + 1);
        out.put(',');
        out.number(rows.of(order[r]));
        out.put(',');
        out.number(perPoint[order[r]]);
        out.endRow();
    }
    out.finish();
}

void writeKShapeCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const float> distances, std::span<const std::int32_t> shifts,
                    std::string_view parameters) {
    requireSize(file, "distances", distances.size(), labels.size());
    requireSize(file, "shifts", shifts.size(), labels.size());
    CsvOut out(file);
    out.header(parameters, "index,label,distance,shift");
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] == kNotRun) continue;  // a run on a selection did not reach it
        out.number(i);
        out.put(',');
        out.number(labels[i]);
        out.put(',');
        out.number(distances[i]);
        out.put(',');
        out.number(shifts[i]);
        out.endRow();
    }
    out.finish();
}

void writePredictionsCsv(const std::filesystem::path& file, std::span<const std::uint8_t> isTest,
                         std::span<const std::int32_t> labels,
                         std::span<const std::int32_t> predicted,
                         std::span<const std::string> classNames, std::string_view parameters) {
    if (!labels.empty()) requireSize(file, "true labels", labels.size(), predicted.size());
    if (!isTest.empty()) requireSize(file, "split flags", isTest.size(), predicted.size());
    CsvOut out(file);
    out.header(parameters, "index,split,label,predicted");
    auto name = [&](std::int32_t label) {
        if (label < 0) return;
        if (std::size_t(label) < classNames.size())
            out.field(classNames[std::size_t(label)]);
        else
            out.number(label);
    };
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        if (predicted[i] == kNotRun) continue;  // a run on a selection did not reach it
        out.number(i);
        out.put(',');
        out.field(!isTest.empty() && isTest[i] ? "test" : "train");
        out.put(',');
        name(labels.empty() ? -1 : labels[i]);
        out.put(',');
        name(predicted[i]);
        out.endRow();
    }
    out.finish();
}

void writeFileBytes(const std::filesystem::path& file, std::string_view bytes) {
    AtomicOutput out(file);
    out.write(bytes);
    out.commit();
}

}  // namespace cs::io
