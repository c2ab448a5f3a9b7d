// SPDX-License-Identifier: MIT
#pragma once

// What the point view draws, whichever algorithm made it (polyscope's model: a structure carries
// named quantities, views draw quantities): per-point categories with a paint rule (clusters,
// classes), and edges from every point to k others with a value per edge (a kNN graph). An
// algorithm adapts its result to these in its own folder (dbscan_quantities.h,
// knn_quantities.h); the views and the GL interop know only these.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/point_set.h"

namespace cs {

/// How per-point categories become colours (packed RGBA8, r | g << 8 | b << 16 | a << 24): a
/// member takes its category's colour, a point in no category (label -1) takes noneRgba, and a
/// hidden role gets alpha 0 (not drawn). Members are primary or secondary (DBSCAN: core or
/// border). One rule, two implementations: paintCategories below on the host and the GL interop
/// kernel (kernels/interop) on the device, byte for byte the same.
struct CategoryPaint {
    std::vector<std::uint32_t> categoryRgba;  ///< colour per category (0 .. count-1)
    std::uint32_t noneRgba = 0;               ///< colour of points in no category
    bool showPrimary = true;                  ///< draw primary members (core points)
    bool showSecondary = true;                ///< draw the other members (border points)
    bool showNone = true;                     ///< draw points in no category (noise)

    /// The colour of a point with this label and role; labels without an entry in
    /// categoryRgba count as none.
    std::uint32_t colourOf(std::int32_t label, bool primary) const {
        if (label < 0 || std::uint64_t(label) >= categoryRgba.size())
            return showNone ? noneRgba : 0u;
        if (!(primary ? showPrimary : showSecondary)) return 0u;
        return categoryRgba[std::size_t(label)];
    }
};

/// Per-point colours by paint.colourOf(labels[i], primary[i]); primary may be empty (every
/// member counts as primary).
std::vector<std::uint32_t> paintCategories(std::span<const std::int32_t> labels,
                                           std::span<const std::uint8_t> primary,
                                           const CategoryPaint& paint);

/// A category per point (a clustering, classes), in the points' order.
struct PointCategories {
    std::span<const std::int32_t> labels;   ///< category per point, -1: none
    std::span<const std::uint8_t> primary;  ///< 1 for primary members; empty: all primary
    /// The labels and flags on the accelerator (a backend's device categories), for painting
    /// through GL interop; null when they are on the host only.
    std::shared_ptr<const DeviceResident> device;
    std::shared_ptr<const void> owner;  ///< keeps labels and primary alive

    std::size_t size() const { return labels.size(); }
    explicit operator bool() const { return owner != nullptr; }
};

/// Edges from every point to k others, with a value per edge, in the points' order.
struct PointEdges {
    std::size_t n = 0;                      ///< points
    int k = 0;                              ///< edges per point
    std::span<const std::int32_t> targets;  ///< n x k: row i holds point i's targets
    std::span<const float> values;          ///< n x k: a value per edge (a distance)
    std::string valueName;                  ///< what the values are: "kNN distance"
    /// The targets on the accelerator (a backend's device edges), for writing the element
    /// buffer through GL interop; null when they are on the host only.
    std::shared_ptr<const DeviceResident> device;
    std::shared_ptr<const void> owner;  ///< keeps targets and values alive
    /// edgeLengthSample() of these edges over the points they are drawn on, measured where the
    /// edges were made (a worker thread); null: whoever needs it measures it.
    std::shared_ptr<const std::vector<float>> lengthSample;

    std::size_t edgeCount() const { return targets.size(); }
    explicit operator bool() const { return owner != nullptr; }
};

/// Edges measured for the point view's length colours, filter and legend: every edge up to this
/// many, an even sample beyond (a sample of 2^22 took 325 ms for each new graph of 1M points,
/// k = 10, on the H200 machine's processor).
inline constexpr std::size_t kEdgeLengthSample = std::size_t(1) << 16;

/// The lengths of an even sample of the edges (every step-th, step = max(1, edges / most)) in
/// the points' units, over their first min(d, 3) coordinates (what the point view draws); edges
/// without a target (< 0 or >= n) and lengths that are not finite are left out. Empty when the
/// edges are not of these points (another n).
/// @code edges.lengthSample = std::make_shared<const std::vector<float>>(
///     cs::edgeLengthSample(edges, *points)); @endcode
std::vector<float> edgeLengthSample(const PointEdges& edges, const PointSet& points,
                                    std::size_t most = kEdgeLengthSample);

/// The edges as GL_LINES index pairs: for point i and slot c, word 2 (i k + c) is i and the
/// next word targets[i k + c] (i itself where the target is < 0: no neighbour, no line).
std::vector<std::uint32_t> edgeIndexPairs(const PointEdges& edges);

}  // namespace cs
