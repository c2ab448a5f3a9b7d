// SPDX-License-Identifier: MIT
// The sparse kNN-graph kernels (PyRKNN section 4): projections of CSR rows and the leaf search
// with sparse distances. Both add in the CPU's order with correctly rounded operations
// (__fmul_rn/__fadd_rn/__fsub_rn: never an FMA), so the graph is the CPU backend's bit for bit
// (compute/knn/knn_sparse_cpu.h). The projections are a sparse x dense product; cuSPARSE's SpMM
// would do it, but in its own order of additions, which would change the trees.

#include <math_constants.h>

#include <cstdint>

#include "kernels/common/cuda_error.h"
#include "kernels/knn/knn_sparse_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kLeafThreads = 128;
// A point's entries kept in shared memory; longer rows are read from global memory.
constexpr int kSharedEntries = 1024;
// Leaf-mates' distances of one block: the largest leaf (kKnnMaxLeafSize); also the rows a block
// of the exact search meets.
constexpr int kMaxLeaf = 2048;
static_assert(kMaxLeaf == kKnnSparseExactChunk);
// The longest list (kKnnMaxK) and its empty slot (compute/knn/knn_list.h).
constexpr int kMaxK = 64;
constexpr std::int32_t kEmptyIndex = 0x7fffffff;

__global__ void sparseProjectionsKernel(const std::int64_t* indptr, const std::int32_t* cols,
                                        const float* values, std::size_t n, std::size_t dims,
                                        const float* directions, int levels, float* proj) {
    const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= n * std::size_t(levels)) return;
    const std::size_t l = t / n, i = t % n;  // consecutive threads: consecutive rows
    const float* direction = directions + l * dims;
    float sum = 0.0f;
    for (std::int64_t e = indptr[i]; e < indptr[i + 1]; ++e)
        sum = __fadd_rn(sum, __fmul_rn(values[e], direction[cols[e]]));
    proj[l * n + i] = sum;
}

// sparseDist2 of two rows given as (columns, values, count): the union in ascending column
// order, as compute/core/sparse_set.cpp adds it.
__device__ __forceinline__ float sparseDist2(const std::int32_t* ac, const float* av, int an,
                                             const std::int32_t* bc, const float* bv, int bn) {
    float sum = 0.0f;
    int p = 0, q = 0;
    while (p < an || q < bn) {
        float diff;
        if (q == bn || (p < an && ac[p] < bc[q])) {
            diff = av[p++];
        } else if (p == an || bc[q] < ac[p]) {
            diff = bv[q++];
        } else {
            diff = __fsub_rn(av[p++], bv[q++]);
        }
        sum = __fadd_rn(sum, __fmul_rn(diff, diff));
    }
    return sum;
}

// knnOffer (compute/knn/knn_list.h) on a list in global memory.
__device__ void offer(float* dist2, std::int32_t* index, int k, float d2, std::int32_t j) {
    const int last = k - 1;
    if (d2 > dist2[last] || (d2 == dist2[last] && j >= index[last])) return;
    int p = last;
    while (p > 0 && (dist2[p - 1] > d2 || (dist2[p - 1] == d2 && index[p - 1] > j)))
        --p;
    if (p > 0 && dist2[p - 1] == d2 && index[p - 1] == j) return;
    for (int q = last; q > p; --q) {
        dist2[q] = dist2[q - 1];
        index[q] = index[q - 1];
    }
    dist2[p] = d2;
    index[p] = j;
}

// Row i's entries as a block reads them: copied to the block's shared arrays when they fit
// (the caller synchronises before reading them), else read from global memory.
struct BlockRow {
    const std::int32_t* cols;
    const float* values;
    int count;
};
__device__ BlockRow loadBlockRow(const std::int64_t* indptr, const std::int32_t* cols,
                                 const float* values, std::uint32_t i, std::int32_t* sharedCols,
                                 float* sharedValues) {
    const std::int64_t first = indptr[i];
    const int count = int(indptr[i + 1] - first);
    if (count > kSharedEntries) return {cols + first, values + first, count};
    for (int e = threadIdx.x; e < count; e += blockDim.x) {
        sharedCols[e] = cols[first + e];
        sharedValues[e] = values[first + e];
    }
    return {sharedCols, sharedValues, count};
}

// Block (a, leaf): the a-th point of the leaf against all the leaf's points. Only this block
// writes that point's list, so the blocks of a launch never race; the list ends as the k
// smallest of itself and the leaf-mates, which is what the CPU's pairwise offers leave too.
__global__ void __launch_bounds__(kLeafThreads)
    sparseLeafKernel(const std::int64_t* indptr, const std::int32_t* cols, const float* values,
                     const std::uint32_t* order, const std::uint32_t* offsets, int k, float* dist2,
                     std::int32_t* index) {
    __shared__ std::int32_t myCols[kSharedEntries];
    __shared__ float myValues[kSharedEntries];
    __shared__ float candidate[kMaxLeaf];
    const std::uint32_t begin = offsets[blockIdx.y], end = offsets[blockIdx.y + 1];
    const std::uint32_t a = blockIdx.x;
    if (a >= end - begin) return;  // the whole block leaves together
    const std::uint32_t i = order[begin + a];
    const BlockRow mine = loadBlockRow(indptr, cols, values, i, myCols, myValues);
    __syncthreads();
    const int m = int(end - begin);
    for (int b = threadIdx.x; b < m; b += blockDim.x) {
        if (std::uint32_t(b) == a) continue;
        const std::uint32_t j = order[begin + b];
        const std::int64_t jf = indptr[j];
        candidate[b] = sparseDist2(mine.cols, mine.values, mine.count, cols + jf, values + jf,
                                   int(indptr[j + 1] - jf));
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    float* d = dist2 + std::size_t(i) * std::size_t(k);
    std::int32_t* x = index + std::size_t(i) * std::size_t(k);
    for (int b = 0; b < m; ++b)
        if (std::uint32_t(b) != a) offer(d, x, k, candidate[b], std::int32_t(order[begin + b]));
}

// Block (c, s): row rows[s] against the rows [c * kMaxLeaf, (c + 1) * kMaxLeaf) of the set,
// itself excluded: the k smallest (dist2, index) pairs of them, sorted, empty slots last, into
// part (s, c) of partDist2/partIndex (chunks parts per row). The parts of a row, merged, are its
// exact list: knnOffer keeps the k smallest of whatever it is offered, in any order.
__global__ void __launch_bounds__(kLeafThreads)
    sparseExactRowsKernel(const std::int64_t* indptr, const std::int32_t* cols, const float* values,
                          std::size_t n, const std::uint32_t* rows, int k, std::size_t chunks,
                          float* partDist2, std::int32_t* partIndex) {
    __shared__ std::int32_t myCols[kSharedEntries];
    __shared__ float myValues[kSharedEntries];
    __shared__ float candidate[kMaxLeaf];
    __shared__ float listDist2[kMaxK];
    __shared__ std::int32_t listIndex[kMaxK];
    const std::size_t chunk = blockIdx.x;
    const std::uint32_t i = rows[blockIdx.y];
    const std::size_t begin = chunk * kMaxLeaf;
    const int m = int(n - begin < std::size_t(kMaxLeaf) ? n - begin : std::size_t(kMaxLeaf));
    const BlockRow mine = loadBlockRow(indptr, cols, values, i, myCols, myValues);
    for (int q = threadIdx.x; q < k; q += blockDim.x) {
        listDist2[q] = CUDART_INF_F;
        listIndex[q] = kEmptyIndex;
    }
    __syncthreads();
    for (int b = threadIdx.x; b < m; b += blockDim.x) {
        const std::size_t j = begin + std::size_t(b);
        const std::int64_t jf = indptr[j];
        candidate[b] = sparseDist2(mine.cols, mine.values, mine.count, cols + jf, values + jf,
                                   int(indptr[j + 1] - jf));
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int b = 0; b < m; ++b)
            if (begin + std::size_t(b) != i)
                offer(listDist2, listIndex, k, candidate[b], std::int32_t(begin + std::size_t(b)));
    __syncthreads();
    const std::size_t part = (std::size_t(blockIdx.y) * chunks + chunk) * std::size_t(k);
    for (int q = threadIdx.x; q < k; q += blockDim.x) {
        partDist2[part + std::size_t(q)] = listDist2[q];
        partIndex[part + std::size_t(q)] = listIndex[q];
    }
}

unsigned blocksFor(std::size_t work, int threads = kThreads) {
    return unsigned((work + threads - 1) / threads);
}

}  // namespace

void launchKnnSparseProjections(const std::int64_t* indptr, const std::int32_t* cols,
                                const float* values, std::size_t n, std::size_t dims,
                                const float* directions, int levels, float* proj,
                                cudaStream_t stream) {
    if (n == 0 || levels == 0) return;
    sparseProjectionsKernel<<<blocksFor(n * std::size_t(levels)), kThreads, 0, stream>>>(
        indptr, cols, values, n, dims, directions, levels, proj);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnSparseLeafSearch(const std::int64_t* indptr, const std::int32_t* cols,
                               const float* values, const std::uint32_t* order,
                               const std::uint32_t* offsets, std::size_t leaves, int maxLeaf, int k,
                               float* dist2, std::int32_t* index, cudaStream_t stream) {
    if (leaves == 0 || maxLeaf <= 1) return;
    const dim3 grid{unsigned(maxLeaf), unsigned(leaves)};
    sparseLeafKernel<<<grid, kLeafThreads, 0, stream>>>(indptr, cols, values, order, offsets, k,
                                                        dist2, index);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnSparseExactRows(const std::int64_t* indptr, const std::int32_t* cols,
                              const float* values, std::size_t n, const std::uint32_t* rows,
                              std::size_t count, int k, float* partDist2, std::int32_t* partIndex,
                              cudaStream_t stream) {
    if (count == 0 || n == 0) return;
    const std::size_t chunks = knnSparseExactChunks(n);
    const dim3 grid{unsigned(chunks), unsigned(count)};
    sparseExactRowsKernel<<<grid, kLeafThreads, 0, stream>>>(indptr, cols, values, n, rows, k,
                                                             chunks, partDist2, partIndex);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
