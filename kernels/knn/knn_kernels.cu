// SPDX-License-Identifier: MIT
// The kNN-graph kernels: projections, tree sort keys, the segmented sort, the leaf search and
// the exact search of the recall sample. Every distance is canonicalDist2 (float, dimension
// order, no FMA) and every list keeps the k smallest (dist2, index) pairs, so the graphs are
// bit-identical to the CPU backend's (compute/knn/knn_graph.h).

#include <cfloat>
#include <climits>

#include "kernels/common/cuda_error.h"
#include "kernels/knn/knn_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;
constexpr std::int32_t kNoIndex = INT_MAX;

unsigned blocksFor(std::size_t work, int threads = kThreads) {
    return unsigned((work + threads - 1) / threads);
}

// (a, ai) before (b, bi): the lists' total order.
__device__ __forceinline__ bool before(float a, std::int32_t ai, float b, std::int32_t bi) {
    return a < b || (a == b && ai < bi);
}

// A point's k nearest so far, sorted by (dist2, index). Up to 16 entries live in registers
// (compile-time indices only); larger lists in local memory.
template <int KMax>
struct NearList {
    float d[KMax];
    std::int32_t i[KMax];
    float worstD;
    std::int32_t worstI;

    __device__ __forceinline__ void clear() {
#pragma unroll
        for (int m = 0; m < KMax; ++m) {
            d[m] = INFINITY;
            i[m] = kNoIndex;
        }
        worstD = INFINITY;
        worstI = kNoIndex;
    }
    __device__ __forceinline__ void load(const float* dist2, const std::int32_t* index, int k) {
        clear();
#pragma unroll
        for (int m = 0; m < KMax; ++m)
            if (m < k) {
                d[m] = dist2[m];
                i[m] = index[m];
            }
        refreshWorst(k);
    }
    __device__ __forceinline__ void store(float* dist2, std::int32_t* index, int k) const {
#pragma unroll
        for (int m = 0; m < KMax; ++m)
            if (m < k) {
                dist2[m] = d[m];
                index[m] = i[m];
            }
    }
    __device__ __forceinline__ void refreshWorst(int k) {
#pragma unroll
        for (int m = 0; m < KMax; ++m)
            if (m == k - 1) {
                worstD = d[m];
                worstI = i[m];
            }
    }
    // Keeps (x, xi) when it beats the k-th entry and is not in the list yet.
    __device__ __forceinline__ void consider(float x, std::int32_t xi, int k) {
        if (!before(x, xi, worstD, worstI)) return;
        if constexpr (KMax <= 16) {
            // Its place p = the entries before it; a repeat is an equal entry (same dist2 and
            // index). Then a predicated shift: compile-time indices keep the list in registers.
            int p = 0;
            bool repeat = false;
#pragma unroll
            for (int m = 0; m < KMax; ++m) {
                p += int(m < k && before(d[m], i[m], x, xi));
                repeat |= m < k && d[m] == x && i[m] == xi;
            }
            if (repeat) return;
#pragma unroll
            for (int m = KMax - 1; m > 0; --m)
                if (m > p) {
                    d[m] = d[m - 1];
                    i[m] = i[m - 1];
                } else if (m == p) {
                    d[m] = x;
                    i[m] = xi;
                }
            if (p == 0) {
                d[0] = x;
                i[0] = xi;
            }
        } else {
            int p = k - 1;
            while (p > 0 && before(x, xi, d[p - 1], i[p - 1]))
                --p;
            // A repeat has the same dist2 and index, so it sits just before the insertion point.
            if (p > 0 && d[p - 1] == x && i[p - 1] == xi) return;
            for (int m = k - 1; m > p; --m) {
                d[m] = d[m - 1];
                i[m] = i[m - 1];
            }
            d[p] = x;
            i[p] = xi;
        }
        refreshWorst(k);
    }
};

// ---------------------------------------------------------------------------------------------
// Projections and the tree
// ---------------------------------------------------------------------------------------------

// Projections of kThreads points on up to kProjectionLevels directions (levels [level0,
// level0 + pass)): the points' coordinates pass through shared memory kProjectionDims at a time,
// read coalesced (a thread per point reading its own row read 32 rows' worth of cache lines per
// warp load: 5.8 ms for 1M x 128 on the H200), and each thread keeps its point's sums in
// registers, adding the dimensions in order as knnProjection does.
constexpr int kProjectionDims = 32;
constexpr int kProjectionLevels = 16;

__global__ void __launch_bounds__(kThreads)
    projectionsKernel(const float* __restrict__ coords, std::size_t n, int dims,
                      const float* __restrict__ directions, int level0, int pass,
                      float* __restrict__ proj) {
    __shared__ float xs[kThreads][kProjectionDims + 1];  // + 1: a row's reads in 32 banks
    __shared__ float qs[kProjectionLevels][kProjectionDims];
    const int tid = int(threadIdx.x);
    const std::size_t first = std::size_t(blockIdx.x) * kThreads;
    const int count = int(min(std::size_t(kThreads), n - first));
    float sum[kProjectionLevels];
#pragma unroll
    for (int l = 0; l < kProjectionLevels; ++l)
        sum[l] = 0.0f;
    for (int j0 = 0; j0 < dims; j0 += kProjectionDims) {
        const int width = min(kProjectionDims, dims - j0);
        __syncthreads();  // the previous tile is used up
        for (int e = tid; e < count * width; e += kThreads) {
            const int r = e / width, c = e % width;
            xs[r][c] = coords[(first + std::size_t(r)) * std::size_t(dims) + std::size_t(j0 + c)];
        }
        for (int e = tid; e < pass * width; e += kThreads) {
            const int l = e / width, c = e % width;
            qs[l][c] =
                directions[std::size_t(level0 + l) * std::size_t(dims) + std::size_t(j0 + c)];
        }
        __syncthreads();
        if (tid < count) {
#pragma unroll 4
            for (int c = 0; c < width; ++c) {
                const float x = xs[tid][c];
#pragma unroll
                for (int l = 0; l < kProjectionLevels; ++l)
                    if (l < pass) sum[l] = __fadd_rn(sum[l], __fmul_rn(x, qs[l][c]));
            }
        }
    }
    if (tid < count) {
#pragma unroll
        for (int l = 0; l < kProjectionLevels; ++l)
            if (l < pass) proj[std::size_t(level0 + l) * n + first + std::size_t(tid)] = sum[l];
    }
}

// Node j of level l holds positions [offsets[j], offsets[j + 1]) (knnNodeOffsets): found by
// halving [0, n) l times.
__device__ __forceinline__ std::uint32_t nodeAt(std::uint32_t p, std::uint32_t n, int level) {
    std::uint32_t b = 0, e = n, node = 0;
    for (int l = 0; l < level; ++l) {
        const std::uint32_t mid = b + (e - b) / 2;
        node = 2 * node + std::uint32_t(p >= mid);
        if (p < mid)
            e = mid;
        else
            b = mid;
    }
    return node;
}

// Point i's key at a level, (node, projection) with the node in the high word, laid out by i:
// a stable sort of these (values: i) orders every node by (projection, index).
__global__ void levelKeysKernel(const float* proj, const std::uint32_t* position, std::uint32_t n,
                                int level, std::uint64_t* keys, std::uint32_t* ids) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::uint32_t node = level > 0 ? nodeAt(position[i], n, level) : 0;
    std::uint32_t bits = __float_as_uint(proj[i]);
    bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    keys[i] = (std::uint64_t(node) << 32) | bits;
    ids[i] = i;
}

__global__ void positionsKernel(const std::uint32_t* order, std::uint32_t n,
                                std::uint32_t* position) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) position[order[p]] = p;
}

__global__ void identityKernel(std::uint32_t n, std::uint32_t* order) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) order[p] = p;
}

template <typename T>
__global__ void gatherRowsKernel(const T* dist2, int k, const std::uint32_t* rows,
                                 std::size_t count, T* out) {
    const std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s < count * std::size_t(k))
        out[s] = dist2[std::size_t(rows[s / std::size_t(k)]) * std::size_t(k) + s % std::size_t(k)];
}

__global__ void scatterRowsKernel(const float* fromDist2, const std::int32_t* fromIndex, int k,
                                  const std::uint32_t* rows, std::size_t count, float* dist2,
                                  std::int32_t* index) {
    const std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= count * std::size_t(k)) return;
    const std::size_t to =
        std::size_t(rows[s / std::size_t(k)]) * std::size_t(k) + s % std::size_t(k);
    dist2[to] = fromDist2[s];
    index[to] = fromIndex[s];
}

// soa[j][p] = coords[ids[p]][j] for p < count and j < dims, zeros elsewhere up to stride and
// dPad: 32 points x 32 dimensions per step through shared memory, so that both the rows' reads
// (a warp along a row) and the columns' writes (a warp along the points) are coalesced.
constexpr int kGatherTile = 32;
constexpr int kGatherWarps = 8;
constexpr int kGatherThreads = kGatherTile * kGatherWarps;

__global__ void __launch_bounds__(kGatherThreads)
    gatherSoaKernel(const float* __restrict__ coords, int dims, int dPad,
                    const std::uint32_t* __restrict__ ids, std::size_t count, std::size_t stride,
                    float* __restrict__ soa) {
    __shared__ float tile[kGatherTile][kGatherTile + 1];
    const int lane = int(threadIdx.x) % kGatherTile, warp = int(threadIdx.x) / kGatherTile;
    const std::size_t p0 = std::size_t(blockIdx.x) * kGatherTile;
    for (int j0 = 0; j0 < dPad; j0 += kGatherTile) {
        __syncthreads();  // the previous step's tile is written out
        for (int r = warp; r < kGatherTile; r += kGatherWarps) {
            const std::size_t p = p0 + std::size_t(r);
            const int j = j0 + lane;
            tile[r][lane] =
                p < count && j < dims ? coords[std::size_t(ids[p]) * std::size_t(dims) + j] : 0.0f;
        }
        __syncthreads();
        for (int c = warp; c < kGatherTile && j0 + c < dPad; c += kGatherWarps) {
            const std::size_t p = p0 + std::size_t(lane);
            if (p < stride) soa[std::size_t(j0 + c) * stride + p] = tile[lane][c];
        }
    }
}

__global__ void clearListsKernel(float* dist2, std::int32_t* index, std::size_t slots) {
    const std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= slots) return;
    dist2[s] = INFINITY;
    index[s] = kNoIndex;
}

__global__ void sqrtKernel(const float* dist2, std::size_t slots, float* distances) {
    const std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s < slots) distances[s] = __fsqrt_rn(dist2[s]);
}

// ---------------------------------------------------------------------------------------------
// Distances: rows (one per thread) against tiles of kKnnTile candidates, the dimensions streamed
// through shared memory Chunk at a time; acc[m] is canonicalDist2 exactly (dimensions in order,
// padding adds exact zeros).
// ---------------------------------------------------------------------------------------------

// The point index a list holds for row `row`: the row itself, or idOf[row] where the rows are a
// rank's share of the points (Backend::knnSearchLeaves).
__device__ __forceinline__ std::int32_t pointId(const std::int32_t* idOf, std::uint32_t row) {
    return idOf ? idOf[row] : std::int32_t(row);
}

template <int Chunk>
struct Tile {
    float coords[Chunk][kKnnTile];
    std::int32_t ids[kKnnTile];
};

// Fills acc with the distances from the thread's row (own column of rowSoa) to candidates
// [t0, t0 + count) of candSoa. Contains the block's barriers: every thread calls it.
template <int Chunk>
__device__ __forceinline__ void tileDistances(const float* rowSoa, std::size_t rowStride,
                                              std::size_t own, const float* candSoa,
                                              std::size_t candStride, const std::uint32_t* candIds,
                                              const std::int32_t* idOf, std::size_t t0, int count,
                                              int dPad, Tile<Chunk>& tile, float (&acc)[kKnnTile]) {
#pragma unroll
    for (int m = 0; m < kKnnTile; ++m)
        acc[m] = 0.0f;
    for (int c0 = 0; c0 < dPad; c0 += Chunk) {
        __syncthreads();
        for (int e = threadIdx.x; e < Chunk * kKnnTile; e += blockDim.x) {
            const int jj = e / kKnnTile, m = e % kKnnTile;
            tile.coords[jj][m] =
                m < count ? candSoa[std::size_t(c0 + jj) * candStride + t0 + m] : 0.0f;
        }
        if (c0 == 0 && threadIdx.x < kKnnTile)
            tile.ids[threadIdx.x] =
                int(threadIdx.x) < count ? pointId(idOf, candIds[t0 + threadIdx.x]) : kNoIndex;
        float x[Chunk];
#pragma unroll
        for (int jj = 0; jj < Chunk; ++jj)
            x[jj] = rowSoa[std::size_t(c0 + jj) * rowStride + own];
        __syncthreads();
#pragma unroll
        for (int jj = 0; jj < Chunk; ++jj) {
#pragma unroll
            for (int m = 0; m < kKnnTile; ++m) {
                const float diff = __fsub_rn(x[jj], tile.coords[jj][m]);
                acc[m] = __fadd_rn(acc[m], __fmul_rn(diff, diff));
            }
        }
    }
}

// The candidates of a tile that beat the row's k-th go into its list. Only those are visited
// (their distances parked in the thread's column of shared memory), so a warp pays for the
// insertions of its busiest row, not for every candidate any of its rows keeps.
template <int Chunk, int KMax>
__device__ __forceinline__ void keepNearest(const float (&acc)[kKnnTile], const Tile<Chunk>& tile,
                                            int count, bool active, std::int32_t self,
                                            float (*parked)[kKnnRowsPerBlock], NearList<KMax>& list,
                                            int k) {
    std::uint32_t mask = 0;
#pragma unroll
    for (int m = 0; m < kKnnTile; ++m)
        if (active && m < count && before(acc[m], tile.ids[m], list.worstD, list.worstI) &&
            tile.ids[m] != self)
            mask |= 1u << m;
    if (!mask) return;
#pragma unroll
    for (int m = 0; m < kKnnTile; ++m)
        parked[m][threadIdx.x] = acc[m];
    while (mask) {
        const int m = __ffs(mask) - 1;
        mask &= mask - 1;
        list.consider(parked[m][threadIdx.x], tile.ids[m], k);
    }
}

template <int Chunk, int KMax>
__global__ void __launch_bounds__(kKnnRowsPerBlock)
    leafSearchKernel(const float* soa, std::size_t stride, int dPad, const std::uint32_t* order,
                     const std::int32_t* idOf, const std::uint32_t* offsets,
                     const std::uint32_t* listed, unsigned rowBlocks, int k, float* dist2,
                     std::int32_t* index) {
    __shared__ Tile<Chunk> tile;
    __shared__ float parked[kKnnTile][kKnnRowsPerBlock];
    const unsigned leaf = listed ? listed[blockIdx.x / rowBlocks] : blockIdx.x / rowBlocks;
    const unsigned rowBlock = blockIdx.x % rowBlocks;
    const std::uint32_t b = offsets[leaf], e = offsets[leaf + 1];
    const std::uint32_t first = b + rowBlock * kKnnRowsPerBlock;
    if (first >= e) return;  // the whole block: no barrier is skipped by part of it
    const std::uint32_t row = first + threadIdx.x;
    const bool valid = row < e;
    const std::uint32_t own = valid ? row : first;
    const std::size_t slot = std::size_t(order[own]) * k;
    const std::int32_t self = pointId(idOf, order[own]);
    NearList<KMax> list;
    if (valid)
        list.load(dist2 + slot, index + slot, k);
    else
        list.clear();
    for (std::uint32_t t0 = b; t0 < e; t0 += kKnnTile) {
        const int count = int(min(std::uint32_t(kKnnTile), e - t0));
        float acc[kKnnTile];
        tileDistances<Chunk>(soa, stride, own, soa, stride, order, idOf, t0, count, dPad, tile,
                             acc);
        keepNearest(acc, tile, count, valid, self, parked, list, k);
    }
    if (valid) list.store(dist2 + slot, index + slot, k);
}

template <int Chunk, int KMax>
__global__ void __launch_bounds__(kKnnRowsPerBlock)
    exactPartialKernel(const float* rowSoa, std::size_t rowStride, const std::uint32_t* rowIds,
                       std::size_t rows, const float* candSoa, std::size_t candStride,
                       const std::uint32_t* candIds, std::size_t count, std::size_t chunkLength,
                       std::size_t from, std::size_t to, int dPad, int k, float* dist2,
                       std::int32_t* index) {
    __shared__ Tile<Chunk> tile;
    __shared__ float parked[kKnnTile][kKnnRowsPerBlock];
    const std::size_t chunk = blockIdx.y;
    const std::size_t row = std::size_t(blockIdx.x) * kKnnRowsPerBlock + threadIdx.x;
    const bool valid = row < rows;
    const std::size_t own = valid ? row : 0;
    const std::int32_t self = std::int32_t(rowIds[own]);
    const std::size_t chunkEnd = min(count, chunk * chunkLength + chunkLength);
    const std::size_t b = chunk * chunkLength + from;
    const std::size_t e = min(chunkEnd, chunk * chunkLength + to);
    const std::size_t slot = (chunk * rows + row) * std::size_t(k);
    // A chunk's list keeps the k smallest of its candidates whatever order they come in, so a
    // chunk may be searched in parts, its list carried from one launch to the next.
    NearList<KMax> list;
    if (valid && from > 0)
        list.load(dist2 + slot, index + slot, k);
    else
        list.clear();
    for (std::size_t t0 = b; t0 < e; t0 += kKnnTile) {
        const int n = int(min(std::size_t(kKnnTile), e - t0));
        float acc[kKnnTile];
        tileDistances<Chunk>(rowSoa, rowStride, own, candSoa, candStride, candIds, nullptr, t0, n,
                             dPad, tile, acc);
        keepNearest(acc, tile, n, valid, self, parked, list, k);
    }
    if (valid) list.store(dist2 + slot, index + slot, k);
}

template <int KMax>
__global__ void mergePartialKernel(float* dist2, std::int32_t* index, std::size_t rows,
                                   std::size_t chunks, int k) {
    const std::size_t row = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    NearList<KMax> list;
    list.load(dist2 + row * k, index + row * k, k);
    for (std::size_t c = 1; c < chunks; ++c) {
        const std::size_t slot = (c * rows + row) * std::size_t(k);
        for (int m = 0; m < k; ++m)
            list.consider(dist2[slot + m], index[slot + m], k);
    }
    list.store(dist2 + row * k, index + row * k, k);
}

// Chunk by padded dimensions, then the list size by k. A list of 16 is kept in registers, one
// of 32 in local memory: with 16-dimension chunks the registers cost occupancy (128 registers
// and 4 blocks per SM against 72 and 7 on the H200: leaf search of 1M x 128, k 10, 74 -> 64 ms;
// 100k x 16 1.9 -> 1.7 ms), with 4 they do not (1M x 3, one tree: 4.9 ms, 5.6 with 32).
template <template <int, int> class Launch, typename... Args>
void byShape(int dPad, int k, Args&&... args) {
    auto withK = [&](auto chunk) {
        constexpr int C = decltype(chunk)::value;
        if constexpr (C == 4) {
            if (k <= 16) return Launch<C, 16>::run(args...);
        }
        if (k <= 32)
            Launch<C, 32>::run(args...);
        else
            Launch<C, 64>::run(args...);
    };
    if (dPad <= 4)
        withK(std::integral_constant<int, 4>{});
    else
        withK(std::integral_constant<int, 16>{});
}

template <int C, int K>
struct LeafLaunch {
    static void run(const float* soa, std::size_t stride, int dPad, const std::uint32_t* order,
                    const std::int32_t* idOf, const std::uint32_t* offsets,
                    const std::uint32_t* listed, std::size_t leaves, int maxLeaf, int k,
                    float* dist2, std::int32_t* index, cudaStream_t stream) {
        const unsigned rowBlocks = unsigned((maxLeaf + kKnnRowsPerBlock - 1) / kKnnRowsPerBlock);
        leafSearchKernel<C, K><<<unsigned(leaves * rowBlocks), kKnnRowsPerBlock, 0, stream>>>(
            soa, stride, dPad, order, idOf, offsets, listed, rowBlocks, k, dist2, index);
    }
};

template <int C, int K>
struct ExactLaunch {
    static void run(const float* rowSoa, std::size_t rowStride, const std::uint32_t* rowIds,
                    std::size_t rows, const float* candSoa, std::size_t candStride,
                    const std::uint32_t* candIds, std::size_t count, int dPad, int k,
                    std::size_t chunks, std::size_t from, std::size_t to, float* dist2,
                    std::int32_t* index, cudaStream_t stream) {
        const dim3 grid(blocksFor(rows, kKnnRowsPerBlock), unsigned(chunks));
        exactPartialKernel<C, K><<<grid, kKnnRowsPerBlock, 0, stream>>>(
            rowSoa, rowStride, rowIds, rows, candSoa, candStride, candIds, count,
            knnExactChunkLength(count, chunks), from, to, dPad, k, dist2, index);
    }
};

}  // namespace

int knnPaddedDims(int dims) {
    return dims <= 4 ? 4 : (dims + 15) / 16 * 16;
}

std::size_t knnExactChunkLength(std::size_t count, std::size_t chunks) {
    return chunks == 0 ? count : (count + chunks - 1) / chunks;
}

void launchKnnProjections(const float* coords, std::size_t n, int dims, const float* directions,
                          int levels, float* proj, cudaStream_t stream) {
    if (n == 0 || levels == 0) return;
    for (int level0 = 0; level0 < levels; level0 += kProjectionLevels) {
        projectionsKernel<<<blocksFor(n), kThreads, 0, stream>>>(
            coords, n, dims, directions, level0, std::min(kProjectionLevels, levels - level0),
            proj);
        CS_CUDA_CHECK_LAUNCH();
    }
}

void launchKnnLevelKeys(const float* proj, const std::uint32_t* position, std::size_t n, int level,
                        std::uint64_t* keys, std::uint32_t* ids, cudaStream_t stream) {
    if (n == 0) return;
    levelKeysKernel<<<blocksFor(n), kThreads, 0, stream>>>(proj, position, std::uint32_t(n), level,
                                                           keys, ids);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnPositions(const std::uint32_t* order, std::size_t n, std::uint32_t* position,
                        cudaStream_t stream) {
    if (n == 0) return;
    positionsKernel<<<blocksFor(n), kThreads, 0, stream>>>(order, std::uint32_t(n), position);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnIdentity(std::size_t n, std::uint32_t* order, cudaStream_t stream) {
    if (n == 0) return;
    identityKernel<<<blocksFor(n), kThreads, 0, stream>>>(std::uint32_t(n), order);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnGatherRows(const float* dist2, int k, const std::uint32_t* rows, std::size_t count,
                         float* out, cudaStream_t stream) {
    if (count == 0) return;
    gatherRowsKernel<<<blocksFor(count * std::size_t(k)), kThreads, 0, stream>>>(dist2, k, rows,
                                                                                 count, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnGatherRowIndices(const std::int32_t* index, int k, const std::uint32_t* rows,
                               std::size_t count, std::int32_t* out, cudaStream_t stream) {
    if (count == 0) return;
    gatherRowsKernel<<<blocksFor(count * std::size_t(k)), kThreads, 0, stream>>>(index, k, rows,
                                                                                 count, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnGatherSoa(const float* coords, int dims, int dPad, const std::uint32_t* ids,
                        std::size_t count, std::size_t stride, float* soa, cudaStream_t stream) {
    if (stride == 0) return;
    gatherSoaKernel<<<blocksFor(stride, kGatherTile), kGatherThreads, 0, stream>>>(
        coords, dims, dPad, ids, count, stride, soa);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnClearLists(float* dist2, std::int32_t* index, std::size_t slots,
                         cudaStream_t stream) {
    if (slots == 0) return;
    clearListsKernel<<<blocksFor(slots), kThreads, 0, stream>>>(dist2, index, slots);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnLeafSearch(const float* soa, std::size_t stride, int dPad, const std::uint32_t* order,
                         const std::int32_t* idOf, const std::uint32_t* offsets, std::size_t leaves,
                         int maxLeaf, int k, float* dist2, std::int32_t* index,
                         cudaStream_t stream) {
    if (leaves == 0 || maxLeaf == 0) return;
    byShape<LeafLaunch>(dPad, k, soa, stride, dPad, order, idOf, offsets, nullptr, leaves, maxLeaf,
                        k, dist2, index, stream);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnLeafSearchListed(const float* soa, std::size_t stride, int dPad,
                               const std::uint32_t* order, const std::int32_t* idOf,
                               const std::uint32_t* offsets, const std::uint32_t* listed,
                               std::size_t count, int maxLeaf, int k, float* dist2,
                               std::int32_t* index, cudaStream_t stream) {
    if (count == 0 || maxLeaf == 0) return;
    byShape<LeafLaunch>(dPad, k, soa, stride, dPad, order, idOf, offsets, listed, count, maxLeaf, k,
                        dist2, index, stream);
    CS_CUDA_CHECK_LAUNCH();
}

template <int C, int K>
struct LeafOccupancy {
    static void run(int* blocks) {
        CS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, leafSearchKernel<C, K>,
                                                                    kKnnRowsPerBlock, 0));
    }
};

int knnLeafSearchBlocksPerMultiprocessor(int dPad, int k) {
    int blocks = 0;
    byShape<LeafOccupancy>(dPad, k, &blocks);
    return std::max(blocks, 1);
}

void launchKnnExactPartial(const float* rowSoa, std::size_t rowStride, const std::uint32_t* rowIds,
                           std::size_t rows, const float* candSoa, std::size_t candStride,
                           const std::uint32_t* candIds, std::size_t count, int dPad, int k,
                           std::size_t chunks, std::size_t from, std::size_t to, float* dist2,
                           std::int32_t* index, cudaStream_t stream) {
    if (rows == 0 || chunks == 0 || to <= from) return;
    byShape<ExactLaunch>(dPad, k, rowSoa, rowStride, rowIds, rows, candSoa, candStride, candIds,
                         count, dPad, k, chunks, from, to, dist2, index, stream);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnMergePartial(float* dist2, std::int32_t* index, std::size_t rows, std::size_t chunks,
                           int k, cudaStream_t stream) {
    if (rows == 0) return;
    const unsigned blocks = blocksFor(rows, 64);
    if (k <= 16)
        mergePartialKernel<16><<<blocks, 64, 0, stream>>>(dist2, index, rows, chunks, k);
    else if (k <= 32)
        mergePartialKernel<32><<<blocks, 64, 0, stream>>>(dist2, index, rows, chunks, k);
    else
        mergePartialKernel<64><<<blocks, 64, 0, stream>>>(dist2, index, rows, chunks, k);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnScatterRows(const float* fromDist2, const std::int32_t* fromIndex, int k,
                          const std::uint32_t* rows, std::size_t count, float* dist2,
                          std::int32_t* index, cudaStream_t stream) {
    if (count == 0) return;
    scatterRowsKernel<<<blocksFor(count * std::size_t(k)), kThreads, 0, stream>>>(
        fromDist2, fromIndex, k, rows, count, dist2, index);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKnnSqrt(const float* dist2, std::size_t slots, float* distances, cudaStream_t stream) {
    if (slots == 0) return;
    sqrtKernel<<<blocksFor(slots), kThreads, 0, stream>>>(dist2, slots, distances);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
