// SPDX-License-Identifier: MIT
#pragma once

// Device helpers shared by the DBSCAN and k-distance kernels (nvcc only): the canonical
// distance, exact box bounds, lock-free union-find, warp-aggregated atomics, grid navigation,
// register-tiled distance accumulation for any d.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_error.h"
#include "kernels/common/ordered_float.cuh"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels::detail {

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;

// --- canonicalDist2, bit for bit ------------------------------------------------------------
// compute/dbscan/dbscan.h: sum over j of (a_j - b_j)^2, float, dimension order, no FMA. The
// intrinsics pin the rounding (nvcc would otherwise contract the multiply-add). The CPU starts
// from 0.0f; 0.0f + s == s exactly for the s >= 0 here, so starting from the first term is
// the same value.

template <int D>
__device__ __forceinline__ float canonicalDist2(const float4& a, const float4& b) {
    const float dx = __fsub_rn(a.x, b.x);
    float sum = __fmul_rn(dx, dx);
    if constexpr (D >= 2) {
        const float dy = __fsub_rn(a.y, b.y);
        sum = __fadd_rn(sum, __fmul_rn(dy, dy));
    }
    if constexpr (D >= 3) {
        const float dz = __fsub_rn(a.z, b.z);
        sum = __fadd_rn(sum, __fmul_rn(dz, dz));
    }
    return sum;
}

__device__ __forceinline__ float canonicalDist2(const float* a, const float* b, int dims) {
    float sum = 0.0f;
    for (int j = 0; j < dims; ++j) {
        const float diff = __fsub_rn(__ldg(a + j), __ldg(b + j));
        sum = __fadd_rn(sum, __fmul_rn(diff, diff));
    }
    return sum;
}

template <int D>
__device__ __forceinline__ float coord(const float4& v, int j) {
    return j == 0 ? v.x : (j == 1 ? v.y : v.z);
}

// --- exact bounds of canonicalDist2 between a point and a box -------------------------------
// Rounding is monotone, so fl(a - b) grows with |a - b| and so do its square and the sums:
// the gap to a box bounds every member's canonicalDist2 from below, the farthest corner from
// above, exactly (no margin), as in the CPU grid (compute/dbscan/dbscan_cpu.cpp).

template <int D>
__device__ __forceinline__ float boxMinDist2(const float4& p, const float4& lo, const float4& hi) {
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < D; ++j) {
        const float x = coord<D>(p, j), l = coord<D>(lo, j), h = coord<D>(hi, j);
        const float gap = x < l ? __fsub_rn(l, x) : (x > h ? __fsub_rn(x, h) : 0.0f);
        sum = __fadd_rn(sum, __fmul_rn(gap, gap));
    }
    return sum;
}

template <int D>
__device__ __forceinline__ float boxMaxDist2(const float4& p, const float4& lo, const float4& hi) {
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < D; ++j) {
        const float x = coord<D>(p, j), l = coord<D>(lo, j), h = coord<D>(hi, j);
        const float far = fmaxf(__fsub_rn(x, l), __fsub_rn(h, x));
        sum = __fadd_rn(sum, __fmul_rn(far, far));
    }
    return sum;
}

// --- lock-free union-find ---------------------------------------------------------------------
// A root is hooked under a smaller root by atomicCAS, so every parent is smaller than its child
// and no cycle can form; find halves paths with plain stores (any ancestor is a valid parent,
// so racing stores are benign). Loads bypass L1 (__ldcg): other blocks change parents.

__device__ __forceinline__ std::uint32_t ufFind(std::uint32_t* parent, std::uint32_t x) {
    std::uint32_t p = __ldcg(parent + x);
    while (p != x) {
        const std::uint32_t g = __ldcg(parent + p);
        if (g == p) return p;
        parent[x] = g;
        x = g;
        p = __ldcg(parent + x);
    }
    return x;
}

/// Unites the sets of a and b; returns the root they share afterwards (at that moment).
__device__ __forceinline__ std::uint32_t ufUnite(std::uint32_t* parent, std::uint32_t a,
                                                 std::uint32_t b) {
    for (;;) {
        a = ufFind(parent, a);
        b = ufFind(parent, b);
        if (a == b) return a;
        if (a < b) {
            const std::uint32_t t = a;
            a = b;
            b = t;
        }
        if (atomicCAS(parent + a, a, b) == a) return b;
    }
}

// --- warp-aggregated atomicMin ----------------------------------------------------------------
// Points come sorted by cell (or clustered by root), so the lanes of a warp mostly hit the same
// slot: one atomic per distinct slot instead of one per lane keeps a 10M-point cluster from
// serialising on one address. All 32 lanes must call; lanes with active == false pass through.

__device__ __forceinline__ void warpAtomicMin(std::uint32_t* base, std::uint32_t slot,
                                              std::uint32_t value, bool active) {
    const std::uint32_t key = active ? slot : kNoPoint;
    const unsigned peers = __match_any_sync(kFullMask, key);
#if __CUDA_ARCH__ >= 800
    const std::uint32_t least = __reduce_min_sync(peers, value);
    const unsigned lane = threadIdx.x & 31u;
    if (active && lane == unsigned(__ffs(peers) - 1)) atomicMin(base + slot, least);
#else
    (void)peers;
    if (active) atomicMin(base + slot, value);
#endif
}

// --- grid navigation --------------------------------------------------------------------------

__device__ __forceinline__ std::uint32_t hashColumnKey(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return std::uint32_t(k);
}

__device__ __forceinline__ std::uint64_t lowMask(unsigned bits) {
    return bits >= 64 ? ~0ull : ((1ull << bits) - 1ull);
}

/// Cell coordinate j of a key.
__device__ __forceinline__ int keyCoord(const GridView& g, std::uint64_t key, int j) {
    return int((key >> g.geo.shift[j]) & lowMask(g.geo.bits[j]));
}

/// The column (index) holding cells with leading coordinates c[0 .. dims-2], or kNoPoint.
template <int D>
__device__ __forceinline__ std::uint32_t findColumn(const GridView& g, const int* c) {
    std::uint64_t key = 0;
    if constexpr (D >= 2) {
#pragma unroll
        for (int j = 0; j < D - 1; ++j) {
            if (c[j] < 0 || c[j] >= int(g.geo.cells[j])) return kNoPoint;
            key |= std::uint64_t(c[j]) << (g.geo.shift[j] - g.geo.bits[D - 1]);
        }
    }
    std::uint32_t slot = hashColumnKey(key) & g.hashMask;
    for (;;) {
        const std::uint64_t k = __ldg(g.hashKeys + slot);
        if (k == key) return __ldg(g.hashColumn + slot);
        if (k == ~0ull) return kNoPoint;
        slot = (slot + 1) & g.hashMask;
    }
}

/// Cells [c0, c1) of a column whose last coordinate lies in [zlo, zhi].
template <int D>
__device__ __forceinline__ void columnCells(const GridView& g, std::uint32_t column, int zlo,
                                            int zhi, std::uint32_t& c0, std::uint32_t& c1) {
    c0 = c1 = 0;
    if (zlo > zhi) return;
    const std::uint64_t mask = lowMask(g.geo.bits[D - 1]);
    const std::uint32_t cs = __ldg(g.columnStart + column);
    const std::uint32_t ce = __ldg(g.columnStart + column + 1);
    const int zf = int(__ldg(g.cellKey + cs) & mask);
    const int zl = int(__ldg(g.cellKey + ce - 1) & mask);
    if (zhi < zf || zlo > zl) return;
    if (std::uint32_t(zl - zf + 1) == ce - cs) {  // a full column: direct indexing
        c0 = cs + std::uint32_t(max(zlo - zf, 0));
        c1 = cs + std::uint32_t(min(zhi, zl) - zf + 1);
        return;
    }
    std::uint32_t lo = cs, hi = ce;  // lower bound of zlo
    while (lo < hi) {
        const std::uint32_t mid = (lo + hi) >> 1;
        if (int(__ldg(g.cellKey + mid) & mask) < zlo)
            lo = mid + 1;
        else
            hi = mid;
    }
    c0 = lo;
    c1 = lo;
    while (c1 < ce && int(__ldg(g.cellKey + c1) & mask) <= zhi)
        ++c1;
}

__device__ __forceinline__ float4 loadPos(const GridView& g, std::uint32_t p) {
    return __ldg(reinterpret_cast<const float4*>(g.pos) + p);
}
__device__ __forceinline__ float4 loadLo(const GridView& g, std::uint32_t c) {
    return __ldg(reinterpret_cast<const float4*>(g.cellLo) + c);
}
__device__ __forceinline__ float4 loadHi(const GridView& g, std::uint32_t c) {
    return __ldg(reinterpret_cast<const float4*>(g.cellHi) + c);
}

// --- register tiles for any d (the Brute path's wide kernels and the k-distance) -------------

// acc[m] for the kWideTile points from t0: sum_j t_j p_j (FMA; hoisted form) or, with
// Canonical, canonicalDist2 itself (the dimensions are visited in order, zero padding adds
// exact zeros). Contains the block's barriers: every thread must call it.
template <bool Canonical>
__device__ __forceinline__ void wideAccumulate(const BruteView& v, std::uint32_t self,
                                               std::uint32_t t0, bool compute,
                                               float (*s)[kWideTile], float (&acc)[kWideTile]) {
#pragma unroll
    for (int m = 0; m < kWideTile; ++m)
        acc[m] = 0.0f;
    for (int c0 = 0; c0 < v.dPad; c0 += kWideChunk) {
        __syncthreads();
        for (int e = threadIdx.x; e < kWideChunk * kWideTile; e += blockDim.x) {
            const int jj = e / kWideTile, m = e % kWideTile;
            s[jj][m] = v.soa[std::size_t(c0 + jj) * v.stride + t0 + m];
        }
        float own[kWideChunk];
#pragma unroll
        for (int jj = 0; jj < kWideChunk; ++jj)
            own[jj] = v.soa[std::size_t(c0 + jj) * v.stride + self];
        __syncthreads();
        if (!compute) continue;
#pragma unroll
        for (int jj = 0; jj < kWideChunk; ++jj) {
#pragma unroll
            for (int m = 0; m < kWideTile; ++m) {
                if constexpr (Canonical) {
                    const float diff = __fsub_rn(own[jj], s[jj][m]);
                    acc[m] = __fadd_rn(acc[m], __fmul_rn(diff, diff));
                } else {
                    acc[m] = fmaf(own[jj], s[jj][m], acc[m]);
                }
            }
        }
    }
}

// --- launch sizes ---------------------------------------------------------------------------

// Multiprocessors of the current device: asked every time (a cheap, driver-cached attribute),
// since jobs may run on different GPUs.
inline int multiprocessors() {
    int device = 0, sms = 0;
    CS_CUDA_CHECK(cudaGetDevice(&device));
    CS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

// Rows (one per thread) that fill the current device once with kernel in blocks of `threads`.
template <typename Kernel>
std::uint32_t rowsPerWave(Kernel kernel, int threads) {
    int blocks = 0;
    CS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
    return std::uint32_t(std::max(multiprocessors(), 1) * std::max(blocks, 1) * threads);
}

}  // namespace cs::kernels::detail
