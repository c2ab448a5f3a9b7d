// SPDX-License-Identifier: MIT
// Host orchestration of GPU DBSCAN and k-distance: parameter checks, memory sizing, the grid's
// geometry, buffers, stages (CUDA-event timings), batches and cancellation checkpoints. The
// kernels are in the .cu files beside this one (see dbscan_launch.h).
#include "kernels/dbscan/dbscan_gpu.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <future>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/huge_pages.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/device_sort.h"
#include "kernels/common/launch_pacer.h"
#include "kernels/common/staged_copy.h"
#include "kernels/common/stream_handles.h"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

constexpr std::size_t kMaxPoints = std::size_t(std::numeric_limits<std::int32_t>::max()) - 1;
// Per launch of the all-pairs kernels: pairs x max(dPad, 4) about 2^35, a few ms to some tens
// of ms on an H200 with every multiprocessor busy, so that a Cancel lands well within 100 ms
// and no launch runs into a watchdog.
constexpr double kPairDimsPerLaunch = 0x1p35;

void checkShape(std::size_t n, std::size_t dims, const char* what) {
    if (n > 0 && dims == 0)
        throw Error(std::string(what) + " needs points with at least 1 dimension");
    if (n > kMaxPoints)
        throw Error(std::string(what) + " supports fewer than 2^31 - 1 points (got " +
                    std::to_string(n) + ")");
}

void ensureFits(const StreamHandles& ctx, std::size_t bytes, const char* what, std::size_t n) {
    if (const auto free = ctx.shortOfMemory(bytes))
        throw Error(std::string(what) + " of " + std::to_string(n) + " points needs about " +
                    mebibytes(bytes) + " of GPU memory, but only " + mebibytes(*free) +
                    " are free; use fewer points or the CPU backend");
}

std::size_t roundUp(std::size_t x, std::size_t m) {
    return (x + m - 1) / m * m;
}

template <typename T>
T readBack(const DeviceBuffer<T>& buffer, std::size_t index, const StreamHandles& ctx) {
    T value{};
    buffer.copyToHost(std::span<T>(&value, 1), index);
    ctx.synchronize();
    return value;
}

// --- bounds -------------------------------------------------------------------------------------

struct Bounds {
    float lo[3] = {0, 0, 0};
    float hi[3] = {0, 0, 0};
};

// One pass over the points: their box (d <= 3) and a refusal of NaN/Inf, as dbscanCpu does.
Bounds pointBounds(const StreamHandles& ctx, const float* coords, std::size_t n, std::size_t dims) {
    const cudaStream_t s = ctx.stream();
    DeviceBuffer<std::uint32_t> words(7, s);
    initPointBounds(words.data(), s);
    launchPointBounds(coords, n, int(dims), words.data(), s);
    std::array<std::uint32_t, 7> host{};
    words.copyToHost(host);
    ctx.synchronize();
    if (host[6])
        throw Error("the points have a non-finite coordinate (NaN or Inf); drop such points first");
    Bounds b;
    for (std::size_t j = 0; j < std::min<std::size_t>(dims, 3); ++j) {
        b.lo[j] = orderedToFloat(host[j]);
        b.hi[j] = orderedToFloat(host[3 + j]);
    }
    return b;
}

// --- grid ---------------------------------------------------------------------------------------

// Lattice from wanted cell sides. Cells per dimension stay below 2^30 and the packed key below
// 2^63 (so a column key never equals the hash table's empty mark): too fine a lattice is
// coarsened, which stays exact (clique flags come from the cell boxes) and only costs speed.
// The stencil half-width covers every pair within `reach`: |k_a - k_b| <= ceil(|a - b| / side
// + the double rounding of the cell coordinates, < 1e-4 cells).
int stencilRadius(double side, double reach) {
    return std::isfinite(reach) ? int(std::floor(reach / side + 1e-4)) + 1 : 1;
}

GridGeometry makeGeometry(int dims, const Bounds& b, const std::array<double, 3>& want,
                          double reach) {
    GridGeometry g;
    g.dims = dims;
    constexpr double kMaxCells = 1073741824.0;  // 2^30
    std::array<double, 3> extent{};
    for (int j = 0; j < dims; ++j) {
        g.origin[j] = double(b.lo[j]);
        extent[j] = double(b.hi[j]) - double(b.lo[j]);
        double side = want[std::size_t(j)];
        if (!(side > 0.0) || !std::isfinite(side)) side = std::max(extent[j], 1.0) * 2.0;
        if (extent[j] / side >= kMaxCells - 2.0) side = extent[j] / (kMaxCells - 4.0);
        g.side[j] = side;
    }
    auto bitsFor = [](std::uint64_t cells) {
        unsigned bits = 0;
        while (bits < 63 && (std::uint64_t(1) << bits) < cells)
            ++bits;
        return bits;
    };
    auto update = [&](int j) {
        g.cells[j] = std::uint32_t(std::floor(extent[j] / g.side[j])) + 1;
        g.bits[j] = bitsFor(g.cells[j]);
    };
    for (int j = 0; j < dims; ++j)
        update(j);
    for (;;) {
        unsigned total = 0;
        for (int j = 0; j < dims; ++j)
            total += g.bits[j];
        if (total <= 63) break;
        int widest = 0;
        for (int j = 1; j < dims; ++j)
            if (g.bits[j] > g.bits[widest]) widest = j;
        g.side[widest] *= 2.0;
        update(widest);
    }
    unsigned shift = 0;
    for (int j = dims - 1; j >= 0; --j) {
        g.shift[j] = shift;
        shift += g.bits[j];
        g.invSide[j] = 1.0 / g.side[j];
        g.radius[j] = stencilRadius(g.side[j], reach);
        if (g.radius[j] > 2) throw Error("internal: DBSCAN grid stencil wider than 5 cells");
    }
    return g;
}

// DBSCAN cells: side eps / sqrt(d) (a hair less), so every cell is a clique; for eps^2 below
// 2^-100 (where underflow breaks that argument) cells of side ~reach; eps^2 = inf: one cell.
GridGeometry dbscanGeometry(int dims, const Bounds& b, float eps2) {
    std::array<double, 3> want{};
    double reach = std::numeric_limits<double>::infinity();
    if (!std::isinf(eps2)) {
        reach = canonicalReach(eps2);
        const double side = double(eps2) >= 0x1p-100 ? std::sqrt(double(eps2) / dims) * (1.0 - 1e-5)
                                                     : reach * (1.0 + 1e-3);
        want.fill(side);
    } else {
        want.fill(std::numeric_limits<double>::infinity());
    }
    return makeGeometry(dims, b, want, reach);
}

// Stencil columns (offsets of the first d - 1 coordinates), nearest first, so counts reach
// minPts early and border searches tighten their bound early.
void fillColumnOffsets(GridView& view) {
    const GridGeometry& g = view.geo;
    struct Offset {
        int dx, dy;
        double d2;
    };
    std::vector<Offset> offsets;
    const int rx = g.dims >= 2 ? g.radius[0] : 0;
    const int ry = g.dims >= 3 ? g.radius[1] : 0;
    for (int dx = -rx; dx <= rx; ++dx)
        for (int dy = -ry; dy <= ry; ++dy) {
            const double ex = dx * g.side[0], ey = g.dims >= 3 ? dy * g.side[1] : 0.0;
            offsets.push_back({dx, dy, ex * ex + ey * ey});
        }
    std::stable_sort(offsets.begin(), offsets.end(),
                     [](const Offset& a, const Offset& b) { return a.d2 < b.d2; });
    if (offsets.size() > std::size_t(kMaxStencilColumns))
        throw Error("internal: DBSCAN grid stencil has too many columns");
    view.columnOffsets = int(offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        view.columnOffset[i][0] = static_cast<signed char>(offsets[i].dx);
        view.columnOffset[i][1] = static_cast<signed char>(offsets[i].dy);
    }
}

// The stencil of a lattice for eps2, when it is at most 5 cells wide. A lattice built for a
// smaller eps serves a larger one this way: its clique flags (pairwise within the smaller eps)
// hold for the larger.
bool stencilFits(const GridGeometry& g, float eps2) {
    if (std::isinf(eps2)) return false;
    const double reach = canonicalReach(eps2);
    for (int j = 0; j < g.dims; ++j)
        if (stencilRadius(g.side[j], reach) > 2) return false;
    return true;
}

void setStencil(GridView& view, float eps2) {
    if (std::isinf(eps2)) return;  // a lattice made for an infinite eps is all one cell
    if (!stencilFits(view.geo, eps2))
        throw Error("internal: DBSCAN grid stencil wider than 5 cells");
    const double reach = canonicalReach(eps2);
    for (int j = 0; j < view.geo.dims; ++j)
        view.geo.radius[j] = stencilRadius(view.geo.side[j], reach);
    fillColumnOffsets(view);
}

// The grid's device arrays; view points into them.
struct GridStore {
    DeviceBuffer<float> pos;
    DeviceBuffer<std::uint32_t> orig, pointCell, cellStart, columnStart, hashColumn, cellRep;
    DeviceBuffer<std::uint64_t> cellKey, hashKeys;
    DeviceBuffer<float> cellLo, cellHi;
    DeviceBuffer<std::uint8_t> clique;
    GridView view;
};

std::size_t gridBytes(std::size_t n) {
    // Per point: keys 2 x 8, indices 2 x 4, sort scratch ~12, coordinates 16, cell 4. Per cell
    // (at most one per point): key 8, start 4, box 32, clique 1, representative 4, column flag
    // and start 8, hash slots 2 x 12.
    // Plus the hard-point list, 4.
    return n * (16 + 8 + 12 + 16 + 4 + 4) + n * (8 + 4 + 32 + 1 + 4 + 8 + 24);
}

std::size_t scanBytes(std::size_t n) {
    return scanTempBytes(std::max<std::size_t>(n, 1));
}

void buildGrid(const StreamHandles& ctx, const float* coords, std::size_t n,
               const GridGeometry& geo, float eps2, GridStore& grid) {
    const cudaStream_t s = ctx.stream();
    grid = GridStore{};
    GridView& v = grid.view;
    v.geo = geo;
    v.n = std::uint32_t(n);
    fillColumnOffsets(v);

    // Keys and a stable radix sort on the bits in use.
    DeviceBuffer<std::uint64_t> keys(n, s), sortedKeys;
    DeviceBuffer<std::uint32_t> index(n, s);
    launchGridKeys(coords, n, geo, keys.data(), index.data(), s);
    unsigned bits = 0;
    for (int j = 0; j < geo.dims; ++j)
        bits += geo.bits[j];
    if (bits > 0) {
        sortedKeys = DeviceBuffer<std::uint64_t>(n, s);
        grid.orig = DeviceBuffer<std::uint32_t>(n, s);
        const std::size_t tempBytes = sortPairsTempBytes(n);
        DeviceBuffer<std::uint8_t> temp(tempBytes, s);
        sortPairs(temp.data(), tempBytes, keys.data(), sortedKeys.data(), index.data(),
                  grid.orig.data(), n, bits, s);
        keys.reset();
        index.reset();
    } else {
        sortedKeys = std::move(keys);
        grid.orig = std::move(index);
    }

    // Sorted coordinates, cells (head flags scanned into each position's cell).
    grid.pos = DeviceBuffer<float>(n * 4, s);
    grid.pointCell = DeviceBuffer<std::uint32_t>(n, s);
    launchGridGather(coords, geo.dims, sortedKeys.data(), grid.orig.data(), n, grid.pos.data(),
                     grid.pointCell.data(), s);
    {
        const std::size_t tempBytes = scanBytes(n);
        DeviceBuffer<std::uint8_t> temp(tempBytes, s);
        inclusiveScan(temp.data(), tempBytes, grid.pointCell.data(), grid.pointCell.data(), n, s);
    }
    const std::uint32_t cells = readBack(grid.pointCell, n - 1, ctx) + 1;
    grid.cellStart = DeviceBuffer<std::uint32_t>(std::size_t(cells) + 1, s);
    grid.cellKey = DeviceBuffer<std::uint64_t>(cells, s);
    launchGridCells(sortedKeys.data(), grid.pointCell.data(), n, grid.cellStart.data(),
                    grid.cellKey.data(), s);
    sortedKeys.reset();
    v.cellCount = cells;
    v.pos = grid.pos.data();
    v.orig = grid.orig.data();
    v.pointCell = grid.pointCell.data();
    v.cellKey = grid.cellKey.data();
    v.cellStart = grid.cellStart.data();

    // Exact boxes and clique flags.
    grid.cellLo = DeviceBuffer<float>(std::size_t(cells) * 4, s);
    grid.cellHi = DeviceBuffer<float>(std::size_t(cells) * 4, s);
    grid.clique = DeviceBuffer<std::uint8_t>(cells, s);
    launchGridBoxes(v, eps2, grid.cellLo.data(), grid.cellHi.data(), grid.clique.data(), s);
    v.cellLo = grid.cellLo.data();
    v.cellHi = grid.cellHi.data();
    v.cellClique = grid.clique.data();

    // Columns and their hash table (load factor <= 1/2).
    DeviceBuffer<std::uint32_t> cellColumn(cells, s);
    launchColumnFlags(v, cellColumn.data(), s);
    {
        const std::size_t tempBytes = scanBytes(cells);
        DeviceBuffer<std::uint8_t> temp(tempBytes, s);
        inclusiveScan(temp.data(), tempBytes, cellColumn.data(), cellColumn.data(), cells, s);
    }
    const std::uint32_t columns = readBack(cellColumn, cells - 1, ctx) + 1;
    std::size_t slots = 16;
    while (slots < 2 * std::size_t(columns))
        slots *= 2;
    grid.columnStart = DeviceBuffer<std::uint32_t>(std::size_t(columns) + 1, s);
    grid.hashKeys = DeviceBuffer<std::uint64_t>(slots, s);
    grid.hashColumn = DeviceBuffer<std::uint32_t>(slots, s);
    v.columnCount = columns;
    v.hashMask = std::uint32_t(slots - 1);
    launchGridColumns(v, cellColumn.data(), grid.columnStart.data(), grid.hashKeys.data(),
                      grid.hashColumn.data(), s);
    v.columnStart = grid.columnStart.data();
    v.hashKeys = grid.hashKeys.data();
    v.hashColumn = grid.hashColumn.data();
}

// --- shared stages -----------------------------------------------------------------------------

// Forest and outputs of one DBSCAN run.
struct Forest {
    DeviceBuffer<std::uint8_t> core;
    DeviceBuffer<std::uint32_t> parent;
    DeviceBuffer<std::uint32_t> nearest;  // empty with star
};

std::size_t commonBytes(std::size_t n) {
    // core 1, parent 4, nearest 4, root 4, minOrig 4, first 4, clusterId 4, labels 4, isCore 1,
    // plus scan scratch.
    return n * 30 + scanBytes(n) + (64u << 20);
}

void relabel(const StreamHandles& ctx, JobControl& job, std::size_t n, Forest& f,
             const std::uint32_t* orig, DbscanDeviceResult& out) {
    const cudaStream_t s = ctx.stream();
    ScopedGpuStage stage(ctx, job, "relabel");
    DeviceBuffer<std::uint32_t> root(n, s), minOrig(n, s), first(n, s), clusterId(n, s),
        count(1, s);
    launchRoots(f.core.data(), f.parent.data(), f.nearest.empty() ? nullptr : f.nearest.data(),
                orig, n, root.data(), minOrig.data(), s);
    f.parent.reset();
    f.nearest.reset();
    launchClusterHeads(root.data(), minOrig.data(), n, first.data(), s);
    {
        const std::size_t tempBytes = scanBytes(n);
        DeviceBuffer<std::uint8_t> temp(tempBytes, s);
        exclusiveScan(temp.data(), tempBytes, first.data(), clusterId.data(), n, s);
    }
    launchLabels(f.core.data(), root.data(), minOrig.data(), clusterId.data(), first.data(), orig,
                 n, out.labels.data(), out.isCore.data(), count.data(), s);
    out.clusterCount = std::int32_t(readBack(count, 0, ctx));
    stage.finish();
}

// Rows and columns per launch of the all-pairs kernels. Rows: at least one wave that fills the
// GPU (a row batch sized from the budget alone had 1024 rows at 4M points of 32 dimensions, 8
// blocks on 132 multiprocessors, for seconds per launch); columns: what the budget leaves, whole
// tiles of kBruteTile.
struct BruteTiling {
    std::size_t rows = 0;
    std::size_t cols = 0;
};

BruteTiling bruteTiling(std::size_t n, int dPad, std::uint32_t waveRows) {
    const double pairs = kPairDimsPerLaunch / double(std::max(dPad, 4));
    const std::size_t all = roundUp(std::max<std::size_t>(n, 1), kBruteTile);
    auto wholeTiles = [](double x) { return std::size_t(x / kBruteTile) * kBruteTile; };
    BruteTiling t;
    t.rows = std::min(all, std::max(roundUp(std::max<std::size_t>(waveRows, 1), kBruteTile),
                                    wholeTiles(pairs / double(all))));
    t.cols = std::min(all, std::max<std::size_t>(kBruteTile, wholeTiles(pairs / double(t.rows))));
    return t;
}

// Calls launch(range) for every row batch and, in ascending order, its column ranges (the
// order the kernels' carried state relies on), paced so that a Cancel waits for about one
// launch. upper: only ranges that reach past the row batch's first row (pairs j > i).
// targetMs > 0: column ranges sized from the measured time of the last launch instead, from one
// tile up to t.cols, for kernels whose cost per column the budget cannot predict.
template <typename Launch>
void forBruteRanges(const StreamHandles& ctx, JobControl& job, std::size_t n, const BruteTiling& t,
                    bool upper, Launch&& launch, double targetMs = 0.0) {
    LaunchPacer pacer(ctx, job);
    for (std::size_t r0 = 0; r0 < n; r0 += t.rows) {
        const std::size_t r1 = std::min(n, r0 + t.rows);
        std::size_t cols = targetMs > 0.0 ? std::size_t(kBruteTile) : t.cols;
        for (std::size_t c0 = upper ? r0 - r0 % t.cols : 0; c0 < n; c0 += cols) {
            if (targetMs > 0.0 && pacer.lastMs() > 0.0) {
                // At most doubling: the time known is the launch before the one queued.
                const double scaled = double(cols) * std::min(2.0, targetMs / pacer.lastMs());
                cols = std::clamp<std::size_t>(std::size_t(scaled) / kBruteTile * kBruteTile,
                                               kBruteTile, t.cols);
            }
            launch(BruteRange{std::uint32_t(r0), std::uint32_t(r1), std::uint32_t(c0),
                              std::uint32_t(std::min(n, c0 + cols))});
            pacer.launched();
        }
    }
}

// The SoA layout of the all-pairs kernels: d <= 3 (and not `wide`) keeps d rows for the paper
// kernel with tiles of kBruteTile; otherwise rows padded to kWideChunk, tiles of kWideTile.
struct BruteStore {
    DeviceBuffer<float> soa, norms, tileMax;
    BruteView view;
};

std::size_t bruteBytes(std::size_t n, std::size_t dims, bool wide) {
    const std::size_t dPad = (!wide && dims <= 3) ? dims : roundUp(dims, kWideChunk);
    const std::size_t stride = roundUp(n, kBruteTile);
    // Plus one word per row of a batch carried between column ranges (counts, best dist2).
    return (dPad + 3) * stride * sizeof(float);
}

void buildBrute(const StreamHandles& ctx, const float* coords, std::size_t n, std::size_t dims,
                bool wide, BruteStore& store) {
    const cudaStream_t s = ctx.stream();
    BruteView& v = store.view;
    v.n = std::uint32_t(n);
    v.dims = int(dims);
    const bool paper = !wide && dims <= 3;
    v.dPad = paper ? int(dims) : int(roundUp(dims, kWideChunk));
    v.stride = roundUp(n, kBruteTile);
    const int tile = paper ? kBruteTile : kWideTile;
    store.soa = DeviceBuffer<float>(std::size_t(v.dPad) * v.stride, s);
    store.norms = DeviceBuffer<float>(v.stride, s);
    store.tileMax = DeviceBuffer<float>((n + tile - 1) / tile, s);
    launchBruteLayout(coords, n, int(dims), v.dPad, v.stride, store.soa.data(), store.norms.data(),
                      s);
    launchTileMax(store.norms.data(), n, tile, store.tileMax.data(), s);
    v.soa = store.soa.data();
    v.rows = coords;
    v.norms = store.norms.data();
    v.tileMax = store.tileMax.data();
    // See the derivation at the top of dbscan_brute.cu.
    v.boundScale = float((4.0 * double(dims) + 16.0) * 0x1p-24 * (1.0 + 0x1p-10));
}

// --- the two paths ------------------------------------------------------------------------------

// The union and border stages of each path, from core flags in f.core (shared by DBSCAN and the
// sweep, which runs them once per MinPts).
void gridUnion(const StreamHandles& ctx, float eps2, Forest& f, GridStore& grid) {
    const cudaStream_t s = ctx.stream();
    grid.cellRep = DeviceBuffer<std::uint32_t>(grid.view.cellCount, s);
    launchGridLinkCells(grid.view, f.core.data(), grid.cellRep.data(), f.parent.data(), s);
    grid.view.cellRep = grid.cellRep.data();
    DeviceBuffer<std::uint8_t> deferred(grid.view.cellCount, s);
    launchGridUnion(grid.view, eps2, f.core.data(), f.parent.data(), deferred.data(), s);
}

void gridBorder(const StreamHandles& ctx, float eps2, Forest& f, const GridStore& grid,
                DeviceBuffer<std::uint32_t>& work) {
    f.nearest = DeviceBuffer<std::uint32_t>(grid.view.n, ctx.stream());
    launchGridBorder(grid.view, eps2, f.core.data(), f.nearest.data(), work.data(), ctx.stream());
}

void bruteUnion(const StreamHandles& ctx, JobControl& job, std::size_t n, const BruteView& v,
                float eps2, Forest& f) {
    const cudaStream_t s = ctx.stream();
    launchIdentity(f.parent.data(), n, s);
    const BruteTiling t = bruteTiling(n, v.dPad, bruteRowsPerWave(v, BrutePass::Union));
    forBruteRanges(ctx, job, n, t, true, [&](const BruteRange& r) {
        launchBruteUnion(v, eps2, f.core.data(), f.parent.data(), r, s);
    });
}

void bruteBorder(const StreamHandles& ctx, JobControl& job, std::size_t n, const BruteView& v,
                 float eps2, Forest& f) {
    const cudaStream_t s = ctx.stream();
    f.nearest = DeviceBuffer<std::uint32_t>(n, s);
    const BruteTiling t = bruteTiling(n, v.dPad, bruteRowsPerWave(v, BrutePass::Border));
    DeviceBuffer<float> best(t.rows, s);
    forBruteRanges(ctx, job, n, t, false, [&](const BruteRange& r) {
        launchBruteBorder(v, eps2, f.core.data(), r, best.data(), f.nearest.data(), s);
    });
}

// The grid for eps: cells of side eps / sqrt(d), boxes, columns.
void gridFor(const StreamHandles& ctx, const float* coords, std::size_t n, std::size_t dims,
             float eps2, GridStore& grid) {
    const Bounds b = pointBounds(ctx, coords, n, dims);
    buildGrid(ctx, coords, n, dbscanGeometry(int(dims), b, eps2), eps2, grid);
}

}  // namespace

// A kept grid's lattice is made for an eps this much below the run's, so that an eps dragged
// down by up to 6.5 % or up by up to 7.9 % (3-D; 2 / sqrt(d) / 1.07 up) finds it still serves.
constexpr double kKeptGridMargin = 1.07;

struct DbscanGridReuse::Kept {
    const float* coords = nullptr;
    std::size_t n = 0, dims = 0;
    float gridEps2 = 0.f;  // the lattice and clique flags are made for it
    float eps2 = 0.f;      // the stencil and counts are for it (>= gridEps2)
    bool built = false;
    GridStore grid;
    DeviceBuffer<std::uint32_t> counts;  // empty: not kept (too big, or no reuse asked for)
    int countedTo = 0;                   // counts[p]: exact below it, at least it otherwise

    bool serves(const float* c, std::size_t np, std::size_t d, float e2) const {
        if (!built || coords != c || n != np || dims != d) return false;
        return e2 == eps2 || (e2 >= gridEps2 && stencilFits(grid.view.geo, e2));
    }
    // The stencil for another eps; its counts are of the old one.
    void aimAt(float e2) {
        if (e2 == eps2) return;
        setStencil(grid.view, e2);
        eps2 = e2;
        countedTo = 0;
    }
    std::size_t bytes() const {
        const GridStore& g = grid;
        return g.pos.bytes() + g.orig.bytes() + g.pointCell.bytes() + g.cellStart.bytes() +
               g.columnStart.bytes() + g.hashColumn.bytes() + g.cellRep.bytes() +
               g.cellKey.bytes() + g.hashKeys.bytes() + g.cellLo.bytes() + g.cellHi.bytes() +
               g.clique.bytes() + counts.bytes();
    }
};

DbscanGridReuse::DbscanGridReuse() = default;
DbscanGridReuse::DbscanGridReuse(std::size_t limit) : limitBytes(limit) {}
DbscanGridReuse::~DbscanGridReuse() = default;

std::size_t DbscanGridReuse::bytes() const {
    return kept ? kept->bytes() : 0;
}

int DbscanGridReuse::countedTo() const {
    return kept ? kept->countedTo : 0;
}

namespace {

// Core flags into f.core: counted on the grid, or taken from counts kept for this eps when they
// reach MinPts. A kept grid's first count stops at MinPts (an eps drag pays nothing for the
// counts); a count for a MinPts above the kept counts goes on to twice it, so that a MinPts
// dragged upwards recounts once per doubling, not once per step.
void gridCore(const StreamHandles& ctx, const DbscanParams& params, float eps2, Forest& f,
              DbscanGridReuse::Kept& k, DeviceBuffer<std::uint32_t>& work) {
    const cudaStream_t s = ctx.stream();
    if (k.counts.empty()) {
        launchGridCount(k.grid.view, eps2, params.minPts, f.core.data(), work.data(), s);
        return;
    }
    if (params.minPts > k.countedTo) {
        const int to = k.countedTo == 0 ? params.minPts : 2 * params.minPts;
        launchGridCount(k.grid.view, eps2, to, f.core.data(), work.data(), s, k.counts.data());
        k.countedTo = to;
        if (to == params.minPts) return;
    }
    launchCoreFromCounts(k.counts.data(), k.n, params.minPts, f.core.data(), s);
}

void runGrid(const StreamHandles& ctx, JobControl& job, const DbscanParams& params, float eps2,
             Forest& f, DbscanGridReuse::Kept& k, std::size_t keepLimit) {
    const cudaStream_t s = ctx.stream();
    const std::size_t n = k.n;
    if (!k.built) {
        ScopedGpuStage stage(ctx, job, "grid");
        gridFor(ctx, k.coords, n, k.dims, k.gridEps2, k.grid);
        setStencil(k.grid.view, eps2);
        k.built = true;
        if (keepLimit > 0 && k.bytes() + n * sizeof(std::uint32_t) <= keepLimit)
            k.counts = DeviceBuffer<std::uint32_t>(n, s);
        stage.finish();
    }
    job.setProgress(0.2, "grid");
    job.checkpoint();
    DeviceBuffer<std::uint32_t> work(n + 1, s);  // hard-point list of count and border
    {
        ScopedGpuStage stage(ctx, job, "count");
        gridCore(ctx, params, eps2, f, k, work);
        stage.finish();
    }
    job.setProgress(0.4, "count");
    job.checkpoint();
    {
        ScopedGpuStage stage(ctx, job, "union");
        gridUnion(ctx, eps2, f, k.grid);
        stage.finish();
    }
    job.setProgress(0.7, "union");
    job.checkpoint();
    if (!params.star) {
        ScopedGpuStage stage(ctx, job, "border");
        gridBorder(ctx, eps2, f, k.grid, work);
        stage.finish();
        job.setProgress(0.85, "border");
        job.checkpoint();
    }
}

void runBrute(const StreamHandles& ctx, JobControl& job, const float* coords, std::size_t n,
              std::size_t dims, const DbscanParams& params, float eps2, Forest& f) {
    const cudaStream_t s = ctx.stream();
    BruteStore store;
    {
        ScopedGpuStage stage(ctx, job, "layout");
        (void)pointBounds(ctx, coords, n, dims);
        buildBrute(ctx, coords, n, dims, false, store);
        stage.finish();
    }
    job.setProgress(0.1, "layout");
    job.checkpoint();
    const BruteView& v = store.view;
    {
        ScopedGpuStage stage(ctx, job, "count");
        const BruteTiling t = bruteTiling(n, v.dPad, bruteRowsPerWave(v, BrutePass::Count));
        DeviceBuffer<std::uint32_t> counts(t.rows, s);
        forBruteRanges(ctx, job, n, t, false, [&](const BruteRange& r) {
            launchBruteCount(v, eps2, params.minPts, r, counts.data(), f.core.data(), s);
        });
        stage.finish();
    }
    job.setProgress(0.4, "count");
    job.checkpoint();
    {
        ScopedGpuStage stage(ctx, job, "union");
        bruteUnion(ctx, job, n, v, eps2, f);
        stage.finish();
    }
    job.setProgress(0.7, "union");
    job.checkpoint();
    if (!params.star) {
        ScopedGpuStage stage(ctx, job, "border");
        bruteBorder(ctx, job, n, v, eps2, f);
        stage.finish();
        job.setProgress(0.85, "border");
        job.checkpoint();
    }
}

// --- k-distance -------------------------------------------------------------------------------

// Cells holding about k points where the cloud is uniform (volume of the non-flat dimensions
// over n / k), then refined while a point sees on average more than 8 k points in its own cell
// (clustered data), so a query scans a few cells of ~k points. A cell of one point repeated
// counts k per copy, what each copy's search costs there: no refinement can split it.
void buildKDistanceGrid(const StreamHandles& ctx, const float* coords, std::size_t n,
                        std::size_t dims, int k, GridStore& grid) {
    const Bounds b = pointBounds(ctx, coords, n, dims);
    double volume = 1.0;
    int flat = 0;
    for (std::size_t j = 0; j < dims; ++j) {
        const double extent = double(b.hi[j]) - double(b.lo[j]);
        if (extent > 0.0)
            volume *= extent;
        else
            ++flat;
    }
    const int live = int(dims) - flat;
    double side = live == 0 ? std::numeric_limits<double>::infinity()
                            : std::pow(volume * double(k) / double(n), 1.0 / live);
    const double inf = std::numeric_limits<double>::infinity();
    for (int attempt = 0;; ++attempt) {
        buildGrid(ctx, coords, n, makeGeometry(int(dims), b, {side, side, side}, inf), 0.0f, grid);
        if (attempt == 4 || live == 0) break;
        DeviceBuffer<unsigned long long> sumSq(1, ctx.stream());
        sumSq.zero();
        launchCellOccupancy(grid.view, unsigned(k), sumSq.data(), ctx.stream());
        const double seen = double(readBack(sumSq, 0, ctx)) / double(n);
        if (seen <= 8.0 * k) break;
        side *= std::pow(2.0 * k / seen, 1.0 / live);
    }
}

}  // namespace

DbscanPath resolveDbscanPathCuda(DbscanPath requested, std::size_t n, std::size_t dims) {
    switch (requested) {
        case DbscanPath::Grid:
            if (dims > 3)
                throw Error("the grid DBSCAN path handles 1 to 3 dimensions, not " +
                            std::to_string(dims) + " (use brute)");
            return DbscanPath::Grid;
        case DbscanPath::Brute:
            return DbscanPath::Brute;
        case DbscanPath::KdTree:
            throw Error(
                "the CUDA backend has no kd-tree DBSCAN path (use auto, grid or brute, or the CPU "
                "backend)");
        case DbscanPath::Auto:
            break;
    }
    return (dims <= 3 && n >= kDbscanCudaBruteBelow) ? DbscanPath::Grid : DbscanPath::Brute;
}

std::size_t dbscanDeviceBytes(std::size_t n, std::size_t dims, DbscanPath path) {
    const std::size_t extra = path == DbscanPath::Grid ? gridBytes(n) : bruteBytes(n, dims, false);
    return commonBytes(n) + extra;
}

DbscanDeviceResult dbscanDevice(StreamHandles& ctx, const float* coords, std::size_t n,
                                std::size_t dims, const DbscanParams& params, JobControl& job,
                                double scale, DbscanGridReuse* reuse) {
    validateDbscanParams(params);
    checkShape(n, dims, "DBSCAN");
    const DbscanPath path = resolveDbscanPathCuda(params.path, n, dims);
    ctx.makeCurrent();
    const float eps2 = epsSquared(toRecentred(params.eps, scale));
    // The grid kept from the last run if it was made for these points and eps; else it goes
    // before this run's memory is counted.
    std::unique_ptr<DbscanGridReuse::Kept> fresh;
    DbscanGridReuse::Kept* grid = nullptr;
    if (path == DbscanPath::Grid) {
        if (reuse && reuse->kept && reuse->kept->serves(coords, n, dims, eps2)) {
            grid = reuse->kept.get();
            grid->aimAt(eps2);
        } else {
            if (reuse) reuse->kept.reset();
            fresh = std::make_unique<DbscanGridReuse::Kept>();
            fresh->coords = coords;
            fresh->n = n;
            fresh->dims = dims;
            fresh->eps2 = eps2;
            const bool keeping =
                reuse && reuse->limitBytes > 0 && std::isfinite(eps2) && eps2 >= 0x1p-90f;
            fresh->gridEps2 =
                keeping ? float(double(eps2) / (kKeptGridMargin * kKeptGridMargin)) : eps2;
            grid = fresh.get();
        }
    }
    const std::size_t bytes =
        grid ? commonBytes(n) + (grid->built ? 0 : gridBytes(n) + n * sizeof(std::uint32_t))
             : dbscanDeviceBytes(n, dims, path);
    ensureFits(ctx, bytes, "DBSCAN", n);
    job.checkpoint();
    keepPoolWarm(ctx.device(), bytes);

    const cudaStream_t s = ctx.stream();
    DbscanDeviceResult out;
    out.pathUsed = path;
    out.labels = DeviceBuffer<std::int32_t>(n, s);
    out.isCore = DeviceBuffer<std::uint8_t>(n, s);
    if (n == 0) return out;

    Forest f;
    f.core = DeviceBuffer<std::uint8_t>(n, s);
    f.parent = DeviceBuffer<std::uint32_t>(n, s);
    if (grid) {
        try {
            runGrid(ctx, job, params, eps2, f, *grid, reuse ? reuse->limitBytes : 0);
            relabel(ctx, job, n, f, grid->grid.orig.data(), out);
        } catch (const Cancelled&) {
            // Whatever was launched is in order on the stream: what is kept stays true.
            if (fresh && !fresh->counts.empty()) reuse->kept = std::move(fresh);
            throw;
        } catch (...) {
            if (reuse) reuse->kept.reset();
            throw;
        }
        if (fresh && !fresh->counts.empty()) reuse->kept = std::move(fresh);
    } else {
        runBrute(ctx, job, coords, n, dims, params, eps2, f);
        relabel(ctx, job, n, f, nullptr, out);
    }
    job.setProgress(0.95, "relabel");
    return out;
}

DbscanResult dbscanCuda(StreamHandles& ctx, const PointSet& points, const DbscanParams& params,
                        JobControl& job, DbscanDeviceResult* keepOnDevice,
                        const DevicePoints* resident, DbscanGridReuse* reuse,
                        const BesideDownload& besideDownload) {
    validateDbscanParams(params);
    checkShape(points.n, points.dims, "DBSCAN");
    if (points.coords.size() != points.n * points.dims)
        throw Error("point set holds " + std::to_string(points.coords.size()) +
                    " coordinates, expected n * d = " + std::to_string(points.n * points.dims));
    const DbscanPath path = resolveDbscanPathCuda(params.path, points.n, points.dims);
    DeviceScope scope(ctx.device());
    job.checkpoint();
    DbscanResult result;
    if (points.n == 0) {
        canonicalizeDbscanResult(result);
        result.pathUsed = path;
        return result;
    }
    const std::size_t n = points.n;
    ensureFits(ctx, dbscanDeviceBytes(n, points.dims, path) + points.coords.size() * 4, "DBSCAN",
               n);
    // Zero-filling the result vectors faults in their pages, 10 to 17 ms at 10M points: done on
    // other threads while the GPU works, on huge pages where the kernel offers them. Declared
    // after result, so they are joined first.
    auto allocatedLabels = std::async(std::launch::async, [&result, n] {
        reserveOnHugePages(result.labels, n);
        result.labels.resize(n);
    });
    auto allocatedCore = std::async(std::launch::async, [&result, n] {
        reserveOnHugePages(result.isCore, n);
        result.isCore.resize(n);
    });
    DevicePoints uploaded;
    if (!resident) uploaded = uploadRecentred(ctx, points, job);
    const DevicePoints& coords = resident ? *resident : uploaded;
    DbscanDeviceResult device = dbscanDevice(ctx, coords.coords.data(), n, points.dims, params, job,
                                             coords.scale, resident ? reuse : nullptr);
    uploaded.coords.reset();
    const cudaStream_t s = ctx.stream();
    std::array<std::uint32_t, 4> counts{};
    std::vector<std::uint32_t> clusterSizes;
    {
        // The canonical labels' stats on the device rather than a host pass over n labels; the
        // sizes per cluster (one word each) come back too, for the GUI's colour matching.
        ScopedGpuStage stage(ctx, job, "stats");
        DeviceBuffer<std::uint32_t> sizes(std::size_t(device.clusterCount), s), words(4, s);
        launchDbscanStats(device.labels.data(), device.isCore.data(), n,
                          std::size_t(device.clusterCount), sizes.data(), words.data(), s);
        words.copyToHost(counts);
        clusterSizes = sizes.toHost();  // waits for both copies
        stage.finish();
    }
    // The labels are final (the host waited for them): the caller's work on s and the download
    // on a stream of its own run side by side.
    if (besideDownload) besideDownload(device, clusterSizes);
    {
        const auto wait = job.stage("host buffers");
        allocatedLabels.get();
        allocatedCore.get();
    }
    {
        const auto wait = job.stage("download");
        const CudaStream copies;
        copyToHostStaged(result.labels.data(), device.labels.data(), device.labels.bytes(),
                         ctx.device(), copies.get());
        copyToHostStaged(result.isCore.data(), device.isCore.data(), device.isCore.bytes(),
                         ctx.device(), copies.get());
    }
    result.clusterCount = device.clusterCount;
    result.stats.corePoints = counts[0];
    result.stats.borderPoints = counts[1];
    result.stats.noisePoints = counts[2];
    result.stats.largestCluster = counts[3];
    result.stats.clusterSizes.assign(clusterSizes.begin(), clusterSizes.end());
    result.pathUsed = device.pathUsed;
    if (keepOnDevice) *keepOnDevice = std::move(device);
    job.setProgress(1.0, "download");
    return result;
}

DbscanSweepResult dbscanSweepCuda(StreamHandles& ctx, const PointSet& points,
                                  const DbscanSweepParams& params, JobControl& job,
                                  const DevicePoints* resident) {
    validateDbscanSweepParams(params);
    checkShape(points.n, points.dims, "A DBSCAN sweep");
    if (points.coords.size() != points.n * points.dims)
        throw Error("point set holds " + std::to_string(points.coords.size()) +
                    " coordinates, expected n * d = " + std::to_string(points.n * points.dims));
    const std::size_t n = points.n, dims = points.dims;
    const DbscanPath path = resolveDbscanPathCuda(params.path, n, dims);
    const std::size_t levels = params.minPts.size();
    DbscanSweepResult out;
    out.eps = params.eps;
    out.minPts = params.minPts;
    out.cells.resize(params.eps.size() * levels);
    for (std::size_t e = 0; e < params.eps.size(); ++e)
        for (std::size_t m = 0; m < levels; ++m)
            out.cells[e * levels + m] = {.eps = params.eps[e], .minPts = params.minPts[m]};
    DeviceScope scope(ctx.device());
    job.checkpoint();
    if (n == 0) return out;
    // The counts and one cell's labels and statistics besides a DBSCAN run's memory.
    ensureFits(ctx, dbscanDeviceBytes(n, dims, path) + n * 8 + points.coords.size() * 4,
               "A DBSCAN sweep", n);

    DevicePoints uploaded;
    if (!resident) uploaded = uploadRecentred(ctx, points, job);
    const DevicePoints& device = resident ? *resident : uploaded;
    const float* coords = device.coords.data();
    const cudaStream_t s = ctx.stream();
    BruteStore brute;  // eps does not change the all-pairs layout: built once
    if (path == DbscanPath::Brute) {
        ScopedGpuStage stage(ctx, job, "layout");
        (void)pointBounds(ctx, coords, n, dims);
        buildBrute(ctx, coords, n, dims, false, brute);
        stage.finish();
    }
    job.checkpoint();

    DeviceBuffer<std::uint32_t> counts(n, s), work(n + 1, s), words(4, s);
    DbscanDeviceResult cell;
    cell.labels = DeviceBuffer<std::int32_t>(n, s);
    cell.isCore = DeviceBuffer<std::uint8_t>(n, s);
    const int highest = params.minPts.back();
    for (std::size_t e = 0; e < params.eps.size(); ++e) {
        const float eps2 = epsSquared(toRecentred(params.eps[e], device.scale));
        // Counted once per eps up to the largest MinPts (counts in the grid's sorted order on
        // that path, in input order on the other); every MinPts's core flags come from them.
        GridStore grid;
        {
            ScopedGpuStage stage(ctx, job, "count");
            DeviceBuffer<std::uint8_t> core(n, s);
            if (path == DbscanPath::Grid) {
                gridFor(ctx, coords, n, dims, eps2, grid);
                launchGridCount(grid.view, eps2, highest, core.data(), work.data(), s,
                                counts.data());
            } else {
                const BruteView& v = brute.view;
                const BruteTiling t = bruteTiling(n, v.dPad, bruteRowsPerWave(v, BrutePass::Count));
                // A row batch's carried counts live at its rows' own places in counts.
                forBruteRanges(ctx, job, n, t, false, [&](const BruteRange& r) {
                    launchBruteCount(v, eps2, highest, r, counts.data() + r.rowBegin, core.data(),
                                     s);
                });
            }
            stage.finish();
        }
        job.checkpoint();
        ScopedGpuStage stage(ctx, job, "cells");
        for (std::size_t m = 0; m < levels; ++m) {
            Forest f;
            f.core = DeviceBuffer<std::uint8_t>(n, s);
            f.parent = DeviceBuffer<std::uint32_t>(n, s);
            launchCoreFromCounts(counts.data(), n, params.minPts[m], f.core.data(), s);
            if (path == DbscanPath::Grid) {
                gridUnion(ctx, eps2, f, grid);
                if (!params.star) gridBorder(ctx, eps2, f, grid, work);
                relabel(ctx, job, n, f, grid.orig.data(), cell);
            } else {
                bruteUnion(ctx, job, n, brute.view, eps2, f);
                if (!params.star) bruteBorder(ctx, job, n, brute.view, eps2, f);
                relabel(ctx, job, n, f, nullptr, cell);
            }
            DeviceBuffer<std::uint32_t> sizes(std::size_t(cell.clusterCount), s);
            launchDbscanStats(cell.labels.data(), cell.isCore.data(), n,
                              std::size_t(cell.clusterCount), sizes.data(), words.data(), s);
            const std::vector<std::uint32_t> stats = words.toHost();  // waits for the cell
            DbscanSweepCell& c = out.cells[e * levels + m];
            c.clusters = cell.clusterCount;
            c.noiseShare = double(stats[2]) / double(n);
            c.largestShare = double(stats[3]) / double(n);
            job.setProgress(double(e * levels + m + 1) / double(out.cells.size()), "cells");
            job.checkpoint();
        }
        stage.finish();
    }
    return out;
}

DeviceBuffer<float> kDistanceDevice(StreamHandles& ctx, const float* coords, std::size_t n,
                                    std::size_t dims, int k, JobControl& job, DbscanPath path) {
    checkShape(n, dims, "k-distance");
    if (k < 1) throw Error("k-distance needs k >= 1 (got " + std::to_string(k) + ")");
    if (std::size_t(k) > n)
        throw Error("k-distance k = " + std::to_string(k) + " exceeds the number of points (" +
                    std::to_string(n) + ")");
    if (k > kKDistanceMaxK)
        throw Error("k-distance on the GPU supports k up to " + std::to_string(kKDistanceMaxK) +
                    " (got " + std::to_string(k) + "); use the CPU backend");
    bool grid = dims <= 3;
    if (path == DbscanPath::Grid && dims > 3)
        throw Error("the grid k-distance handles 1 to 3 dimensions, not " + std::to_string(dims));
    if (path == DbscanPath::Brute) grid = false;
    if (path == DbscanPath::KdTree) throw Error("the CUDA backend has no kd-tree k-distance");
    ctx.makeCurrent();
    const int kMax = k <= 16 ? 16 : (k <= 64 ? 64 : 256);
    // All pairs: the column ranges follow the measured launch time (below), so each row's k
    // smallest values so far are carried from one range to the next.
    BruteTiling tiling;
    std::size_t carried = 0;
    if (!grid) {
        tiling = bruteTiling(n, int(roundUp(dims, kWideChunk)), bruteKDistanceRowsPerWave(kMax));
        if (n > kBruteTile) carried = tiling.rows * std::size_t(k);
    }
    const std::size_t bytes =
        (grid ? gridBytes(n) : bruteBytes(n, dims, true) + carried * 4) + n * 4 + (64u << 20);
    ensureFits(ctx, bytes, "k-distance", n);
    job.checkpoint();
    keepPoolWarm(ctx.device(), bytes);

    const cudaStream_t s = ctx.stream();
    DeviceBuffer<float> out(n, s);
    if (grid) {
        GridStore store;
        {
            ScopedGpuStage stage(ctx, job, "grid");
            buildKDistanceGrid(ctx, coords, n, dims, k, store);
            stage.finish();
        }
        job.checkpoint();
        ScopedGpuStage stage(ctx, job, "knn");
        launchGridKDistance(store.view, k, kMax, out.data(), s);
        stage.finish();
    } else {
        BruteStore store;
        {
            ScopedGpuStage stage(ctx, job, "layout");
            (void)pointBounds(ctx, coords, n, dims);
            buildBrute(ctx, coords, n, dims, true, store);
            stage.finish();
        }
        job.checkpoint();
        ScopedGpuStage stage(ctx, job, "knn");
        DeviceBuffer<float> top(carried, s);
        // A row's first columns all enter its list, each insertion costing up to k steps (at
        // k = 256 the first 9000 columns of a GPU's worth of rows took 0.6 s): the columns per
        // launch follow the measured time, aiming at 20 ms.
        forBruteRanges(
            ctx, job, n, tiling, false,
            [&](const BruteRange& r) {
                launchBruteKDistance(store.view, k, kMax, r, top.data(), tiling.rows, out.data(),
                                     s);
            },
            20.0);
        stage.finish();
    }
    job.checkpoint();
    return out;
}

KDistanceResult kDistanceCuda(StreamHandles& ctx, const PointSet& points, int k, JobControl& job,
                              DbscanPath path, const DevicePoints* resident) {
    checkShape(points.n, points.dims, "k-distance");
    if (points.coords.size() != points.n * points.dims)
        throw Error("point set holds " + std::to_string(points.coords.size()) +
                    " coordinates, expected n * d = " + std::to_string(points.n * points.dims));
    if (k < 1) throw Error("k-distance needs k >= 1 (got " + std::to_string(k) + ")");
    if (std::size_t(k) > points.n)
        throw Error("k-distance k = " + std::to_string(k) + " exceeds the number of points (" +
                    std::to_string(points.n) + ")");
    DeviceScope scope(ctx.device());
    job.checkpoint();
    ensureFits(ctx, points.coords.size() * 4, "k-distance", points.n);
    DevicePoints uploaded;
    if (!resident) uploaded = uploadRecentred(ctx, points, job);
    const DevicePoints& coords = resident ? *resident : uploaded;
    const cudaStream_t s = ctx.stream();
    DeviceBuffer<float> values =
        kDistanceDevice(ctx, coords.coords.data(), points.n, points.dims, k, job, path);
    uploaded.coords.reset();
    KDistanceResult result;
    {
        ScopedGpuStage stage(ctx, job, "sort");
        DeviceBuffer<float> sorted(points.n, s);
        const std::size_t tempBytes = sortFloatsTempBytes(points.n);
        DeviceBuffer<std::uint8_t> temp(tempBytes, s);
        sortFloats(temp.data(), tempBytes, values.data(), sorted.data(), points.n, s);
        result.perPoint.resize(points.n);
        result.sorted.resize(points.n);
        copyToHostStaged(result.perPoint.data(), values.data(), values.bytes(), ctx.device(), s);
        copyToHostStaged(result.sorted.data(), sorted.data(), sorted.bytes(), ctx.device(), s);
        fromRecentred(result.perPoint, coords.scale);
        fromRecentred(result.sorted, coords.scale);
        stage.finish();
    }
    job.setProgress(1.0, "sort");
    return result;
}

// --- colour matching ----------------------------------------------------------------------------

ClusterOverlapCount::ClusterOverlapCount(const std::int32_t* a, std::int32_t countA,
                                         const std::int32_t* b, std::int32_t countB, std::size_t n,
                                         cudaStream_t stream)
    : m_countA(countA),
      m_countB(countB),
      m_stream(stream),
      m_keys(n, stream),
      m_spare(n, stream),
      m_points(n, stream),
      m_runs(1, stream),
      m_temp(overlapPairsTempBytes(n), stream) {
    m_pairs = launchOverlapPairs(a, b, n, std::uint32_t(countA), std::uint32_t(countB),
                                 m_keys.data(), m_spare.data(), m_points.data(), m_runs.data(),
                                 m_temp.data(), m_temp.size(), stream);
}

std::vector<ClusterOverlap> ClusterOverlapCount::take() {
    const std::uint32_t distinct = m_runs.toHost()[0];
    std::vector<std::uint64_t> pairs(distinct);
    std::vector<std::uint32_t> points(distinct);
    CS_CUDA_CHECK(cudaMemcpyAsync(pairs.data(), m_pairs, distinct * sizeof(std::uint64_t),
                                  cudaMemcpyDeviceToHost, m_stream));
    m_points.copyToHost(points);
    CS_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    // Keys ascend as (a, b) does; the noise key, countA * countB, comes last when present.
    const std::uint64_t noise = std::uint64_t(m_countA) * std::uint64_t(m_countB);
    std::vector<ClusterOverlap> out;
    out.reserve(pairs.size());
    for (std::size_t i = 0; i < pairs.size() && pairs[i] != noise; ++i)
        out.push_back({std::int32_t(pairs[i] / std::uint64_t(m_countB)),
                       std::int32_t(pairs[i] % std::uint64_t(m_countB)), points[i]});
    return out;
}

}  // namespace cs::kernels
