// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cs {

/// N series × C channels × L samples, float32, channel-major per series:
/// sample t of channel c of series i is values[(i * channels + c) * length + t].
/// length is the longest series; shorter ones keep their true length in lengths[i] and are
/// padded with zeros after it.
/// @code
/// const cs::SeriesSet& s = ...;
/// std::span<const float> x = s.channel(i, 0).first(s.lengths[i]);
/// @endcode
struct SeriesSet {
    std::size_t n = 0;                      ///< number of series
    std::size_t channels = 0;               ///< channels per series (1 = univariate)
    std::size_t length = 0;                 ///< samples per channel of the longest series
    std::vector<float> values;              ///< n * channels * length values, zero-padded
    std::vector<std::uint32_t> lengths;     ///< true length of each series (n entries)
    std::vector<std::int32_t> labels;       ///< class index per series (-1 unknown), or empty
    std::vector<std::string> classNames;    ///< name of each class index, as in the file
    std::vector<double> targets;            ///< regression target per series (NaN unknown) or empty
    std::vector<std::uint8_t> isTest;       ///< 1 for the test part of a split, or empty (no split)
    std::vector<std::string> channelNames;  ///< optional, one per channel
    std::string source;                     ///< file path(s), or "demo:..." for generated data
    std::vector<std::string> notes;         ///< what the reader accepted but ignored or changed

    /// Samples of channel c of series i (length entries; those past lengths[i] are padding).
    std::span<const float> channel(std::size_t i, std::size_t c) const {
        return {values.data() + (i * channels + c) * length, length};
    }
    /// True when every series has the full length.
    bool equalLength() const;
    /// Number of distinct classes (classNames.size()).
    std::size_t classCount() const { return classNames.size(); }
    /// Throws cs::Error naming the first inconsistency (sizes, lengths, labels, non-finite).
    void validate() const;
};

}  // namespace cs
