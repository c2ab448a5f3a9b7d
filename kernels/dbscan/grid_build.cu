// SPDX-License-Identifier: MIT
// Building the uniform grid on the device: bounds, cell keys, a radix sort (CUB), cells,
// exact cell boxes and clique flags, columns and their hash table. Also the CUB wrappers
// (scans, float sort) that the host orchestration uses.

#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_device.cuh"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

using detail::floatToOrdered;
using detail::kFullMask;

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t n, int threads = kThreads) {
    return unsigned((n + std::size_t(threads) - 1) / std::size_t(threads));
}

__global__ void initBoundsKernel(std::uint32_t* out) {
    const int i = threadIdx.x;
    if (i < 3)
        out[i] = 0xFFFFFFFFu;
    else if (i < 7)
        out[i] = 0u;
}

// One pass over the points: the box (d <= 3) and a flag for NaN/Inf anywhere.
__global__ void pointBoundsKernel(const float* coords, std::size_t n, int dims,
                                  std::uint32_t* out) {
    std::uint32_t lo[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    std::uint32_t hi[3] = {0u, 0u, 0u};
    bool bad = false;
    const std::size_t total = n * std::size_t(dims);
    const std::size_t step = std::size_t(gridDim.x) * blockDim.x;
    if (dims <= 3) {
        for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += step)
            for (int j = 0; j < dims; ++j) {
                const float v = coords[i * dims + j];
                bad |= !isfinite(v);
                const std::uint32_t o = floatToOrdered(v);
                lo[j] = min(lo[j], o);
                hi[j] = max(hi[j], o);
            }
    } else {
        for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
             i += step)
            bad |= !isfinite(coords[i]);
    }
    for (int off = 16; off > 0; off >>= 1)
        for (int j = 0; j < 3; ++j) {
            lo[j] = min(lo[j], __shfl_xor_sync(kFullMask, lo[j], off));
            hi[j] = max(hi[j], __shfl_xor_sync(kFullMask, hi[j], off));
        }
    const bool anyBad = __any_sync(kFullMask, bad);
    if ((threadIdx.x & 31) == 0) {
        for (int j = 0; j < dims && j < 3; ++j) {
            atomicMin(out + j, lo[j]);
            atomicMax(out + 3 + j, hi[j]);
        }
        if (anyBad) atomicOr(out + 6, 1u);
    }
}

template <int D>
__global__ void gridKeysKernel(const float* coords, std::size_t n, GridGeometry geo,
                               std::uint64_t* keys, std::uint32_t* index) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    std::uint64_t key = 0;
#pragma unroll
    for (int j = 0; j < D; ++j) {
        // Double keeps the cell coordinate within ~2^-21 cells of exact; the stencil radius
        // (dbscan_gpu.cpp, chooseGrid) has room for that.
        const double u = (double(coords[i * D + j]) - geo.origin[j]) * geo.invSide[j];
        double q = floor(u);
        q = q < 0.0 ? 0.0 : q;
        const double top = double(geo.cells[j] - 1);
        q = q > top ? top : q;
        key |= std::uint64_t(q) << geo.shift[j];
    }
    keys[i] = key;
    index[i] = std::uint32_t(i);
}

template <int D>
__global__ void gridGatherKernel(const float* coords, const std::uint64_t* keys,
                                 const std::uint32_t* index, std::size_t n, float4* pos,
                                 std::uint32_t* head) {
    const std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (p >= n) return;
    const std::size_t i = index[p];
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    v.x = coords[i * D];
    if constexpr (D >= 2) v.y = coords[i * D + 1];
    if constexpr (D >= 3) v.z = coords[i * D + 2];
    pos[p] = v;
    head[p] = (p > 0 && keys[p] != keys[p - 1]) ? 1u : 0u;
}

__global__ void gridCellsKernel(const std::uint64_t* keys, const std::uint32_t* pointCell,
                                std::size_t n, std::uint32_t* cellStart, std::uint64_t* cellKey) {
    const std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (p >= n) return;
    const std::uint32_t c = pointCell[p];
    if (p == 0 || keys[p] != keys[p - 1]) {
        cellStart[c] = std::uint32_t(p);
        cellKey[c] = keys[p];
    }
    if (p == n - 1) cellStart[c + 1] = std::uint32_t(n);
}

__global__ void boxInitKernel(std::uint32_t* lo, std::uint32_t* hi, std::uint32_t cells) {
    const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cells) return;
    reinterpret_cast<uint4*>(lo)[c] = make_uint4(~0u, ~0u, ~0u, ~0u);
    reinterpret_cast<uint4*>(hi)[c] = make_uint4(0u, 0u, 0u, 0u);
}

// Cells are runs of consecutive positions, so lanes of a warp share cells: reduce within each
// run (match_any) and let one lane per run issue the atomics. A dense cell of 50k points then
// takes ~1.5k atomics per word instead of 50k.
template <int D>
__global__ void boxAccumulateKernel(GridView g, std::uint32_t* lo, std::uint32_t* hi) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = p < g.n;
    const std::uint32_t cell = active ? g.pointCell[p] : kNoPoint;
    const float4 v = active ? detail::loadPos(g, p) : make_float4(0.f, 0.f, 0.f, 0.f);
    const unsigned peers = __match_any_sync(kFullMask, cell);
    const bool leader = active && (threadIdx.x & 31u) == unsigned(__ffs(peers) - 1);
#pragma unroll
    for (int j = 0; j < D; ++j) {
        const std::uint32_t o = floatToOrdered(detail::coord<D>(v, j));
#if __CUDA_ARCH__ >= 800
        const std::uint32_t mn = __reduce_min_sync(peers, o);
        const std::uint32_t mx = __reduce_max_sync(peers, o);
        if (leader) {
            atomicMin(lo + std::size_t(cell) * 4 + j, mn);
            atomicMax(hi + std::size_t(cell) * 4 + j, mx);
        }
#else
        (void)leader;
        if (active) {
            atomicMin(lo + std::size_t(cell) * 4 + j, o);
            atomicMax(hi + std::size_t(cell) * 4 + j, o);
        }
#endif
    }
}

// Decodes the words in place and marks cliques: canonicalDist2(hi, lo) <= eps2 bounds every
// pair of the cell (monotone rounding), exactly as the CPU grid decides it.
template <int D>
__global__ void boxFinishKernel(std::uint32_t cells, float eps2, float* lo, float* hi,
                                std::uint8_t* clique) {
    const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cells) return;
    uint4 l = reinterpret_cast<uint4*>(lo)[c];
    uint4 h = reinterpret_cast<uint4*>(hi)[c];
    float4 fl = make_float4(detail::orderedToFloatDevice(l.x), 0.f, 0.f, 0.f);
    float4 fh = make_float4(detail::orderedToFloatDevice(h.x), 0.f, 0.f, 0.f);
    if constexpr (D >= 2) {
        fl.y = detail::orderedToFloatDevice(l.y);
        fh.y = detail::orderedToFloatDevice(h.y);
    }
    if constexpr (D >= 3) {
        fl.z = detail::orderedToFloatDevice(l.z);
        fh.z = detail::orderedToFloatDevice(h.z);
    }
    reinterpret_cast<float4*>(lo)[c] = fl;
    reinterpret_cast<float4*>(hi)[c] = fh;
    clique[c] = detail::canonicalDist2<D>(fh, fl) <= eps2 ? 1 : 0;
}

__global__ void occupancyKernel(GridView g, unsigned long long cap, unsigned long long* sumSq) {
    const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long v = 0;
    if (c < g.cellCount) {
        const unsigned long long size = g.cellStart[c + 1] - g.cellStart[c];
        v = size * (g.cellClique[c] ? min(size, cap) : size);
    }
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(kFullMask, v, off);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(sumSq, v);
}

__device__ __forceinline__ std::uint64_t columnKeyOf(const GridView& g, std::uint64_t cellKey) {
    return g.geo.dims == 1 ? 0ull : (cellKey >> g.geo.bits[g.geo.dims - 1]);
}

__global__ void columnFlagsKernel(GridView g, std::uint32_t* flags) {
    const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g.cellCount) return;
    flags[c] =
        (c > 0 && columnKeyOf(g, g.cellKey[c]) != columnKeyOf(g, g.cellKey[c - 1])) ? 1u : 0u;
}

__global__ void gridColumnsKernel(GridView g, const std::uint32_t* cellColumn,
                                  std::uint32_t* columnStart, std::uint64_t* hashKeys,
                                  std::uint32_t* hashColumn) {
    const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g.cellCount) return;
    const std::uint32_t column = cellColumn[c];
    if (c == g.cellCount - 1) columnStart[column + 1] = g.cellCount;
    const std::uint64_t key = columnKeyOf(g, g.cellKey[c]);
    if (c > 0 && key == columnKeyOf(g, g.cellKey[c - 1])) return;
    columnStart[column] = c;
    // Column keys are unique and below 2^63, never the empty mark ~0.
    std::uint32_t slot = detail::hashColumnKey(key) & g.hashMask;
    for (;;) {
        const unsigned long long prev =
            atomicCAS(reinterpret_cast<unsigned long long*>(hashKeys + slot), ~0ull, key);
        if (prev == ~0ull) {
            hashColumn[slot] = column;
            return;
        }
        slot = (slot + 1) & g.hashMask;
    }
}

template <template <int> class Launch, typename... Args>
void byDims(int dims, Args&&... args) {
    switch (dims) {
        case 1:
            Launch<1>::run(args...);
            break;
        case 2:
            Launch<2>::run(args...);
            break;
        default:
            Launch<3>::run(args...);
            break;
    }
}

template <int D>
struct KeysLaunch {
    static void run(const float* coords, std::size_t n, const GridGeometry& geo,
                    std::uint64_t* keys, std::uint32_t* index, cudaStream_t stream) {
        gridKeysKernel<D><<<blocksFor(n), kThreads, 0, stream>>>(coords, n, geo, keys, index);
    }
};

template <int D>
struct GatherLaunch {
    static void run(const float* coords, const std::uint64_t* keys, const std::uint32_t* index,
                    std::size_t n, float* pos, std::uint32_t* head, cudaStream_t stream) {
        gridGatherKernel<D><<<blocksFor(n), kThreads, 0, stream>>>(
            coords, keys, index, n, reinterpret_cast<float4*>(pos), head);
    }
};

template <int D>
struct BoxLaunch {
    static void run(const GridView& g, float eps2, float* lo, float* hi, std::uint8_t* clique,
                    cudaStream_t stream) {
        auto* wlo = reinterpret_cast<std::uint32_t*>(lo);
        auto* whi = reinterpret_cast<std::uint32_t*>(hi);
        boxInitKernel<<<blocksFor(g.cellCount), kThreads, 0, stream>>>(wlo, whi, g.cellCount);
        CS_CUDA_CHECK_LAUNCH();
        boxAccumulateKernel<D><<<blocksFor(g.n), kThreads, 0, stream>>>(g, wlo, whi);
        CS_CUDA_CHECK_LAUNCH();
        boxFinishKernel<D>
            <<<blocksFor(g.cellCount), kThreads, 0, stream>>>(g.cellCount, eps2, lo, hi, clique);
    }
};

}  // namespace

void initPointBounds(std::uint32_t* out, cudaStream_t stream) {
    initBoundsKernel<<<1, 32, 0, stream>>>(out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchPointBounds(const float* coords, std::size_t n, int dims, std::uint32_t* out,
                       cudaStream_t stream) {
    if (n == 0) return;
    const std::size_t work = dims <= 3 ? n : n * std::size_t(dims);
    const unsigned blocks = unsigned(std::min<std::size_t>(blocksFor(work), 2048));
    pointBoundsKernel<<<blocks, kThreads, 0, stream>>>(coords, n, dims, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridKeys(const float* coords, std::size_t n, const GridGeometry& geo,
                    std::uint64_t* keys, std::uint32_t* index, cudaStream_t stream) {
    if (n == 0) return;
    byDims<KeysLaunch>(geo.dims, coords, n, geo, keys, index, stream);
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridGather(const float* coords, int dims, const std::uint64_t* sortedKeys,
                      const std::uint32_t* sortedIndex, std::size_t n, float* pos,
                      std::uint32_t* headFlags, cudaStream_t stream) {
    if (n == 0) return;
    byDims<GatherLaunch>(dims, coords, sortedKeys, sortedIndex, n, pos, headFlags, stream);
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridCells(const std::uint64_t* sortedKeys, const std::uint32_t* pointCell, std::size_t n,
                     std::uint32_t* cellStart, std::uint64_t* cellKey, cudaStream_t stream) {
    if (n == 0) return;
    gridCellsKernel<<<blocksFor(n), kThreads, 0, stream>>>(sortedKeys, pointCell, n, cellStart,
                                                           cellKey);
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridBoxes(const GridView& grid, float eps2, float* lo, float* hi, std::uint8_t* clique,
                     cudaStream_t stream) {
    if (grid.cellCount == 0) return;
    byDims<BoxLaunch>(grid.geo.dims, grid, eps2, lo, hi, clique, stream);
    CS_CUDA_CHECK_LAUNCH();
}

void launchCellOccupancy(const GridView& grid, unsigned long long cap, unsigned long long* sumSq,
                         cudaStream_t stream) {
    if (grid.cellCount == 0) return;
    occupancyKernel<<<blocksFor(grid.cellCount), kThreads, 0, stream>>>(grid, cap, sumSq);
    CS_CUDA_CHECK_LAUNCH();
}

void launchColumnFlags(const GridView& grid, std::uint32_t* flags, cudaStream_t stream) {
    if (grid.cellCount == 0) return;
    columnFlagsKernel<<<blocksFor(grid.cellCount), kThreads, 0, stream>>>(grid, flags);
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridColumns(const GridView& grid, const std::uint32_t* cellColumn,
                       std::uint32_t* columnStart, std::uint64_t* hashKeys,
                       std::uint32_t* hashColumn, cudaStream_t stream) {
    if (grid.cellCount == 0) return;
    CS_CUDA_CHECK(cudaMemsetAsync(
        hashKeys, 0xFF, (std::size_t(grid.hashMask) + 1) * sizeof(std::uint64_t), stream));
    gridColumnsKernel<<<blocksFor(grid.cellCount), kThreads, 0, stream>>>(
        grid, cellColumn, columnStart, hashKeys, hashColumn);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
