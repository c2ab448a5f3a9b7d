// SPDX-License-Identifier: MIT
// Exact CPU DBSCAN. Every eps decision is canonicalDist2(recentred a, b) <= epsSquared(eps in the
// recentred frame), so the labels are byte-identical to any other backend that follows
// dbscan.h. Search structures
// (grid cells, cell bounding boxes, nanoflann's kd-tree) only ever propose candidates or rule
// them out with bounds that are provably conservative in float arithmetic; see the notes at
// cellBounds() and kdRadius().
#include "compute/dbscan/dbscan_cpu.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nanoflann.hpp>

#include "compute/core/error.h"
#include "compute/core/finite.h"
#include "compute/core/geometry.h"
#include "compute/core/parallel.h"

namespace cs {
namespace {

using Index = std::uint32_t;
constexpr Index kNoIndex = std::numeric_limits<Index>::max();
constexpr float kInfinity = std::numeric_limits<float>::infinity();

void checkInput(const PointSet& points) {
    if (points.n > 0 && points.dims == 0)
        throw Error("DBSCAN needs points with at least 1 dimension");
    if (points.coords.size() != points.n * points.dims)
        throw Error("point set holds " + std::to_string(points.coords.size()) +
                    " coordinates, expected n * d = " + std::to_string(points.n * points.dims));
    // Labels are int32 and indices uint32 (kNoIndex reserved).
    if (points.n >= std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw Error("DBSCAN supports fewer than 2^31 - 1 points (got " + std::to_string(points.n) +
                    ")");
    if (const std::size_t i = firstNonFinite(points.coords); i < points.coords.size())
        throw Error("point " + std::to_string(i / points.dims) +
                    " has a non-finite coordinate; drop NaN/Inf points first");
}

// parallelFor with its progress mapped onto [from, to] of one stage.
template <class Body>
void parallelChunks(std::size_t chunks, int threads, JobControl& job, double from, double to,
                    std::string_view stage, Body&& body) {
    const ParallelOptions options{
        .threads = unsigned(std::max(threads, 1)),
        .progress = [&](double f) { job.setProgress(from + (to - from) * f, stage); }};
    parallelFor(chunks, &job, options, [&](std::size_t chunk, unsigned) { body(chunk); });
}

// Lock-free union-find (links the larger root under the smaller, so parents only decrease and
// no cycle can form; path halving by CAS). The partition it ends with does not depend on the
// interleaving, and the final ids are canonicalised anyway.
class UnionFind {
public:
    explicit UnionFind(std::size_t n) : m_parent(n) {
        for (std::size_t i = 0; i < n; ++i)
            m_parent[i].store(Index(i), std::memory_order_relaxed);
    }
    /// Before any concurrent use: makes `x` a child of `root` (root < x).
    void link(Index x, Index root) { m_parent[x].store(root, std::memory_order_relaxed); }

    Index find(Index x) {
        for (;;) {
            Index p = m_parent[x].load(std::memory_order_relaxed);
            if (p == x) return x;
            const Index g = m_parent[p].load(std::memory_order_relaxed);
            if (g != p) m_parent[x].compare_exchange_weak(p, g, std::memory_order_relaxed);
            x = g;
        }
    }
    void unite(Index a, Index b) {
        for (;;) {
            a = find(a);
            b = find(b);
            if (a == b) return;
            if (a < b) std::swap(a, b);
            Index expected = a;
            if (m_parent[a].compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
        }
    }

private:
    std::vector<std::atomic<Index>> m_parent;
};

// The points in the order a path works in (grid: sorted by cell; others: input order).
struct Work {
    std::size_t n = 0, d = 0;
    float eps2 = 0.0f;
    int minPts = 1;
    std::vector<float> x;            // working order, row-major n x d
    std::vector<Index> orig;         // working position -> input index; empty = identity
    std::vector<std::uint8_t> core;  // working order
    const float* pt(Index w) const { return x.data() + std::size_t(w) * d; }
    Index original(Index w) const { return orig.empty() ? w : orig[w]; }
    float dist2(Index a, Index b) const { return canonicalDist2(pt(a), pt(b), d); }
};

// Border rule: the nearest core point, ties by the lowest input index.
struct Nearest {
    float dist2 = kInfinity;
    Index core = kNoIndex;
    Index original = kNoIndex;
    void offer(float d2, Index w, Index o) {
        if (d2 < dist2 || (d2 == dist2 && o < original)) {
            dist2 = d2;
            core = w;
            original = o;
        }
    }
};

DbscanResult finishLabels(const Work& w, UnionFind& uf, const std::vector<Index>& nearest,
                          bool star) {
    DbscanResult r;
    r.labels.assign(w.n, -1);
    r.isCore.assign(w.n, 0);
    for (Index p = 0; p < Index(w.n); ++p) {
        const Index o = w.original(p);
        if (w.core[p]) {
            r.isCore[o] = 1;
            r.labels[o] = std::int32_t(uf.find(p));
        } else if (!star && !nearest.empty() && nearest[p] != kNoIndex) {
            r.labels[o] = std::int32_t(uf.find(nearest[p]));
        }
    }
    canonicalizeDbscanResult(r);
    return r;
}

// Progress fractions of the stages.
constexpr double kBuildEnd = 0.10, kCountEnd = 0.53, kCoreEnd = 0.55, kUnionEnd = 0.85,
                 kBorderEnd = 0.97;

// ---------------------------------------------------------------------------------------------
// Grid path (d <= 3).
//
// Cells of side h ~ eps/2 (per dimension; "half cells"), keyed by their integer coordinates
// packed into 64 bits (lexicographic order = key order), points sorted by key. Any pair that
// passes the float test differs by less than 2h in every coordinate (see chooseSides), so its
// cells are within +-2 in every coordinate: 5^d neighbour cells, whose last coordinate runs
// over a contiguous key range, so 5^(d-1) cursors per chunk find them by a merge-like sweep.
//
// Every cell keeps the float bounding box of its points. Because IEEE rounding is monotone,
// canonicalDist2 is monotone in every |a_j - b_j|, which gives exact (not approximate) bounds:
//  - a cell whose box has canonicalDist2(hi, lo) <= eps2 is a clique: all its pairs are
//    within eps. A clique with >= minPts points is all core without counting (the "dense
//    cell" shortcut), and its core points are one component without testing pairs;
//  - per-dimension gaps between a point (or a box) and a box give a lower bound that rules a
//    whole cell out, and per-dimension farthest offsets an upper bound that counts it in.
// ---------------------------------------------------------------------------------------------

template <std::size_t D>
class GridDbscan {
public:
    GridDbscan(Work& work, int threads, JobControl& job)
        : m_w(work), m_threads(threads), m_job(job) {}

    void build(const std::vector<float>& recentred);
    void countCore();
    /// The sweep's count: each point's neighbours where counting up to cap stopped (exact below
    /// cap, >= cap otherwise), in working order; no core flags.
    void countNeighbours(std::size_t cap, std::vector<std::uint32_t>& counts);
    /// Core flags from such counts for minPts, core points first in each cell (counts follow).
    void coreFromCounts(std::vector<std::uint32_t>& counts, int minPts);
    void unite(UnionFind& uf);
    void assignBorder(UnionFind& uf, std::vector<Index>& nearest);
    void linkCliques(UnionFind& uf) const;

private:
    static constexpr std::size_t kRows = D == 1 ? 1 : D == 2 ? 5 : 25;

    // Everything the stages read about one cell, together: neighbour cells are scattered in
    // memory, so each should cost one cache miss, not one per array.
    struct Cell {
        Index begin = 0, end = 0, coreEnd = 0;  // points [begin, end); core ones [begin, coreEnd)
        std::uint32_t clique = 0;               // every pair of its points within eps
        std::array<float, D> lo{}, hi{};        // bounding box of its points
    };

    std::size_t cellCount() const { return m_cellKey.size(); }
    Index begin(std::size_t c) const { return m_cell[c].begin; }
    Index end(std::size_t c) const { return m_cell[c].end; }
    Index coreEnd(std::size_t c) const { return m_cell[c].coreEnd; }
    bool clique(std::size_t c) const { return m_cell[c].clique != 0; }
    const float* lo(std::size_t c) const { return m_cell[c].lo.data(); }
    const float* hi(std::size_t c) const { return m_cell[c].hi.data(); }

    std::uint64_t coord(std::uint64_t key, std::size_t j) const {
        return (key >> m_shift[j]) & m_mask[j];
    }

    // The neighbour cells of cells visited in increasing key order: the cell itself first, then
    // rows of cells sharing the first D - 1 coordinates, nearest rows first.
    class Sweep {
    public:
        explicit Sweep(const GridDbscan& g);
        /// forwardOnly: only rows that can hold cells after `cell` (for pairs counted once).
        std::span<const Index> collect(std::size_t cell, bool forwardOnly = false);

    private:
        static constexpr std::size_t kUnset = std::numeric_limits<std::size_t>::max();
        const GridDbscan& m_g;
        std::array<std::array<int, (D > 1 ? D - 1 : 1)>, kRows> m_offset{};
        std::array<std::size_t, kRows> m_pos;
        std::array<bool, kRows> m_backward{};  // the first non-zero offset is negative
        std::array<Index, kRows * 5> m_out{};
    };

    // Lower bound of canonicalDist2 from point p to any point in cell c (exact, see above).
    float minDist2(const float* p, std::size_t c) const {
        const float *l = lo(c), *h = hi(c);
        float sum = 0.0f;
        for (std::size_t j = 0; j < D; ++j) {
            const float gap = p[j] < l[j] ? l[j] - p[j] : p[j] > h[j] ? p[j] - h[j] : 0.0f;
            sum = sum + gap * gap;
        }
        return sum;
    }
    // Upper bound of canonicalDist2 from point p to any point in cell c.
    float maxDist2(const float* p, std::size_t c) const {
        const float *l = lo(c), *h = hi(c);
        float sum = 0.0f;
        for (std::size_t j = 0; j < D; ++j) {
            const float far = std::max(p[j] - l[j], h[j] - p[j]);
            sum = sum + far * far;
        }
        return sum;
    }
    // Lower bound of canonicalDist2 between any point of cell a and any point of cell b.
    float boxGap2(std::size_t a, std::size_t b) const {
        float sum = 0.0f;
        for (std::size_t j = 0; j < D; ++j) {
            const float gap = lo(b)[j] > hi(a)[j]   ? lo(b)[j] - hi(a)[j]
                              : lo(a)[j] > hi(b)[j] ? lo(a)[j] - hi(b)[j]
                                                    : 0.0f;
            sum = sum + gap * gap;
        }
        return sum;
    }
    // Upper bound of canonicalDist2 between any point of cell a and any point of cell b.
    float boxMax2(std::size_t a, std::size_t b) const {
        float sum = 0.0f;
        for (std::size_t j = 0; j < D; ++j) {
            const float far = std::max(hi(b)[j] - lo(a)[j], hi(a)[j] - lo(b)[j]);
            sum = sum + far * far;
        }
        return sum;
    }
    float dist2(Index a, Index b) const { return canonicalDist2(m_w.pt(a), m_w.pt(b), D); }

    void chooseSides(const std::array<double, D>& lo, const std::array<double, D>& hi);
    void partitionCoreFirst(std::size_t chunk, std::vector<std::uint32_t>* counts = nullptr);
    // Counts neighbours up to cap; mark(b, e, count) for a run of points whose count reaches
    // cap at once (a dense cell), record(p, count) for a point counted on its own.
    template <class Mark, class Record>
    void countUpTo(std::size_t cap, Mark&& mark, Record&& record);

    Work& m_w;
    int m_threads;
    JobControl& m_job;
    std::array<double, D> m_origin{}, m_side{};
    std::array<std::uint64_t, D> m_cells{}, m_mask{};
    std::array<unsigned, D> m_shift{};
    std::vector<std::uint64_t> m_cellKey;
    std::vector<Cell> m_cell;
    std::vector<std::pair<std::size_t, std::size_t>> m_chunks;  // cell ranges
};

// Cell sides. A pair passing fl-sum(fl(fl(a_j - b_j)^2)) <= eps2 has |a_j - b_j| <
// canonicalReach(eps2) for every j (the sum of non-negative terms is at least each term,
// rounding being monotone); cells of side reach/2 (a hair more) keep every
// such pair within +-2 cells even after the double rounding of (x - origin) / side, which
// stays below 2^-20 cells while a dimension has at most 2^31 cells. Too many cells (eps tiny
// against the extent, or eps = 0) coarsen the sides: still exact, only slower.
template <std::size_t D>
void GridDbscan<D>::chooseSides(const std::array<double, D>& lo, const std::array<double, D>& hi) {
    const double reach = canonicalReach(m_w.eps2);
    const double side = 0.5 * reach * (1.0 + 1e-5);
    constexpr double kMaxCellsPerDim = 2147483648.0;  // 2^31
    auto bitsFor = [](std::uint64_t cells) {
        unsigned bits = 0;
        while (bits < 64 && (std::uint64_t(1) << bits) < cells)
            ++bits;
        return bits;
    };
    std::array<unsigned, D> bits{};
    for (std::size_t j = 0; j < D; ++j) {
        m_origin[j] = lo[j];
        const double extent = hi[j] - lo[j];
        m_side[j] = std::isfinite(side) ? side : std::numeric_limits<double>::max();
        if (extent / m_side[j] >= kMaxCellsPerDim - 1) m_side[j] = extent / (kMaxCellsPerDim - 2);
    }
    auto count = [&](std::size_t j) {
        const double extent = hi[j] - lo[j];
        m_cells[j] = std::uint64_t(std::floor(extent / m_side[j])) + 1;
        bits[j] = bitsFor(m_cells[j]);
    };
    for (std::size_t j = 0; j < D; ++j)
        count(j);
    // Keys must fit 63 bits: coarsen the finest dimension until they do.
    for (;;) {
        unsigned total = 0;
        for (auto b : bits)
            total += b;
        if (total <= 63) break;
        const auto j = std::size_t(std::max_element(bits.begin(), bits.end()) - bits.begin());
        m_side[j] *= 2.0;
        count(j);
    }
    unsigned shift = 0;
    for (std::size_t j = D; j-- > 0;) {
        m_shift[j] = shift;
        m_mask[j] = bits[j] == 0 ? 0 : (bits[j] >= 64 ? ~0ull : (std::uint64_t(1) << bits[j]) - 1);
        shift += bits[j];
    }
}

template <std::size_t D>
void GridDbscan<D>::build(const std::vector<float>& recentred) {
    const std::size_t n = m_w.n;
    std::array<double, D> lo, hi;
    lo.fill(std::numeric_limits<double>::infinity());
    hi.fill(-std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < D; ++j) {
            lo[j] = std::min(lo[j], double(recentred[i * D + j]));
            hi[j] = std::max(hi[j], double(recentred[i * D + j]));
        }
    chooseSides(lo, hi);

    // Keys, then a parallel sort: each worker sorts a slice, slices are merged pairwise.
    std::vector<std::pair<std::uint64_t, Index>> keyed(n);
    const std::size_t slices = std::size_t(std::max(1, m_threads));
    const std::size_t keyChunks =
        std::max<std::size_t>(1, std::min<std::size_t>(n / 4096 + 1, 256));
    parallelChunks(keyChunks, m_threads, m_job, 0.0, 0.02, "grid", [&](std::size_t c) {
        const std::size_t b = n * c / keyChunks, e = n * (c + 1) / keyChunks;
        for (std::size_t i = b; i < e; ++i) {
            std::uint64_t key = 0;
            for (std::size_t j = 0; j < D; ++j) {
                const double q =
                    std::floor((double(recentred[i * D + j]) - m_origin[j]) / m_side[j]);
                const auto cj =
                    std::min<std::uint64_t>(std::uint64_t(std::max(q, 0.0)), m_cells[j] - 1);
                key |= cj << m_shift[j];
            }
            keyed[i] = {key, Index(i)};
        }
    });
    parallelChunks(slices, m_threads, m_job, 0.02, 0.06, "grid", [&](std::size_t s) {
        std::sort(keyed.begin() + std::ptrdiff_t(n * s / slices),
                  keyed.begin() + std::ptrdiff_t(n * (s + 1) / slices));
    });
    for (std::size_t width = 1; width < slices; width *= 2) {
        for (std::size_t s = 0; s + width < slices; s += 2 * width) {
            const auto b = keyed.begin() + std::ptrdiff_t(n * s / slices);
            const auto m = keyed.begin() + std::ptrdiff_t(n * (s + width) / slices);
            const auto e =
                keyed.begin() + std::ptrdiff_t(n * std::min(s + 2 * width, slices) / slices);
            std::inplace_merge(b, m, e);
        }
        m_job.checkpoint();
    }

    m_w.x.resize(n * D);
    m_w.orig.resize(n);
    m_cellKey.clear();
    m_cell.clear();
    for (std::size_t w = 0; w < n; ++w) {
        const auto [key, i] = keyed[w];
        m_w.orig[w] = i;
        for (std::size_t j = 0; j < D; ++j)
            m_w.x[w * D + j] = recentred[std::size_t(i) * D + j];
        if (w == 0 || key != m_cellKey.back()) {
            if (!m_cell.empty()) m_cell.back().end = Index(w);
            m_cellKey.push_back(key);
            m_cell.push_back({Index(w), Index(w), Index(w)});
        }
    }
    m_cell.back().end = Index(n);
    keyed = {};

    // Chunks of whole cells with roughly equal point counts, several per worker for balance.
    const std::size_t target = std::max<std::size_t>(512, n / (std::size_t(m_threads) * 32 + 1));
    m_chunks.clear();
    for (std::size_t c = 0; c < cellCount();) {
        std::size_t e = c + 1;
        while (e < cellCount() && begin(e) - begin(c) < target)
            ++e;
        m_chunks.emplace_back(c, e);
        c = e;
    }

    parallelChunks(m_chunks.size(), m_threads, m_job, 0.06, kBuildEnd, "grid", [&](std::size_t k) {
        for (std::size_t c = m_chunks[k].first; c < m_chunks[k].second; ++c) {
            float* l = m_cell[c].lo.data();
            float* h = m_cell[c].hi.data();
            for (std::size_t j = 0; j < D; ++j)
                l[j] = h[j] = m_w.pt(begin(c))[j];
            for (Index w = begin(c) + 1; w < end(c); ++w)
                for (std::size_t j = 0; j < D; ++j) {
                    l[j] = std::min(l[j], m_w.pt(w)[j]);
                    h[j] = std::max(h[j], m_w.pt(w)[j]);
                }
            m_cell[c].clique = canonicalDist2(h, l, D) <= m_w.eps2;
        }
    });
}

template <std::size_t D>
GridDbscan<D>::Sweep::Sweep(const GridDbscan& g) : m_g(g) {
    m_pos.fill(kUnset);
    for (std::size_t r = 0; r < kRows; ++r) {
        std::size_t rest = r;
        for (std::size_t j = 0; j + 1 < D; ++j, rest /= 5)
            m_offset[r][j] = int(rest % 5) - 2;
    }
    // Nearest rows first, so that counting can stop early.
    auto norm = [](const auto& o) {
        int sum = 0;
        for (std::size_t j = 0; j + 1 < D; ++j)
            sum += o[j] * o[j];
        return sum;
    };
    std::stable_sort(m_offset.begin(), m_offset.end(),
                     [&](const auto& a, const auto& b) { return norm(a) < norm(b); });
    for (std::size_t r = 0; r < kRows; ++r)
        for (std::size_t j = 0; j + 1 < D; ++j)
            if (m_offset[r][j] != 0) {
                m_backward[r] = m_offset[r][j] < 0;
                break;
            }
}

template <std::size_t D>
std::span<const Index> GridDbscan<D>::Sweep::collect(std::size_t cell, bool forwardOnly) {
    const auto& g = m_g;
    const std::uint64_t* keys = g.m_cellKey.data();
    const std::size_t cells = g.cellCount();
    const std::uint64_t key = keys[cell];
    std::array<std::int64_t, D> c;
    for (std::size_t j = 0; j < D; ++j)
        c[j] = std::int64_t(g.coord(key, j));
    const std::int64_t last = c[D - 1], lastCells = std::int64_t(g.m_cells[D - 1]);
    const std::uint64_t lastLo = std::uint64_t(std::max<std::int64_t>(last - 2, 0))
                                 << g.m_shift[D - 1];
    const std::uint64_t lastHi = std::uint64_t(std::min<std::int64_t>(last + 2, lastCells - 1))
                                 << g.m_shift[D - 1];
    std::size_t m = 0;
    m_out[m++] = Index(cell);
    for (std::size_t r = 0; r < kRows; ++r) {
        if (forwardOnly && m_backward[r]) continue;
        std::uint64_t prefix = 0;
        bool inside = true;
        for (std::size_t j = 0; j + 1 < D; ++j) {
            const std::int64_t t = c[j] + m_offset[r][j];
            inside = inside && t >= 0 && t < std::int64_t(g.m_cells[j]);
            prefix |= std::uint64_t(t) << g.m_shift[j];
        }
        if (!inside) continue;
        const std::uint64_t low = prefix | lastLo, high = prefix | lastHi;
        // Targets only grow while cells are visited in key order: advance, never rewind; a
        // long way (the first cell of a chunk, a gap in the data) by binary search.
        std::size_t pos = m_pos[r];
        if (pos == kUnset) pos = 0;
        for (int steps = 0; pos < cells && keys[pos] < low; ++pos)
            if (++steps == 8) {
                pos = std::size_t(std::lower_bound(keys + pos, keys + cells, low) - keys);
                break;
            }
        m_pos[r] = pos;
        for (std::size_t k = pos; k < cells && keys[k] <= high; ++k)
            if (k != cell) m_out[m++] = Index(k);
    }
    return {m_out.data(), m};
}

template <std::size_t D>
void GridDbscan<D>::countCore() {
    m_w.core.assign(m_w.n, 0);
    countUpTo(
        std::size_t(m_w.minPts),
        [&](Index b, Index e, std::size_t) {
            std::fill(m_w.core.begin() + b, m_w.core.begin() + e, 1);
        },
        [&](Index p, std::size_t count) { m_w.core[p] = count >= std::size_t(m_w.minPts); });
    // Core points first within each cell: later stages scan only [begin, coreEnd).
    parallelChunks(m_chunks.size(), m_threads, m_job, kCountEnd, kCoreEnd, "core",
                   [&](std::size_t k) { partitionCoreFirst(k); });
}

template <std::size_t D>
void GridDbscan<D>::countNeighbours(std::size_t cap, std::vector<std::uint32_t>& counts) {
    counts.assign(m_w.n, 0);
    countUpTo(
        cap,
        [&](Index b, Index e, std::size_t count) {
            std::fill(counts.begin() + b, counts.begin() + e, std::uint32_t(count));
        },
        [&](Index p, std::size_t count) { counts[p] = std::uint32_t(count); });
}

template <std::size_t D>
void GridDbscan<D>::coreFromCounts(std::vector<std::uint32_t>& counts, int minPts) {
    m_w.core.resize(m_w.n);
    for (std::size_t p = 0; p < m_w.n; ++p)
        m_w.core[p] = counts[p] >= std::uint32_t(minPts);
    parallelChunks(m_chunks.size(), m_threads, m_job, kCountEnd, kCoreEnd, "core",
                   [&](std::size_t k) { partitionCoreFirst(k, &counts); });
}

template <std::size_t D>
template <class Mark, class Record>
void GridDbscan<D>::countUpTo(std::size_t cap, Mark&& mark, Record&& record) {
    const float eps2 = m_w.eps2;
    const std::size_t minPts = cap;
    parallelChunks(m_chunks.size(), m_threads, m_job, kBuildEnd, kCountEnd, "core",
                   [&](std::size_t k) {
                       Sweep sweep(*this);
                       std::vector<std::pair<float, Index>> partial;
                       for (std::size_t c = m_chunks[k].first; c < m_chunks[k].second; ++c) {
                           const std::size_t size = end(c) - begin(c);
                           if (clique(c) && size >= minPts) {
                               mark(begin(c), end(c), size);
                               continue;
                           }
                           // Box against box first: cells wholly within eps of every point here
                           // count for all of them at once, cells wholly beyond eps drop out; only
                           // the rest are scanned.
                           const auto nbrs = sweep.collect(c);
                           std::size_t base = 0;
                           partial.clear();
                           for (const Index nc : nbrs) {
                               if (nc == c ? clique(c) : boxMax2(c, nc) <= eps2) {
                                   base += end(nc) - begin(nc);
                                   if (base >= minPts) break;
                               } else {
                                   const float gap = nc == c ? 0.0f : boxGap2(c, nc);
                                   if (gap <= eps2) partial.emplace_back(gap, nc);
                               }
                           }
                           if (base >= minPts) {
                               mark(begin(c), end(c), base);
                               continue;
                           }
                           // Nearest cells first: most points reach minPts after a few of them.
                           std::sort(partial.begin(), partial.end());
                           for (Index p = begin(c); p < end(c); ++p) {
                               const float* pp = m_w.pt(p);
                               std::size_t count = base;
                               for (const auto& [gap, nc] : partial) {
                                   if (minDist2(pp, nc) > eps2) continue;
                                   const std::size_t cellSize = end(nc) - begin(nc);
                                   if (cellSize > 1 && maxDist2(pp, nc) <= eps2) {
                                       count += cellSize;
                                   } else {
                                       for (Index q = begin(nc); q < end(nc) && count < minPts; ++q)
                                           if (dist2(p, q) <= eps2) ++count;
                                   }
                                   if (count >= minPts) break;
                               }
                               record(p, count);
                           }
                       }
                   });
}

template <std::size_t D>
void GridDbscan<D>::partitionCoreFirst(std::size_t chunk, std::vector<std::uint32_t>* counts) {
    std::vector<float> xs;
    std::vector<Index> os;
    std::vector<std::uint32_t> cs;
    for (std::size_t c = m_chunks[chunk].first; c < m_chunks[chunk].second; ++c) {
        const Index b = begin(c), e = end(c);
        Index cores = 0;
        for (Index w = b; w < e; ++w)
            cores += m_w.core[w];
        m_cell[c].coreEnd = b + cores;
        if (cores == 0 || cores == e - b) continue;
        xs.clear();
        os.clear();
        cs.clear();
        for (int pass = 1; pass >= 0; --pass)
            for (Index w = b; w < e; ++w)
                if (m_w.core[w] == pass) {
                    xs.insert(xs.end(), m_w.pt(w), m_w.pt(w) + D);
                    os.push_back(m_w.orig[w]);
                    if (counts) cs.push_back((*counts)[w]);
                }
        std::copy(xs.begin(), xs.end(), m_w.x.begin() + std::ptrdiff_t(std::size_t(b) * D));
        std::copy(os.begin(), os.end(), m_w.orig.begin() + b);
        if (counts) std::copy(cs.begin(), cs.end(), counts->begin() + b);
        std::fill(m_w.core.begin() + b, m_w.core.begin() + b + cores, 1);
        std::fill(m_w.core.begin() + b + cores, m_w.core.begin() + e, 0);
    }
}

template <std::size_t D>
void GridDbscan<D>::linkCliques(UnionFind& uf) const {
    for (std::size_t c = 0; c < cellCount(); ++c)
        if (clique(c))
            for (Index w = begin(c) + 1; w < coreEnd(c); ++w)
                uf.link(w, begin(c));
}

template <std::size_t D>
void GridDbscan<D>::unite(UnionFind& uf) {
    linkCliques(uf);
    const float eps2 = m_w.eps2;
    parallelChunks(
        m_chunks.size(), m_threads, m_job, kCoreEnd, kUnionEnd, "union", [&](std::size_t k) {
            Sweep sweep(*this);
            for (std::size_t c = m_chunks[k].first; c < m_chunks[k].second; ++c) {
                if (coreEnd(c) == begin(c)) continue;
                const auto nbrs = sweep.collect(c, true);
                if (!clique(c))
                    for (Index a = begin(c); a < coreEnd(c); ++a)
                        for (Index b = a + 1; b < coreEnd(c); ++b)
                            if (dist2(a, b) <= eps2 && uf.find(a) != uf.find(b)) uf.unite(a, b);
                Index root = uf.find(begin(c));  // may go stale; only ever compared for equality
                for (const Index nc : nbrs) {
                    // Each unordered pair of cells once; only cells holding core points matter.
                    if (nc <= c || coreEnd(nc) == begin(nc) || boxGap2(c, nc) > eps2) continue;
                    if (clique(c) && clique(nc)) {
                        // Both sides are single components: one linking pair is enough.
                        const Index other = uf.find(begin(nc));
                        if (other == root || other == (root = uf.find(begin(c)))) continue;
                        if (boxMax2(c, nc) <= eps2) {  // every pair links
                            uf.unite(begin(c), begin(nc));
                            continue;
                        }
                        bool linked = false;
                        for (Index a = begin(c); a < coreEnd(c) && !linked; ++a) {
                            if (minDist2(m_w.pt(a), nc) > eps2) continue;
                            for (Index b = begin(nc); b < coreEnd(nc); ++b)
                                if (dist2(a, b) <= eps2) {
                                    uf.unite(a, b);
                                    linked = true;
                                    break;
                                }
                        }
                    } else {
                        for (Index a = begin(c); a < coreEnd(c); ++a) {
                            if (minDist2(m_w.pt(a), nc) > eps2) continue;
                            for (Index b = begin(nc); b < coreEnd(nc); ++b)
                                if (dist2(a, b) <= eps2 && uf.find(a) != uf.find(b)) uf.unite(a, b);
                        }
                    }
                }
            }
        });
}

template <std::size_t D>
void GridDbscan<D>::assignBorder(UnionFind&, std::vector<Index>& nearest) {
    nearest.assign(m_w.n, kNoIndex);
    const float eps2 = m_w.eps2;
    parallelChunks(m_chunks.size(), m_threads, m_job, kUnionEnd, kBorderEnd, "border",
                   [&](std::size_t k) {
                       Sweep sweep(*this);
                       for (std::size_t c = m_chunks[k].first; c < m_chunks[k].second; ++c) {
                           if (coreEnd(c) == end(c)) continue;
                           const auto nbrs = sweep.collect(c);
                           for (Index p = coreEnd(c); p < end(c); ++p) {
                               const float* pp = m_w.pt(p);
                               Nearest best;
                               for (const Index nc : nbrs) {
                                   if (coreEnd(nc) == begin(nc)) continue;
                                   const float bound = minDist2(pp, nc);
                                   if (bound > eps2 || bound > best.dist2) continue;
                                   for (Index q = begin(nc); q < coreEnd(nc); ++q) {
                                       const float d2 = dist2(p, q);
                                       if (d2 <= eps2) best.offer(d2, q, m_w.orig[q]);
                                   }
                               }
                               nearest[p] = best.core;
                           }
                       }
                   });
}

template <std::size_t D>
DbscanResult runGrid(Work& w, const std::vector<float>& recentred, bool star, int threads,
                     JobControl& job) {
    GridDbscan<D> grid(w, threads, job);
    {
        auto s = job.stage("grid");
        grid.build(recentred);
    }
    {
        auto s = job.stage("core");
        grid.countCore();
    }
    UnionFind uf(w.n);
    {
        auto s = job.stage("union");
        grid.unite(uf);
    }
    std::vector<Index> nearest;
    if (!star) {
        auto s = job.stage("border");
        grid.assignBorder(uf, nearest);
    }
    auto s = job.stage("labels");
    return finishLabels(w, uf, nearest, star);
}

// ---------------------------------------------------------------------------------------------
// Point paths (Brute, KdTree): the same three stages over candidate "sources". For a block of
// rows (points), a source calls f(r, j) for row slot r and candidates j, a superset of the
// eps-neighbours of rows[r] that contains rows[r] itself; f returns false when that row needs
// no more candidates.
// ---------------------------------------------------------------------------------------------

// All pairs in column tiles shared by a block of rows, so a tile is read once per block.
// A block walks all n columns when eps covers the cloud: the cancel flag is looked at per tile.
struct BruteSource {
    const Work& w;
    const JobControl& job;
    template <class F>
    void visit(const Index* rows, std::size_t count, bool upperOnly, F&& f) const {
        constexpr Index kTile = 1024;
        std::vector<std::uint8_t> active(count, 1);
        std::size_t remaining = count;
        const Index n = Index(w.n);
        for (Index t0 = 0; t0 < n && remaining > 0; t0 += std::min(kTile, n - t0)) {
            job.checkpoint();
            const Index t1 = t0 + std::min(kTile, n - t0);
            for (std::size_t r = 0; r < count; ++r) {
                if (!active[r]) continue;
                for (Index j = upperOnly ? std::max(t0, rows[r] + 1) : t0; j < t1; ++j)
                    if (!f(r, j)) {
                        active[r] = 0;
                        --remaining;
                        break;
                    }
            }
        }
    }
};

// nanoflann 1.5 renamed SearchParams (and dropped its `checks` argument) and the index's
// members; Debian 12 ships 1.4, Ubuntu 24.04 1.5 and newer Debian 1.7.
#if NANOFLANN_VERSION >= 0x150
nanoflann::SearchParameters kdSearch(bool sorted) {
    return nanoflann::SearchParameters(0.0f, sorted);
}
template <class Tree>
const auto& kdLeafOrder(const Tree& tree) {
    return tree.vAcc_;
}
#else
nanoflann::SearchParams kdSearch(bool sorted) {
    return nanoflann::SearchParams(32, 0.0f, sorted);
}
template <class Tree>
const auto& kdLeafOrder(const Tree& tree) {
    return tree.vAcc;
}
#endif

// Points for nanoflann; DIM > 0 fixes the dimension at compile time (d <= 3), so its distance
// loops unroll.
template <int DIM>
struct KdAdaptor {
    const float* x;
    std::size_t n, d;
    std::size_t kdtree_get_point_count() const { return n; }
    float kdtree_get_pt(std::size_t i, std::size_t j) const {
        return x[i * (DIM > 0 ? std::size_t(DIM) : d) + j];
    }
    template <class Box>
    bool kdtree_get_bbox(Box&) const {
        return false;
    }
};
template <int DIM>
using KdTree =
    nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<float, KdAdaptor<DIM>>,
                                        KdAdaptor<DIM>, DIM, Index>;

// Calls f(std::integral_constant<int, DIM>) with DIM = d for d <= 3, else -1 (dynamic).
template <class F>
decltype(auto) withKdDim(std::size_t d, F&& f) {
    switch (d) {
        case 1:
            return f(std::integral_constant<int, 1>{});
        case 2:
            return f(std::integral_constant<int, 2>{});
        case 3:
            return f(std::integral_constant<int, 3>{});
        default:
            return f(std::integral_constant<int, -1>{});
    }
}

// nanoflann sums its squared distances in its own way and prunes with incrementally updated
// bounds; both can round differently from canonicalDist2, by a relative ~(d + depth) 2^-24.
// Searching with radius (1 + 1e-3 + 4d 2^-24) r2 (plus a little for underflow) therefore finds
// every point that the canonical test accepts; the canonical test then decides.
float kdRadius(float r2, std::size_t d) {
    const double inflated = double(r2) * (1.0 + 1e-3 + 4.0 * double(d) * 0x1p-24) + 1e-36;
    return inflated >= double(std::numeric_limits<float>::max()) ? kInfinity : float(inflated);
}

// A nanoflann result set that forwards every candidate to f and stops when f says so.
template <class F>
struct ForwardingResultSet {
    using DistanceType = float;  // nanoflann >= 1.5 asks result sets for these two
    void sort() {}
    F& f;
    std::size_t slot;
    float radius;
    std::size_t size() const { return 0; }
    bool full() const { return true; }
    bool addPoint(float, Index j) { return f(slot, j); }
    float worstDist() const { return radius; }
};

// With an eps that covers the cloud every search returns all n points: the cancel flag is looked
// at per searched row.
template <int DIM>
struct KdSource {
    const Work& w;
    const KdTree<DIM>& tree;
    float radius;
    const JobControl& job;
    template <class F>
    void visit(const Index* rows, std::size_t count, bool upperOnly, F&& f) const {
        auto filtered = [&](std::size_t r, Index j) {
            return (upperOnly && j <= rows[r]) || f(r, j);
        };
        for (std::size_t r = 0; r < count; ++r) {
            job.checkpoint();
            ForwardingResultSet<decltype(filtered)> set{filtered, r, radius};
            tree.findNeighbors(set, w.pt(rows[r]), kdSearch(false));
        }
    }
};

// `order`: the order rows are taken in (the kd-tree's leaf order keeps consecutive searches
// in the same part of the tree); empty: index order.
template <class Source>
DbscanResult runPoints(Work& w, const Source& source, const std::vector<Index>& order, bool star,
                       int threads, JobControl& job) {
    const Index n = Index(w.n);
    const float eps2 = w.eps2;
    const auto minPts = std::size_t(w.minPts);
    constexpr std::size_t kBlock = 64;
    const std::size_t blocks = (std::size_t(n) + kBlock - 1) / kBlock;
    auto rowsOf = [&](std::size_t b, auto&& keep, std::vector<Index>& rows) {
        rows.clear();
        for (std::size_t k = b * kBlock; k < std::min<std::size_t>(n, (b + 1) * kBlock); ++k) {
            const Index i = order.empty() ? Index(k) : order[k];
            if (keep(i)) rows.push_back(i);
        }
    };

    w.core.assign(n, 0);
    {
        auto s = job.stage("core");
        parallelChunks(blocks, threads, job, kBuildEnd, kCoreEnd, "core", [&](std::size_t b) {
            std::vector<Index> rows;
            rowsOf(
                b, [](Index) { return true; }, rows);
            std::vector<std::size_t> counts(rows.size(), 0);
            source.visit(rows.data(), rows.size(), false, [&](std::size_t r, Index j) {
                if (w.dist2(rows[r], j) > eps2) return true;
                return ++counts[r] < minPts;
            });
            for (std::size_t r = 0; r < rows.size(); ++r)
                w.core[rows[r]] = counts[r] >= minPts;
        });
    }
    UnionFind uf(n);
    {
        auto s = job.stage("union");
        parallelChunks(blocks, threads, job, kCoreEnd, kUnionEnd, "union", [&](std::size_t b) {
            std::vector<Index> rows;
            rowsOf(
                b, [&](Index i) { return w.core[i] != 0; }, rows);
            source.visit(rows.data(), rows.size(), true, [&](std::size_t r, Index j) {
                // The root test first: in high d it is cheaper than the distance.
                const Index i = rows[r];
                if (w.core[j] && uf.find(i) != uf.find(j) && w.dist2(i, j) <= eps2) uf.unite(i, j);
                return true;
            });
        });
    }
    std::vector<Index> nearest;
    if (!star) {
        auto s = job.stage("border");
        nearest.assign(n, kNoIndex);
        parallelChunks(blocks, threads, job, kUnionEnd, kBorderEnd, "border", [&](std::size_t b) {
            std::vector<Index> rows;
            rowsOf(
                b, [&](Index i) { return w.core[i] == 0; }, rows);
            std::vector<Nearest> best(rows.size());
            source.visit(rows.data(), rows.size(), false, [&](std::size_t r, Index j) {
                if (w.core[j]) {
                    const float d2 = w.dist2(rows[r], j);
                    if (d2 <= eps2) best[r].offer(d2, j, j);
                }
                return true;
            });
            for (std::size_t r = 0; r < rows.size(); ++r)
                nearest[rows[r]] = best[r].core;
        });
    }
    auto s = job.stage("labels");
    return finishLabels(w, uf, nearest, star);
}

template <int DIM>
DbscanResult runKdTree(Work& w, bool star, int threads, JobControl& job) {
    const KdAdaptor<DIM> adaptor{w.x.data(), w.n, w.d};
    std::unique_ptr<KdTree<DIM>> tree;
    {
        auto s = job.stage("kdtree");
        tree = std::make_unique<KdTree<DIM>>(int(w.d), adaptor,
                                             nanoflann::KDTreeSingleIndexAdaptorParams(16));
        job.setProgress(kBuildEnd, "kdtree");
    }
    job.checkpoint();
    return runPoints(w, KdSource<DIM>{w, *tree, kdRadius(w.eps2, w.d), job}, kdLeafOrder(*tree),
                     star, threads, job);
}

// ---------------------------------------------------------------------------------------------
// eps x MinPts sweep (dbscanSweepCpu).
//
// Grid (d <= 3): per eps the grid is built and the neighbours counted once, up to the largest
// MinPts (dense cells still settle at once); per MinPts the core flags come from those counts,
// then the union, border and label stages of plain DBSCAN run on the same grid.
//
// Other paths: per eps, three passes over the neighbourhoods serve every MinPts at once:
//  1. count: each point's neighbours, capped at the largest MinPts (a point is core for MinPts
//     m iff its count >= m);
//  2. border (not with star): for each point, the neighbours that would be its nearest core at
//     some MinPts where it is not core itself. Nearest first, such a neighbour must have a
//     larger count than every nearer one (a nearer core with as large a count would be taken
//     instead), so a short staircase per point, with counts rising as the distance does, holds
//     the answer for every MinPts: the first step whose count reaches m;
//  3. union: points become core in order of falling count, so going down the MinPts values
//     only ever adds core points and core-core edges. At each level the newly core points are
//     united with their neighbours that are core at that level, and the cells read off the
//     union-find forest as it stands.
// Each cell is thus exactly what dbscanCpu gives (the same distance test, the same border rule
// and tie-break), which tests/compute/tst_dbscan.cpp checks cell by cell.
// ---------------------------------------------------------------------------------------------

// A part of a job: its progress lands in a range of the parent's, under a stage name of the
// parent's choosing, and a cancel of the parent reaches it at its next progress report (the
// grid reports after every chunk of cells).
class SubJob {
public:
    explicit SubJob(JobControl& parent)
        : m_parent(parent), m_job([this](double f, std::string_view) {
              m_parent.setProgress(m_from + (m_to - m_from) * f, m_stage);
              if (m_parent.isCancelled()) m_job.cancel();
          }) {}
    void setRange(double from, double to, std::string stage) {
        m_parent.checkpoint();
        m_from = from;
        m_to = to;
        m_stage = std::move(stage);
    }
    JobControl& job() { return m_job; }

private:
    JobControl& m_parent;
    JobControl m_job;
    double m_from = 0.0, m_to = 1.0;
    std::string m_stage;
};

template <std::size_t D>
void sweepGrid(const std::vector<float>& recentred, std::size_t n, double scale,
               const DbscanSweepParams& params, int threads, JobControl& job,
               DbscanSweepResult& out) {
    const std::size_t levels = params.minPts.size();
    const double span = 1.0 / double(params.eps.size());
    std::vector<std::uint32_t> counts;
    for (std::size_t e = 0; e < params.eps.size(); ++e) {
        const double from = double(e) * span;
        Work w;
        w.n = n;
        w.d = D;
        w.eps2 = epsSquared(toRecentred(params.eps[e], scale));
        SubJob sub(job);
        GridDbscan<D> grid(w, threads, sub.job());
        {
            auto s = job.stage("count");
            sub.setRange(from, from + 0.4 * span, "count");
            grid.build(recentred);
            grid.countNeighbours(std::size_t(params.minPts.back()), counts);
        }
        auto s = job.stage("cells");
        for (std::size_t k = 0; k < levels; ++k) {
            const double at = from + span * (0.4 + 0.6 * double(k) / double(levels));
            sub.setRange(at, at + 0.6 * span / double(levels), "cells");
            grid.coreFromCounts(counts, params.minPts[k]);
            UnionFind uf(n);
            grid.unite(uf);
            std::vector<Index> nearest;
            if (!params.star) grid.assignBorder(uf, nearest);
            out.cells[e * levels + k] = dbscanSweepCell(finishLabels(w, uf, nearest, params.star),
                                                        params.eps[e], params.minPts[k]);
        }
        job.checkpoint();
    }
}

// One step of a point's staircase of candidate nearest cores.
struct SweepStep {
    float dist2;
    Index point;
    int count;
};

// Keeps the staircase: ascending (dist2, point) with strictly rising counts.
void offerStep(std::vector<SweepStep>& steps, SweepStep s) {
    auto before = [](const SweepStep& a, const SweepStep& b) {
        return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.point < b.point);
    };
    std::size_t at = 0;
    while (at < steps.size() && before(steps[at], s)) {
        if (steps[at].count >= s.count) return;  // a nearer core that is core whenever s is
        ++at;
    }
    std::size_t end = at;
    while (end < steps.size() && steps[end].count <= s.count)
        ++end;  // farther steps that s now serves first
    steps.erase(steps.begin() + std::ptrdiff_t(at), steps.begin() + std::ptrdiff_t(end));
    steps.insert(steps.begin() + std::ptrdiff_t(at), s);
}

// f(i, j, d2) for every neighbour j of every row i (itself included) within eps; f returns false
// when row i needs no more. Rows in blocks over the workers.
template <class Source, class F>
void visitNeighbours(const Work& w, const Source& source, const std::vector<Index>& rows,
                     int threads, JobControl& job, double from, double to, std::string_view stage,
                     F&& f) {
    constexpr std::size_t kBlock = 64;
    const std::size_t blocks = (rows.size() + kBlock - 1) / kBlock;
    parallelChunks(blocks, threads, job, from, to, stage, [&](std::size_t b) {
        const Index* block = rows.data() + b * kBlock;
        const std::size_t count = std::min(kBlock, rows.size() - b * kBlock);
        source.visit(block, count, false, [&](std::size_t r, Index j) {
            const float d2 = w.dist2(block[r], j);
            return d2 > w.eps2 || f(block[r], j, d2);
        });
    });
}

template <class Source>
void sweepOneEps(Work& w, const Source& source, const std::vector<Index>& order,
                 const DbscanSweepParams& params, std::size_t e, int threads, JobControl& job,
                 DbscanSweepResult& out) {
    const std::size_t n = w.n, levels = params.minPts.size();
    const int lowest = params.minPts.front(), highest = params.minPts.back();
    const double from = double(e) / double(params.eps.size());
    const double span = 1.0 / double(params.eps.size());
    auto at = [&](double f) { return from + span * f; };

    std::vector<int> count(n, 0);
    {
        auto s = job.stage("count");
        visitNeighbours(w, source, order, threads, job, at(0.0), at(0.3), "count",
                        [&](Index i, Index, float) { return ++count[i] < highest; });
    }
    std::vector<std::vector<SweepStep>> steps;
    if (!params.star) {
        auto s = job.stage("border");
        steps.resize(n);
        visitNeighbours(w, source, order, threads, job, at(0.3), at(0.6), "border",
                        [&](Index i, Index j, float d2) {
                            if (count[i] >= highest) return false;  // core at every MinPts
                            if (count[j] > count[i] && count[j] >= lowest)
                                offerStep(steps[i], {d2, j, count[j]});
                            return true;
                        });
    }

    auto s = job.stage("union");
    UnionFind uf(n);
    std::vector<Index> rising, newlyCore;
    std::vector<std::uint32_t> size(n);
    for (std::size_t k = levels; k-- > 0;) {
        const int m = params.minPts[k];
        const int above = k + 1 < levels ? params.minPts[k + 1] : std::numeric_limits<int>::max();
        newlyCore.clear();
        for (const Index i : order)
            if (count[i] >= m && count[i] < above) newlyCore.push_back(i);
        const double f0 = 0.6 + 0.4 * double(levels - 1 - k) / double(levels);
        visitNeighbours(w, source, newlyCore, threads, job, at(f0), at(f0 + 0.4 / double(levels)),
                        "union", [&](Index i, Index j, float) {
                            if (count[j] >= m) uf.unite(i, j);
                            return true;
                        });
        std::fill(size.begin(), size.end(), 0u);
        std::int32_t clusters = 0;
        std::size_t noise = 0;
        for (Index i = 0; i < Index(n); ++i) {
            Index root = kNoIndex;
            if (count[i] >= m) {
                root = uf.find(i);
                clusters += root == i;
            } else if (!params.star) {
                for (const SweepStep& step : steps[i])
                    if (step.count >= m) {
                        root = uf.find(step.point);
                        break;
                    }
            }
            if (root == kNoIndex)
                ++noise;
            else
                ++size[root];
        }
        job.checkpoint();
        const std::uint32_t largest = *std::max_element(size.begin(), size.end());
        out.cells[e * levels + k] = {.eps = params.eps[e],
                                     .minPts = m,
                                     .clusters = clusters,
                                     .noiseShare = double(noise) / double(n),
                                     .largestShare = double(largest) / double(n)};
    }
}

// ---------------------------------------------------------------------------------------------
// k-distance
//
// Identical rows are searched once, as one distinct point with a count: they are all at
// distance 0 from each other, so a point repeated k times or more has k-distance 0 without a
// search, and a search counts each neighbour as often as it occurs. Searching them one by one
// is quadratic in the size of a clump: nanoflann prunes a subtree only when its bound exceeds
// the k-th distance so far, and inside a clump both are 0, so each of m copies visited all m
// (30,000 copies of one point, k = 10: 5.6 s on 2 cores).
// ---------------------------------------------------------------------------------------------

// splitmix64's finaliser: every input bit reaches every output bit.
std::uint64_t mixBits(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The k-distance tree's squared distances, counted per thread (KDistanceCpuStats::evaluations).
thread_local std::uint64_t tTreeEvaluations = 0;

// The k-distance tree measures points with canonicalDist2 itself, so every distance its result
// sets receive is already the canonical one. Its pruning bounds remain nanoflann's own sums,
// which may round differently: the searches below keep the kdRadius margins for them.
template <int DIM>
struct CanonicalL2 : nanoflann::L2_Simple_Adaptor<float, KdAdaptor<DIM>> {
    using nanoflann::L2_Simple_Adaptor<float, KdAdaptor<DIM>>::L2_Simple_Adaptor;
    template <class I>
    float evalMetric(const float* a, I b, std::size_t size) const {
        ++tTreeEvaluations;
        return canonicalDist2(a, this->data_source.x + std::size_t(b) * size, size);
    }
};
template <int DIM>
using KDistanceTree =
    nanoflann::KDTreeSingleIndexAdaptor<CanonicalL2<DIM>, KdAdaptor<DIM>, DIM, Index>;

// A canonical squared distance to a distinct point, and how often that point occurs.
struct Counted {
    float dist2;
    std::uint32_t count;
};

// Every point within nanoflann's radius, with its count (counts: null when all are 1).
struct CollectResultSet {
    using DistanceType = float;  // nanoflann >= 1.5 asks result sets for these two
    void sort() {}
    std::vector<Counted>& out;
    const std::uint32_t* counts;
    float radius;
    const JobControl& job;
    std::size_t total = 0;  // the counts collected, added up
    std::size_t size() const { return out.size(); }
    bool full() const { return true; }
    bool addPoint(float dist2, Index j) {
        if ((out.size() & 4095) == 4095) job.checkpoint();
        const std::uint32_t c = counts ? counts[j] : 1;
        out.push_back({dist2, c});
        total += c;
        return true;
    }
    float worstDist() const { return radius; }
};

// nanoflann's k-nearest set over distinct points with counts: it keeps the nearest entries,
// sorted, until their counts reach `want`, so with all counts 1 it is nanoflann's KNNResultSet.
// It inserts by shifting, so with k in the tens of thousands one search is seconds of work: the
// cancel flag is looked at every 4096 candidates.
class CountedKnnSet {
public:
    using DistanceType = float;  // nanoflann >= 1.5 asks result sets for these two
    /// `entries` holds want + 1 values; counts: null when every count is 1.
    CountedKnnSet(std::size_t want, const std::uint32_t* counts, Counted* entries,
                  const JobControl& job)
        : m_want(want), m_counts(counts), m_entry(entries), m_job(job) {}
    void sort() {}
    std::size_t size() const { return m_size; }
    /// The counts of the entries kept, added up.
    std::size_t total() const { return m_total; }
    bool full() const { return m_total >= m_want; }
    float worstDist() const { return full() ? m_entry[m_size - 1].dist2 : kInfinity; }
    bool addPoint(float dist2, Index j) {
        if (++m_offered % 4096 == 0) m_job.checkpoint();
        std::size_t i = m_size;
        for (; i > 0 && m_entry[i - 1].dist2 > dist2; --i)
            m_entry[i] = m_entry[i - 1];
        m_entry[i] = {dist2, m_counts ? m_counts[j] : 1};
        ++m_size;
        m_total += m_entry[i].count;
        // Drop the farthest while the others still reach `want`.
        while (m_total - m_entry[m_size - 1].count >= m_want)
            m_total -= m_entry[--m_size].count;
        return true;
    }
    /// The k-th smallest distance counting multiplicities (total() >= k).
    float kth(std::size_t k) const {
        for (std::size_t i = 0;; ++i) {
            if (m_entry[i].count >= k) return m_entry[i].dist2;
            k -= m_entry[i].count;
        }
    }

private:
    std::size_t m_want;
    const std::uint32_t* m_counts;
    Counted* m_entry;
    const JobControl& m_job;
    std::size_t m_size = 0, m_total = 0, m_offered = 0;
};

// The k-th smallest value of the multiset in which each c[i].dist2 occurs c[i].count times
// (the counts add up to at least k). Reorders c. unit: every count is 1.
float kthCounted(std::vector<Counted>& c, std::size_t k, bool unit) {
    const auto byDist = [](const Counted& a, const Counted& b) { return a.dist2 < b.dist2; };
    if (unit) {
        std::nth_element(c.begin(), c.begin() + std::ptrdiff_t(k - 1), c.end(), byDist);
        return c[k - 1].dist2;
    }
    // Quickselect on the counts: each round keeps the part that holds the k-th.
    std::size_t lo = 0, hi = c.size();
    for (;;) {
        if (hi - lo <= 16) {
            std::sort(c.begin() + std::ptrdiff_t(lo), c.begin() + std::ptrdiff_t(hi), byDist);
            for (std::size_t i = lo;; ++i) {
                if (c[i].count >= k) return c[i].dist2;
                k -= c[i].count;
            }
        }
        const std::size_t mid = lo + (hi - lo) / 2;
        std::nth_element(c.begin() + std::ptrdiff_t(lo), c.begin() + std::ptrdiff_t(mid),
                         c.begin() + std::ptrdiff_t(hi), byDist);
        std::size_t below = 0;  // the counts at positions lo..mid, all <= c[mid].dist2
        for (std::size_t i = lo; i <= mid; ++i)
            below += c[i].count;
        if (below >= k) {
            hi = mid + 1;
        } else {
            k -= below;
            lo = mid + 1;
        }
    }
}

// A squared radius that holds about k of n points spread evenly over the bounding box of the m
// distinct points: where the radius search starts before a neighbour's k-distance is known.
double startRadius2(const std::vector<float>& x, std::size_t m, std::size_t d, std::size_t n,
                    int k) {
    double volume = 1.0;
    int live = 0;
    for (std::size_t j = 0; j < d; ++j) {
        float lo = kInfinity, hi = -kInfinity;
        for (std::size_t i = 0; i < m; ++i) {
            lo = std::min(lo, x[i * d + j]);
            hi = std::max(hi, x[i * d + j]);
        }
        if (hi > lo) {
            volume *= double(hi) - double(lo);
            ++live;
        }
    }
    if (live == 0) return 1e-30;
    const double side = std::pow(volume * double(k) / double(n), 1.0 / live);
    const double r2 = 0.25 * side * side;
    return std::isfinite(r2) && r2 > 1e-30 ? r2 : 1e-30;
}

template <int DIM>
std::vector<float> kDistances(std::vector<float> x, std::size_t n, std::size_t d, int k,
                              int threads, JobControl& job, KDistanceCpuStats* stats) {
    DistinctRows u;
    {
        auto s = job.stage("distinct");
        u = distinctRows(std::move(x), n, d);
    }
    job.checkpoint();
    const std::size_t m = u.count.size();
    const bool unit = u.of.empty();
    const auto kk = std::size_t(k);
    const KDistanceSearch method = kDistanceSearchCpu(n, k);
    KdAdaptor<DIM> adaptor{u.coords.data(), m, d};
    std::unique_ptr<KDistanceTree<DIM>> tree;
    std::vector<Index> distinctAt;  // position in u -> distinct point; empty: the same
    if (method != KDistanceSearch::Scan) {
        auto s = job.stage("kdtree");
        const nanoflann::KDTreeSingleIndexAdaptorParams leaves(16);
        tree = std::make_unique<KDistanceTree<DIM>>(int(d), adaptor, leaves);
        // The points in the tree's leaf order, and the tree again on them: its leaves then read
        // memory in sequence rather than at random. The second build is the cheaper one, and
        // the searches take 15 % (k = 10, 2M points) to 30 % (k = 5,000, 100,000) less time.
        distinctAt = kdLeafOrder(*tree);
        tree.reset();
        std::vector<float> y(m * d);
        std::vector<std::uint32_t> c(unit ? 0 : m);
        for (std::size_t p = 0; p < m; ++p) {
            std::copy_n(u.coords.data() + std::size_t(distinctAt[p]) * d, d, y.data() + p * d);
            if (!unit) c[p] = u.count[distinctAt[p]];
        }
        u.coords = std::move(y);
        if (!unit) u.count = std::move(c);
        adaptor.x = u.coords.data();
        tree = std::make_unique<KDistanceTree<DIM>>(int(d), adaptor, leaves);
    }
    job.checkpoint();
    const std::uint32_t* counts = unit ? nullptr : u.count.data();
    std::vector<float> value(m, 0.0f);  // the canonical k-th squared distance per distinct point
    std::atomic<std::uint64_t> evaluations{0};
    std::atomic<std::size_t> searched{0};
    const double radiusStart =
        method == KDistanceSearch::Radius ? startRadius2(u.coords, m, d, n, k) : 0.0;
    {
        auto s = job.stage("knn");
        // Knn: the k nearest (plus a few spare) as nanoflann finds them; a radius search
        // settles the rare case where a point outside that set could still be closer, its
        // bounds rounding differently (see kdRadius for the margins). Radius: every point
        // within a radius that grows until it holds the k-th, settled the same way. Scan:
        // every distance. Queries go in the tree's leaf order, so consecutive ones walk the
        // same branches and have similar k-distances.
        const std::size_t want = std::min(n, kk + 4);
        const double slack = 1.0 + 1e-3 + 4.0 * double(d) * 0x1p-24;
        constexpr float kFloatMax = std::numeric_limits<float>::max();
        auto guardOf = [&](float v) {
            return float(std::min(double(v) * slack * slack + 2e-36, double(kFloatMax)));
        };
        std::vector<Index> identity;
        if (!tree) {
            identity.resize(m);
            std::iota(identity.begin(), identity.end(), Index(0));
        }
        const std::vector<Index>& order = tree ? kdLeafOrder(*tree) : identity;
        constexpr std::size_t kBlock = 256;
        const std::size_t blocks = (m + kBlock - 1) / kBlock;
        parallelChunks(blocks, threads, job, 0.1, 0.95, "knn", [&](std::size_t b) {
            std::vector<Counted> entries(method == KDistanceSearch::Knn ? want + 1 : 0), found;
            std::uint64_t scanned = 0;
            std::size_t queries = 0;
            const std::uint64_t treeBefore = tTreeEvaluations;
            float previous = 0.0f;  // the last query's value (Radius)
            // Collects the points canonically below `radius` (and maybe a few more) into
            // `found`; returns the total of their counts.
            auto collect = [&](const float* q, float radius) {
                found.clear();
                CollectResultSet set{found, counts, radius, job};
                tree->findNeighbors(set, q, kdSearch(false));
                return set.total;
            };
            for (std::size_t o = b * kBlock; o < std::min(m, (b + 1) * kBlock); ++o) {
                job.checkpoint();
                const std::size_t i = order[o];
                if (!unit && u.count[i] >= kk) continue;  // itself, k times: 0
                ++queries;
                const float* q = u.coords.data() + i * d;
                float result = kInfinity;
                if (method == KDistanceSearch::Knn) {
                    CountedKnnSet set(want, counts, entries.data(), job);
                    tree->findNeighbors(set, q, kdSearch(true));
                    if (set.total() >= kk) {
                        result = set.kth(kk);
                        const float guard = guardOf(result);
                        if (result > 0.0f && set.size() < m && !(set.worstDist() > guard)) {
                            // The search finds every point canonically below `result`; when
                            // their counts do not reach k, `result` stands.
                            if (collect(q, guard) >= kk)
                                result = std::min(result, kthCounted(found, kk, unit));
                        }
                    }
                } else if (method == KDistanceSearch::Radius) {
                    float radius = float(previous > 0.0f ? double(previous) * 1.1 : radiusStart);
                    for (;;) {
                        const std::size_t total = collect(q, radius);
                        if (total >= kk) {
                            result = kthCounted(found, kk, unit);
                            // Every point canonically at or below `result` lies within its
                            // guard: inside the radius, all such points are in `found`.
                            const float guard = guardOf(result);
                            if (found.size() == m || guard <= radius) break;
                            radius = guard;
                            continue;
                        }
                        if (found.size() == m || radius == kFloatMax) break;
                        // Too few: grow by the share missing, as if the points spread evenly.
                        const double missing = total > 0 ? double(kk) / double(total) : 64.0;
                        const double grow =
                            std::clamp(1.2 * std::pow(missing, 2.0 / double(d)), 1.5, 16.0);
                        radius = float(std::min(double(radius) * grow, double(kFloatMax)));
                    }
                    previous = result < kInfinity ? result : 0.0f;
                }
                if (result == kInfinity) {
                    // The scan, and the searches' fallback where nanoflann's own sums overflow
                    // and it cannot rank the farthest points: the k-th of all distances.
                    found.resize(m);
                    for (std::size_t j = 0; j < m; ++j)
                        found[j] = {canonicalDist2(q, u.coords.data() + j * d, d),
                                    unit ? 1u : u.count[j]};
                    scanned += m;
                    result = kthCounted(found, kk, unit);
                }
                value[distinctAt.empty() ? i : distinctAt[i]] = result;
            }
            evaluations += scanned + (tTreeEvaluations - treeBefore);
            searched += queries;
        });
    }
    std::vector<float> perPoint(n);
    for (std::size_t i = 0; i < n; ++i)
        perPoint[i] = std::sqrt(value[unit ? i : u.of[i]]);
    if (stats) {
        stats->distinct = m;
        stats->searched = searched;
        stats->evaluations = evaluations;
        stats->search = method;
    }
    return perPoint;
}

}  // namespace

DbscanPath resolveDbscanPathCpu(DbscanPath requested, std::size_t n, std::size_t dims) {
    switch (requested) {
        case DbscanPath::Grid:
            if (dims > 3)
                throw Error("the grid DBSCAN path handles 1 to 3 dimensions, not " +
                            std::to_string(dims) + " (use kdtree or brute)");
            return DbscanPath::Grid;
        case DbscanPath::Brute:
        case DbscanPath::KdTree:
            return requested;
        case DbscanPath::Auto:
            break;
    }
    if (dims <= 3) return DbscanPath::Grid;
    return n < kDbscanBruteBelow ? DbscanPath::Brute : DbscanPath::KdTree;
}

double dbscanNeighbourShare(const PointSet& points, float eps) {
    if (points.n == 0 || points.dims == 0 || points.coords.size() != points.n * points.dims)
        return 0.0;
    std::vector<float> low(points.dims, kInfinity), high(points.dims, -kInfinity);
    for (std::size_t i = 0; i < points.n; ++i)
        for (std::size_t j = 0; j < points.dims; ++j) {
            const float v = points.coords[i * points.dims + j];
            low[j] = std::min(low[j], v);
            high[j] = std::max(high[j], v);
        }
    double share = 1.0;
    for (std::size_t j = 0; j < points.dims; ++j) {
        const double extent = double(high[j]) - double(low[j]);
        if (extent > 0.0) share *= std::min(1.0, 2.0 * double(eps) / extent);
    }
    return share;
}

DbscanPath resolveDbscanPathCpu(DbscanPath requested, const PointSet& points, float eps) {
    const DbscanPath path = resolveDbscanPathCpu(requested, points.n, points.dims);
    if (requested == DbscanPath::Auto && path == DbscanPath::KdTree &&
        dbscanNeighbourShare(points, eps) >= kDbscanDenseShare)
        return DbscanPath::Brute;
    return path;
}

DbscanResult dbscanCpu(const PointSet& points, const DbscanParams& params, JobControl& job,
                       int threads) {
    validateDbscanParams(params);
    checkInput(points);
    threads = int(workersFor(threads));
    DbscanPath path = resolveDbscanPathCpu(params.path, points, params.eps);
    job.checkpoint();
    if (points.n == 0) {
        DbscanResult empty;
        canonicalizeDbscanResult(empty);
        empty.pathUsed = path;
        return empty;
    }

    Work w;
    w.n = points.n;
    w.d = points.dims;
    w.minPts = params.minPts;
    std::vector<float> recentred;
    {
        auto s = job.stage("recentre");
        RecentredCoords frame = recentredCoords(points);
        recentred = std::move(frame.coords);
        w.eps2 = epsSquared(toRecentred(params.eps, frame.scale));
    }
    job.checkpoint();

    // eps^2 overflowing float accepts every pair, including those whose distance overflows too;
    // nanoflann's strict "< radius" cannot say that, the brute path can.
    if (path == DbscanPath::KdTree && std::isinf(w.eps2)) path = DbscanPath::Brute;

    DbscanResult result;
    if (path == DbscanPath::Grid) {
        switch (w.d) {
            case 1:
                result = runGrid<1>(w, recentred, params.star, threads, job);
                break;
            case 2:
                result = runGrid<2>(w, recentred, params.star, threads, job);
                break;
            default:
                result = runGrid<3>(w, recentred, params.star, threads, job);
                break;
        }
    } else if (path == DbscanPath::KdTree) {
        w.x = std::move(recentred);
        result = withKdDim(w.d, [&](auto dim) {
            return runKdTree<decltype(dim)::value>(w, params.star, threads, job);
        });
    } else {
        w.x = std::move(recentred);
        result = runPoints(w, BruteSource{w, job}, {}, params.star, threads, job);
    }
    result.pathUsed = path;
    job.setProgress(1.0, "labels");
    return result;
}

DbscanSweepResult dbscanSweepCpu(const PointSet& points, const DbscanSweepParams& params,
                                 JobControl& job, int threads) {
    validateDbscanSweepParams(params);
    checkInput(points);
    threads = int(workersFor(threads));
    DbscanSweepResult out;
    out.eps = params.eps;
    out.minPts = params.minPts;
    out.cells.resize(params.eps.size() * params.minPts.size());
    for (std::size_t e = 0; e < params.eps.size(); ++e)
        for (std::size_t m = 0; m < params.minPts.size(); ++m)
            out.cells[e * params.minPts.size() + m] = {.eps = params.eps[e],
                                                       .minPts = params.minPts[m]};
    job.checkpoint();
    if (points.n == 0) return out;

    Work w;
    w.n = points.n;
    w.d = points.dims;
    double scale = 1.0;
    {
        auto s = job.stage("recentre");
        RecentredCoords frame = recentredCoords(points);
        w.x = std::move(frame.coords);
        scale = frame.scale;
    }
    job.checkpoint();
    const DbscanPath path = resolveDbscanPathCpu(params.path, points, params.eps.back());
    if (path == DbscanPath::Grid) {
        switch (w.d) {
            case 1:
                sweepGrid<1>(w.x, w.n, scale, params, threads, job, out);
                break;
            case 2:
                sweepGrid<2>(w.x, w.n, scale, params, threads, job, out);
                break;
            default:
                sweepGrid<3>(w.x, w.n, scale, params, threads, job, out);
                break;
        }
        job.setProgress(1.0, "cells");
        return out;
    }
    // As in dbscanCpu: eps^2 overflowing float takes all pairs.
    const bool brute =
        path == DbscanPath::Brute || std::isinf(epsSquared(toRecentred(params.eps.back(), scale)));
    auto sweep = [&](const auto& makeSource, const std::vector<Index>& order) {
        for (std::size_t e = 0; e < params.eps.size(); ++e) {
            w.eps2 = epsSquared(toRecentred(params.eps[e], scale));
            sweepOneEps(w, makeSource(), order, params, e, threads, job, out);
        }
    };
    if (brute) {
        std::vector<Index> order(w.n);
        std::iota(order.begin(), order.end(), Index(0));
        sweep([&] { return BruteSource{w, job}; }, order);
    } else {
        withKdDim(w.d, [&](auto dim) {
            constexpr int kDim = decltype(dim)::value;
            const KdAdaptor<kDim> adaptor{w.x.data(), w.n, w.d};  // the tree keeps a reference
            std::unique_ptr<KdTree<kDim>> tree;
            {
                auto s = job.stage("kdtree");
                tree = std::make_unique<KdTree<kDim>>(
                    int(w.d), adaptor, nanoflann::KDTreeSingleIndexAdaptorParams(16));
            }
            job.checkpoint();
            const auto& leaves = kdLeafOrder(*tree);
            const std::vector<Index> order(leaves.begin(), leaves.end());
            sweep([&] { return KdSource<kDim>{w, *tree, kdRadius(w.eps2, w.d), job}; }, order);
        });
    }
    job.setProgress(1.0, "union");
    return out;
}

DistinctRows distinctRows(std::vector<float> rows, std::size_t n, std::size_t d) {
    if (rows.size() != n * d)
        throw Error("distinctRows: " + std::to_string(rows.size()) + " values for " +
                    std::to_string(n) + " rows of " + std::to_string(d));
    if (n >= std::size_t(kNoIndex)) throw Error("distinctRows supports fewer than 2^32 - 1 rows");
    DistinctRows u;
    auto row = [&](Index i) { return rows.data() + std::size_t(i) * d; };
    // Rows sorted by a hash of their bits (-0 read as +0), then by index: equal rows sort
    // together, the first of them being the lowest index. Sorting 16-byte keys is several times
    // faster than sorting indices by comparing the rows they point to.
    std::vector<std::pair<std::uint64_t, Index>> keyed(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t h = 0x9e3779b97f4a7c15ull;
        for (std::size_t j = 0; j < d; ++j) {
            const float v = rows[i * d + j];
            h = mixBits((h ^ (v == 0.0f ? 0u : std::bit_cast<std::uint32_t>(v))) +
                        0x9e3779b97f4a7c15ull);
        }
        keyed[i] = {h, Index(i)};
    }
    std::sort(keyed.begin(), keyed.end());
    // first[i]: the lowest index of the rows equal to row i. Within a run of equal hashes, each
    // row joins the first earlier row it equals (a different row there is a hash collision).
    std::vector<Index> first(n);
    std::size_t distinct = 0;
    std::vector<Index> leaders;
    for (std::size_t s = 0; s < n;) {
        std::size_t e = s + 1;
        while (e < n && keyed[e].first == keyed[s].first)
            ++e;
        leaders.clear();
        for (std::size_t t = s; t < e; ++t) {
            const Index i = keyed[t].second;
            const float* p = row(i);
            auto same = std::find_if(leaders.begin(), leaders.end(),
                                     [&](Index l) { return std::equal(p, p + d, row(l)); });
            if (same == leaders.end()) {
                leaders.push_back(i);
                first[i] = i;
                ++distinct;
            } else {
                first[i] = *same;
            }
        }
        s = e;
    }
    if (distinct == n) {
        u.coords = std::move(rows);
        u.count.assign(n, 1);
        return u;
    }
    u.coords.reserve(distinct * d);
    u.count.reserve(distinct);
    u.of.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (first[i] == i) {
            u.of[i] = std::uint32_t(u.count.size());
            u.count.push_back(0);
            u.coords.insert(u.coords.end(), row(Index(i)), row(Index(i)) + d);
        } else {
            u.of[i] = u.of[first[i]];
        }
        ++u.count[u.of[i]];
    }
    return u;
}

KDistanceSearch kDistanceSearchCpu(std::size_t n, int k) {
    if (std::size_t(k) * kKDistanceScanShare > n) return KDistanceSearch::Scan;
    return k >= kKDistanceRadiusFromK ? KDistanceSearch::Radius : KDistanceSearch::Knn;
}

DbscanCost dbscanCost(const PointSet& points, const DbscanParams& params,
                      std::string_view backend) {
    DbscanCost c;
    c.path = params.path;
    if (backend == "cpu")
        c.path = resolveDbscanPathCpu(params.path, points, params.eps);
    else if (c.path == DbscanPath::Auto)
        c.path = points.dims <= 3 ? DbscanPath::Grid : DbscanPath::Brute;
    const double n = double(points.n);
    if (c.path == DbscanPath::Brute) {
        c.cost = {n * n, "N^2"};
    } else if (c.path == DbscanPath::KdTree) {
        c.share = dbscanNeighbourShare(points, params.eps);
        c.cost = {n * n * c.share, "N^2 x share"};
    }
    return c;
}

JobCost kDistanceCostCpu(std::size_t n, std::size_t d, int k) {
    const double nn = double(n);
    if (kDistanceSearchCpu(n, k) == KDistanceSearch::Scan)
        return {nn * nn, "N^2 (every point scanned for each query)"};
    const double perPoint = (3.0 * double(k) + 150.0) * (d <= 3 ? 1.0 : double(d));
    if (perPoint >= nn)
        return {nn * nn,
                "N^2 (the tree prunes little at this k in " + std::to_string(d) + " dimensions)"};
    return {nn * perPoint, d <= 3 ? "N (3k + 150)" : "N (3k + 150) d"};
}

KDistanceResult kDistanceCpu(const PointSet& points, int k, JobControl& job, int threads,
                             KDistanceCpuStats* stats) {
    checkInput(points);
    if (k < 1) throw Error("k-distance needs k >= 1 (got " + std::to_string(k) + ")");
    if (std::size_t(k) > points.n)
        throw Error("k-distance k = " + std::to_string(k) + " exceeds the number of points (" +
                    std::to_string(points.n) + ")");
    threads = int(workersFor(threads));
    job.checkpoint();
    const std::size_t n = points.n, d = points.dims;
    RecentredCoords frame;
    {
        auto s = job.stage("recentre");
        frame = recentredCoords(points);
    }
    KDistanceResult result;
    result.perPoint = withKdDim(d, [&](auto dim) {
        return kDistances<decltype(dim)::value>(std::move(frame.coords), n, d, k, threads, job,
                                                stats);
    });
    fromRecentred(result.perPoint, frame.scale);
    {
        auto s = job.stage("sort");
        result.sorted = result.perPoint;
        std::sort(result.sorted.begin(), result.sorted.end());
    }
    job.setProgress(1.0, "sort");
    return result;
}

KDistanceKnee kDistanceKnee(std::span<const float> sorted) {
    KDistanceKnee knee;
    if (sorted.empty()) return knee;
    const std::size_t n = sorted.size();
    knee.index = n - 1;
    knee.distance = sorted[n - 1];
    const double first = sorted.front(), span = double(sorted.back()) - first;
    if (n < 3 || !(span > 0.0)) return knee;
    double bestGap = -1.0;
    for (std::size_t i = 0; i < n; ++i) {
        // Distance below the chord from (0, 0) to (1, 1), up to the constant 1/sqrt(2).
        const double gap = double(i) / double(n - 1) - (double(sorted[i]) - first) / span;
        if (gap > bestGap) {
            bestGap = gap;
            knee.index = i;
        }
    }
    knee.distance = sorted[knee.index];
    return knee;
}

}  // namespace cs
