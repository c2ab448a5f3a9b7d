// SPDX-License-Identifier: MIT
// The Brute path of GPU DBSCAN: the distance kernel of the CUDA DBSCAN seed paper (its section on
// the distance kernel and its optimisations), fused with the neighbourhood test so no
// distance matrix is ever stored, for any d:
//  - points as structure-of-arrays X[j][i] (coalesced loads: the paper's 30.8x step);
//  - tiles of points staged in shared memory, the thread's own point in registers (2.0x);
//  - the inner loop over the tile unrolled by 32 (4.5x);
//  - squared distances compared with eps^2, never a square root;
//  - the hoisted form dist = T + P[n] - (X px + Y py + Z pz) with T = |t|^2, X = 2 tx ...
//    and P[n] = |p|^2 computed once (12.5 ms in the paper), generalised to d.
// d <= 3 runs the paper's kernel as written (tiles of 128 points as float4 {x, y, z, P}); larger
// d a register-tiled variant of the same idea: tiles of 32 points, chunks of 16 dimensions in
// shared memory, 32 accumulators per thread.
//
// The hoisted value h rounds differently from canonicalDist2 c, so it only classifies pairs that
// are clearly in or out; the rest are rechecked with canonicalDist2. The bound: with u = 2^-24,
// FMA chains of d terms (T, P and the dot product) err by at most gamma_d = d u / (1 - d u)
// times the sum of |terms|, and sum |2 t_j p_j| <= T + P, so |h - D| <= (2 d + 3) u (T + P)
// (1 + O(d u)) for the exact D = |t - p|^2, while |c - D| <= gamma_(d+2) D <= 2 (d + 2) u (T + P).
// Hence |h - c| <= (4 d + 7) u (T + P) (1 + O(d u)). We use
//     B = (4 d + 16) u (1 + 2^-10) (T + Pmax) + 2^-20 eps2 + 2^-126,
// Pmax the largest P of the tile: the extra 9 u (T + P) and the 2^-20 eps2 absorb the rounding of
// B and of eps2 -/+ B, and 2^-126 the absolute error of underflowing terms (at most
// (4 d + 10) 2^-150). h < eps2 - B: within eps; h > eps2 + B: not; otherwise (or h NaN)
// recheck. When T + Pmax >= 2^120 (coordinates near 2^60) intermediate values may overflow: the
// whole tile is rechecked.
#include <algorithm>
#include <cfloat>
#include <type_traits>

#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_device.cuh"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

using detail::canonicalDist2;
using detail::ufFind;
using detail::ufUnite;
using detail::wideAccumulate;

constexpr int kWideThreads = 128;
constexpr float kHugeNorm = 0x1p120f;

struct Band {
    float lo, hi;
};

__device__ __forceinline__ Band hoistedBand(const BruteView& v, float T, float pmax, float eps2) {
    const float tp = T + pmax;
    if (!(tp < kHugeNorm)) return {-INFINITY, INFINITY};
    const float b = v.boundScale * tp + (eps2 * 0x1p-20f + FLT_MIN);
    return {eps2 - b, eps2 + b};
}

// 0: out, 1: in, 2: recheck with canonicalDist2.
__device__ __forceinline__ int classify(float h, const Band& band) {
    if (h > band.hi) return 0;
    if (h < band.lo) return 1;
    return 2;
}

template <int D>
__device__ __forceinline__ float4 ownPoint(const BruteView& v, std::uint32_t i) {
    float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
    t.x = v.soa[i];
    if constexpr (D >= 2) t.y = v.soa[v.stride + i];
    if constexpr (D >= 3) t.z = v.soa[2 * v.stride + i];
    return t;
}

// Stages tile [t0, t0 + kBruteTile) as {x, y, z, P}; the stride is a multiple of the tile, so
// the padding (zeros) keeps loads in bounds.
template <int D>
__device__ __forceinline__ float4 tilePoint(const BruteView& v, std::uint32_t j) {
    float4 q = ownPoint<D>(v, j);
    q.w = v.norms[j];
    return q;
}

// (X px + Y py + Z pz), X = 2 tx ...: FMAs on purpose, the band covers their rounding.
template <int D>
__device__ __forceinline__ float hoistedDot(const float4& X, const float4& q) {
    float dot = X.x * q.x;
    if constexpr (D >= 2) dot = fmaf(X.y, q.y, dot);
    if constexpr (D >= 3) dot = fmaf(X.z, q.z, dot);
    return dot;
}

// ---------------------------------------------------------------------------------------------
// d <= 3: the paper's kernel
// ---------------------------------------------------------------------------------------------

template <int D>
__global__ void __launch_bounds__(kBruteTile)
    bruteCountKernel(BruteView v, float eps2, std::uint32_t minPts, BruteRange r,
                     std::uint32_t* counts, std::uint8_t* core) {
    __shared__ float4 tile[kBruteTile];
    const std::uint32_t i = r.rowBegin + blockIdx.x * kBruteTile + threadIdx.x;
    const bool valid = i < r.rowEnd;
    const std::uint32_t self = valid ? i : r.rowBegin;
    const float4 t = ownPoint<D>(v, self);
    const float T = v.norms[self];
    const float4 X = make_float4(2.f * t.x, 2.f * t.y, 2.f * t.z, 0.f);
    std::uint32_t count = valid && r.colBegin > 0 ? counts[i - r.rowBegin] : 0;
    bool done = !valid || count >= minPts;
    for (std::uint32_t t0 = r.colBegin; t0 < r.colEnd; t0 += kBruteTile) {
        // Also the barrier before the tile is overwritten; a block stops once all its rows
        // reached minPts (counting past minPts changes no core flag).
        if (!__syncthreads_or(!done)) break;
        tile[threadIdx.x] = tilePoint<D>(v, t0 + threadIdx.x);
        __syncthreads();
        if (done) continue;
        const Band band = hoistedBand(v, T, v.tileMax[t0 / kBruteTile], eps2);
        const std::uint32_t nt = min(std::uint32_t(kBruteTile), r.colEnd - t0);
        auto visit = [&](int m) {
            const float4 q = tile[m];
            const float h = (T + q.w) - hoistedDot<D>(X, q);
            const int verdict = classify(h, band);
            if (verdict == 1)
                ++count;
            else if (verdict == 2 && canonicalDist2<D>(t, q) <= eps2)
                ++count;
        };
        if (nt == kBruteTile) {
#pragma unroll 32
            for (int m = 0; m < kBruteTile; ++m)
                visit(m);
        } else {
            for (int m = 0; m < int(nt); ++m)
                visit(m);
        }
        if (count >= minPts) done = true;
    }
    if (valid) {
        counts[i - r.rowBegin] = count;
        core[i] = count >= minPts ? 1 : 0;
    }
}

// Core rows against the core points after them. The tile carries each point's union-find root
// as of the load, so points already in the row's component cost one comparison, not a find.
// The column tiles of a row block are dealt out over gridDim.y blocks (tile k to block
// k mod gridDim.y): at the paper's sizes one block per row tile leaves most of the GPU idle and
// the upper triangle makes the first blocks the longest. Unions commute, so any split is exact.
template <int D>
__global__ void __launch_bounds__(kBruteTile)
    bruteUnionKernel(BruteView v, float eps2, const std::uint8_t* core, std::uint32_t* parent,
                     BruteRange r) {
    __shared__ float4 tile[kBruteTile];
    __shared__ std::uint32_t tileRoot[kBruteTile];
    const std::uint32_t first = r.rowBegin + blockIdx.x * kBruteTile;
    // Columns from the block's first row on: the pairs before it are their other row's.
    const std::uint32_t start = max(first, r.colBegin);
    if (start >= r.colEnd) return;  // the whole block
    const std::uint32_t i = first + threadIdx.x;
    const bool active = i < r.rowEnd && core[i];
    if (!__syncthreads_or(active)) return;
    const std::uint32_t self = i < r.rowEnd ? i : r.rowBegin;
    const float4 t = ownPoint<D>(v, self);
    const float T = v.norms[self];
    const float4 X = make_float4(2.f * t.x, 2.f * t.y, 2.f * t.z, 0.f);
    std::uint32_t root = active ? ufFind(parent, i) : kNoPoint;
    // The tile root last united with: later points of the same (stale) root are joined already.
    std::uint32_t merged = kNoPoint;
    for (std::uint32_t t0 = start + blockIdx.y * kBruteTile; t0 < r.colEnd;
         t0 += gridDim.y * kBruteTile) {
        __syncthreads();
        const std::uint32_t j = t0 + threadIdx.x;
        tile[threadIdx.x] = tilePoint<D>(v, j);
        tileRoot[threadIdx.x] = (j < r.colEnd && core[j]) ? ufFind(parent, j) : kNoPoint;
        __syncthreads();
        if (!active) continue;
        const Band band = hoistedBand(v, T, v.tileMax[t0 / kBruteTile], eps2);
        const std::uint32_t nt = min(std::uint32_t(kBruteTile), r.colEnd - t0);
#pragma unroll 4
        for (int m = 0; m < int(nt); ++m) {
            const std::uint32_t other = tileRoot[m];
            if (other == kNoPoint || other == root || other == merged || t0 + m <= i) continue;
            const float4 q = tile[m];
            const float h = (T + q.w) - hoistedDot<D>(X, q);
            const int verdict = classify(h, band);
            if (verdict == 1 || (verdict == 2 && canonicalDist2<D>(t, q) <= eps2)) {
                root = ufUnite(parent, root, t0 + m);
                merged = other;
            }
        }
    }
}

// Nearest core point of the non-core rows; j ascends (within a launch and from one column range
// to the next), so a strict < keeps the lowest index among equally near ones (the tie rule).
template <int D>
__global__ void __launch_bounds__(kBruteTile)
    bruteBorderKernel(BruteView v, float eps2, const std::uint8_t* core, BruteRange r,
                      float* carriedBest, std::uint32_t* nearest) {
    __shared__ float4 tile[kBruteTile];
    __shared__ std::uint8_t tileCore[kBruteTile];
    const std::uint32_t i = r.rowBegin + blockIdx.x * kBruteTile + threadIdx.x;
    const bool active = i < r.rowEnd && !core[i];
    if (!__syncthreads_or(active)) return;
    const std::uint32_t self = i < r.rowEnd ? i : r.rowBegin;
    const float4 t = ownPoint<D>(v, self);
    const float T = v.norms[self];
    const float4 X = make_float4(2.f * t.x, 2.f * t.y, 2.f * t.z, 0.f);
    const bool carried = active && r.colBegin > 0;
    float best = carried ? carriedBest[i - r.rowBegin] : INFINITY;
    std::uint32_t bestJ = carried ? nearest[i] : kNoPoint;
    for (std::uint32_t t0 = r.colBegin; t0 < r.colEnd; t0 += kBruteTile) {
        __syncthreads();
        const std::uint32_t j = t0 + threadIdx.x;
        tile[threadIdx.x] = tilePoint<D>(v, j);
        tileCore[threadIdx.x] = j < r.colEnd ? core[j] : 0;
        __syncthreads();
        if (!active) continue;
        const Band band = hoistedBand(v, T, v.tileMax[t0 / kBruteTile], eps2);
        const std::uint32_t nt = min(std::uint32_t(kBruteTile), r.colEnd - t0);
#pragma unroll 4
        for (int m = 0; m < int(nt); ++m) {
            if (!tileCore[m]) continue;
            const float4 q = tile[m];
            const float h = (T + q.w) - hoistedDot<D>(X, q);
            if (classify(h, band) == 0) continue;
            const float d2 = canonicalDist2<D>(t, q);
            if (d2 <= eps2 && d2 < best) {
                best = d2;
                bestJ = t0 + m;
            }
        }
    }
    if (active) {
        carriedBest[i - r.rowBegin] = best;
        nearest[i] = bestJ;
    }
}

// ---------------------------------------------------------------------------------------------
// Any d: register tiles
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ bool wideWithin(const BruteView& v, float h, const Band& band,
                                           std::uint32_t self, std::uint32_t j, float eps2) {
    const int verdict = classify(h, band);
    if (verdict != 2) return verdict == 1;
    return canonicalDist2(v.rows + std::size_t(self) * v.dims, v.rows + std::size_t(j) * v.dims,
                          v.dims) <= eps2;
}

__global__ void __launch_bounds__(kWideThreads)
    wideCountKernel(BruteView v, float eps2, std::uint32_t minPts, BruteRange r,
                    std::uint32_t* counts, std::uint8_t* core) {
    __shared__ float s[kWideChunk][kWideTile];
    __shared__ float sNorm[kWideTile];
    const std::uint32_t i = r.rowBegin + blockIdx.x * kWideThreads + threadIdx.x;
    const bool valid = i < r.rowEnd;
    const std::uint32_t self = valid ? i : r.rowBegin;
    const float T = v.norms[self];
    std::uint32_t count = valid && r.colBegin > 0 ? counts[i - r.rowBegin] : 0;
    bool done = !valid || count >= minPts;
    for (std::uint32_t t0 = r.colBegin; t0 < r.colEnd; t0 += kWideTile) {
        if (!__syncthreads_or(!done)) break;
        if (threadIdx.x < kWideTile) sNorm[threadIdx.x] = v.norms[t0 + threadIdx.x];
        float acc[kWideTile];
        wideAccumulate<false>(v, self, t0, !done, s, acc);
        if (done) continue;
        const Band band = hoistedBand(v, T, v.tileMax[t0 / kWideTile], eps2);
        const std::uint32_t nt = min(std::uint32_t(kWideTile), r.colEnd - t0);
#pragma unroll
        for (int m = 0; m < kWideTile; ++m) {
            if (m >= int(nt)) break;
            const float h = (T + sNorm[m]) - 2.0f * acc[m];
            if (wideWithin(v, h, band, self, t0 + m, eps2)) ++count;
        }
        if (count >= minPts) done = true;
    }
    if (valid) {
        counts[i - r.rowBegin] = count;
        core[i] = count >= minPts ? 1 : 0;
    }
}

__global__ void __launch_bounds__(kWideThreads)
    wideUnionKernel(BruteView v, float eps2, const std::uint8_t* core, std::uint32_t* parent,
                    BruteRange r) {
    __shared__ float s[kWideChunk][kWideTile];
    __shared__ float sNorm[kWideTile];
    __shared__ std::uint32_t sRoot[kWideTile];
    const std::uint32_t first = r.rowBegin + blockIdx.x * kWideThreads;
    const std::uint32_t start = max(first, r.colBegin);  // as in bruteUnionKernel
    if (start >= r.colEnd) return;                       // the whole block
    const std::uint32_t i = first + threadIdx.x;
    const bool active = i < r.rowEnd && core[i];
    if (!__syncthreads_or(active)) return;
    const std::uint32_t self = i < r.rowEnd ? i : r.rowBegin;
    const float T = v.norms[self];
    std::uint32_t root = active ? ufFind(parent, i) : kNoPoint;
    std::uint32_t merged = kNoPoint;
    for (std::uint32_t t0 = start; t0 < r.colEnd; t0 += kWideTile) {
        __syncthreads();
        if (threadIdx.x < kWideTile) {
            const std::uint32_t j = t0 + threadIdx.x;
            sNorm[threadIdx.x] = v.norms[j];
            sRoot[threadIdx.x] = (j < r.colEnd && core[j]) ? ufFind(parent, j) : kNoPoint;
        }
        float acc[kWideTile];
        wideAccumulate<false>(v, self, t0, active, s, acc);
        if (!active) continue;
        const Band band = hoistedBand(v, T, v.tileMax[t0 / kWideTile], eps2);
        const std::uint32_t nt = min(std::uint32_t(kWideTile), r.colEnd - t0);
#pragma unroll
        for (int m = 0; m < kWideTile; ++m) {
            if (m >= int(nt)) break;
            const std::uint32_t other = sRoot[m];
            if (other == kNoPoint || other == root || other == merged || t0 + m <= i) continue;
            const float h = (T + sNorm[m]) - 2.0f * acc[m];
            if (wideWithin(v, h, band, self, t0 + m, eps2)) {
                root = ufUnite(parent, root, t0 + m);
                merged = other;
            }
        }
    }
}

__global__ void __launch_bounds__(kWideThreads)
    wideBorderKernel(BruteView v, float eps2, const std::uint8_t* core, BruteRange r,
                     float* carriedBest, std::uint32_t* nearest) {
    __shared__ float s[kWideChunk][kWideTile];
    __shared__ float sNorm[kWideTile];
    __shared__ std::uint8_t sCore[kWideTile];
    const std::uint32_t i = r.rowBegin + blockIdx.x * kWideThreads + threadIdx.x;
    const bool active = i < r.rowEnd && !core[i];
    if (!__syncthreads_or(active)) return;
    const std::uint32_t self = i < r.rowEnd ? i : r.rowBegin;
    const float T = v.norms[self];
    const float* own = v.rows + std::size_t(self) * v.dims;
    const bool carried = active && r.colBegin > 0;
    float best = carried ? carriedBest[i - r.rowBegin] : INFINITY;
    std::uint32_t bestJ = carried ? nearest[i] : kNoPoint;
    for (std::uint32_t t0 = r.colBegin; t0 < r.colEnd; t0 += kWideTile) {
        __syncthreads();
        if (threadIdx.x < kWideTile) {
            const std::uint32_t j = t0 + threadIdx.x;
            sNorm[threadIdx.x] = v.norms[j];
            sCore[threadIdx.x] = j < r.colEnd ? core[j] : 0;
        }
        float acc[kWideTile];
        wideAccumulate<false>(v, self, t0, active, s, acc);
        if (!active) continue;
        const Band band = hoistedBand(v, T, v.tileMax[t0 / kWideTile], eps2);
        const std::uint32_t nt = min(std::uint32_t(kWideTile), r.colEnd - t0);
#pragma unroll
        for (int m = 0; m < kWideTile; ++m) {
            if (m >= int(nt)) break;
            if (!sCore[m]) continue;
            const float h = (T + sNorm[m]) - 2.0f * acc[m];
            if (classify(h, band) == 0) continue;
            const float d2 = canonicalDist2(own, v.rows + std::size_t(t0 + m) * v.dims, v.dims);
            if (d2 <= eps2 && d2 < best) {
                best = d2;
                bestJ = t0 + m;
            }
        }
    }
    if (active) {
        carriedBest[i - r.rowBegin] = best;
        nearest[i] = bestJ;
    }
}

__global__ void layoutKernel(const float* coords, std::size_t n, int dims, int dPad,
                             std::size_t stride, float* soa, float* norms) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= stride) return;
    float norm = 0.0f;
    for (int j = 0; j < dPad; ++j) {
        const float x = (i < n && j < dims) ? coords[i * dims + j] : 0.0f;
        soa[std::size_t(j) * stride + i] = x;
        norm = fmaf(x, x, norm);
    }
    norms[i] = norm;
}

__global__ void tileMaxKernel(const float* norms, std::size_t n, int tile, float* tileMax) {
    const std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    const std::size_t begin = t * std::size_t(tile);
    if (begin >= n) return;
    const std::size_t end = min(n, begin + std::size_t(tile));
    float m = 0.0f;
    for (std::size_t i = begin; i < end; ++i)
        m = fmaxf(m, norms[i]);
    // A NaN or inf norm (overflow) must reach the band test, which then rechecks the tile.
    for (std::size_t i = begin; i < end; ++i)
        if (!(norms[i] <= m)) m = INFINITY;
    tileMax[t] = m;
}

unsigned blocksOf(std::uint32_t rows, int threads) {
    return unsigned((std::size_t(rows) + std::size_t(threads) - 1) / std::size_t(threads));
}

// Column splits of the paper's union kernel: about 8 blocks of kBruteTile per SM in all (132 on
// an H200), never more splits than the first row block has column tiles.
dim3 unionGrid(const BruteRange& r) {
    const int sms = detail::multiprocessors();
    const unsigned blocks = blocksOf(r.rowEnd - r.rowBegin, kBruteTile);
    const unsigned tiles = blocksOf(r.colEnd - std::max(r.rowBegin, r.colBegin), kBruteTile);
    const unsigned wanted = (unsigned(sms) * 8 + blocks - 1) / blocks;
    return dim3(blocks, std::max(1u, std::min({wanted, tiles, 32u})));
}

// Calls launch(std::integral_constant<int, D>) with D = dims for the paper's kernels (d <= 3,
// dimension fixed at compile time) and D = 0 for the register-tiled wide kernels (d > 3).
template <typename Launch>
void byDims(int dims, Launch&& launch) {
    switch (dims) {
        case 1:
            launch(std::integral_constant<int, 1>{});
            break;
        case 2:
            launch(std::integral_constant<int, 2>{});
            break;
        case 3:
            launch(std::integral_constant<int, 3>{});
            break;
        default:
            launch(std::integral_constant<int, 0>{});
            break;
    }
}

}  // namespace

void launchBruteLayout(const float* coords, std::size_t n, int dims, int dPad, std::size_t stride,
                       float* soa, float* norms, cudaStream_t stream) {
    if (stride == 0) return;
    layoutKernel<<<unsigned((stride + 255) / 256), 256, 0, stream>>>(coords, n, dims, dPad, stride,
                                                                     soa, norms);
    CS_CUDA_CHECK_LAUNCH();
}

void launchTileMax(const float* norms, std::size_t n, int tile, float* tileMax,
                   cudaStream_t stream) {
    const std::size_t tiles = (n + std::size_t(tile) - 1) / std::size_t(tile);
    if (tiles == 0) return;
    tileMaxKernel<<<unsigned((tiles + 255) / 256), 256, 0, stream>>>(norms, n, tile, tileMax);
    CS_CUDA_CHECK_LAUNCH();
}

std::uint32_t bruteRowsPerWave(const BruteView& v, BrutePass pass) {
    std::uint32_t rows = 0;
    byDims(v.dims, [&](auto dims) {
        constexpr int D = decltype(dims)::value;
        if constexpr (D == 0) {
            if (pass == BrutePass::Count)
                rows = detail::rowsPerWave(wideCountKernel, kWideThreads);
            else if (pass == BrutePass::Union)
                rows = detail::rowsPerWave(wideUnionKernel, kWideThreads);
            else
                rows = detail::rowsPerWave(wideBorderKernel, kWideThreads);
        } else {
            if (pass == BrutePass::Count)
                rows = detail::rowsPerWave(bruteCountKernel<D>, kBruteTile);
            else if (pass == BrutePass::Union)
                rows = detail::rowsPerWave(bruteUnionKernel<D>, kBruteTile);
            else
                rows = detail::rowsPerWave(bruteBorderKernel<D>, kBruteTile);
        }
    });
    return rows;
}

void launchBruteCount(const BruteView& v, float eps2, int minPts, const BruteRange& range,
                      std::uint32_t* counts, std::uint8_t* core, cudaStream_t stream) {
    if (range.rowEnd <= range.rowBegin || range.colEnd <= range.colBegin) return;
    const auto need = std::uint32_t(minPts);
    const std::uint32_t rows = range.rowEnd - range.rowBegin;
    byDims(v.dims, [&](auto dims) {
        constexpr int D = decltype(dims)::value;
        if constexpr (D == 0)
            wideCountKernel<<<blocksOf(rows, kWideThreads), kWideThreads, 0, stream>>>(
                v, eps2, need, range, counts, core);
        else
            bruteCountKernel<D><<<blocksOf(rows, kBruteTile), kBruteTile, 0, stream>>>(
                v, eps2, need, range, counts, core);
    });
    CS_CUDA_CHECK_LAUNCH();
}

void launchBruteUnion(const BruteView& v, float eps2, const std::uint8_t* core,
                      std::uint32_t* parent, const BruteRange& range, cudaStream_t stream) {
    // Only pairs j > i: a range wholly below the diagonal has none.
    if (range.rowEnd <= range.rowBegin || range.colEnd <= range.colBegin ||
        range.colEnd <= range.rowBegin)
        return;
    const std::uint32_t rows = range.rowEnd - range.rowBegin;
    byDims(v.dims, [&](auto dims) {
        constexpr int D = decltype(dims)::value;
        if constexpr (D == 0)
            wideUnionKernel<<<blocksOf(rows, kWideThreads), kWideThreads, 0, stream>>>(
                v, eps2, core, parent, range);
        else
            bruteUnionKernel<D>
                <<<unionGrid(range), kBruteTile, 0, stream>>>(v, eps2, core, parent, range);
    });
    CS_CUDA_CHECK_LAUNCH();
}

void launchBruteBorder(const BruteView& v, float eps2, const std::uint8_t* core,
                       const BruteRange& range, float* best, std::uint32_t* nearest,
                       cudaStream_t stream) {
    if (range.rowEnd <= range.rowBegin || range.colEnd <= range.colBegin) return;
    const std::uint32_t rows = range.rowEnd - range.rowBegin;
    byDims(v.dims, [&](auto dims) {
        constexpr int D = decltype(dims)::value;
        if constexpr (D == 0)
            wideBorderKernel<<<blocksOf(rows, kWideThreads), kWideThreads, 0, stream>>>(
                v, eps2, core, range, best, nearest);
        else
            bruteBorderKernel<D><<<blocksOf(rows, kBruteTile), kBruteTile, 0, stream>>>(
                v, eps2, core, range, best, nearest);
    });
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
