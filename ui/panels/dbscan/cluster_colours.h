// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/point_quantities.h"
#include "compute/dbscan/cluster_overlap.h"

namespace cs::ui {

/// Palette slots for the clusters of a clustering, stable across re-runs: a cluster that
/// persists when a parameter moves a little keeps its colour. New clusters are matched to the
/// previous run's by overlap (cs::clusterOverlap, or Backend::clusterOverlap on the device),
/// greedily by the largest intersection (each old slot used once); unmatched new clusters take
/// the lowest unused slot, largest cluster first. The GUI maps slot i to
/// ColourMaps::categorical(i).
/// @code
/// auto slotOf = cs::ui::matchClusterSlots(backend.clusterOverlap(prev, now, job), prevSlots,
///                                         now.stats.clusterSizes);
/// @endcode
/// overlap: cells (a = previous cluster id, b = new cluster id) in any order, empty for a first
/// run; prevSlots: the previous run's slot per cluster id; sizes: members per new cluster id.
/// Returns one slot per new cluster id. O(cells + clusters): radix sorts of packed keys.
std::vector<int> matchClusterSlots(std::span<const ClusterOverlap> overlap,
                                   std::span<const int> prevSlots,
                                   std::span<const std::size_t> sizes);
/// The same from labels (-1 noise, else 0 .. clusterCount-1; prevLabels empty for a first run).
std::vector<int> matchClusterSlots(std::span<const std::int32_t> prevLabels,
                                   std::span<const int> prevSlots,
                                   std::span<const std::int32_t> labels, int clusterCount);

/// The ids of the `count` largest clusters (sizes: members per cluster id), largest first,
/// ties by the lower id: the order a stable sort by size gives, in O(clusters) rather than
/// O(clusters log clusters) (a 30M-point cloud has over 100,000 clusters, and the legend wants
/// a dozen).
std::vector<std::int32_t> largestClusters(std::span<const std::size_t> sizes, std::size_t count);

/// Which point classes are drawn.
struct ClusterVisibility {
    bool core = true;    ///< core points
    bool border = true;  ///< non-core members of a cluster
    bool noise = true;   ///< points labelled -1
};

/// The paint rule (cs::CategoryPaint) for a clustering whose cluster c takes
/// slotColours[slotOf[c]] (noise when it has no valid slot), with these classes shown.
cs::CategoryPaint clusterPaint(std::span<const int> slotOf,
                               std::span<const std::uint32_t> slotColours, std::uint32_t noise,
                               ClusterVisibility visibility);

/// True when colours show exactly the partition of labels (-1 noise): every point of a
/// cluster, and every noise point, has its class's one colour, and no two classes share one.
/// Label numbering and palette slots do not matter. What the slider drag test and --measure's
/// drag check the colours on screen against.
bool coloursShowLabels(std::span<const std::uint32_t> colours,
                       std::span<const std::int32_t> labels);

/// True when colours are exactly the run's, point by point: a member of cluster c has
/// slotColours[slotOf[c]], and the noise points (and clusters without a valid slot) share one
/// colour. Unlike coloursShowLabels it holds with more clusters than palette colours (slots
/// repeat colours), so --measure's drag checks the screen of a big cloud with it.
bool coloursShowRun(std::span<const std::uint32_t> colours, std::span<const std::int32_t> labels,
                    std::span<const int> slotOf, std::span<const std::uint32_t> slotColours);

}  // namespace cs::ui
