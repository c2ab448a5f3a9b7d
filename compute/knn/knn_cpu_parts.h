// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/knn/knn_list.h"

// The pieces of the CPU kNN graph (knn_cpu.cpp) that the distributed build
// (compute/distributed/knn_mpi.cpp) runs on its share of the points, so that both take the
// same numbers through the same code.
namespace cs::knn_parts {

/// The list rules of knn_list.h, by the names this code uses.
inline constexpr float kEmptyDist2 = kKnnEmptyDist2;
inline constexpr std::int32_t kEmptyIndex = kKnnEmptyIndex;
inline void offer(float* dist2, std::int32_t* index, int k, float d2, std::int32_t j) {
    knnOffer(dist2, index, k, d2, j);
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
