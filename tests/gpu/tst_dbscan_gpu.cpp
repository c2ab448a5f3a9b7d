// SPDX-License-Identifier: MIT
// GPU DBSCAN and k-distance against the CPU backend (dbscanCpu, kDistanceCpu): labels, core
// flags and k-distances must be byte-identical on every case. Small cases are also checked
// against a naive O(n^2) reading of dbscan.h, so that a disagreement says which side is wrong.
// Seeds and parameters are printed on failure.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/dbscan/cluster_overlap.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/dbscan/dbscan_datasets.h"
#include "compute/dbscan/dbscan_sweep.h"
#include "compute/io/point_readers.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/stream_handles.h"
#include "kernels/cuda_backend.h"
#include "kernels/dbscan/dbscan_gpu.h"
#include "tests/common/dbscan_oracle.h"
#include "tests/common/gpu_test.h"
#include "tests/common/test_paths.h"

using cs::DbscanParams;
using cs::DbscanPath;
using cs::DbscanResult;
using cs::PointSet;
using cs::kernels::StreamHandles;

namespace {

std::shared_ptr<cs::Backend> g_backend;

StreamHandles& context() {
    return static_cast<cs::kernels::CudaBackend&>(*g_backend).context();
}

std::string describe(const std::string& data, const DbscanParams& p) {
    std::ostringstream out;
    out.precision(9);
    out << data << " eps=" << p.eps << " minPts=" << p.minPts << " star=" << p.star
        << " path=" << cs::toString(p.path);
    return out.str();
}

// The brute-force referee when CPU and GPU differ (small n only).
DbscanResult naiveDbscan(const PointSet& points, const DbscanParams& p) {
    cs::test::DbscanOracle o = cs::test::oracleDbscan(points, p.eps, p.minPts, p.star);
    DbscanResult r;
    r.labels = std::move(o.labels);
    r.isCore = std::move(o.isCore);
    return r;
}

std::string firstDifference(const DbscanResult& a, const DbscanResult& b) {
    if (a.labels.size() != b.labels.size())
        return "sizes " + std::to_string(a.labels.size()) + " vs " +
               std::to_string(b.labels.size());
    for (std::size_t i = 0; i < a.labels.size(); ++i)
        if (a.labels[i] != b.labels[i] || a.isCore[i] != b.isCore[i])
            return "point " + std::to_string(i) + ": label " + std::to_string(a.labels[i]) + "/" +
                   std::to_string(a.isCore[i]) + " vs " + std::to_string(b.labels[i]) + "/" +
                   std::to_string(b.isCore[i]) + " (label/core)";
    if (a.clusterCount != b.clusterCount)
        return "cluster counts " + std::to_string(a.clusterCount) + " vs " +
               std::to_string(b.clusterCount);
    if (a.stats.corePoints != b.stats.corePoints || a.stats.borderPoints != b.stats.borderPoints ||
        a.stats.noisePoints != b.stats.noisePoints ||
        a.stats.largestCluster != b.stats.largestCluster)
        return "stats differ";
    if (a.stats.clusterSizes != b.stats.clusterSizes) return "cluster sizes differ";
    return {};
}

int g_compared = 0;

// GPU result for params (path forced) against the CPU result (computed with Auto).
void expectSame(const PointSet& points, DbscanParams params, const std::string& data,
                const DbscanResult* cpuResult = nullptr) {
    DbscanResult cpu;
    if (cpuResult) {
        cpu = *cpuResult;
    } else {
        cs::JobControl job;
        DbscanParams cpuParams = params;
        cpuParams.path = DbscanPath::Auto;
        cpu = cs::dbscanCpu(points, cpuParams, job, 0);
    }
    cs::JobControl job;
    const DbscanResult gpu = cs::kernels::dbscanCuda(context(), points, params, job);
    ++g_compared;
    // The sizes per cluster downloaded with the statistics (what the GUI's colour matching
    // reads) are the labels' own counts.
    if (gpu.stats.clusterSizes != cs::clusterSizes(gpu.labels, gpu.clusterCount))
        CS_FAIL(describe(data, params) + ": GPU cluster sizes (" +
                std::to_string(gpu.stats.clusterSizes.size()) + " clusters) differ from the " +
                std::to_string(gpu.clusterCount) + " clusters' counts of the labels");
    const std::string diff = firstDifference(cpu, gpu);
    if (diff.empty()) {
        if (params.path != DbscanPath::Auto && gpu.pathUsed != params.path)
            CS_FAIL(describe(data, params) + ": ran path " +
                    std::string(cs::toString(gpu.pathUsed)));
        return;
    }
    std::string verdict;
    if (points.n <= 3000) {
        const DbscanResult naive = naiveDbscan(points, params);
        verdict = firstDifference(naive, gpu).empty()   ? " [naive reference agrees with GPU]"
                  : firstDifference(naive, cpu).empty() ? " [naive reference agrees with CPU]"
                                                        : " [naive reference differs from both]";
    }
    CS_FAIL(describe(data, params) + ": CPU vs GPU " + diff + verdict);
}

// eps near the median k-distance: about half the points core, so every rule is exercised.
float medianEps(const PointSet& points, int k) {
    cs::JobControl job;
    const auto kd = cs::kDistanceCpu(points, std::min<int>(k, int(points.n)), job, 0);
    const float e = kd.sorted[kd.sorted.size() / 2];
    return e > 0.0f ? e : 1.0f;
}

PointSet lattice(int side, int dims, float spacing, float offset) {
    std::vector<float> c;
    const int total = dims == 1 ? side : (dims == 2 ? side * side : side * side * side);
    for (int i = 0; i < total; ++i) {
        int rest = i;
        for (int j = 0; j < dims; ++j) {
            c.push_back(offset + spacing * float(rest % side));
            rest /= side;
        }
    }
    return PointSet::fromCoords(std::size_t(dims), std::move(c));
}

// Random integer coordinates in [0, range): many duplicates and exact distance ties.
PointSet integerPoints(std::size_t n, int dims, int range, std::uint64_t seed) {
    cs::Random rng(seed);
    std::vector<float> c(n * std::size_t(dims));
    for (auto& v : c)
        v = float(rng.below(std::uint64_t(range)));
    return PointSet::fromCoords(std::size_t(dims), std::move(c));
}

std::string dataName(const char* kind, std::size_t n, std::size_t d, std::uint64_t seed) {
    return std::string(kind) + "(n=" + std::to_string(n) + ", d=" + std::to_string(d) +
           ", seed=" + std::to_string(seed) + ")";
}

// k-distance on the host, straight from the definition (small n).
std::vector<float> naiveKDistance(const PointSet& points, int k) {
    const cs::RecentredCoords frame = recentredCoords(points);
    const std::vector<float>& x = frame.coords;
    const std::size_t n = points.n, d = points.dims;
    std::vector<float> out(n), all(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            all[j] = cs::canonicalDist2(&x[i * d], &x[j * d], d);
        std::nth_element(all.begin(), all.begin() + (k - 1), all.end());
        out[i] = std::sqrt(all[std::size_t(k - 1)]);
    }
    cs::fromRecentred(out, frame.scale);
    return out;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b, std::size_t& where) {
    if (a.size() != b.size()) {
        where = std::min(a.size(), b.size());
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            where = i;
            return false;
        }
    return true;
}

void expectSameKDistance(const PointSet& points, int k, DbscanPath path, const std::string& data) {
    cs::JobControl j1, j2;
    const auto cpu = cs::kDistanceCpu(points, k, j1, 0);
    const auto gpu = cs::kernels::kDistanceCuda(context(), points, k, j2, path);
    ++g_compared;
    std::size_t where = 0;
    const std::string what =
        data + " k=" + std::to_string(k) + " path=" + std::string(cs::toString(path));
    if (!sameBits(cpu.perPoint, gpu.perPoint, where)) {
        std::string verdict;
        if (points.n <= 3000) {
            const auto naive = naiveKDistance(points, k);
            std::size_t w2 = 0;
            verdict = sameBits(naive, gpu.perPoint, w2)   ? " [naive agrees with GPU]"
                      : sameBits(naive, cpu.perPoint, w2) ? " [naive agrees with CPU]"
                                                          : " [naive differs from both]";
        }
        std::ostringstream msg;
        msg.precision(9);
        msg << what << ": point " << where << " CPU " << cpu.perPoint[where] << " GPU "
            << gpu.perPoint[where] << verdict;
        CS_FAIL(msg.str());
    }
    if (!sameBits(cpu.sorted, gpu.sorted, where))
        CS_FAIL(what + ": sorted curves differ at " + std::to_string(where));
}

}  // namespace

// d = 1, 2, 3 on both paths, sizes 0 .. 5000, star on and off, several minPts.
CS_TEST(randomLowDimensions) {
    const std::size_t sizes[] = {0, 1, 2, 3, 500, 5000};
    for (int d = 1; d <= 3; ++d)
        for (std::size_t n : sizes)
            for (std::uint64_t seed : {11u, 12u}) {
                const bool blobs = seed == 12u;
                const PointSet pts = blobs ? cs::makeBlobPoints(n, std::size_t(d), seed)
                                           : cs::makeUniformPoints(n, std::size_t(d), seed, 12.0);
                const std::string name =
                    dataName(blobs ? "blobs" : "uniform", n, std::size_t(d), seed);
                for (int minPts : {1, 4, 10}) {
                    const float eps = n >= 2 ? medianEps(pts, minPts) : 1.0f;
                    for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute, DbscanPath::Auto})
                        for (bool star : {false, true})
                            expectSame(pts,
                                       {.eps = eps, .minPts = minPts, .star = star, .path = path},
                                       name);
                }
            }
}

// d = 16 and 64: the register-tiled all-pairs kernels.
CS_TEST(randomHighDimensions) {
    const std::size_t sizes[] = {0, 1, 2, 500, 5000};
    for (int d : {4, 16, 64})
        for (std::size_t n : sizes) {
            if (d == 4 && n > 500) continue;
            const std::uint64_t seed = 100 + std::uint64_t(d);
            const PointSet pts = cs::makeBlobPoints(n, std::size_t(d), seed);
            const std::string name = dataName("blobs", n, std::size_t(d), seed);
            for (int minPts : {1, 5, 20}) {
                const float eps = n >= 2 ? medianEps(pts, minPts) : 1.0f;
                for (bool star : {false, true})
                    expectSame(
                        pts,
                        {.eps = eps, .minPts = minPts, .star = star, .path = DbscanPath::Brute},
                        name);
            }
            if (n >= 2) {
                const PointSet u = cs::makeUniformPoints(n, std::size_t(d), seed, 20.0);
                expectSame(u, {.eps = medianEps(u, 10), .minPts = 10},
                           dataName("uniform", n, std::size_t(d), seed));
            }
        }
}

// 200k points: the grid at size, and the paper's kernel against the same CPU result.
CS_TEST(largeSets) {
    for (int d = 1; d <= 3; ++d) {
        const std::size_t n = 200'000;
        const std::uint64_t seed = 7000 + std::uint64_t(d);
        for (bool blobs : {false, true}) {
            const PointSet pts = blobs ? cs::makeBlobPoints(n, std::size_t(d), seed)
                                       : cs::makeUniformPoints(n, std::size_t(d), seed, 20.0);
            const std::string name = dataName(blobs ? "blobs" : "uniform", n, std::size_t(d), seed);
            for (bool star : {false, true}) {
                DbscanParams p{.eps = 1.0f, .minPts = 10, .star = star};
                cs::JobControl job;
                const DbscanResult cpu = cs::dbscanCpu(pts, p, job, 0);
                for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute}) {
                    p.path = path;
                    expectSame(pts, p, name, &cpu);
                }
            }
        }
    }
    const PointSet wide = cs::makeBlobPoints(20'000, 16, 7016);
    expectSame(wide, {.eps = medianEps(wide, 10), .minPts = 10},
               dataName("blobs", 20'000, 16, 7016));
}

// More pairs than one launch of the all-pairs kernels takes (2^35 pair-dimensions): at 40000
// points of 32 dimensions every row meets its columns in two ranges, one launch each, and
// carries its neighbour count, nearest core or k smallest distances from one to the next.
CS_TEST(wideSetsInColumnRanges) {
    const std::size_t n = 40'000;
    const PointSet pts = cs::makeBlobPoints(n, 32, 7032);
    const std::string name = dataName("blobs", n, 32, 7032);
    for (int minPts : {5, 50})
        expectSame(pts,
                   {.eps = medianEps(pts, minPts), .minPts = minPts, .path = DbscanPath::Brute},
                   name);
    expectSameKDistance(pts, 256, DbscanPath::Brute, name);
}

// Points exactly eps apart (integer lattices, eps 1): "<= eps" must hold bit for bit.
CS_TEST(exactDistanceLattice) {
    for (int d = 1; d <= 3; ++d) {
        const int side = d == 1 ? 600 : (d == 2 ? 40 : 12);
        for (float offset : {0.0f, 1000.5f}) {
            const PointSet pts = lattice(side, d, 1.0f, offset);
            const std::string name = "lattice(d=" + std::to_string(d) +
                                     ", side=" + std::to_string(side) +
                                     ", offset=" + std::to_string(offset) + ")";
            for (float eps : {1.0f, std::nextafter(1.0f, 0.0f), 1.41421356f, 2.0f})
                for (int minPts : {2, 3, 5, 7, 9})
                    for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute})
                        for (bool star : {false, true})
                            expectSame(pts,
                                       {.eps = eps, .minPts = minPts, .star = star, .path = path},
                                       name);
        }
    }
}

// Clouds far outside float's comfortable range (squared distances would overflow at 1e30 and
// underflow at 1e-30 without the recentred frame's scale): the same labels and k-distances as
// the CPU, bit for bit, with eps and the data scaled together.
CS_TEST(extremeScales) {
    for (double scale : {1e-30, 0x1p-100, 1e-12, 1e20, 0x1p100, 1e30}) {
        for (int d : {2, 3, 5}) {
            PointSet pts = cs::makeBlobPoints(4000, std::size_t(d), 71);
            for (float& v : pts.coords)
                v = float(double(v) * scale);
            std::ostringstream name;
            name << "blobs(d=" << d << ") x " << scale;
            const float eps = float(0.6 * scale);
            for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute})
                if (d <= 3 || path == DbscanPath::Brute)
                    expectSame(pts, {.eps = eps, .minPts = 6, .path = path}, name.str());
            expectSameKDistance(pts, 6, DbscanPath::Auto, name.str());
        }
    }
}

// Many duplicates and exact ties: the border rule's "nearest, then lowest index".
CS_TEST(integerTies) {
    for (int d = 1; d <= 3; ++d)
        for (std::uint64_t seed : {31u, 32u, 33u}) {
            const std::size_t n = 3000;
            const int range = d == 1 ? 400 : (d == 2 ? 60 : 18);
            const PointSet pts = integerPoints(n, d, range, seed);
            const std::string name = dataName("integers", n, std::size_t(d), seed);
            for (float eps : {0.0f, 1.0f, 1.5f, 2.0f})
                for (int minPts : {1, 3, 6, 12})
                    for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute})
                        expectSame(pts, {.eps = eps, .minPts = minPts, .path = path}, name);
        }
    const PointSet wide = integerPoints(2000, 16, 3, 34);
    for (float eps : {0.0f, 1.0f, 2.0f})
        expectSame(wide, {.eps = eps, .minPts = 4, .path = DbscanPath::Brute},
                   dataName("integers", 2000, 16, 34));
}

// All points identical; eps = 0; minPts = 1; minPts above n; huge eps (eps^2 = inf).
CS_TEST(degenerateInputs) {
    for (int d : {1, 2, 3, 16})
        for (std::size_t n : {std::size_t(1), std::size_t(5000), std::size_t(200'000)}) {
            if (d == 16 && n > 5000) continue;
            const PointSet pts =
                PointSet::fromCoords(std::size_t(d), std::vector<float>(n * std::size_t(d), 3.25f));
            const std::string name =
                "duplicates(n=" + std::to_string(n) + ", d=" + std::to_string(d) + ")";
            for (float eps : {0.0f, 1.0f})
                for (int minPts : {1, 10, 6000})
                    for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute}) {
                        if (d > 3 && path == DbscanPath::Grid) continue;
                        if (n > 5000 && path == DbscanPath::Brute && minPts > 5000) continue;
                        expectSame(pts, {.eps = eps, .minPts = minPts, .path = path}, name);
                    }
        }
    for (int d = 1; d <= 3; ++d) {
        const PointSet pts = cs::makeUniformPoints(3000, std::size_t(d), 55, 10.0);
        const std::string name = dataName("uniform", 3000, std::size_t(d), 55);
        for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute}) {
            expectSame(pts, {.eps = 0.0f, .minPts = 1, .path = path}, name);
            expectSame(pts, {.eps = 1.0f, .minPts = 1, .path = path}, name);
            expectSame(pts, {.eps = 1e20f, .minPts = 5, .path = path}, name);   // eps^2 = inf
            expectSame(pts, {.eps = 1e-30f, .minPts = 1, .path = path}, name);  // underflow
            expectSame(pts, {.eps = 1e6f, .minPts = 3000, .path = path}, name);
        }
    }
}

// The dense worst case and the seed spreader, small enough for the CPU oracle.
CS_TEST(denseAndSeedSpreader) {
    const PointSet ball = cs::makeDenseBall(100'000, 3, 1.0f, 77);
    for (int minPts : {10, 200})
        for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute})
            expectSame(ball, {.eps = 1.0f, .minPts = minPts, .path = path},
                       dataName("dense", 100'000, 3, 77));
    cs::SeedSpreaderParams sp;
    const PointSet seeds = cs::makeSeedSpreaderPoints(200'000, 3, 78, sp);
    for (float eps : {50.0f, 200.0f})
        for (int minPts : {2, 10})
            expectSame(seeds, {.eps = eps, .minPts = minPts},
                       dataName("seed-spreader", 200'000, 3, 78));
}

// The three real clouds (PCL test data), if the data folder is there.
CS_TEST(realClouds) {
    int found = 0;
    for (const char* file :
         {"points/bunny.pcd", "points/cturtle.pcd", "points/table_scene_mug_stereo_textured.pcd"}) {
        const auto path = cs::test::sharedData(file);
        if (!std::filesystem::exists(path)) continue;
        ++found;
        const PointSet pts = cs::io::readPcd(path);
        const std::string name = std::string(file) + " (n=" + std::to_string(pts.n) + ")";
        for (int minPts : {4, 10}) {
            const float eps = medianEps(pts, minPts);
            for (float scale : {0.5f, 1.0f, 2.0f}) {
                DbscanParams p{.eps = eps * scale, .minPts = minPts};
                cs::JobControl job;
                const DbscanResult cpu = cs::dbscanCpu(pts, p, job, 0);
                for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute}) {
                    if (path == DbscanPath::Brute && pts.n > 200'000 && scale != 1.0f) continue;
                    p.path = path;
                    expectSame(pts, p, name, &cpu);
                }
            }
        }
        expectSameKDistance(pts, 10, DbscanPath::Auto, name);
    }
    if (found == 0)
        CS_SKIP_MISSING_DATA("no point clouds under " + cs::test::sharedData("points").string() +
                             " (configure with -DCS_SHARED_DATA_DIR=...)");
}

CS_TEST(kDistanceMatchesCpu) {
    for (int d : {1, 2, 3, 16, 64})
        for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(300), std::size_t(3000)})
            for (int k : {1, 2, 5, 20, 100, 256}) {
                if (std::size_t(k) > n) continue;
                const std::uint64_t seed = 500 + std::uint64_t(d) * 7 + n;
                const PointSet pts = cs::makeBlobPoints(n, std::size_t(d), seed);
                const std::string name = dataName("blobs", n, std::size_t(d), seed);
                expectSameKDistance(pts, k, DbscanPath::Auto, name);
                if (d <= 3) expectSameKDistance(pts, k, DbscanPath::Brute, name);
            }
    for (int d = 1; d <= 3; ++d) {
        const PointSet ints = integerPoints(3000, d, d == 1 ? 300 : 20, 600 + std::uint64_t(d));
        for (int k : {1, 4, 16, 64})
            expectSameKDistance(ints, k, DbscanPath::Grid,
                                dataName("integers", 3000, std::size_t(d), 600 + d));
        const PointSet big = cs::makeBlobPoints(200'000, std::size_t(d), 610 + std::uint64_t(d));
        expectSameKDistance(big, 10, DbscanPath::Auto,
                            dataName("blobs", 200'000, std::size_t(d), 610 + d));
        const PointSet same =
            PointSet::fromCoords(std::size_t(d), std::vector<float>(4000 * std::size_t(d), -2.0f));
        expectSameKDistance(same, 7, DbscanPath::Auto, "duplicates(d=" + std::to_string(d) + ")");
    }
    const PointSet pts = cs::makeBlobPoints(1000, 3, 9);
    cs::JobControl job;
    CS_CHECK_THROWS(cs::kernels::kDistanceCuda(context(), pts, 257, job), cs::Error);
    CS_CHECK_THROWS(cs::kernels::kDistanceCuda(context(), pts, 0, job), cs::Error);
    CS_CHECK_THROWS(cs::kernels::kDistanceCuda(context(), pts, 1001, job), cs::Error);
    // Through the Backend interface too.
    cs::JobControl j1, j2;
    const auto viaBackend = g_backend->kDistance(pts, 10, j1);
    const auto cpu = cs::kDistanceCpu(pts, 10, j2, 0);
    std::size_t where = 0;
    CS_CHECK(sameBits(viaBackend.perPoint, cpu.perPoint, where));
}

// recentreDevice against recentredCoords bit for bit: far from the origin, negative, d = 1 to
// 64, constant and all-zero dimensions (the sign of a zero centre follows the first point),
// more values than one pass of the reduction's threads covers.
// Repeated points (issue 15): the grid search of a point repeated k times or more stops at
// k-distance 0, and cells of one repeated point count k per copy when the grid is sized. The
// same values as the CPU, which counts repeats, on clouds where copies are most of the work.
PointSet withRepeats(const PointSet& base, std::size_t copies, std::size_t times) {
    // The first `copies` points repeated `times` times each, then the rest once.
    std::vector<float> c;
    const std::size_t d = base.dims;
    for (std::size_t i = 0; i < base.n; ++i)
        for (std::size_t t = 0; t < (i < copies ? times : 1); ++t)
            c.insert(c.end(), base.coords.begin() + std::ptrdiff_t(i * d),
                     base.coords.begin() + std::ptrdiff_t((i + 1) * d));
    return PointSet::fromCoords(d, std::move(c));
}

CS_TEST(kDistanceRepeatedPoints) {
    for (int d = 1; d <= 3; ++d) {
        const auto dims = std::size_t(d);
        const PointSet base = cs::makeBlobPoints(150'000, dims, 700 + std::uint64_t(d));
        // Pairs: every point twice (300,000 points).
        const PointSet pairs = withRepeats(base, base.n, 2);
        for (int k : {1, 2, 3, 10, 64})
            expectSameKDistance(pairs, k, DbscanPath::Auto,
                                dataName("pairs", pairs.n, dims, 700 + std::uint64_t(d)));
        // A clump: one point 30,000 times amid 149,999 others (the grid cannot split it).
        const PointSet clump = withRepeats(base, 1, 30'000);
        for (int k : {10, 256})
            expectSameKDistance(clump, k, DbscanPath::Auto,
                                dataName("clump", clump.n, dims, 700 + std::uint64_t(d)));
        // 1,000 points 300 times each: k below and above the multiplicity.
        const PointSet hundreds = withRepeats(cs::makeBlobPoints(1000, dims, 710), 1000, 300);
        for (int k : {7, 256})
            expectSameKDistance(hundreds, k, DbscanPath::Auto,
                                dataName("300 copies", hundreds.n, dims, 710));
        // All 300,000 points equal: each search stops after k copies.
        const PointSet same = PointSet::fromCoords(dims, std::vector<float>(300'000 * dims, 1.5f));
        for (int k : {1, 7, 256})
            expectSameKDistance(same, k, DbscanPath::Auto, "300,000 equal points");
    }
    // Above 3 dimensions all pairs are computed anyway: repeats change nothing but must agree.
    const PointSet wide = withRepeats(cs::makeBlobPoints(2000, 16, 720), 500, 4);
    for (int k : {3, 4, 5, 64})
        expectSameKDistance(wide, k, DbscanPath::Auto, dataName("repeats", wide.n, 16, 720));
}

CS_TEST(deviceRecentringIsExact) {
    struct Case {
        std::size_t n, d;
        double offset, scale;
        std::uint64_t seed;
    };
    const Case cases[] = {
        {1, 1, 0.0, 1.0, 1},          {2, 3, -5.0, 1.0, 2},        {1000, 3, 6.4e6, 100.0, 3},
        {300'000, 3, -4.2e5, 3e3, 4}, {1'000'000, 1, 1e7, 1e3, 5}, {5000, 2, -1e30, 1e28, 6},
        {777, 7, 123.456, 1e-3, 7},   {4096, 16, -7.5e4, 50.0, 8}, {2000, 64, 3.3e5, 1.0, 9},
        {100'000, 5, 0.0, 1e-30, 10}, {333, 300, 1e4, 1.0, 11}};
    for (const Case& c : cases) {
        std::uint64_t state = c.seed;
        std::vector<float> x(c.n * c.d);
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double u = double(cs::splitMix64(state) >> 11) * 0x1p-53 - 0.5;
            x[i] = float(c.offset + c.scale * u * double(1 + i % c.d));
        }
        // Dimension 0 of the d >= 2 cases: zeros of both signs, -0 first when 3 divides the seed.
        if (c.d >= 2) {
            for (std::size_t i = 0; i < c.n; ++i)
                x[i * c.d] = (i + c.seed) % 3 == 0 ? -0.0f : 0.0f;
        }
        if (c.d >= 3) {  // a constant negative dimension
            for (std::size_t i = 0; i < c.n; ++i)
                x[i * c.d + 2] = -17.25f;
        }
        const PointSet pts = PointSet::fromCoords(c.d, x);
        const cs::RecentredCoords want = recentredCoords(pts);
        cs::kernels::DeviceBuffer<float> d(x.size(), context().stream());
        d.copyFromHost(x);
        const double scale = cs::kernels::recentreDevice(context(), d.data(), c.n, c.d);
        const std::vector<float> got = d.toHost();
        std::size_t where = 0;
        CS_CHECK_MSG(scale == want.scale, "recentre seed=" + std::to_string(c.seed) + ": scale " +
                                              std::to_string(scale) + ", host " +
                                              std::to_string(want.scale));
        CS_CHECK_MSG(sameBits(want.coords, got, where),
                     "recentre n=" + std::to_string(c.n) + " d=" + std::to_string(c.d) + " seed=" +
                         std::to_string(c.seed) + " differs at " + std::to_string(where));
    }
}

// Device-resident entry point, the Backend interface, stage timings.
CS_TEST(deviceEntryAndTimings) {
    const PointSet pts = cs::makeBlobPoints(50'000, 3, 4242);
    const DbscanParams p{.eps = 1.0f, .minPts = 10};
    cs::JobControl cpuJob;
    const DbscanResult cpu = cs::dbscanCpu(pts, p, cpuJob, 0);

    cs::JobControl job;
    const DbscanResult viaBackend = g_backend->dbscan(pts, p, job);
    CS_CHECK_MSG(firstDifference(cpu, viaBackend).empty(), firstDifference(cpu, viaBackend));
    CS_CHECK(viaBackend.pathUsed == DbscanPath::Grid);
    std::vector<std::string> names;
    for (const auto& t : job.timings())
        names.push_back(t.name);
    for (const char* stage :
         {"upload", "recentre", "grid", "count", "union", "border", "relabel", "stats", "download"})
        CS_CHECK_MSG(std::find(names.begin(), names.end(), stage) != names.end(),
                     std::string("missing stage ") + stage);

    const std::vector<float> x = recentredCoords(pts).coords;
    cs::kernels::DeviceBuffer<float> d(x.size(), context().stream());
    d.copyFromHost(x);
    cs::JobControl devJob;
    auto dev = cs::kernels::dbscanDevice(context(), d.data(), pts.n, 3, p, devJob);
    DbscanResult back;
    back.labels = dev.labels.toHost();
    back.isCore = dev.isCore.toHost();
    cs::canonicalizeDbscanResult(back);
    CS_CHECK_MSG(firstDifference(cpu, back).empty(), firstDifference(cpu, back));
    CS_CHECK_EQ(dev.clusterCount, cpu.clusterCount);
}

// Points kept resident (Backend::keepResident): no upload stage, the same labels, and a copy
// that is never used for another set, nor after its set is gone.
CS_TEST(residentPoints) {
    const DbscanParams p{.eps = 1.0f, .minPts = 10};
    auto a = std::make_shared<const PointSet>(cs::makeBlobPoints(60'000, 3, 77));
    cs::JobControl keep;
    const auto copy = g_backend->keepResident(a, keep);
    const auto* onDevice = dynamic_cast<const cs::kernels::DevicePoints*>(copy.get());
    CS_CHECK(onDevice && onDevice->n == a->n && onDevice->dims == 3);
    CS_CHECK(onDevice && onDevice->coords.toHost() == recentredCoords(*a).coords);
    cs::JobControl cpuJob;
    const DbscanResult cpuA = cs::dbscanCpu(*a, p, cpuJob, 0);
    cs::JobControl job;
    const DbscanResult gpuA = g_backend->dbscan(*a, p, job);
    CS_CHECK_MSG(firstDifference(cpuA, gpuA).empty(), firstDifference(cpuA, gpuA));
    for (const auto& t : job.timings())
        CS_CHECK_MSG(t.name != "upload" && t.name != "recentre",
                     "resident points uploaded: " + t.name);
    cs::JobControl kd;
    const cs::KDistanceResult kGpu = g_backend->kDistance(*a, 10, kd);
    cs::JobControl kdCpu;
    CS_CHECK(kGpu.perPoint == cs::kDistanceCpu(*a, 10, kdCpu, 0).perPoint);

    // Another set (same size) is uploaded, not taken from the resident copy.
    const PointSet b = cs::makeBlobPoints(60'000, 3, 78);
    cs::JobControl jobB, cpuB;
    const DbscanResult gpuB = g_backend->dbscan(b, p, jobB);
    CS_CHECK_MSG(firstDifference(cs::dbscanCpu(b, p, cpuB, 0), gpuB).empty(), "other set");
    bool uploaded = false;
    for (const auto& t : jobB.timings())
        uploaded |= t.name == "upload";
    CS_CHECK(uploaded);

    // Once the resident set is gone, a new set in its place is uploaded too.
    a.reset();
    auto c = std::make_shared<const PointSet>(cs::makeBlobPoints(60'000, 3, 79));
    cs::JobControl jobC, cpuC;
    const DbscanResult gpuC = g_backend->dbscan(*c, p, jobC);
    CS_CHECK_MSG(firstDifference(cs::dbscanCpu(*c, p, cpuC, 0), gpuC).empty(), "set after");
    cs::JobControl none;
    g_backend->keepResident(nullptr, none);
}

bool hasStage(const cs::JobControl& job, const std::string& name) {
    for (const auto& t : job.timings())
        if (t.name == name) return true;
    return false;
}

// The grid and counts kept between runs on the same device coordinates (the GUI's live runs):
// each run equals the CPU's for its parameters, the grid is built only when eps or the
// coordinates change, and the counts are recounted only for a MinPts above what they reach.
CS_TEST(gridKeptBetweenRuns) {
    const PointSet pts = cs::makeBlobPoints(200'000, 3, 91);
    const cs::RecentredCoords rc = recentredCoords(pts);
    cs::kernels::DeviceBuffer<float> d(rc.coords.size(), context().stream());
    d.copyFromHost(rc.coords);
    cs::kernels::DbscanGridReuse reuse(std::size_t(1) << 34);
    struct Run {
        DbscanParams p;
        bool grid;      // the grid is built
        int countedTo;  // what the kept counts reach afterwards
    };
    const std::vector<Run> runs = {
        {{.eps = 1.0f, .minPts = 10}, true, 10},
        {{.eps = 1.0f, .minPts = 6}, false, 10},  // from the counts
        {{.eps = 1.0f, .minPts = 6, .star = true}, false, 10},
        {{.eps = 1.0f, .minPts = 10}, false, 10},
        {{.eps = 1.0f, .minPts = 14}, false, 28},  // recounted to twice 14
        {{.eps = 1.0f, .minPts = 28}, false, 28},
        {{.eps = 1.0f, .minPts = 2}, false, 28},
        // An eps a few percent away: the same grid (built for 1.0 / 1.07), counted again.
        {{.eps = 1.05f, .minPts = 10}, false, 10},
        {{.eps = 0.95f, .minPts = 10}, false, 10},
        {{.eps = 0.95f, .minPts = 6}, false, 10},
        {{.eps = 1.075f, .minPts = 3}, false, 3},
        {{.eps = 0.9f, .minPts = 12}, true, 12},  // below what the grid serves: a new grid
        {{.eps = 1.2f, .minPts = 12}, true, 12},  // above it: a new grid
        {{.eps = 1.2f, .minPts = 11}, false, 12},
    };
    for (const Run& run : runs) {
        const std::string what = describe("blobs kept", run.p);
        cs::JobControl job, cpuJob;
        const DbscanResult cpu = cs::dbscanCpu(pts, run.p, cpuJob, 0);
        auto dev =
            cs::kernels::dbscanDevice(context(), d.data(), pts.n, 3, run.p, job, rc.scale, &reuse);
        DbscanResult back;
        back.labels = dev.labels.toHost();
        back.isCore = dev.isCore.toHost();
        cs::canonicalizeDbscanResult(back);
        ++g_compared;
        CS_CHECK_MSG(back.labels == cpu.labels && back.isCore == cpu.isCore,
                     what + ": " + firstDifference(cpu, back));
        CS_CHECK_EQ(dev.clusterCount, cpu.clusterCount);
        CS_CHECK_MSG(hasStage(job, "grid") == run.grid, what + ": grid built or not");
        CS_CHECK_MSG(hasStage(job, "count"), what);
        CS_CHECK_EQ(reuse.countedTo(), run.countedTo);
        CS_CHECK(reuse.bytes() > pts.n * 4);
    }

    // Other coordinates of the same size: a grid of their own, and their own clusters.
    const PointSet other = cs::makeBlobPoints(200'000, 3, 92);
    const cs::RecentredCoords orc = recentredCoords(other);
    cs::kernels::DeviceBuffer<float> e(orc.coords.size(), context().stream());
    e.copyFromHost(orc.coords);
    const DbscanParams p{.eps = 1.2f, .minPts = 11};
    cs::JobControl job, cpuJob;
    auto dev =
        cs::kernels::dbscanDevice(context(), e.data(), other.n, 3, p, job, orc.scale, &reuse);
    DbscanResult back;
    back.labels = dev.labels.toHost();
    back.isCore = dev.isCore.toHost();
    cs::canonicalizeDbscanResult(back);
    const DbscanResult cpu = cs::dbscanCpu(other, p, cpuJob, 0);
    CS_CHECK(back.labels == cpu.labels && back.isCore == cpu.isCore);
    CS_CHECK(hasStage(job, "grid"));

    // A cancelled run leaves what is kept true for the next.
    cs::JobControl cancelled;
    cancelled.cancel();
    CS_CHECK_THROWS(
        cs::kernels::dbscanDevice(context(), e.data(), other.n, 3, {.eps = 1.2f, .minPts = 40},
                                  cancelled, orc.scale, &reuse),
        cs::Cancelled);
    cs::JobControl after, cpuAfter;
    const DbscanParams q{.eps = 1.2f, .minPts = 5};
    dev = cs::kernels::dbscanDevice(context(), e.data(), other.n, 3, q, after, orc.scale, &reuse);
    back.labels = dev.labels.toHost();
    back.isCore = dev.isCore.toHost();
    cs::canonicalizeDbscanResult(back);
    const DbscanResult cpuQ = cs::dbscanCpu(other, q, cpuAfter, 0);
    CS_CHECK(back.labels == cpuQ.labels && back.isCore == cpuQ.isCore);

    // Nothing is kept over the limit: every run builds its grid.
    cs::kernels::DbscanGridReuse small(1024);
    for (int minPts : {10, 8}) {
        cs::JobControl j;
        (void)cs::kernels::dbscanDevice(context(), d.data(), pts.n, 3,
                                        {.eps = 1.0f, .minPts = minPts}, j, rc.scale, &small);
        CS_CHECK(hasStage(j, "grid"));
        CS_CHECK_EQ(small.bytes(), std::size_t(0));
    }
}

// The backend keeps the grid with its resident points: a MinPts change skips it, other
// points never see it.
CS_TEST(residentPointsKeepTheGrid) {
    auto a = std::make_shared<const PointSet>(cs::makeBlobPoints(150'000, 3, 93));
    cs::JobControl keep;
    CS_CHECK(g_backend->keepResident(a, keep) != nullptr);
    for (const auto& [p, grid] :
         std::vector<std::pair<DbscanParams, bool>>{{{.eps = 0.8f, .minPts = 9}, true},
                                                    {{.eps = 0.8f, .minPts = 7}, false},
                                                    {{.eps = 0.8f, .minPts = 12}, false},
                                                    {{.eps = 0.82f, .minPts = 12}, false},
                                                    {{.eps = 0.9f, .minPts = 12}, true}}) {
        cs::JobControl job, cpuJob;
        const DbscanResult gpu = g_backend->dbscan(*a, p, job);
        const DbscanResult cpu = cs::dbscanCpu(*a, p, cpuJob, 0);
        CS_CHECK_MSG(firstDifference(cpu, gpu).empty(),
                     describe("resident blobs", p) + ": " + firstDifference(cpu, gpu));
        CS_CHECK_MSG(hasStage(job, "grid") == grid, describe("resident blobs", p));
    }
    const PointSet b = cs::makeBlobPoints(150'000, 3, 94);
    cs::JobControl jobB, cpuB;
    const DbscanParams p{.eps = 0.9f, .minPts = 12};
    CS_CHECK(firstDifference(cs::dbscanCpu(b, p, cpuB, 0), g_backend->dbscan(b, p, jobB)).empty());
    CS_CHECK(hasStage(jobB, "grid"));
    cs::JobControl none;
    g_backend->keepResident(nullptr, none);
}

// The contingency table of two GPU runs, on the device, equals the host count, with a few big
// clusters and with thousands of tiny ones (more pairs than a dense table of counters holds:
// ~46,000 clusters each at 10M points).
CS_TEST(clusterOverlapOnDevice) {
    const auto ranOnDevice = [](const cs::JobControl& job) {
        bool found = false;
        for (const auto& t : job.timings())
            found |= t.name == "overlap";
        return found;
    };
    const PointSet pts = cs::makeBlobPoints(400'000, 3, 31);
    cs::JobControl j1, j2, j3;
    const DbscanResult a = g_backend->dbscan(pts, {.eps = 0.9f, .minPts = 10}, j1);
    const DbscanResult b = g_backend->dbscan(pts, {.eps = 1.1f, .minPts = 12}, j2);
    CS_CHECK(a.device && b.device && a.clusterCount > 1 && b.clusterCount > 1);
    const auto onDevice = g_backend->clusterOverlap(a, b, j3);
    const auto onHost = cs::clusterOverlap(a.labels, a.clusterCount, b.labels, b.clusterCount);
    CS_CHECK_EQ(onDevice.size(), onHost.size());
    CS_CHECK(onDevice == onHost);
    CS_CHECK(ranOnDevice(j3));

    // Uniform points, eps well below their spacing: ~34,000 clusters of a few points and noise on
    // both sides (keys of 31 bits), and ~200,000 single-point clusters beside them (35 bits).
    const PointSet sparse = cs::makeUniformPoints(200'000, 3, 5);
    const auto runOf = [&](float eps, int minPts) {
        cs::JobControl job;
        return g_backend->dbscan(sparse, {.eps = eps, .minPts = minPts}, job);
    };
    const DbscanResult x = runOf(0.3f, 2), y = runOf(0.33f, 2), singles = runOf(0.05f, 1);
    for (const auto& [first, second] : {std::pair{&x, &y}, std::pair{&singles, &x}}) {
        CS_CHECK_MSG(
            std::size_t(first->clusterCount) * std::size_t(second->clusterCount) >
                (std::size_t(1) << 28),
            std::to_string(first->clusterCount) + " x " + std::to_string(second->clusterCount));
        cs::JobControl job;
        const auto got = g_backend->clusterOverlap(*first, *second, job);
        const auto want = cs::clusterOverlap(first->labels, first->clusterCount, second->labels,
                                             second->clusterCount);
        CS_CHECK(ranOnDevice(job));
        CS_CHECK_EQ(got.size(), want.size());
        CS_CHECK(got == want);
    }

    // A re-run with the table counted on the device while its labels download, and used on
    // another thread meanwhile: the same run and the same table, with 31-bit and 35-bit keys,
    // handed once to the use with the members per cluster; no previous run, no table.
    const auto besideDownload = [](const cs::JobControl& job) {
        for (const auto& t : job.timings())
            if (t.name == "overlap after download") return true;
        return false;
    };
    struct Use {
        int calls = 0;
        std::vector<cs::ClusterOverlap> overlap;
        std::vector<std::size_t> sizes;
        std::thread::id thread;
    };
    const auto recording = [](Use& use) {
        return [&use](std::span<const cs::ClusterOverlap> overlap,
                      std::span<const std::size_t> sizes) {
            ++use.calls;
            use.overlap.assign(overlap.begin(), overlap.end());
            use.sizes.assign(sizes.begin(), sizes.end());
            use.thread = std::this_thread::get_id();
        };
    };
    const auto rerunOf = [&](const PointSet& points, const DbscanResult& before, float eps,
                             int minPts) {
        cs::JobControl job, cpuJob;
        Use use;
        const cs::DbscanRematch rerun = g_backend->dbscanMatched(
            points, {.eps = eps, .minPts = minPts}, &before, job, recording(use));
        const DbscanResult cpu = cs::dbscanCpu(points, {.eps = eps, .minPts = minPts}, cpuJob, 0);
        CS_CHECK_MSG(firstDifference(cpu, rerun.result).empty(),
                     firstDifference(cpu, rerun.result));
        CS_CHECK(besideDownload(job));
        const auto want = cs::clusterOverlap(before.labels, before.clusterCount,
                                             rerun.result.labels, rerun.result.clusterCount);
        CS_CHECK_EQ(rerun.overlap.size(), want.size());
        CS_CHECK(rerun.overlap == want);
        CS_CHECK_EQ(use.calls, 1);
        CS_CHECK(use.overlap == want);
        CS_CHECK(use.sizes == cs::clusterSizes(cpu.labels, cpu.clusterCount));
        CS_CHECK(use.thread != std::this_thread::get_id());
    };
    rerunOf(pts, a, 1.1f, 12);
    rerunOf(sparse, x, 0.33f, 2);
    rerunOf(sparse, x, 0.05f, 1);
    cs::JobControl alone;
    Use firstUse;
    const cs::DbscanRematch first = g_backend->dbscanMatched(pts, {.eps = 0.9f, .minPts = 10},
                                                             nullptr, alone, recording(firstUse));
    CS_CHECK(first.overlap.empty() && !besideDownload(alone));
    CS_CHECK(firstDifference(a, first.result).empty());
    CS_CHECK(firstUse.calls == 1 && firstUse.overlap.empty());
    CS_CHECK(firstUse.sizes == cs::clusterSizes(a.labels, a.clusterCount));
}

CS_TEST(errorsAreClear) {
    // Far more than any device holds: a cs::Error before any allocation, not a crash.
    cs::JobControl job;
    const DbscanParams p{.eps = 1.0f, .minPts = 10};
    bool thrown = false;
    try {
        (void)cs::kernels::dbscanDevice(context(), nullptr, 2'000'000'000, 64, p, job);
    } catch (const cs::Error& e) {
        thrown = std::string(e.what()).find("GPU memory") != std::string::npos;
        cs::test::info(e.what());
    }
    CS_CHECK(thrown);
    DbscanParams grid = p;
    grid.path = DbscanPath::Grid;
    CS_CHECK_THROWS(cs::kernels::dbscanDevice(context(), nullptr, 2'000'000'000, 3, grid, job),
                    cs::Error);
    CS_CHECK_THROWS(cs::kernels::kDistanceDevice(context(), nullptr, 2'000'000'000, 64, 10, job),
                    cs::Error);
    CS_CHECK_THROWS(cs::kernels::dbscanDevice(context(), nullptr, std::size_t(1) << 31, 3, p, job),
                    cs::Error);

    PointSet bad = cs::makeBlobPoints(2000, 3, 1);
    bad.coords[777] = std::numeric_limits<float>::quiet_NaN();
    CS_CHECK_THROWS(g_backend->dbscan(bad, p, job), cs::Error);
    const PointSet ok = cs::makeBlobPoints(2000, 16, 1);
    DbscanParams kd = p;
    kd.path = DbscanPath::KdTree;
    CS_CHECK_THROWS(g_backend->dbscan(ok, kd, job), cs::Error);
    CS_CHECK_THROWS(g_backend->dbscan(ok, grid, job), cs::Error);
    DbscanParams negative = p;
    negative.eps = -1.0f;
    CS_CHECK_THROWS(g_backend->dbscan(ok, negative, job), cs::Error);
    // The context still works afterwards.
    expectSame(cs::makeBlobPoints(2000, 3, 2), p, "blobs after errors");
}

CS_TEST(cancellation) {
    const PointSet pts = cs::makeUniformPoints(300'000, 3, 99, 20.0);
    for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute}) {
        cs::JobControl before;
        before.cancel();
        CS_CHECK_THROWS(g_backend->dbscan(pts, {.eps = 1.0f, .minPts = 10, .path = path}, before),
                        cs::Cancelled);
        // Cancelled from the progress callback once the first GPU stage is done.
        cs::JobControl* self = nullptr;
        cs::JobControl during([&](double, std::string_view stage) {
            if (stage == "grid" || stage == "layout" || stage == "count") self->cancel();
        });
        self = &during;
        CS_CHECK_THROWS(g_backend->dbscan(pts, {.eps = 1.0f, .minPts = 10, .path = path}, during),
                        cs::Cancelled);
    }
    cs::JobControl kd;
    kd.cancel();
    CS_CHECK_THROWS(g_backend->kDistance(pts, 10, kd), cs::Cancelled);
    expectSame(cs::makeBlobPoints(5000, 3, 3), {.eps = 1.0f, .minPts = 10}, "blobs after cancel");
}

// --- eps x MinPts sweeps --------------------------------------------------------------------

// The GPU sweep against the CPU sweep, cell by cell (tests/compute/tst_dbscan.cpp checks the CPU
// sweep against plain runs, cell by cell); a differing cell is also run through plain DBSCAN on
// both backends, so the message says which side the sweep got wrong.
void expectSameSweep(const PointSet& points, const cs::DbscanSweepParams& params,
                     const std::string& data) {
    cs::JobControl cpuJob, gpuJob;
    // The CPU on its own path (cells do not depend on the path; all pairs on the CPU are slow).
    cs::DbscanSweepParams cpuParams = params;
    cpuParams.path = DbscanPath::Auto;
    const cs::DbscanSweepResult cpu = cs::dbscanSweepCpu(points, cpuParams, cpuJob, 0);
    const cs::DbscanSweepResult gpu = g_backend->dbscanSweep(points, params, gpuJob);
    ++g_compared;
    CS_CHECK_EQ(gpu.cells.size(), cpu.cells.size());
    if (gpu.cells.size() != cpu.cells.size()) return;
    for (std::size_t i = 0; i < cpu.cells.size(); ++i) {
        const cs::DbscanSweepCell &c = cpu.cells[i], &g = gpu.cells[i];
        if (c.eps == g.eps && c.minPts == g.minPts && c.clusters == g.clusters &&
            c.noiseShare == g.noiseShare && c.largestShare == g.largestShare)
            continue;
        const DbscanParams plain{.eps = c.eps, .minPts = c.minPts, .star = params.star};
        cs::JobControl j1, j2;
        const auto cpuCell =
            cs::dbscanSweepCell(cs::dbscanCpu(points, plain, j1, 0), c.eps, c.minPts);
        const auto gpuCell =
            cs::dbscanSweepCell(g_backend->dbscan(points, plain, j2), c.eps, c.minPts);
        std::ostringstream out;
        out.precision(9);
        out << describe(data, plain) << ": sweep cell CPU " << c.clusters << " clusters, noise "
            << c.noiseShare << ", largest " << c.largestShare << " vs GPU " << g.clusters << ", "
            << g.noiseShare << ", " << g.largestShare << "; plain runs: CPU " << cpuCell.clusters
            << "/" << cpuCell.noiseShare << "/" << cpuCell.largestShare << ", GPU "
            << gpuCell.clusters << "/" << gpuCell.noiseShare << "/" << gpuCell.largestShare;
        CS_FAIL(out.str());
    }
}

cs::DbscanSweepParams sweepAround(float centre, bool star, DbscanPath path) {
    cs::DbscanSweepParams p = cs::defaultDbscanSweep(centre, 8, 2, 12);
    p.minPts.push_back(40);
    p.star = star;
    p.path = path;
    return p;
}

CS_TEST(sweepMatchesCpu) {
    std::uint64_t seed = 900;
    for (std::size_t d : {1, 2, 3})
        for (std::size_t n : {std::size_t(800), std::size_t(20'000)}) {
            const PointSet pts = cs::makeBlobPoints(n, d, ++seed);
            const float eps = medianEps(pts, 8);
            for (bool star : {false, true})
                for (DbscanPath path : {DbscanPath::Auto, DbscanPath::Brute})
                    expectSameSweep(pts, sweepAround(eps, star, path),
                                    dataName("blobs", n, d, seed));
        }
    for (std::size_t d : {std::size_t(8), std::size_t(40)}) {
        const PointSet pts = cs::makeBlobPoints(3000, d, ++seed);
        expectSameSweep(pts, sweepAround(medianEps(pts, 8), false, DbscanPath::Auto),
                        dataName("blobs", 3000, d, seed));
    }
    // Exact distance ties and repeated points: border tie-breaks and counts at the boundary.
    const PointSet ties = integerPoints(20'000, 3, 30, ++seed);
    cs::DbscanSweepParams exact{.eps = {0.5f, 1.0f, 1.4142135f, 2.0f, 3.0f},
                                .minPts = {1, 2, 4, 7, 9, 27}};
    expectSameSweep(ties, exact, dataName("integers", 20'000, 3, seed));
    exact.path = DbscanPath::Brute;
    expectSameSweep(ties, exact, dataName("integers", 20'000, 3, seed));
    expectSameSweep(lattice(40, 2, 1.0f, 0.5f), exact, "lattice 40x40");
    // Degenerate inputs and a real cloud.
    const PointSet one = PointSet::fromCoords(3, {1.0f, 2.0f, 3.0f});
    expectSameSweep(one, exact, "one point");
    const PointSet same = PointSet::fromCoords(2, std::vector<float>(2000, 4.0f));
    expectSameSweep(same, exact, "1000 copies");
    const auto bunny = cs::test::sharedData("points/bunny.pcd");
    if (std::filesystem::exists(bunny)) {
        const PointSet cloud = cs::io::readPcd(bunny);
        expectSameSweep(cloud, sweepAround(medianEps(cloud, 10), false, DbscanPath::Auto), "bunny");
    }
}

// One job of count and cells stages, resident points taken as they are, and the sweep's cells
// equal to plain GPU runs (not only to the CPU sweep).
CS_TEST(sweepStagesAndPlainRuns) {
    auto pts = std::make_shared<const PointSet>(cs::makeBlobPoints(50'000, 3, 61));
    cs::JobControl keep;
    const auto copy = g_backend->keepResident(pts, keep);
    CS_CHECK(copy != nullptr);
    const cs::DbscanSweepParams params = sweepAround(medianEps(*pts, 10), false, DbscanPath::Auto);
    cs::JobControl job;
    const cs::DbscanSweepResult sweep = g_backend->dbscanSweep(*pts, params, job);
    int counts = 0;
    for (const auto& t : job.timings()) {
        counts += t.name == "count";
        CS_CHECK_MSG(t.name != "upload", "resident points uploaded");
    }
    CS_CHECK_EQ(counts, int(params.eps.size()));
    for (std::size_t e = 0; e < params.eps.size(); e += 3)
        for (std::size_t m = 0; m < params.minPts.size(); m += 2) {
            cs::JobControl plainJob;
            const DbscanParams plain{.eps = params.eps[e], .minPts = params.minPts[m]};
            const auto want = cs::dbscanSweepCell(g_backend->dbscan(*pts, plain, plainJob),
                                                  plain.eps, plain.minPts);
            const auto& got = sweep.at(e, m);
            CS_CHECK_MSG(got.clusters == want.clusters && got.noiseShare == want.noiseShare &&
                             got.largestShare == want.largestShare,
                         describe("blobs 50k", plain));
        }
    cs::JobControl none;
    g_backend->keepResident(nullptr, none);
}

CS_TEST(sweepErrorsAndCancellation) {
    const PointSet pts = cs::makeUniformPoints(300'000, 3, 98, 20.0);
    const cs::DbscanSweepParams params = cs::defaultDbscanSweep(1.0f);
    for (DbscanPath path : {DbscanPath::Grid, DbscanPath::Brute}) {
        cs::DbscanSweepParams p = params;
        p.path = path;
        cs::JobControl before;
        before.cancel();
        CS_CHECK_THROWS(g_backend->dbscanSweep(pts, p, before), cs::Cancelled);
        cs::JobControl* self = nullptr;
        cs::JobControl during([&](double, std::string_view stage) {
            if (stage == "cells") self->cancel();
        });
        self = &during;
        CS_CHECK_THROWS(g_backend->dbscanSweep(pts, p, during), cs::Cancelled);
    }
    cs::JobControl job;
    PointSet bad = cs::makeBlobPoints(2000, 3, 1);
    bad.coords[5] = std::numeric_limits<float>::infinity();
    CS_CHECK_THROWS(g_backend->dbscanSweep(bad, params, job), cs::Error);
    const cs::DbscanSweepParams descending{.eps = {2.0f, 1.0f}, .minPts = {3}};
    CS_CHECK_THROWS(g_backend->dbscanSweep(pts, descending, job), cs::Error);
    cs::DbscanSweepParams kd = params;
    kd.path = DbscanPath::KdTree;
    CS_CHECK_THROWS(g_backend->dbscanSweep(pts, kd, job), cs::Error);
    expectSameSweep(cs::makeBlobPoints(5000, 3, 4), sweepAround(1.0f, false, DbscanPath::Auto),
                    "blobs after errors");
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_dbscan_gpu");
    g_backend = cs::kernels::createCudaBackend();
    const int rc = cs::test::runTests("tst_dbscan_gpu", argc, argv);
    std::printf("INFO   : tst_dbscan_gpu compared %d CPU/GPU results\n", g_compared);
    g_backend.reset();
    return rc;
}
