// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/geometry.h"
#include "compute/core/job_control.h"
#include "compute/core/point_set.h"

namespace cs {

// DBSCAN semantics shared by every backend (both give byte-identical label arrays):
//  - a point is core if at least minPts points lie within distance eps of it, itself included
//    (dist <= eps, as scikit-learn);
//  - clusters are the connected components of core points under "within eps";
//  - a non-core point within eps of a core point is a border point and joins the cluster of its
//    nearest core point (ties: the lowest index); with `star` (DBSCAN*) border points are noise;
//  - noise is -1; cluster ids are canonical: numbered 0, 1, ... in the order of the smallest
//    point index each cluster contains (border points included).
// Distances are tested on recentredCoords() with canonicalDist2() <= epsSquared(toRecentred(eps,
// scale)) (compute/core/geometry.h), so the float rounding is the same everywhere and the result
// the same at any scale of the data.

/// How DBSCAN finds neighbours.
enum class DbscanPath {
    Auto,    ///< the backend chooses from d, N and density
    Grid,    ///< uniform grid of side eps (d <= 3); dense cells taken as all-core at once
    Brute,   ///< all pairs, tiled (the seed paper's kernel on the GPU); any d
    KdTree,  ///< kd-tree radius search (CPU, d > 3)
};

/// DBSCAN parameters.
struct DbscanParams {
    float eps = 1.0f;   ///< neighbourhood radius (>= 0; finite)
    int minPts = 10;    ///< neighbours within eps, itself included, to be core (>= 1)
    bool star = false;  ///< DBSCAN*: border points become noise
    DbscanPath path = DbscanPath::Auto;  ///< neighbour search; Auto lets the backend choose
};

/// Counts that the statistics panel and the CLI report.
struct DbscanStats {
    std::size_t corePoints = 0;      ///< points with >= minPts neighbours
    std::size_t borderPoints = 0;    ///< non-core points assigned to a cluster
    std::size_t noisePoints = 0;     ///< points labelled -1
    std::size_t largestCluster = 0;  ///< members of the biggest cluster (0 when none)
    /// Members per cluster id (clusterCount entries; the same as cs::clusterSizes of the
    /// labels): the backends count them anyway, so that the GUI's colour matching need not.
    std::vector<std::size_t> clusterSizes;
};

/// DBSCAN output for N points.
struct DbscanResult {
    std::vector<std::int32_t> labels;        ///< canonical cluster id per point, -1 = noise
    std::vector<std::uint8_t> isCore;        ///< 1 for core points
    std::int32_t clusterCount = 0;           ///< clusters, ids 0 .. clusterCount-1
    DbscanStats stats;                       ///< counts derived from labels and isCore
    DbscanPath pathUsed = DbscanPath::Auto;  ///< the neighbour search that actually ran
    /// Labels and core flags as the backend left them in device memory (the CUDA backend), for
    /// views that paint through GL interop; null on the CPU. Not part of the result's value.
    std::shared_ptr<const DeviceResident> device;
};

/// The k-distance curve for choosing eps: the distance from each point to its k-th nearest
/// point, counting the point itself (so with k = minPts a point is core iff kDist <= eps).
struct KDistanceResult {
    std::vector<float> perPoint;  ///< in point order
    std::vector<float> sorted;    ///< the same values sorted ascending
};

/// eps^2 as every backend compares it.
inline float epsSquared(float eps) {
    return eps * eps;
}

/// Throws cs::Error when eps is negative or not finite, or minPts < 1.
void validateDbscanParams(const DbscanParams& params);

/// Renumbers cluster ids canonically (by smallest member index; -1 stays) and fills
/// clusterCount and stats (cluster sizes included); `labels` may hold any non-negative ids (e.g.
/// union-find roots).
void canonicalizeDbscanResult(DbscanResult& result);

/// Counts stats.clusterSizes from the labels when a result lacks them (the backends fill them
/// with their statistics; a result from elsewhere may not), for the colour matching.
void fillClusterSizes(DbscanResult& result);

/// "auto", "grid", "brute", "kdtree" and back; parseDbscanPath throws cs::Error on other text.
std::string_view toString(DbscanPath path);
DbscanPath parseDbscanPath(std::string_view text);

}  // namespace cs
