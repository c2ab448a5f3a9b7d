// SPDX-License-Identifier: MIT
// The sparse view's kernels (compute/core/sparse_pca.h on the device): the column layout of CSR
// rows (which columns are used, the entries by column, the column means) and the sparse x dense
// products of the subspace iteration. The dense products and Gram matrices are cuBLAS's.

#include <cstdint>

#include "kernels/common/cuda_error.h"
#include "kernels/sparse/sparse_view_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;

unsigned blocksFor(std::size_t items, int perBlock = kThreads) {
    return unsigned((items + std::size_t(perBlock) - 1) / std::size_t(perBlock));
}

__global__ void entryTablesKernel(const std::int64_t* indptr, const std::int32_t* cols,
                                  std::size_t n, std::uint32_t* entryRow, std::uint64_t* keys,
                                  std::uint32_t* iota) {
    const std::size_t warp = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
    const int lane = int(threadIdx.x % kWarp);
    if (warp >= n) return;
    for (std::int64_t e = indptr[warp] + lane; e < indptr[warp + 1]; e += kWarp) {
        entryRow[e] = std::uint32_t(warp);
        keys[e] = std::uint64_t(std::uint32_t(cols[e]));
        iota[e] = std::uint32_t(e);
    }
}

__global__ void columnFirstsKernel(const std::uint64_t* sortedKeys, std::size_t nnz,
                                   std::uint32_t* firsts) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= nnz) return;
    firsts[e] = e == 0 || sortedKeys[e] != sortedKeys[e - 1] ? 1u : 0u;
}

__global__ void columnLayoutKernel(const std::uint32_t* rank, const std::uint32_t* firsts,
                                   const std::uint32_t* perm, const std::uint32_t* entryRow,
                                   const float* values, std::size_t nnz, std::int64_t* columnStart,
                                   std::int32_t* columnRow, float* columnValue,
                                   std::int32_t* usedColumn) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= nnz) return;
    const std::uint32_t column = rank[e] - 1, from = perm[e];
    if (firsts[e]) columnStart[column] = std::int64_t(e);
    if (e + 1 == nnz) columnStart[column + 1] = std::int64_t(nnz);
    columnRow[e] = std::int32_t(entryRow[from]);
    columnValue[e] = values[from];
    usedColumn[from] = std::int32_t(column);
}

__global__ void columnMeansKernel(const std::int64_t* columnStart, const float* columnValue,
                                  std::size_t used, std::size_t rows, double* mean) {
    const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= used) return;
    double sum = 0.0;
    for (std::int64_t e = columnStart[c]; e < columnStart[c + 1]; ++e)
        sum += double(columnValue[e]);
    mean[c] = sum / double(rows);
}

__global__ void sparseTimesDenseKernel(const std::int64_t* indptr, const std::int32_t* cols,
                                       const float* values, std::size_t rows, const double* b,
                                       int width, const double* scale, const double* shift,
                                       double* out) {
    const std::size_t row = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
    const int lane = int(threadIdx.x % kWarp);
    if (row >= rows) return;  // whole warps leave together: rows are per warp
    double acc[kSparseViewMaxWidth] = {};
    for (std::int64_t e = indptr[row] + lane; e < indptr[row + 1]; e += kWarp) {
        const double v = values[e];
        const double* bRow = b + std::size_t(cols[e]) * std::size_t(width);
#pragma unroll
        for (int j = 0; j < kSparseViewMaxWidth; ++j)
            if (j < width) acc[j] += v * bRow[j];
    }
    // The same butterfly on every warp: the sum's order depends on the row's entries only.
    double mine = 0.0;
#pragma unroll
    for (int j = 0; j < kSparseViewMaxWidth; ++j) {
        double s = acc[j];
        for (int offset = kWarp / 2; offset > 0; offset /= 2)
            s += __shfl_xor_sync(0xffffffffu, s, offset);
        if (lane == j) mine = s;
    }
    if (lane < width)
        out[row * std::size_t(width) + std::size_t(lane)] =
            mine - (scale ? scale[row] : 1.0) * shift[lane];
}

}  // namespace

void launchSparseEntryTables(const std::int64_t* indptr, const std::int32_t* cols, std::size_t n,
                             std::size_t nnz, std::uint32_t* entryRow, std::uint64_t* keys,
                             std::uint32_t* iota, cudaStream_t stream) {
    if (n == 0 || nnz == 0) return;
    entryTablesKernel<<<blocksFor(n, kThreads / kWarp), kThreads, 0, stream>>>(
        indptr, cols, n, entryRow, keys, iota);
    CS_CUDA_CHECK_LAUNCH();
}

void launchSparseColumnFirsts(const std::uint64_t* sortedKeys, std::size_t nnz,
                              std::uint32_t* firsts, cudaStream_t stream) {
    if (nnz == 0) return;
    columnFirstsKernel<<<blocksFor(nnz), kThreads, 0, stream>>>(sortedKeys, nnz, firsts);
    CS_CUDA_CHECK_LAUNCH();
}

void launchSparseColumnLayout(const std::uint32_t* rank, const std::uint32_t* firsts,
                              const std::uint32_t* perm, const std::uint32_t* entryRow,
                              const float* values, std::size_t nnz, std::int64_t* columnStart,
                              std::int32_t* columnRow, float* columnValue, std::int32_t* usedColumn,
                              cudaStream_t stream) {
    if (nnz == 0) return;
    columnLayoutKernel<<<blocksFor(nnz), kThreads, 0, stream>>>(
        rank, firsts, perm, entryRow, values, nnz, columnStart, columnRow, columnValue, usedColumn);
    CS_CUDA_CHECK_LAUNCH();
}

void launchSparseColumnMeans(const std::int64_t* columnStart, const float* columnValue,
                             std::size_t used, std::size_t rows, double* mean,
                             cudaStream_t stream) {
    if (used == 0) return;
    columnMeansKernel<<<blocksFor(used), kThreads, 0, stream>>>(columnStart, columnValue, used,
                                                                rows, mean);
    CS_CUDA_CHECK_LAUNCH();
}

void launchSparseTimesDense(const std::int64_t* indptr, const std::int32_t* cols,
                            const float* values, std::size_t rows, const double* b, int width,
                            const double* scale, const double* shift, double* out,
                            cudaStream_t stream) {
    if (rows == 0) return;
    sparseTimesDenseKernel<<<blocksFor(rows, kThreads / kWarp), kThreads, 0, stream>>>(
        indptr, cols, values, rows, b, width, scale, shift, out);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
