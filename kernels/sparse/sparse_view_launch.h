// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launchers of the sparse view's kernels (sparse_view_kernels.cu), for
// sparse_view_gpu.cpp. Asynchronous on `stream`; every launch is checked. Dense blocks are
// row-major doubles of `width` <= kSparseViewMaxWidth columns.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

inline constexpr int kSparseViewMaxWidth = 8;

/// entryRow[e] = the row entry e belongs to; keys[e] = its column; iota[e] = e.
void launchSparseEntryTables(const std::int64_t* indptr, const std::int32_t* cols, std::size_t n,
                             std::size_t nnz, std::uint32_t* entryRow, std::uint64_t* keys,
                             std::uint32_t* iota, cudaStream_t stream);

/// firsts[e] = 1 where the column-sorted keys start a new column (e = 0 included), else 0.
void launchSparseColumnFirsts(const std::uint64_t* sortedKeys, std::size_t nnz,
                              std::uint32_t* firsts, cudaStream_t stream);

/// The entries by used column (rank[e] - 1 is sorted entry e's used column, perm[e] its CSR
/// place): columnStart (used + 1 offsets), the rows and values by column, and each CSR entry's
/// used column.
void launchSparseColumnLayout(const std::uint32_t* rank, const std::uint32_t* firsts,
                              const std::uint32_t* perm, const std::uint32_t* entryRow,
                              const float* values, std::size_t nnz, std::int64_t* columnStart,
                              std::int32_t* columnRow, float* columnValue, std::int32_t* usedColumn,
                              cudaStream_t stream);

/// mean[c] = (sum of column c's values, rows ascending) / rows: the host's sums, bit for bit.
void launchSparseColumnMeans(const std::int64_t* columnStart, const float* columnValue,
                             std::size_t used, std::size_t rows, double* mean, cudaStream_t stream);

/// out[r][j] = sum over row r's entries e of values[e] * b[cols[e]][j], less scale[r] * shift[j]
/// (scale nullptr: 1), for j < width: a sparse x dense product minus a rank-one term. A warp per
/// row, summed in a fixed order (deterministic).
void launchSparseTimesDense(const std::int64_t* indptr, const std::int32_t* cols,
                            const float* values, std::size_t rows, const double* b, int width,
                            const double* scale, const double* shift, double* out,
                            cudaStream_t stream);

}  // namespace cs::kernels
