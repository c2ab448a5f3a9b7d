// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/job_control.h"
#include "compute/core/point_set.h"

namespace cs {

// The approximate kNN graph of PyRKNN (Xiao, Chen, Biros, ACM TOPC): a forest of random-projection
// (RP) trees, built one tree at a time; inside each leaf every point meets every other point
// exactly, and each point keeps the k nearest it has met in any tree so far. More trees, higher
// recall. Every backend builds the same trees and keeps the same lists, so for the same input
// and parameters the graphs are identical, index for index and bit for bit:
//  - coordinates are recentredCoords() (compute/core/geometry.h), distances reported in the
//    data's units (fromRecentred);
//  - tree t has `levels` = knnLevels(n, leafSize) random directions, one per level, from
//    knnTreeDirections(seed, t, levels, dims) (standard normal, drawn on the host);
//  - the projection of point i on direction q is knnProjection(): float, dimension order,
//    no fused multiply-add (CUDA: __fmul_rn/__fadd_rn);
//  - level l splits every node, a range [b, e) of the tree's point order, into
//    [b, b + (e - b) / 2) and the rest, after sorting the range by knnSortKey(projection on
//    direction l, point index) ascending: ties go by index, so the order is total;
//    knnNodeOffsets() gives the ranges, which depend on n and the level only;
//  - in each leaf, point i meets every other point j of the leaf at canonicalDist2() (the
//    DBSCAN distance: float, dimension order, no FMA);
//  - a point's list holds the k smallest (squared distance, index) pairs met so far, in that
//    order, without repeats and never the point itself.
// After each tree the recall on a fixed sample of points (knnRecallSample) is measured against
// their exact neighbours, counting ties with the exact k-th neighbour as found
// (knnRecallOfRows); the build stops once it reaches targetRecall or after `trees` trees.

/// kNN graph parameters.
struct KnnParams {
    int k = 10;                  ///< neighbours per point, the point itself not counted
    int trees = 8;               ///< most RP trees to build (>= 1)
    int leafSize = 512;          ///< largest leaf (2 (k + 1) .. kKnnMaxLeafSize)
    double targetRecall = 0.95;  ///< stop once the sampled recall reaches it (0: build all trees)
    int recallSample = 256;      ///< points whose exact neighbours measure the recall (>= 1)
    std::uint64_t seed = 1;      ///< random directions and the recall sample
    /// Every point against every other instead of the trees: the true k nearest of each point
    /// (the lists the recall is measured against), for small sets or as an oracle. The tree
    /// parameters are then unused.
    bool exact = false;
};

/// Largest k any backend accepts.
inline constexpr int kKnnMaxK = 64;
/// Largest leafSize any backend accepts.
inline constexpr int kKnnMaxLeafSize = 2048;

/// An approximate kNN graph over N points.
struct KnnGraph {
    std::size_t n = 0;  ///< points
    int k = 0;          ///< neighbours per point
    /// n * k neighbour indices, row i = point i's neighbours, nearest first (ties: lower index).
    std::vector<std::int32_t> indices;
    /// n * k Euclidean distances (sqrt of canonicalDist2, float), matching `indices`.
    std::vector<float> distances;
    bool exact = false;                ///< every point met every other (KnnParams::exact)
    int treesBuilt = 0;                ///< RP trees built before stopping (0 when exact)
    std::vector<double> recallByTree;  ///< sampled recall after each tree, in [0, 1]
    /// The neighbour indices as the backend left them in device memory (the CUDA backend), for
    /// the point view's edges through GL interop; null on the CPU. Not part of the graph's value.
    std::shared_ptr<const DeviceResident> device;

    /// Recall after the last tree (0 when none was built); 1 for the exact graph.
    double recall() const {
        if (exact) return 1.0;
        return recallByTree.empty() ? 0.0 : recallByTree.back();
    }
};

/// Leaves of one tree to search all-pairs into their points' lists: a rank's share of the
/// distributed graph (compute/distributed/knn_mpi.cpp), run where its backend runs
/// (Backend::knnSearchLeaves). Leaf j holds the positions [leafOffsets[j], leafOffsets[j + 1]) of
/// order, which maps a position to a row of coords; ids and the lists are by row. Each list keeps
/// the k smallest (squared distance, index) pairs without repeats, whatever it held before.
struct KnnLeafSearch {
    std::span<const float> coords;  ///< rows x dims, row-major
    std::size_t dims = 0;
    std::span<const std::uint32_t> order;        ///< position -> row
    std::span<const std::uint32_t> leafOffsets;  ///< leaves + 1 positions
    std::span<const std::int32_t> ids;           ///< row -> the point index the lists hold
    int k = 0;
    std::span<float> dist2;         ///< rows x k squared distances, sorted with index
    std::span<std::int32_t> index;  ///< rows x k point indices
    std::size_t rows() const { return ids.size(); }
};

/// Throws cs::Error naming the bad value: k outside [1, kKnnMaxK], trees < 1, leafSize outside
/// [2 (k + 1), kKnnMaxLeafSize], targetRecall outside [0, 1] or not finite, recallSample < 1.
void validateKnnParams(const KnnParams& params);
/// Also throws cs::Error when the set has fewer than k + 1 points or a coordinate is not finite.
/// With a job, checks for cancellation while scanning the coordinates (throws cs::Cancelled).
void validateKnnInput(const PointSet& points, const KnnParams& params,
                      const JobControl* job = nullptr);

/// Tree depth: the smallest L >= 0 with ceil(n / 2^L) <= leafSize.
int knnLevels(std::size_t n, int leafSize);
/// The cs::Random seed of tree `tree`'s directions: a = splitMix64(seed) (one step from state
/// seed), then splitMix64 one step from state a ^ uint32(tree).
std::uint64_t knnTreeSeed(std::uint64_t seed, int tree);
/// The levels x dims directions of tree `tree`, row-major, standard normal draws in double rounded
/// to float, from cs::Random seeded with a SplitMix64 mix of (seed, tree).
std::vector<float> knnTreeDirections(std::uint64_t seed, int tree, int levels, std::size_t dims);
/// The 2^level + 1 boundaries of the nodes at `level` in a tree of n points: node j is
/// [offsets[j], offsets[j + 1]), halving [0, n) `level` times (left gets the floor half).
std::vector<std::uint32_t> knnNodeOffsets(std::size_t n, int level);
/// The sorted, distinct indices of the recall sample: min(recallSample, n) points drawn
/// without replacement by cs::Random(seed ^ 0x5EED5A3B1E).
std::vector<std::int32_t> knnRecallSample(std::size_t n, int recallSample, std::uint64_t seed);

/// Projection of a point on a direction: float, dimension order, no FMA.
inline float knnProjection(const float* point, const float* direction, std::size_t dims) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < dims; ++j)
        sum = sum + point[j] * direction[j];  // compute/ builds with -ffp-contract=off
    return sum;
}

/// The tree's sort key: the float's bits made monotone (-0 before +0) in the high word, the
/// point index in the low word. kernels/knn repeats this on the device.
inline std::uint64_t knnSortKey(float projection, std::uint32_t index) {
    std::uint32_t bits;
    static_assert(sizeof bits == sizeof projection);
    __builtin_memcpy(&bits, &projection, sizeof bits);
    bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    return (std::uint64_t(bits) << 32) | index;
}

/// The sampled recall, ties counted. rowDist2 holds the squared distances (canonicalDist2) of
/// the graph's lists of the sample points, exactDist2 those of their exact lists: k per row,
/// row by row, each row ascending. A listed neighbour nearer than the exact k-th neighbour is
/// one of the exact neighbours, and counts; one at exactly the k-th distance is as near as the
/// one the index order picked, and counts too, as many of them as the exact list has places at
/// that distance (so a list that trades a nearer neighbour for a tie is still short one). On
/// duplicates, where every exact distance is 0, any k of the copies are right. Empty slots
/// (+inf) never count. Returns hits / (rows * k) in double. Every backend's recall goes through
/// this, so the stopping decision is the same everywhere.
inline double knnRecallOfRows(std::span<const float> rowDist2, std::span<const float> exactDist2,
                              int k) {
    if (k < 1 || rowDist2.size() != exactDist2.size() || rowDist2.empty()) return 0.0;
    const auto kk = std::size_t(k);
    std::size_t hits = 0;
    for (std::size_t r = 0; r + kk <= rowDist2.size(); r += kk) {
        const float kth = exactDist2[r + kk - 1];
        std::size_t nearer = 0, tied = 0, places = 0;
        for (std::size_t q = r; q < r + kk; ++q) {
            places += exactDist2[q] == kth;
            if (!(rowDist2[q] <= kth) || rowDist2[q] == std::numeric_limits<float>::infinity())
                continue;
            (rowDist2[q] < kth ? nearer : tied) += 1;
        }
        hits += nearer + std::min(tied, places);
    }
    return double(hits) / double(rowDist2.size());
}

/// The progress step after tree `tree` (from 1) of at most `trees`, with the sampled recall:
/// every backend reports its trees alike ("tree 3 / 8 · recall 0.931").
inline IterationStatus knnTreeStatus(int tree, int trees, double recall) {
    char text[32];
    std::snprintf(text, sizeof text, "recall %.3f", recall);
    return {.name = "tree", .current = tree, .max = trees, .measure = text};
}

/// knnRecallOfRows of the graph's lists (listDist2: n x k squared distances, row i point i's)
/// at the `sample` points against their exact lists' squared distances (sample.size() x k).
double knnRecall(std::span<const float> listDist2, int k, std::span<const std::int32_t> sample,
                 std::span<const float> exactDist2);

}  // namespace cs
