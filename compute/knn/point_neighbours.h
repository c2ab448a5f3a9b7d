// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/point_set.h"

namespace cs {

/// One neighbour of a point: its index among the points and its distance in the data's units.
struct Neighbour {
    std::size_t index = 0;  ///< the neighbour's point index (not its file row)
    float distance = 0.0f;  ///< Euclidean, as the kNN graph measures it
};

/// The `count` nearest other points of point `query`, exactly: the kNN graph's definition
/// (compute/knn/knn_graph.h) for one row, nearest first, ties to the lower index, canonicalDist2
/// in the recentred frame (recentredCoords) brought back to the data's units. A brute-force
/// scan over all n points in parallel chunks, O(n d) with no index to build: tens of
/// milliseconds for 10M points, so it belongs on a worker thread, never the GUI's. count is
/// clamped to n - 1. Throws cs::Error when query >= n, cs::Cancelled when job is cancelled.
/// @code
/// auto near = cs::nearestNeighbours(points, 42, 10, &job);  // near[0] is the closest
/// @endcode
std::vector<Neighbour> nearestNeighbours(const PointSet& points, std::size_t query,
                                         std::size_t count, JobControl* job = nullptr);

}  // namespace cs
