// SPDX-License-Identifier: MIT
#include "compute/io/writers.h"

#include <charconv>
#include <string>
#include <system_error>

#include "compute/core/error.h"
#include "compute/io/atomic_output.h"

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
    void text(std::string_view value) { m_buffer += value; }
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

}  // namespace

void writeLabelsCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const std::uint8_t> isCore, std::string_view parameters) {
    if (!isCore.empty() && isCore.size() != labels.size())
        throw Error(file.string() + ": cannot write " + std::to_string(labels.size()) +
                    " labels with " + std::to_string(isCore.size()) + " core flags");
    CsvOut out(file);
    out.header(parameters, "index,label,core");
    for (std::size_t i = 0; i < labels.size(); ++i) {
        out.number(i);
        out.put(',');
        out.number(labels[i]);
        out.put(',');
        out.put(!isCore.empty() && isCore[i] ? '1' : '0');
        out.endRow();
    }
    out.finish();
}

void writeKnnEdgesCsv(const std::filesystem::path& file, std::size_t n, std::size_t k,
                      std::span<const std::int32_t> indices, std::span<const float> distances,
                      std::string_view parameters) {
    if (k != 0 && n > indices.size() / k)
        throw Error(file.string() + ": cannot write a kNN graph of " + std::to_string(n) + " x " +
                    std::to_string(k) + " from " + std::to_string(indices.size()) + " indices");
    if (indices.size() != n * k || distances.size() != n * k)
        throw Error(file.string() + ": cannot write a kNN graph of " + std::to_string(n) + " x " +
                    std::to_string(k) + " from " + std::to_string(indices.size()) +
                    " indices and " + std::to_string(distances.size()) + " distances");
    CsvOut out(file);
    out.header(parameters, "source,target,distance");
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < k; ++j) {
            const std::int32_t target = indices[i * k + j];
            if (target < 0) continue;
            out.number(i);
            out.put(',');
            out.number(target);
            out.put(',');
            out.number(distances[i * k + j]);
            out.endRow();
        }
    out.finish();
}

void writeKDistanceCsv(const std::filesystem::path& file, std::span<const float> sorted,
                       std::string_view parameters) {
    CsvOut out(file);
    out.header(parameters, "rank,distance");
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        out.number(i + 1);
        out.put(',');
        out.number(sorted[i]);
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
            out.text(classNames[std::size_t(label)]);
        else
            out.number(label);
    };
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        out.number(i);
        out.put(',');
        out.text(!isTest.empty() && isTest[i] ? "test" : "train");
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
