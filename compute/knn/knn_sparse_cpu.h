// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/sparse_set.h"
#include "compute/knn/knn_graph.h"

namespace cs {

// PyRKNN's sparse path (Xiao, Chen, Biros, ACM TOPC, section 4): the same forest as the dense
// graph of knn_graph.h on CSR rows. What differs:
//  - no recentring (it would fill the rows in): coordinates are the file's values;
//  - the projection of row i on direction q is the sparse x dense product, the row's stored
//    entries in ascending column order, float, no FMA (knnSparseProjection);
//  - pairs in a leaf meet at sparseDist2 (compute/core/sparse_set.h): the sum of squared
//    differences over the union of their columns, ascending, float, no FMA; exact and
//    symmetric, as the list update needs;
// everything else (directions, splits, leaves, lists, the recall sample and its stopping rule)
// is the dense graph's, so PointSet input and SparseSet input share one method and descriptor.

/// Projection of row i on a direction of dims floats: float, ascending columns, no FMA.
inline float knnSparseProjection(const SparseSet& rows, std::size_t i, const float* direction) {
    float sum = 0.0f;
    for (std::int64_t e = rows.indptr[i]; e < rows.indptr[i + 1]; ++e)
        sum = sum + rows.values[std::size_t(e)] * direction[rows.indices[std::size_t(e)]];
    return sum;
}

/// Throws cs::Error naming the bad value for bad params (validateKnnParams), fewer than k + 1
/// rows, 2^31 - 1 rows or more, or inconsistent rows (SparseSet::validate).
void validateKnnSparseInput(const SparseSet& rows, const KnnParams& params);

/// The kNN graph of sparse rows on the CPU with `threads` threads (<= 0: one per hardware
/// thread; the graph does not depend on it). Same stages and progress as knnGraphCpu. Throws
/// cs::Error on bad parameters or input, cs::Cancelled when the job is cancelled.
/// Memory: O(nnz + N (k + levels) + levels dims).
/// @code cs::KnnGraph g = cs::knnGraphSparseCpu(rows, {.k = 10, .trees = 8}, job); @endcode
KnnGraph knnGraphSparseCpu(const SparseSet& rows, const KnnParams& params, JobControl& job,
                           int threads = 0);

/// One tree's point order (knnTreeOrderCpu for sparse rows): projections by
/// knnSparseProjection on directions (levels x dims), then the dense path's splits.
/// @code auto order = cs::knnSparseTreeOrder(rows, cs::knnTreeDirections(1, 0, L, d), L); @endcode
std::vector<std::uint32_t> knnSparseTreeOrder(const SparseSet& rows,
                                              std::span<const float> directions, int levels,
                                              int threads = 0);

/// Exact k nearest (sparseDist2, index order, self excluded) of the listed rows among all rows:
/// rows.size() * k indices, row by row, and (when dist2 is not null) their squared distances.
/// Brute force, parallel over the listed rows: the oracle of the tests and the recall sample.
/// @code auto exact = cs::knnExactRowsSparse(rows, cs::knnRecallSample(n, 256, 1), 10); @endcode
std::vector<std::int32_t> knnExactRowsSparse(const SparseSet& rows,
                                             std::span<const std::int32_t> listed, int k,
                                             int threads = 0, std::vector<float>* dist2 = nullptr,
                                             JobControl* job = nullptr);

}  // namespace cs
