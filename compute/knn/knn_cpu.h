// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/knn/knn_graph.h"

namespace cs {

/// The kNN graph on the CPU with `threads` threads (the reference and oracle of the GPU tests),
/// following compute/knn/knn_graph.h to the letter. Input: points row-major N x d, finite,
/// N >= k + 1. Stages (JobControl timings, the CUDA backend uses the same names): "exact sample"
/// once, then per tree "projection", "tree", "leaf search", "recall", and "finish" at the end.
/// threads <= 0: one per hardware thread; the graph does not depend on the thread count.
/// Throws cs::Error on bad parameters or input (validateKnnInput), cs::Cancelled when the job is
/// cancelled (never a half-built graph). Memory: O(N (d + k + levels)).
/// @code cs::KnnGraph g = cs::knnGraphCpu(points, {.k = 10, .trees = 8}, job, 4); @endcode
KnnGraph knnGraphCpu(const PointSet& points, const KnnParams& params, JobControl& job,
                     int threads = 0);

/// Progress of the CPU kNN graphs: the exact recall sample up to here, then the trees.
inline constexpr double kKnnSampleProgress = 0.05;

/// The steps of a random-projection tree that differ between dense and sparse rows.
struct KnnForestSteps {
    /// Projections of every point on the tree's directions (levels x dims): proj[l * n + i].
    std::function<std::vector<float>(std::span<const float> directions)> project;
    /// Offers every pair of points inside each leaf (order[leaves[l]], ..., order[leaves[l + 1]
    /// - 1]) to the lists (dist2, indices: n x k), reporting the fraction of leaves done.
    std::function<void(const std::uint32_t* order, std::span<const std::uint32_t> leaves,
                       float* dist2, std::int32_t* indices,
                       const std::function<void(double)>& progress)>
        searchLeaves;
};

/// The forest loop of knnGraphCpu and knnGraphSparseCpu, written once: tree after tree (the
/// seed's directions, the tree order, the leaf search), the recall on the exact sample after
/// each, until params.trees or params.targetRecall. Fills graph's n, k, indices, recallByTree
/// and treesBuilt; returns the lists' squared distances (n x k). Progress from
/// kKnnSampleProgress to 98 %.
std::vector<float> knnRunForest(std::size_t n, std::size_t dims, const KnnParams& params,
                                int workers, std::span<const std::int32_t> sample,
                                std::span<const float> exactDist2, const KnnForestSteps& steps,
                                KnnGraph& graph, JobControl& job);

/// The tree's point order for one tree: points permuted so every node (and leaf) is the range
/// knnNodeOffsets gives; coords are recentred (row-major n x dims), directions levels x dims.
/// The last level's nodes are fully sorted by their key, so the order is unique.
/// @code auto order = cs::knnTreeOrderCpu(x, n, d, cs::knnTreeDirections(1, 0, L, d), L, 4);
/// @endcode
std::vector<std::uint32_t> knnTreeOrderCpu(std::span<const float> coords, std::size_t n,
                                           std::size_t dims, std::span<const float> directions,
                                           int levels, int threads = 0);

/// The tree's point order from the projections of the n points on its levels directions
/// (proj[l * n + i], as knnProjection or a sparse path computes them); with a job, checks for
/// cancellation between levels.
std::vector<std::uint32_t> knnTreeOrderOfProjections(const std::vector<float>& proj, std::size_t n,
                                                     int levels, int threads = 0,
                                                     JobControl* job = nullptr);

/// Exact k nearest (canonicalDist2, index order; self excluded) of the listed rows among all n
/// points of coords (row-major n x dims): rows.size() * k indices, row by row, and (when dist2
/// is not null) their squared distances. Needs k <= n - 1. Brute force, parallel over rows.
/// @code auto exact = cs::knnExactRows(x, n, d, cs::knnRecallSample(n, 256, 1), 10, 4); @endcode
std::vector<std::int32_t> knnExactRows(std::span<const float> coords, std::size_t n,
                                       std::size_t dims, std::span<const std::int32_t> rows, int k,
                                       int threads = 0, std::vector<float>* dist2 = nullptr);

}  // namespace cs
