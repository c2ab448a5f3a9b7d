// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/dbscan/cluster_paint.h"

namespace cs::ui {

/// Palette slotOf for the clusters of a clustering, stable across re-runs: a cluster that
/// persists when a parameter moves a little keeps its colour. New clusters are matched to the
/// previous run's by overlap, greedily by the largest intersection (each old slot used once);
/// unmatched new clusters take the lowest unused slotOf, largest cluster first. Plain C++: the
/// GUI maps slot i to ColourMaps::categorical(i).
/// @code
/// auto slotOf = cs::ui::matchClusterSlots(prevLabels, prevSlots, result.labels,
/// result.clusterCount);
/// @endcode
/// prevLabels: the previous run's labels (empty for a first run; otherwise the same length as
/// labels); prevSlots: its slot per cluster id; labels: -1 for noise, else 0 .. clusterCount-1.
/// Returns one slot per cluster id. O(N) time, counting (old, new) pairs on all cores.
std::vector<int> matchClusterSlots(std::span<const std::int32_t> prevLabels,
                                   std::span<const int> prevSlots,
                                   std::span<const std::int32_t> labels, int clusterCount);
/// The same, with the new clusters' sizes (clusterSizes(labels, count)) already known.
std::vector<int> matchClusterSlots(std::span<const std::int32_t> prevLabels,
                                   std::span<const int> prevSlots,
                                   std::span<const std::int32_t> labels,
                                   std::span<const std::size_t> sizes);

/// Members per cluster id (labels -1 are not counted).
std::vector<std::size_t> clusterSizes(std::span<const std::int32_t> labels, int clusterCount);

/// Which point classes are drawn.
struct ClusterVisibility {
    bool core = true;    ///< core points
    bool border = true;  ///< non-core members of a cluster
    bool noise = true;   ///< points labelled -1
};

/// The paint rule (compute/dbscan/cluster_paint.h) for a clustering whose cluster c takes
/// slotColours[slotOf[c]] (noise when it has no valid slot), with these classes shown.
cs::ClusterPaint clusterPaint(std::span<const int> slotOf,
                              std::span<const std::uint32_t> slotColours, std::uint32_t noise,
                              ClusterVisibility visibility);

}  // namespace cs::ui
