// SPDX-License-Identifier: MIT
// k-distance on the GPU: for every point the k-th smallest canonicalDist2 to all points (itself
// included), reported as its correctly rounded square root, bit-identical to kDistanceCpu.
// Each thread keeps its k smallest values sorted (registers for k <= 16, local memory above).
//  - Grid (d <= 3): rings of cells around the point's cell, cells whose exact box bound cannot
//    beat the current k-th value skipped, until no unvisited cell can hold a closer point or
//    the k-th is 0 (a point repeated k times stops after k copies, as the CPU counts them).
//  - Any d: all pairs in the register-tiled layout of dbscan_brute.cu, summing canonicalDist2
//    itself (dimension order, no FMA), so no recheck is needed. Repeated points cost what
//    others do there: n^2 in any case.
#include <cfloat>

#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_device.cuh"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

using detail::boxMinDist2;
using detail::canonicalDist2;
using detail::columnCells;
using detail::findColumn;
using detail::keyCoord;
using detail::loadHi;
using detail::loadLo;
using detail::loadPos;
using detail::wideAccumulate;

constexpr int kThreads = 128;

// The k smallest values seen, ascending; v[k - 1] is the current k-th (inf until k are seen).
template <int KMax>
struct TopK {
    float v[KMax];

    __device__ __forceinline__ void init() {
#pragma unroll
        for (int m = 0; m < KMax; ++m)
            v[m] = INFINITY;
    }
    // The k values carried from earlier column ranges, from[m * stride]; returns the k-th.
    __device__ __forceinline__ float load(const float* from, std::size_t stride, int k) {
        if constexpr (KMax <= 16) {
            float kth = INFINITY;
#pragma unroll
            for (int m = 0; m < KMax; ++m) {
                v[m] = m < k ? from[m * stride] : INFINITY;
                if (m == k - 1) kth = v[m];
            }
            return kth;
        } else {
            for (int m = 0; m < KMax; ++m)
                v[m] = m < k ? from[m * stride] : INFINITY;
            return v[k - 1];
        }
    }
    __device__ __forceinline__ void store(float* to, std::size_t stride, int k) const {
        if constexpr (KMax <= 16) {
#pragma unroll
            for (int m = 0; m < KMax; ++m)
                if (m < k) to[m * stride] = v[m];
        } else {
            for (int m = 0; m < k; ++m)
                to[m * stride] = v[m];
        }
    }
    // Inserts x (< the current k-th) and returns the new k-th value.
    __device__ __forceinline__ float insert(float x, int k) {
        if constexpr (KMax <= 16) {
            // Compile-time indices keep the array in registers.
#pragma unroll
            for (int m = 0; m < KMax; ++m)
                if (m < k) {
                    const float a = v[m];
                    v[m] = fminf(a, x);
                    x = fmaxf(a, x);
                }
            float kth = INFINITY;
#pragma unroll
            for (int m = 0; m < KMax; ++m)
                if (m == k - 1) kth = v[m];
            return kth;
        } else {
            int m = k - 1;
            while (m > 0 && v[m - 1] > x) {
                v[m] = v[m - 1];
                --m;
            }
            v[m] = x;
            return v[k - 1];
        }
    }
};

template <int D, int KMax>
struct RingSearch {
    const GridView& g;
    float4 x;
    int k;
    TopK<KMax> top;
    float kth = INFINITY;

    // Only values below kth can change the k-th, so a cell whose box is no closer is skipped,
    // and the search ends once the k-th is 0: a point repeated k times (a clump of m copies
    // scanned all m for each copy, m^2 in all).
    __device__ __forceinline__ void visitCells(std::uint32_t column, int zlo, int zhi) {
        if (kth == 0.0f) return;
        std::uint32_t c0, c1;
        columnCells<D>(g, column, zlo, zhi, c0, c1);
        for (std::uint32_t cc = c0; cc < c1; ++cc) {
            if (boxMinDist2<D>(x, loadLo(g, cc), loadHi(g, cc)) >= kth) continue;
            const std::uint32_t qe = g.cellStart[cc + 1];
            for (std::uint32_t q = g.cellStart[cc]; q < qe; ++q) {
                const float d2 = canonicalDist2<D>(x, loadPos(g, q));
                if (d2 < kth) {
                    kth = top.insert(d2, k);
                    if (kth == 0.0f) return;
                }
            }
        }
    }

    // Cells at Chebyshev distance exactly r from cell kc (clipped to the lattice).
    __device__ __forceinline__ void visitRing(const int* kc, int r) {
        const int zl = kc[D - 1];
        const int zmax = int(g.geo.cells[D - 1]) - 1;
        auto column = [&](const int* c, int m) {
            const std::uint32_t col = findColumn<D>(g, c);
            if (col == kNoPoint) return;
            if (m == r) {
                visitCells(col, max(zl - r, 0), min(zl + r, zmax));
            } else {
                if (zl - r >= 0) visitCells(col, zl - r, zl - r);
                if (zl + r <= zmax) visitCells(col, zl + r, zl + r);
            }
        };
        if constexpr (D == 1) {
            int c[2] = {0, 0};
            column(c, 0);  // the one column: only its cells at -r and +r are new
        } else if constexpr (D == 2) {
            for (int dx = -r; dx <= r; ++dx) {
                int c[2] = {kc[0] + dx, 0};
                column(c, abs(dx));
            }
        } else {
            for (int dx = -r; dx <= r; ++dx)
                for (int dy = -r; dy <= r; ++dy) {
                    int c[2] = {kc[0] + dx, kc[1] + dy};
                    column(c, max(abs(dx), abs(dy)));
                }
        }
    }
};

// After rings 0..r, every unvisited point lies outside the visited block of cells in some
// dimension j, so |x_j - q_j| >= the distance from x to that face; canonicalDist2 >= fl(fl(x_j -
// q_j)^2) >= gap^2 (1 - 3 u). The 1e-6 cells and the 1e-5 factor cover the double cell
// coordinates and that rounding.
template <int D, int KMax>
__global__ void __launch_bounds__(kThreads) gridKDistanceKernel(GridView g, int k, float* out) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= g.n) return;
    RingSearch<D, KMax> search{g, loadPos(g, p), k};
    search.top.init();
    const std::uint64_t key = g.cellKey[g.pointCell[p]];
    int kc[3] = {0, 0, 0};
    double frac[3] = {0, 0, 0};
#pragma unroll
    for (int j = 0; j < D; ++j) {
        kc[j] = keyCoord(g, key, j);
        const double u =
            (double(detail::coord<D>(search.x, j)) - g.geo.origin[j]) * g.geo.invSide[j];
        frac[j] = u - double(kc[j]);
    }
    for (int r = 0;; ++r) {
        search.visitRing(kc, r);
        bool covered = true;
        double gap = INFINITY;
#pragma unroll
        for (int j = 0; j < D; ++j) {
            if (kc[j] - r > 0) {
                covered = false;
                gap = fmin(gap, (frac[j] + r - 1e-6) * g.geo.side[j]);
            }
            if (kc[j] + r < int(g.geo.cells[j]) - 1) {
                covered = false;
                gap = fmin(gap, (double(r) + 1.0 - frac[j] - 1e-6) * g.geo.side[j]);
            }
        }
        if (covered) break;
        gap = fmax(gap, 0.0);
        if (double(search.kth) <= gap * gap * (1.0 - 1e-5)) break;
    }
    out[g.orig[p]] = __fsqrt_rn(search.kth);
}

// Any d: tiles of kWideTile points, chunks of kWideChunk dimensions (see dbscan_brute.cu).
// The k-th smallest of a multiset does not depend on the order its values come in, so column
// ranges carry the list (carried[m * rows]) and any split gives the same value.
template <int KMax>
__global__ void __launch_bounds__(kThreads)
    wideKDistanceKernel(BruteView v, int k, BruteRange r, float* carried, std::size_t rows,
                        float* out) {
    __shared__ float s[kWideChunk][kWideTile];
    const std::uint32_t i = r.rowBegin + blockIdx.x * kThreads + threadIdx.x;
    const bool valid = i < r.rowEnd;
    const std::uint32_t self = valid ? i : r.rowBegin;
    float* own = carried + (i - r.rowBegin);
    TopK<KMax> top;
    float kth = INFINITY;
    if (valid && r.colBegin > 0)
        kth = top.load(own, rows, k);
    else
        top.init();
    for (std::uint32_t t0 = r.colBegin; t0 < r.colEnd; t0 += kWideTile) {
        float acc[kWideTile];
        wideAccumulate<true>(v, self, t0, true, s, acc);  // canonicalDist2 to each point
        const std::uint32_t nt = min(std::uint32_t(kWideTile), r.colEnd - t0);
#pragma unroll
        for (int m = 0; m < kWideTile; ++m) {
            if (m >= int(nt)) break;
            if (acc[m] < kth) kth = top.insert(acc[m], k);
        }
    }
    if (!valid) return;
    if (r.colEnd == v.n)
        out[i] = __fsqrt_rn(kth);
    else
        top.store(own, rows, k);
}

template <int D, int KMax>
void gridLaunch(const GridView& g, int k, float* out, cudaStream_t stream) {
    gridKDistanceKernel<D, KMax>
        <<<unsigned((g.n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(g, k, out);
}

template <int D>
void gridLaunchK(const GridView& g, int k, int kMax, float* out, cudaStream_t stream) {
    if (kMax <= 16)
        gridLaunch<D, 16>(g, k, out, stream);
    else if (kMax <= 64)
        gridLaunch<D, 64>(g, k, out, stream);
    else
        gridLaunch<D, 256>(g, k, out, stream);
}

}  // namespace

void launchGridKDistance(const GridView& grid, int k, int kMax, float* out, cudaStream_t stream) {
    if (grid.n == 0) return;
    switch (grid.geo.dims) {
        case 1:
            gridLaunchK<1>(grid, k, kMax, out, stream);
            break;
        case 2:
            gridLaunchK<2>(grid, k, kMax, out, stream);
            break;
        default:
            gridLaunchK<3>(grid, k, kMax, out, stream);
            break;
    }
    CS_CUDA_CHECK_LAUNCH();
}

std::uint32_t bruteKDistanceRowsPerWave(int kMax) {
    if (kMax <= 16) return detail::rowsPerWave(wideKDistanceKernel<16>, kThreads);
    if (kMax <= 64) return detail::rowsPerWave(wideKDistanceKernel<64>, kThreads);
    return detail::rowsPerWave(wideKDistanceKernel<256>, kThreads);
}

void launchBruteKDistance(const BruteView& view, int k, int kMax, const BruteRange& range,
                          float* top, std::size_t rows, float* out, cudaStream_t stream) {
    if (range.rowEnd <= range.rowBegin || range.colEnd <= range.colBegin) return;
    const unsigned blocks =
        unsigned((std::size_t(range.rowEnd - range.rowBegin) + kThreads - 1) / kThreads);
    if (kMax <= 16)
        wideKDistanceKernel<16><<<blocks, kThreads, 0, stream>>>(view, k, range, top, rows, out);
    else if (kMax <= 64)
        wideKDistanceKernel<64><<<blocks, kThreads, 0, stream>>>(view, k, range, top, rows, out);
    else
        wideKDistanceKernel<256><<<blocks, kThreads, 0, stream>>>(view, k, range, top, rows, out);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
