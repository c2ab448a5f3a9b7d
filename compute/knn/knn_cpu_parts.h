// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "compute/core/job_control.h"

// The pieces of the CPU kNN graph (knn_cpu.cpp) that the distributed build
// (compute/distributed/knn_mpi.cpp) runs on its share of the points, so that both take the
// same numbers through the same code.
namespace cs::knn_parts {

/// An empty list slot: after any real candidate in the (dist2, index) order.
inline constexpr float kEmptyDist2 = std::numeric_limits<float>::infinity();
inline constexpr std::int32_t kEmptyIndex = std::numeric_limits<std::int32_t>::max();

/// Offers (d2, j) to a list of k (dist2, index) pairs sorted ascending, keeping the k smallest
/// distinct pairs; the list is the same whatever order the candidates come in.
inline void offer(float* dist2, std::int32_t* index, int k, float d2, std::int32_t j) {
    // A neighbour already present has exactly the same d2 (canonicalDist2 is symmetric and
    // deterministic), so it sits right before the insertion position.
    const int last = k - 1;
    if (d2 == dist2[last] && j >= index[last]) return;  // after the last, or the last itself
    int p = last;
    while (p > 0 && (dist2[p - 1] > d2 || (dist2[p - 1] == d2 && index[p - 1] > j)))
        --p;
    if (p > 0 && dist2[p - 1] == d2 && index[p - 1] == j) return;  // already there
    for (int q = last; q > p; --q) {
        dist2[q] = dist2[q - 1];
        index[q] = index[q - 1];
    }
    dist2[p] = d2;
    index[p] = j;
}

/// Projections of the n points of x (row-major n x dims) on the levels directions:
/// proj[l * n + i], knnProjection's numbers.
std::vector<float> project(std::span<const float> x, std::size_t n, std::size_t dims,
                           std::span<const float> directions, int levels, int threads,
                           JobControl* job);

/// The all-pairs search of every leaf: leaf j holds the positions order[leafOffsets[j] ..
/// leafOffsets[j + 1]) of x (row-major, dims per row), whose lists (k per position) are in
/// dist2/index. ids maps a position to the point index the lists hold (nullptr: the position
/// itself). progress (may be empty) gets the fraction of leaves done.
void searchLeaves(const float* x, std::size_t dims, int k, const std::uint32_t* order,
                  std::span<const std::uint32_t> leafOffsets, const std::int32_t* ids, float* dist2,
                  std::int32_t* index, int threads, JobControl& job,
                  const std::function<void(double)>& progress = {});

/// The k nearest (canonicalDist2, then index) of each row among the candidates: rows are given
/// by their coordinates (rowCoords, rowIds.size() x dims) and point indices; candidate j is
/// point firstId + j of x (row-major n x dims); a row never lists itself. Lists may keep empty
/// slots (kEmptyDist2, kEmptyIndex) when there are fewer than k candidates. rowIds.size() * k
/// indices, and their squared distances in dist2 (when not null).
std::vector<std::int32_t> exactRowsAgainst(std::span<const float> rowCoords,
                                           std::span<const std::int32_t> rowIds,
                                           std::span<const float> x, std::size_t n,
                                           std::size_t dims, std::int64_t firstId, int k,
                                           int threads, std::vector<float>* dist2, JobControl* job);

}  // namespace cs::knn_parts
