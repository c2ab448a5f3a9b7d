// SPDX-License-Identifier: MIT
#pragma once

// Internal to the series readers (ts, UCR, ARFF and their dispatch): the pieces they share.
// Not a public API: include only from compute/io/*_reader.cpp and series_readers.cpp.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compute/core/series_set.h"

namespace cs::io::detail {

/// Text without a leading UTF-8 byte-order mark.
std::string_view stripBom(std::string_view text);
/// ASCII lower case.
std::string lower(std::string_view s);
/// Integer-like numeric labels ("1", "1.0", "1.0000000e+00") become their integer text ("1"),
/// so that the same class is one class whatever the file's number format; other text is kept.
std::string canonicalLabel(std::string_view token);

/// Class names and their indices, as declared by a header or met in the data.
class ClassTable {
public:
    /// Index of name, added at the end when new.
    std::int32_t add(const std::string& name);
    /// Index of name, or -1.
    std::int32_t find(const std::string& name) const;
    std::size_t size() const { return m_names.size(); }
    const std::vector<std::string>& names() const { return m_names; }
    /// When every name is a number, orders them numerically and renumbers labels to match
    /// (-1 stays -1); otherwise keeps the order of declaration or first appearance.
    void sortNumeric(std::vector<std::int32_t>& labels);

private:
    std::vector<std::string> m_names;
    std::unordered_map<std::string, std::int32_t> m_index;
};

/// True when every name parses as a finite number.
bool allNumeric(const std::vector<std::string>& names);

/// Series as read, before padding: channel-major per series, each at its own true length.
struct SeriesAccumulator {
    std::size_t channels = 0;
    std::vector<float> flat;             ///< sum over series of channels * lengths[i]
    std::vector<std::uint32_t> lengths;  ///< true length per series
    std::vector<std::int32_t> labels;    ///< one per series, or empty (no labels in the file)
};

/// Pads the accumulated series to the longest and fills a SeriesSet (source = file).
/// Throws cs::InputError (about the file as a whole) when the set is empty or when padding
/// very unequal lengths would need far more memory than the values themselves.
SeriesSet assemble(const std::string& file, SeriesAccumulator&& acc,
                   std::vector<std::string> classNames);

/// Throws cs::InputError when n series of `channels` padded to `length` would be too large
/// next to the `actual` values they hold (see assemble).
void checkPadding(const std::string& file, std::size_t n, std::size_t channels, std::size_t length,
                  std::size_t actual);

/// The readers on text already in memory; `file` names it in errors and in source.
SeriesSet readTsText(const std::string& file, std::string_view text);
SeriesSet readUcrText(const std::string& file, std::string_view text);
SeriesSet readArffText(const std::string& file, std::string_view text);

}  // namespace cs::io::detail
