// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/job_cost.h"
#include "compute/core/point_set.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_sweep.h"

namespace cs {

/// Exact DBSCAN on the CPU (semantics and float rules in dbscan.h): the reference every GPU
/// path is tested against. Input: points row-major N x d, finite. Memory O(N + cells): no
/// neighbour list is ever stored. Stages (JobControl timings): "recentre", "grid" or "kdtree",
/// "core", "union", "border" (skipped with star), "labels". threads <= 0: one per hardware
/// thread; the labels do not depend on the thread count. Throws cs::Error on bad parameters,
/// non-finite coordinates or a path that cannot handle d (Grid with d > 3); cs::Cancelled when
/// the job is cancelled.
/// @code cs::DbscanResult r = cs::dbscanCpu(points, {.eps = 0.5f, .minPts = 10}, job, 4); @endcode
DbscanResult dbscanCpu(const PointSet& points, const DbscanParams& params, JobControl& job,
                       int threads = 0);

/// An eps x MinPts sweep on the CPU (dbscan_sweep.h), on the path dbscanCpu takes for the
/// largest eps. Grid: per eps the grid is built and the neighbours counted once, up to the
/// largest MinPts; per MinPts the core flags come from the counts and the union, border and
/// label stages run (stages per eps "count", "cells"). KdTree and Brute: per eps three searches
/// serve every MinPts (stages "count", "border" (not with star), "union"). Every cell equals
/// dbscanCpu's result for its eps and MinPts. Throws as dbscanCpu does, and cs::Error on a bad
/// grid.
/// @code auto r = cs::dbscanSweepCpu(points, cs::defaultDbscanSweep(2.5f), job); @endcode
DbscanSweepResult dbscanSweepCpu(const PointSet& points, const DbscanSweepParams& params,
                                 JobControl& job, int threads = 0);

/// The path dbscanCpu runs for `requested`: Auto is Grid for d <= 3, else Brute below
/// kDbscanBruteBelow points and KdTree above; Grid with d > 3 throws cs::Error.
DbscanPath resolveDbscanPathCpu(DbscanPath requested, std::size_t n, std::size_t dims);
/// The same knowing the data: Auto with d > 3 also takes Brute when eps's neighbourhoods hold
/// at least kDbscanDenseShare of the cloud (the kd-tree then prunes nothing and costs ~10x).
/// @code auto path = cs::resolveDbscanPathCpu(cs::DbscanPath::Auto, points, 0.5f); @endcode
DbscanPath resolveDbscanPathCpu(DbscanPath requested, const PointSet& points, float eps);

/// Share of the cloud at and above which Auto prefers Brute to KdTree (see dbscanNeighbourShare).
inline constexpr double kDbscanDenseShare = 0.1;

/// A rough share of the points within eps of a point, for cost estimates and the path choice:
/// the volume of the cube of side 2 eps over the bounding box's, each dimension's ratio capped at
/// 1 (a flat dimension counts 1). 0 for an empty set.
double dbscanNeighbourShare(const PointSet& points, float eps);

/// What a DBSCAN run is about to cost, estimated before it starts.
struct DbscanCost {
    DbscanPath path = DbscanPath::Auto;  ///< the neighbour search the backend will run
    double share = 0.0;                  ///< dbscanNeighbourShare on the KdTree path, else 0
    JobCost cost;                        ///< distance evaluations (0 on the Grid path)
};

/// The cost of params on points on the backend named `backend`: "cpu" takes the path
/// resolveDbscanPathCpu takes; the CUDA backend runs the grid up to 3 dimensions under Auto and
/// brute force wherever it does not run the grid. Brute costs N^2, KdTree N^2 x the neighbour
/// share, Grid is not counted (dense cells are settled as wholes). The CLI's warning and the
/// Python module's come from here. Throws cs::Error as resolveDbscanPathCpu does.
/// @code if (auto c = cs::dbscanCost(points, params, "cpu"); c.cost.costly()) warn(c.cost.text());
/// @endcode
DbscanCost dbscanCost(const PointSet& points, const DbscanParams& params, std::string_view backend);

/// Below this many points of d > 3, Auto uses Brute: the tree costs more than it saves.
inline constexpr std::size_t kDbscanBruteBelow = 2000;

/// How kDistanceCpu finds each distinct point's k-th nearest (kDistanceSearchCpu picks it).
enum class KDistanceSearch {
    Knn,     ///< nanoflann's k nearest, kept sorted: O(k) per insertion, for small k
    Radius,  ///< every point within a radius that grows until it holds the k-th: O(1) per point
    Scan,    ///< every distinct point for each query: for k near n
};

/// kDistanceCpu scans all points for each query once k * kKDistanceScanShare > n. (Measured on
/// 20,000 points, 2 cores: the radius search takes 1/6 of the scan's time at k = n/16, 1/2 at
/// n/4, and about as long from n/2 on.)
inline constexpr std::size_t kKDistanceScanShare = 2;
/// Below the scan, kDistanceCpu collects a radius's points instead of a sorted k-nearest set
/// from this k on (3-D: 2x faster at k = 128; 16-D: the same at k = 64, slower below).
inline constexpr int kKDistanceRadiusFromK = 64;

/// The search kDistanceCpu runs for k on n points (k <= n).
KDistanceSearch kDistanceSearchCpu(std::size_t n, int k);

/// What kDistanceCpu costs for k on n points of d dimensions, before it starts (repeated points
/// only make it less): N^2 for the scan, else N (3k + 150), at most N^2. In 3-D the searches
/// count 0.6 to 1.5 times that (uniform and blobs, k = 10 to 5,000); one evaluation takes 15 to
/// 25 ns of CPU time. Above 3 dimensions the cost depends on how clustered the points are
/// (16-D blobs: 0.2 to 0.5 times that; 16-D uniform: about N^2), so the estimate assumes the
/// tree prunes little: times d. The CLI's warning and the GUI's question both come from here.
/// @code if (auto c = cs::kDistanceCostCpu(n, d, k); c.costly()) warn(c.text()); @endcode
JobCost kDistanceCostCpu(std::size_t n, std::size_t d, int k);

/// Identical rows of a row-major n x d matrix of finite floats collapsed, compared with float ==
/// (so -0 equals +0: such rows have the same canonicalDist2 to every point).
struct DistinctRows {
    std::vector<float> coords;         ///< the distinct rows in order of first appearance, u x d
    std::vector<std::uint32_t> count;  ///< how often each distinct row occurs (u values)
    std::vector<std::uint32_t> of;     ///< each input row's distinct row; empty: none repeats
};
/// @code cs::DistinctRows u = cs::distinctRows(std::move(x), n, d); @endcode
DistinctRows distinctRows(std::vector<float> rows, std::size_t n, std::size_t d);

/// What a kDistanceCpu run did: for tests and for calibrating kDistanceCostCpu.
struct KDistanceCpuStats {
    std::size_t distinct = 0;       ///< distinct points (identical ones are searched once)
    std::size_t searched = 0;       ///< distinct points searched (the others occur >= k times)
    std::uint64_t evaluations = 0;  ///< squared distances computed: tree, rechecks and scans
    KDistanceSearch search = KDistanceSearch::Knn;  ///< the search run
};

/// Exact k-distance curve: for each point, the distance to its k-th nearest point counting
/// itself (k = 1 gives 0), chosen by canonicalDist2 order on recentredCoords() and reported as
/// the float square root of that canonicalDist2. With k = minPts, core points have
/// perPoint <= eps and other points perPoint >= eps (sqrt rounds: a value equal to eps can be
/// either). Identical points are searched once, counted as often as they occur; kd-tree
/// (nanoflann) search for any d (kDistanceSearchCpu). Stages: "recentre", "distinct", "kdtree"
/// (not for Scan), "knn", "sort". stats, when given, receives what the search did.
/// Throws cs::Error when k < 1 or k > N, or on non-finite coordinates.
/// @code cs::KDistanceResult r = cs::kDistanceCpu(points, 10, job); @endcode
KDistanceResult kDistanceCpu(const PointSet& points, int k, JobControl& job, int threads = 0,
                             KDistanceCpuStats* stats = nullptr);

/// The knee of a sorted (ascending) k-distance curve, a suggestion for eps.
struct KDistanceKnee {
    std::size_t index = 0;  ///< position in the sorted curve
    float distance = 0.0f;  ///< sorted[index]: the suggested eps
};

/// The knee by the "maximum distance to the chord" rule: scale ranks to [0, 1] and distances to
/// [0, 1] (first to last value), and take the point farthest below the straight line from the
/// first to the last point (largest rank - distance; ties: the first). A flat or short (< 3)
/// curve gives its last point. Not defined for an empty curve (returns {0, 0}).
/// @code float eps = cs::kDistanceKnee(result.sorted).distance; @endcode
KDistanceKnee kDistanceKnee(std::span<const float> sorted);

}  // namespace cs
