// SPDX-License-Identifier: MIT
// The grid path of GPU DBSCAN (d <= 3). Points are in cell order, so the lanes of a warp walk the
// same neighbour cells. Cells have side eps / sqrt(d) (dbscan_gpu.cpp), so normally every cell is
// a clique (any two of its points within eps): a clique with >= minPts points is all core
// without a single distance (the dense-cell shortcut that keeps a dense cloud O(N)), and the core
// points of a clique are one component. Whether a cell is a clique is decided exactly from its
// float box (grid_build.cu), so coarsened grids stay exact. Every eps decision between two
// points is canonicalDist2 <= eps2, bit for bit; box bounds only prune or accept whole cells
// where they are exact (dbscan_device.cuh).
//
// Neighbour cells are found through columns (all but the last coordinate fixed): a hash of the
// column key, then direct indexing (full columns) or a binary search inside the column.
//
// Work is spread so that no thread carries a dense region alone:
//  - count and border: one thread per point; a point whose search would scan more than
//    kGridScanBudget candidates goes to a list that a second kernel finishes with a warp each;
//  - union: one thread per clique cell (so a dense cell's 10^4 points ask the union-find once,
//    not 10^4 times), near ring first, then a compression, then the outer ring (mostly
//    "already joined" by then); a cell whose edge search runs past kCellSearchBudget, and the
//    points of non-clique cells (coarsened grids), are finished one thread per point.
#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_device.cuh"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

using detail::boxMaxDist2;
using detail::boxMinDist2;
using detail::canonicalDist2;
using detail::columnCells;
using detail::findColumn;
using detail::keyCoord;
using detail::kFullMask;
using detail::loadHi;
using detail::loadLo;
using detail::loadPos;
using detail::ufFind;
using detail::ufUnite;

constexpr int kThreads = 256;
constexpr unsigned kWarpBlocks = 2048;  // blocks of the warp-per-point kernels (grid-stride)
// Distance tests one cell thread may spend looking for edges between clique cells; past it the
// cell is deferred to gridPointUnionKernel, which spreads the search over the cell's points (two
// dense cells with no edge between them would otherwise cost |A| |B| tests on one thread).
constexpr std::uint32_t kCellSearchBudget = 16384;

unsigned blocksFor(std::size_t n) {
    return unsigned((n + kThreads - 1) / kThreads);
}

template <int D>
__device__ __forceinline__ void cellCoords(const GridView& g, std::uint32_t cell, int* k) {
    const std::uint64_t key = g.cellKey[cell];
#pragma unroll
    for (int j = 0; j < D; ++j)
        k[j] = keyCoord(g, key, j);
}

// Leading coordinates of stencil column o around k.
template <int D>
__device__ __forceinline__ void columnAt(const GridView& g, const int* k, int o, int* c) {
    if constexpr (D >= 2) c[0] = k[0] + g.columnOffset[o][0];
    if constexpr (D >= 3) c[1] = k[1] + g.columnOffset[o][1];
}

// Lower bound of canonicalDist2 between any point of box a and any point of box b (exact, as the
// CPU grid's boxGap2), and the upper bound over all such pairs.
template <int D>
__device__ __forceinline__ float boxGap2(const float4& la, const float4& ha, const float4& lb,
                                         const float4& hb) {
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < D; ++j) {
        const float al = detail::coord<D>(la, j), ah = detail::coord<D>(ha, j);
        const float bl = detail::coord<D>(lb, j), bh = detail::coord<D>(hb, j);
        const float gap = bl > ah ? __fsub_rn(bl, ah) : (al > bh ? __fsub_rn(al, bh) : 0.0f);
        sum = __fadd_rn(sum, __fmul_rn(gap, gap));
    }
    return sum;
}

template <int D>
__device__ __forceinline__ float boxFar2(const float4& la, const float4& ha, const float4& lb,
                                         const float4& hb) {
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < D; ++j) {
        const float far = fmaxf(__fsub_rn(detail::coord<D>(hb, j), detail::coord<D>(la, j)),
                                __fsub_rn(detail::coord<D>(ha, j), detail::coord<D>(lb, j)));
        sum = __fadd_rn(sum, __fmul_rn(far, far));
    }
    return sum;
}

// The stencil of one point or cell: columns nearest first, last-coordinate range clipped.
template <int D>
struct Stencil {
    const GridView& g;
    int k[3];
    int zlo, zhi;

    __device__ __forceinline__ Stencil(const GridView& grid, std::uint32_t cell) : g(grid) {
        k[0] = k[1] = k[2] = 0;
        cellCoords<D>(g, cell, k);
        const int r = g.geo.radius[D - 1];
        zlo = max(k[D - 1] - r, 0);
        zhi = min(k[D - 1] + r, int(g.geo.cells[D - 1]) - 1);
    }
    // Cells [c0, c1) of stencil column o; false when the column is empty.
    __device__ __forceinline__ bool column(int o, std::uint32_t& c0, std::uint32_t& c1) const {
        int c[2] = {0, 0};
        columnAt<D>(g, k, o, c);
        const std::uint32_t col = findColumn<D>(g, c);
        if (col == kNoPoint) return false;
        columnCells<D>(g, col, zlo, zhi, c0, c1);
        return c0 < c1;
    }
};

// --- core flags -------------------------------------------------------------------------------

// A point of a clique cell with >= minPts points is core outright; otherwise count neighbours,
// nearest columns first, whole cells at once where the box says all or none are within eps,
// stopping at minPts. Points that would scan too much are listed for gridHardCountKernel.
// counts (optional) receives the count where it stopped: the exact count below minPts, at least
// minPts otherwise (the sweep derives every smaller MinPts's core flags from it).
template <int D>
__global__ void __launch_bounds__(kThreads)
    gridCountKernel(GridView g, float eps2, std::uint32_t minPts, std::uint8_t* core,
                    std::uint32_t* counts, std::uint32_t* hardCount, std::uint32_t* hard) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= g.n) return;
    const std::uint32_t cell = g.pointCell[p];
    const std::uint32_t own = g.cellStart[cell + 1] - g.cellStart[cell];
    const bool clique = g.cellClique[cell] != 0;
    if (clique && own >= minPts) {
        core[p] = 1;
        if (counts) counts[p] = own;
        return;
    }
    const float4 x = loadPos(g, p);
    const Stencil<D> st(g, cell);
    std::uint32_t count = 0, scanned = 0;
    for (int o = 0; o < g.columnOffsets && count < minPts; ++o) {
        std::uint32_t c0, c1;
        if (!st.column(o, c0, c1)) continue;
        for (std::uint32_t cc = c0; cc < c1 && count < minPts; ++cc) {
            const std::uint32_t qs = g.cellStart[cc], qe = g.cellStart[cc + 1];
            if (cc == cell && clique) {
                count += qe - qs;
                continue;
            }
            const float4 lo = loadLo(g, cc), hi = loadHi(g, cc);
            if (boxMinDist2<D>(x, lo, hi) > eps2) continue;
            if (qe - qs > 1 && boxMaxDist2<D>(x, lo, hi) <= eps2) {
                count += qe - qs;
                continue;
            }
            scanned += qe - qs;
            if (scanned > kGridScanBudget) {
                hard[atomicAdd(hardCount, 1u)] = p;
                return;
            }
            for (std::uint32_t q = qs; q < qe; ++q)
                if (canonicalDist2<D>(x, loadPos(g, q)) <= eps2 && ++count >= minPts) break;
        }
    }
    core[p] = count >= minPts ? 1 : 0;
    if (counts) counts[p] = count;
}

// The same count by a warp per listed point: lanes take every 32nd candidate of a cell.
template <int D>
__global__ void __launch_bounds__(kThreads)
    gridHardCountKernel(GridView g, float eps2, std::uint32_t minPts, std::uint8_t* core,
                        std::uint32_t* counts, const std::uint32_t* hardCount,
                        const std::uint32_t* hard) {
    const unsigned lane = threadIdx.x & 31u;
    const std::uint32_t warps = gridDim.x * (blockDim.x / 32);
    const std::uint32_t total = *hardCount;
    for (std::uint32_t h = (blockIdx.x * blockDim.x + threadIdx.x) / 32; h < total; h += warps) {
        const std::uint32_t p = hard[h];
        const std::uint32_t cell = g.pointCell[p];
        const bool clique = g.cellClique[cell] != 0;
        const float4 x = loadPos(g, p);
        const Stencil<D> st(g, cell);
        std::uint32_t count = 0;
        for (int o = 0; o < g.columnOffsets && count < minPts; ++o) {
            std::uint32_t c0, c1;
            if (!st.column(o, c0, c1)) continue;
            for (std::uint32_t cc = c0; cc < c1 && count < minPts; ++cc) {
                const std::uint32_t qs = g.cellStart[cc], qe = g.cellStart[cc + 1];
                if (cc == cell && clique) {
                    count += qe - qs;
                    continue;
                }
                const float4 lo = loadLo(g, cc), hi = loadHi(g, cc);
                if (boxMinDist2<D>(x, lo, hi) > eps2) continue;
                if (qe - qs > 1 && boxMaxDist2<D>(x, lo, hi) <= eps2) {
                    count += qe - qs;
                    continue;
                }
                for (std::uint32_t base = qs; base < qe && count < minPts; base += 32) {
                    const std::uint32_t q = base + lane;
                    const bool in = q < qe && canonicalDist2<D>(x, loadPos(g, q)) <= eps2;
                    count += __popc(__ballot_sync(kFullMask, in));
                }
            }
        }
        if (lane == 0) {
            core[p] = count >= minPts ? 1 : 0;
            if (counts) counts[p] = count;
        }
    }
}

// --- union ------------------------------------------------------------------------------------

// The lowest core position of each cell (warp-aggregated atomicMin; no early return, so that
// every lane reaches the warp collective).
__global__ void __launch_bounds__(kThreads)
    gridRepKernel(GridView g, const std::uint8_t* core, std::uint32_t* cellRep) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = p < g.n && core[p] != 0;
    const std::uint32_t cell = p < g.n ? g.pointCell[p] : kNoPoint;
    detail::warpAtomicMin(cellRep, cell, p, active);
}

// Core points of a clique cell are pairwise within eps: one component, hung under the cell's
// representative (a smaller position, so parents stay below children).
__global__ void __launch_bounds__(kThreads)
    gridParentKernel(GridView g, const std::uint8_t* core, const std::uint32_t* cellRep,
                     std::uint32_t* parent) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= g.n) return;
    const std::uint32_t cell = g.pointCell[p];
    parent[p] = (core[p] && g.cellClique[cell]) ? cellRep[cell] : p;
}

// True when x is known to be in the set whose root was `root`: first by x's parent alone (one
// load, no visit to the root's hot word once paths are compressed), else by finding both.
__device__ __forceinline__ bool sameSet(std::uint32_t* parent, std::uint32_t x,
                                        std::uint32_t& root) {
    if (__ldcg(parent + x) == root) return true;
    const std::uint32_t other = ufFind(parent, x);
    root = ufFind(parent, root);
    return other == root;
}

// Which last-coordinate ranges of stencil column (dx, dy) a pass takes for the half stencil
// (cells after the own one in key order, so each pair of cells is looked at once). Pass 0: the
// cells next to the own one (ring 1); pass 1: the rest (ring 2). Returns up to two ranges.
template <int D>
__device__ __forceinline__ int passRanges(const GridView& g, const int* k, int o, int pass, int* lo,
                                          int* hi) {
    const int dx = g.columnOffset[o][0], dy = g.columnOffset[o][1];
    bool same = true;
    if constexpr (D == 3) {
        if (dx < 0 || (dx == 0 && dy < 0)) return 0;
        same = dx == 0 && dy == 0;
    } else if constexpr (D == 2) {
        if (dx < 0) return 0;
        same = dx == 0;
    }
    const int r = g.geo.radius[D - 1];
    const int z = k[D - 1], zmax = int(g.geo.cells[D - 1]) - 1;
    const int ring = max(abs(dx), abs(dy));
    int count = 0;
    auto add = [&](int a, int b) {
        a = max(a, 0);
        b = min(b, zmax);
        if (a <= b) {
            lo[count] = a;
            hi[count] = b;
            ++count;
        }
    };
    if (pass == 0) {
        if (ring > 1) return 0;
        if (same)
            add(z + 1, z + 1);
        else
            add(z - 1, z + 1);
    } else if (ring > 1) {
        add(z - r, z + r);
    } else {
        if (!same) add(z - r, z - 2);
        add(z + 2, z + r);
    }
    return count;
}

// Clique cell against the clique cells of its half stencil: skip when already joined, join
// without distances when the boxes are within eps altogether, else look for one core pair
// within eps (points of the own cell outside eps of the other box skipped).
template <int D>
__global__ void __launch_bounds__(kThreads)
    gridCellUnionKernel(GridView g, float eps2, const std::uint8_t* core, std::uint32_t* parent,
                        int pass, std::uint8_t* deferred) {
    const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g.cellCount || !g.cellClique[c]) return;
    const std::uint32_t rep = g.cellRep[c];
    if (rep == kNoPoint) return;
    const float4 la = loadLo(g, c), ha = loadHi(g, c);
    const std::uint32_t as = g.cellStart[c], ae = g.cellStart[c + 1];
    int k[3] = {0, 0, 0};
    cellCoords<D>(g, c, k);
    std::uint32_t root = ufFind(parent, rep);
    std::uint32_t budget = kCellSearchBudget;
    bool defer = false;
    for (int o = 0; o < g.columnOffsets; ++o) {
        int lo[2], hi[2];
        const int ranges = passRanges<D>(g, k, o, pass, lo, hi);
        if (ranges == 0) continue;
        int cxy[2] = {0, 0};
        columnAt<D>(g, k, o, cxy);
        const std::uint32_t col = findColumn<D>(g, cxy);
        if (col == kNoPoint) continue;
        for (int rg = 0; rg < ranges; ++rg) {
            std::uint32_t c0, c1;
            columnCells<D>(g, col, lo[rg], hi[rg], c0, c1);
            for (std::uint32_t cc = c0; cc < c1; ++cc) {
                if (!g.cellClique[cc]) continue;  // its points search (gridPointUnionKernel)
                const std::uint32_t other = g.cellRep[cc];
                if (other == kNoPoint) continue;
                const float4 lb = loadLo(g, cc), hb = loadHi(g, cc);
                if (boxGap2<D>(la, ha, lb, hb) > eps2) continue;
                if (sameSet(parent, other, root)) continue;
                if (boxFar2<D>(la, ha, lb, hb) <= eps2) {
                    root = ufUnite(parent, root, other);
                    continue;
                }
                const std::uint32_t bs = g.cellStart[cc], be = g.cellStart[cc + 1];
                bool linked = false, exhausted = budget == 0;
                for (std::uint32_t a = as; a < ae && !linked && !exhausted; ++a) {
                    if (!core[a]) continue;
                    --budget;
                    const float4 x = loadPos(g, a);
                    if (boxMinDist2<D>(x, lb, hb) <= eps2) {
                        if (boxMaxDist2<D>(x, lb, hb) <= eps2) {
                            linked = true;
                            break;
                        }
                        for (std::uint32_t b = bs; b < be && budget > 0; ++b) {
                            --budget;
                            if (core[b] && canonicalDist2<D>(x, loadPos(g, b)) <= eps2) {
                                linked = true;
                                break;
                            }
                        }
                    }
                    exhausted = budget == 0;
                }
                if (linked)
                    root = ufUnite(parent, root, other);
                else if (exhausted)
                    defer = true;  // undecided: the cell's points finish the search
            }
        }
    }
    if (defer) deferred[c] = 1;
}

// Core points of non-clique cells (coarsened grids) and of clique cells whose edge search ran
// out of budget: the full stencil, one thread per point. Against a clique cell one edge is
// enough (cells already joined are skipped); against a non-clique cell every edge is united.
template <int D>
__global__ void __launch_bounds__(kThreads)
    gridPointUnionKernel(GridView g, float eps2, const std::uint8_t* core, std::uint32_t* parent,
                         const std::uint8_t* deferred) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= g.n || !core[p]) return;
    const std::uint32_t cell = g.pointCell[p];
    if (g.cellClique[cell] && !deferred[cell]) return;
    const float4 x = loadPos(g, p);
    const Stencil<D> st(g, cell);
    std::uint32_t root = ufFind(parent, p);
    for (int o = 0; o < g.columnOffsets; ++o) {
        std::uint32_t c0, c1;
        if (!st.column(o, c0, c1)) continue;
        for (std::uint32_t cc = c0; cc < c1; ++cc) {
            const std::uint32_t rep = g.cellRep[cc];
            if (rep == kNoPoint) continue;
            const float4 lo = loadLo(g, cc), hi = loadHi(g, cc);
            if (boxMinDist2<D>(x, lo, hi) > eps2) continue;
            const std::uint32_t qs = cc == cell ? p + 1 : g.cellStart[cc];
            const std::uint32_t qe = g.cellStart[cc + 1];
            if (g.cellClique[cc]) {
                if (sameSet(parent, rep, root)) continue;
                if (boxMaxDist2<D>(x, lo, hi) <= eps2) {
                    root = ufUnite(parent, root, rep);
                    continue;
                }
                for (std::uint32_t q = qs; q < qe; ++q)
                    if (core[q] && canonicalDist2<D>(x, loadPos(g, q)) <= eps2) {
                        root = ufUnite(parent, root, q);
                        break;
                    }
            } else {
                for (std::uint32_t q = qs; q < qe; ++q)
                    if (core[q] && canonicalDist2<D>(x, loadPos(g, q)) <= eps2)
                        root = ufUnite(parent, root, q);
            }
        }
    }
}

// Points every representative straight at its root, so that sameSet mostly decides with one
// load in the outer-ring pass.
__global__ void compressRepsKernel(GridView g, std::uint32_t* parent) {
    const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g.cellCount) return;
    const std::uint32_t rep = g.cellRep[c];
    if (rep != kNoPoint) parent[rep] = ufFind(parent, rep);
}

// --- border -----------------------------------------------------------------------------------

struct Nearest {
    float d2;
    std::uint32_t orig, pos;

    __device__ __forceinline__ void offer(float dist2, std::uint32_t o, std::uint32_t q) {
        if (dist2 < d2 || (dist2 == d2 && o < orig)) {
            d2 = dist2;
            orig = o;
            pos = q;
        }
    }
};

// Border rule: the nearest core point by canonicalDist2, ties by the lowest input index. Cells
// whose box is farther than the best so far are skipped (the bound is exact).
template <int D>
__global__ void __launch_bounds__(kThreads)
    gridBorderKernel(GridView g, float eps2, const std::uint8_t* core, std::uint32_t* nearest,
                     std::uint32_t* hardCount, std::uint32_t* hard) {
    const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= g.n || core[p]) return;
    const std::uint32_t cell = g.pointCell[p];
    const float4 x = loadPos(g, p);
    const Stencil<D> st(g, cell);
    Nearest best{INFINITY, kNoPoint, kNoPoint};
    std::uint32_t scanned = 0;
    for (int o = 0; o < g.columnOffsets; ++o) {
        std::uint32_t c0, c1;
        if (!st.column(o, c0, c1)) continue;
        for (std::uint32_t cc = c0; cc < c1; ++cc) {
            if (g.cellRep[cc] == kNoPoint) continue;
            const float bound = boxMinDist2<D>(x, loadLo(g, cc), loadHi(g, cc));
            if (bound > eps2 || bound > best.d2) continue;
            const std::uint32_t qs = g.cellStart[cc], qe = g.cellStart[cc + 1];
            scanned += qe - qs;
            if (scanned > kGridScanBudget) {
                hard[atomicAdd(hardCount, 1u)] = p;
                return;
            }
            for (std::uint32_t q = qs; q < qe; ++q) {
                if (!core[q]) continue;
                const float d2 = canonicalDist2<D>(x, loadPos(g, q));
                if (d2 <= eps2) best.offer(d2, g.orig[q], q);
            }
        }
    }
    nearest[p] = best.pos;
}

__device__ __forceinline__ Nearest warpNearest(Nearest b) {
    for (int off = 16; off > 0; off >>= 1) {
        Nearest o;
        o.d2 = __shfl_xor_sync(kFullMask, b.d2, off);
        o.orig = __shfl_xor_sync(kFullMask, b.orig, off);
        o.pos = __shfl_xor_sync(kFullMask, b.pos, off);
        b.offer(o.d2, o.orig, o.pos);
    }
    return b;
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    gridHardBorderKernel(GridView g, float eps2, const std::uint8_t* core, std::uint32_t* nearest,
                         const std::uint32_t* hardCount, const std::uint32_t* hard) {
    const unsigned lane = threadIdx.x & 31u;
    const std::uint32_t warps = gridDim.x * (blockDim.x / 32);
    const std::uint32_t total = *hardCount;
    for (std::uint32_t h = (blockIdx.x * blockDim.x + threadIdx.x) / 32; h < total; h += warps) {
        const std::uint32_t p = hard[h];
        const float4 x = loadPos(g, p);
        const Stencil<D> st(g, g.pointCell[p]);
        Nearest best{INFINITY, kNoPoint, kNoPoint};
        for (int o = 0; o < g.columnOffsets; ++o) {
            std::uint32_t c0, c1;
            if (!st.column(o, c0, c1)) continue;
            for (std::uint32_t cc = c0; cc < c1; ++cc) {
                if (g.cellRep[cc] == kNoPoint) continue;
                const float bound = boxMinDist2<D>(x, loadLo(g, cc), loadHi(g, cc));
                if (bound > eps2 || bound > best.d2) continue;
                const std::uint32_t qs = g.cellStart[cc], qe = g.cellStart[cc + 1];
                for (std::uint32_t q = qs + lane; q < qe; q += 32) {
                    if (!core[q]) continue;
                    const float d2 = canonicalDist2<D>(x, loadPos(g, q));
                    if (d2 <= eps2) best.offer(d2, g.orig[q], q);
                }
                best = warpNearest(best);  // uniform again: every lane holds the warp's best
            }
        }
        if (lane == 0) nearest[p] = best.pos;
    }
}

template <int D>
void countLaunch(const GridView& g, float eps2, int minPts, std::uint8_t* core,
                 std::uint32_t* counts, std::uint32_t* work, cudaStream_t s) {
    gridCountKernel<D><<<blocksFor(g.n), kThreads, 0, s>>>(g, eps2, std::uint32_t(minPts), core,
                                                           counts, work, work + 1);
    CS_CUDA_CHECK_LAUNCH();
    gridHardCountKernel<D><<<kWarpBlocks, kThreads, 0, s>>>(g, eps2, std::uint32_t(minPts), core,
                                                            counts, work, work + 1);
}

template <int D>
void unionLaunch(const GridView& g, float eps2, const std::uint8_t* core, std::uint32_t* parent,
                 std::uint8_t* deferred, cudaStream_t s) {
    const unsigned cellBlocks = blocksFor(g.cellCount);
    CS_CUDA_CHECK(cudaMemsetAsync(deferred, 0, g.cellCount, s));
    gridCellUnionKernel<D><<<cellBlocks, kThreads, 0, s>>>(g, eps2, core, parent, 0, deferred);
    CS_CUDA_CHECK_LAUNCH();
    compressRepsKernel<<<cellBlocks, kThreads, 0, s>>>(g, parent);
    CS_CUDA_CHECK_LAUNCH();
    gridCellUnionKernel<D><<<cellBlocks, kThreads, 0, s>>>(g, eps2, core, parent, 1, deferred);
    CS_CUDA_CHECK_LAUNCH();
    gridPointUnionKernel<D><<<blocksFor(g.n), kThreads, 0, s>>>(g, eps2, core, parent, deferred);
}

template <int D>
void borderLaunch(const GridView& g, float eps2, const std::uint8_t* core, std::uint32_t* nearest,
                  std::uint32_t* work, cudaStream_t s) {
    gridBorderKernel<D><<<blocksFor(g.n), kThreads, 0, s>>>(g, eps2, core, nearest, work, work + 1);
    CS_CUDA_CHECK_LAUNCH();
    gridHardBorderKernel<D>
        <<<kWarpBlocks, kThreads, 0, s>>>(g, eps2, core, nearest, work, work + 1);
}

}  // namespace

void launchGridCount(const GridView& grid, float eps2, int minPts, std::uint8_t* core,
                     std::uint32_t* work, cudaStream_t stream, std::uint32_t* counts) {
    if (grid.n == 0) return;
    CS_CUDA_CHECK(cudaMemsetAsync(work, 0, sizeof(std::uint32_t), stream));
    switch (grid.geo.dims) {
        case 1:
            countLaunch<1>(grid, eps2, minPts, core, counts, work, stream);
            break;
        case 2:
            countLaunch<2>(grid, eps2, minPts, core, counts, work, stream);
            break;
        default:
            countLaunch<3>(grid, eps2, minPts, core, counts, work, stream);
            break;
    }
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridLinkCells(const GridView& grid, const std::uint8_t* core, std::uint32_t* cellRep,
                         std::uint32_t* parent, cudaStream_t stream) {
    if (grid.n == 0) return;
    CS_CUDA_CHECK(cudaMemsetAsync(cellRep, 0xFF,
                                  std::size_t(grid.cellCount) * sizeof(std::uint32_t), stream));
    gridRepKernel<<<blocksFor(grid.n), kThreads, 0, stream>>>(grid, core, cellRep);
    CS_CUDA_CHECK_LAUNCH();
    gridParentKernel<<<blocksFor(grid.n), kThreads, 0, stream>>>(grid, core, cellRep, parent);
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridUnion(const GridView& grid, float eps2, const std::uint8_t* core,
                     std::uint32_t* parent, std::uint8_t* deferred, cudaStream_t stream) {
    if (grid.n == 0) return;
    switch (grid.geo.dims) {
        case 1:
            unionLaunch<1>(grid, eps2, core, parent, deferred, stream);
            break;
        case 2:
            unionLaunch<2>(grid, eps2, core, parent, deferred, stream);
            break;
        default:
            unionLaunch<3>(grid, eps2, core, parent, deferred, stream);
            break;
    }
    CS_CUDA_CHECK_LAUNCH();
}

void launchGridBorder(const GridView& grid, float eps2, const std::uint8_t* core,
                      std::uint32_t* nearest, std::uint32_t* work, cudaStream_t stream) {
    if (grid.n == 0) return;
    CS_CUDA_CHECK(cudaMemsetAsync(work, 0, sizeof(std::uint32_t), stream));
    switch (grid.geo.dims) {
        case 1:
            borderLaunch<1>(grid, eps2, core, nearest, work, stream);
            break;
        case 2:
            borderLaunch<2>(grid, eps2, core, nearest, work, stream);
            break;
        default:
            borderLaunch<3>(grid, eps2, core, nearest, work, stream);
            break;
    }
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
