// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cs {

/// Points that cluster a of one clustering and cluster b of another (of the same points) share:
/// one cell of their contingency table.
struct ClusterOverlap {
    std::int32_t a = 0;
    std::int32_t b = 0;
    std::uint64_t points = 0;
    friend bool operator==(const ClusterOverlap&, const ClusterOverlap&) = default;
};

/// The non-empty cells of the contingency table of two clusterings of the same points, sorted
/// by (a, b): labels outside [0, countA) and [0, countB) (noise) are left out. O(N) on all
/// cores (per-thread open-addressing tables of the pairs, merged). Backend::clusterOverlap runs
/// it where the labels live.
std::vector<ClusterOverlap> clusterOverlap(std::span<const std::int32_t> a, int countA,
                                           std::span<const std::int32_t> b, int countB);

/// Members per cluster id (labels outside [0, clusterCount) are not counted).
std::vector<std::size_t> clusterSizes(std::span<const std::int32_t> labels, int clusterCount);

}  // namespace cs
