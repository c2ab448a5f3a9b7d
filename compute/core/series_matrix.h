// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/series_set.h"

namespace cs {

/// One channel of chosen series as a rows x cols matrix of z-normalised values, for heat maps:
/// row r is series order[r], z-normalised over its true length (mean 0, standard deviation 1,
/// accumulated in double; a constant series gives 0s); samples past its length are NaN.
/// GlBufferLink::writeSeriesMatrix computes the same on the device.
struct SeriesMatrix {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::vector<float> values;  ///< rows x cols, row-major
};

/// Rows for a heat map of series: those with keep[i] != 0 (all when keep is empty), grouped by
/// class (class 0 first, unlabelled last), in series order within a class; at most maxRows,
/// picked evenly within each class's share when there are more.
std::vector<std::uint32_t> heatmapRows(const SeriesSet& series, std::span<const std::uint8_t> keep,
                                       std::size_t maxRows);

/// The z-normalised matrix of channel `channel` of series order[0], order[1], ...
SeriesMatrix seriesMatrix(const SeriesSet& series, std::span<const std::uint32_t> order,
                          std::size_t channel);

}  // namespace cs
