// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launchers of the sparse kNN-graph kernels (knn_sparse_kernels.cu), for
// knn_sparse_gpu.cpp. Asynchronous on `stream`; every launch is checked. Rows are CSR: row i's
// entries are [indptr[i], indptr[i + 1]) of cols/values, columns ascending.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// proj[l * n + i] = knnSparseProjection(row i, direction l) for every level l < levels:
/// the row's entries in column order, float, no FMA; directions levels x dims row-major.
void launchKnnSparseProjections(const std::int64_t* indptr, const std::int32_t* cols,
                                const float* values, std::size_t n, std::size_t dims,
                                const float* directions, int levels, float* proj,
                                cudaStream_t stream);

/// One tree's leaf search on sparse rows: every point of leaves [offsets[s], offsets[s + 1])
/// (tree positions, order maps them to row ids) meets every other point of its leaf at
/// sparseDist2 (the union of the two rows' columns in ascending order, float, no FMA); lists
/// (row id x k, sorted by (dist2, index)) keep the k smallest pairs without repeats. A block
/// per point (PyRKNN's sparse kernel): the point's entries in shared memory, threads over its
/// leaf-mates. At most 65,535 leaves a launch; maxLeaf <= kKnnMaxLeafSize.
void launchKnnSparseLeafSearch(const std::int64_t* indptr, const std::int32_t* cols,
                               const float* values, const std::uint32_t* order,
                               const std::uint32_t* offsets, std::size_t leaves, int maxLeaf, int k,
                               float* dist2, std::int32_t* index, cudaStream_t stream);

/// Rows of the set one block of the exact search meets, and the parts a row's search leaves.
inline constexpr std::size_t kKnnSparseExactChunk = 2048;
inline constexpr std::size_t knnSparseExactChunks(std::size_t n) {
    return (n + kKnnSparseExactChunk - 1) / kKnnSparseExactChunk;
}

/// The exact search of the listed rows (row ids rows[0 .. count), at most 65,535 a launch) among
/// all n rows, in parts: part (r, c) of partDist2/partIndex (knnSparseExactChunks(n) parts of k
/// per listed row, r-major) gets the k smallest (sparseDist2, index) pairs, sorted, empty slots
/// (+inf, INT32_MAX) last, of rows[r] against the rows [c * kKnnSparseExactChunk, ...), itself
/// excluded. knnMergeList of a row's parts gives its exact list, knnExactRowsSparse's bit for bit.
void launchKnnSparseExactRows(const std::int64_t* indptr, const std::int32_t* cols,
                              const float* values, std::size_t n, const std::uint32_t* rows,
                              std::size_t count, int k, float* partDist2, std::int32_t* partIndex,
                              cudaStream_t stream);

}  // namespace cs::kernels
