// SPDX-License-Identifier: MIT
// The GPU kNN graph against the CPU backend (knnGraphCpu): indices, distances, recall after
// every tree and the number of trees must be identical on every case, since both follow
// compute/knn/knn_graph.h bit for bit. Single-leaf cases are also checked against the
// brute-force oracle, so that a disagreement says which side is wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_datasets.h"
#include "compute/io/point_readers.h"
#include "compute/knn/knn_cpu.h"
#include "compute/knn/knn_datasets.h"
#include "compute/knn/knn_graph.h"
#include "compute/knn/knn_list.h"
#include "kernels/cuda_backend.h"
#include "kernels/knn/knn_exact_launch.h"
#include "kernels/knn/knn_gpu.h"
#include "tests/common/gpu_cases.h"
#include "tests/common/gpu_test.h"
#include "tests/common/knn_oracle.h"
#include "tests/common/test_paths.h"

using cs::KnnGraph;
using cs::KnnParams;
using cs::PointSet;

namespace {

using cs::test::firstDifference;
using cs::test::noisySeries;

std::shared_ptr<cs::Backend> g_backend;

std::string describe(const std::string& data, const KnnParams& p) {
    std::ostringstream out;
    out << data << " k=" << p.k << " trees=" << p.trees << " leafSize=" << p.leafSize
        << " targetRecall=" << p.targetRecall << " seed=" << p.seed;
    return out.str();
}

// CPU and GPU graphs of pts, identical; returns the GPU one.
KnnGraph expectSame(const PointSet& pts, const KnnParams& p, const std::string& data) {
    cs::JobControl cpuJob, gpuJob;
    const KnnGraph cpu = cs::knnGraphCpu(pts, p, cpuJob, 0);
    KnnGraph gpu = g_backend->knnGraph(pts, p, gpuJob);
    const std::string diff = firstDifference(cpu, gpu);
    CS_CHECK_MSG(diff.empty(), describe(data, p) + ": " + diff);
    const std::string invalid = cs::test::checkKnnGraph(gpu, cs::recentredCoords(pts), pts.dims);
    CS_CHECK_MSG(invalid.empty(), describe(data, p) + ": " + invalid);
    return gpu;
}

}  // namespace

// One leaf holds every point: the exact graph, equal to the oracle, for every list size the
// kernels are compiled for and both dimension chunkings.
CS_TEST(singleLeafIsExact) {
    for (std::size_t dims : {1, 2, 3, 4, 5, 17, 40}) {
        const PointSet pts = cs::makeBlobPoints(900, dims, 11 + dims);
        for (int k : {1, 7, 16, 17, 32, 33, 64}) {
            const KnnParams p{.k = k, .trees = 1, .leafSize = 1024};
            const KnnGraph gpu = expectSame(pts, p, "blobs d=" + std::to_string(dims));
            const KnnGraph exact =
                cs::test::oracleKnnGraph(cs::recentredCoords(pts), pts.n, pts.dims, k);
            CS_CHECK_MSG(
                gpu.indices == exact.indices,
                "not the exact graph: d=" + std::to_string(dims) + " k=" + std::to_string(k));
            CS_CHECK_EQ(gpu.recall(), 1.0);
        }
    }
}

// Forests: many leaves, several trees, odd sizes, both chunkings, every list size.
CS_TEST(forestsMatchCpu) {
    struct Case {
        std::size_t n, dims;
        int k, leafSize, trees;
    };
    for (const Case& c :
         {Case{20'000, 3, 10, 256, 4}, Case{33'333, 2, 16, 100, 3}, Case{50'001, 3, 20, 512, 2},
          Case{12'345, 9, 8, 64, 5}, Case{40'000, 64, 12, 300, 3}, Case{8'000, 128, 64, 2048, 2},
          Case{25'000, 1, 5, 12, 6},
          // 17 levels (the projections in two passes) of 40 dimensions (tiles of 32 and 8).
          Case{300'000, 40, 1, 4, 1}}) {
        const PointSet pts = c.dims > 16 ? cs::makeEmbedPoints(c.n, c.dims, c.n)
                                         : cs::makeBlobPoints(c.n, c.dims, c.n);
        const KnnParams p{
            .k = c.k, .trees = c.trees, .leafSize = c.leafSize, .targetRecall = 0.0, .seed = c.n};
        const KnnGraph g =
            expectSame(pts, p, "n=" + std::to_string(c.n) + " d=" + std::to_string(c.dims));
        CS_CHECK_EQ(g.treesBuilt, c.trees);
        // More trees never lose neighbours.
        for (std::size_t t = 1; t < g.recallByTree.size(); ++t)
            CS_CHECK(g.recallByTree[t] >= g.recallByTree[t - 1]);
    }
}

// Leaves of 64 dimensions or more go to the tensor cores (FP16 distances of the points centred
// on their leaf choose candidates within the proven bound, canonicalDist2 ranks them, each
// tree's best merged into the lists): the CPU's graph, bit for bit, on ties (corners of a
// hypercube: integer squared distances), k = 64, leaves of 4, duplicates and far-apart clusters
// (norms 10^4 times the neighbour distances, which the leaves' centring takes away). A leaf can
// only overflow a row's buffer (896 candidates after pruning) when it is larger than that: the
// 2,048-point leaves of duplicates (1,500 points at distance 0) must go to the CUDA cores
// (stage "overflow leaves"), no other case may.
CS_TEST(tensorLeavesMatchCpu) {
    struct Case {
        std::string name;
        PointSet points;
        KnnParams params;
        bool overflows;
    };
    std::vector<Case> cases;
    cases.push_back({"embed 128-D",
                     cs::makeEmbedPoints(20'000, 128, 21),
                     {.k = 10, .trees = 3, .leafSize = 512, .targetRecall = 0.0},
                     false});
    cases.push_back({"embed 64-D k=64",
                     cs::makeEmbedPoints(10'000, 64, 22),
                     {.k = 64, .trees = 2, .leafSize = 1024, .targetRecall = 0.0},
                     false});
    cases.push_back({"embed 300-D leaves of 4",
                     cs::makeEmbedPoints(3'000, 300, 23),
                     {.k = 1, .trees = 4, .leafSize = 4, .targetRecall = 0.0},
                     false});
    {
        // 30,000 corners of {0, 1}^64: squared distances are Hamming distances (about 32, a
        // few dozen values), so the k-th place is a tie nearly everywhere.
        PointSet cube;
        cube.dims = 64;
        cube.n = 30'000;
        cs::Random rng(64);
        for (std::size_t i = 0; i < cube.n * cube.dims; ++i)
            cube.coords.push_back(float(rng.next() & 1u));
        cases.push_back({"hypercube corners 64-D",
                         cube,
                         {.k = 20, .trees = 2, .leafSize = 600, .targetRecall = 0.0},
                         false});
    }
    {
        PointSet dup = cs::makeEmbedPoints(12'000, 64, 24);
        for (std::size_t i = 0; i < 4'000; ++i)
            std::copy_n(dup.coords.begin(), 64, dup.coords.begin() + std::ptrdiff_t(64 * (5 + i)));
        cases.push_back({"duplicates, leaves of 2048",
                         dup,
                         {.k = 10, .trees = 2, .leafSize = 2048, .targetRecall = 0.0},
                         true});
        cases.push_back({"duplicates, leaves of 512",
                         dup,
                         {.k = 10, .trees = 2, .leafSize = 512, .targetRecall = 0.0},
                         false});
    }
    {
        PointSet far = cs::makeEmbedPoints(12'000, 96, 25);
        for (std::size_t i = 0; i < far.n; ++i)
            far.coords[96 * i] += (i % 2 ? 2.0e4f : -2.0e4f);
        cases.push_back({"far clusters, leaves of 2048",
                         far,
                         {.k = 5, .trees = 2, .leafSize = 2048, .targetRecall = 0.0},
                         false});
        cases.push_back({"far clusters, leaves of 512",
                         far,
                         {.k = 5, .trees = 2, .leafSize = 512, .targetRecall = 0.0},
                         false});
    }
    for (Case& c : cases) {
        c.params.seed = c.points.n;
        cs::JobControl cpuJob, gpuJob;
        const KnnGraph cpu = cs::knnGraphCpu(c.points, c.params, cpuJob, 0);
        const KnnGraph gpu = g_backend->knnGraph(c.points, c.params, gpuJob);
        CS_CHECK_MSG(firstDifference(cpu, gpu).empty(), c.name + ": " + firstDifference(cpu, gpu));
        CS_CHECK_MSG(cpu.distances == gpu.distances, c.name + ": distances differ");
        const auto timings = gpuJob.timings();
        const bool cudaCores = std::any_of(timings.begin(), timings.end(), [](const auto& t) {
            return t.name == "overflow leaves";
        });
        CS_CHECK_MSG(cudaCores == c.overflows,
                     c.name + (c.overflows ? ": expected leaves on the CUDA cores"
                                           : ": leaves went to the CUDA cores"));
    }
}

// KnnParams::exact on the GPU: the oracle's lists, bit for bit. The tensor cores serve the
// ordinary sets alone (no "exact rows" stage, which is the CUDA cores' search of the rows whose
// candidates overflowed); duplicates, far-apart clusters (norms 10^4 times the neighbour
// distances: every candidate inside the bound's margin), a set wider than the tensor path and
// one of 4 dimensions or fewer reach the CUDA cores and are still exact. An integer lattice
// gives exact ties at the k-th place.
CS_TEST(exactMatchesOracle) {
    struct Case {
        std::string name;
        PointSet points;
        int k;
        bool tensorOnly;
    };
    std::vector<Case> cases;
    cases.push_back({"blobs 8-D", cs::makeBlobPoints(1'000, 8, 3), 10, true});
    cases.push_back({"embed 128-D", cs::makeEmbedPoints(6'000, 128, 4), 10, true});
    cases.push_back({"embed 40-D k=64", cs::makeEmbedPoints(3'001, 40, 5), 64, true});
    cases.push_back({"k = n - 1", cs::makeBlobPoints(40, 5, 6), 39, true});
    {
        // {0..4}^5: 10 neighbours at distance 1, 40 at sqrt 2; k = 11 and 13 cut through ties.
        PointSet grid;
        grid.dims = 5;
        for (int i = 0; i < 3'125; ++i)
            for (int c = 0, v = i; c < 5; ++c, v /= 5)
                grid.coords.push_back(float(v % 5));
        grid.n = 3'125;
        cases.push_back({"lattice k=11", grid, 11, true});
        cases.push_back({"lattice k=13", grid, 13, true});
    }
    // At 4 dimensions and fewer every row goes to the CUDA cores (kExactTensorMinDims).
    cases.push_back({"blobs 3-D", cs::makeBlobPoints(1'000, 3, 3), 10, false});
    {
        PointSet dup = cs::makeBlobPoints(3'000, 3, 7);
        // 1,501 copies of one point: more at distance 0 than a row's buffer holds.
        for (std::size_t i = 0; i < 1'500; ++i)
            std::copy_n(dup.coords.begin(), 3,
                        dup.coords.begin() + std::ptrdiff_t(3 * (1'000 + i)));
        cases.push_back({"duplicates", dup, 10, false});
    }
    {
        PointSet far = cs::makeBlobPoints(2'000, 8, 8);
        for (std::size_t i = 0; i < far.n; ++i)
            far.coords[8 * i] += (i % 2 ? 2.0e4f : -2.0e4f);
        cases.push_back({"far clusters", far, 5, false});
    }
    cases.push_back({"embed 600-D", cs::makeEmbedPoints(1'500, 600, 9), 8, false});
    for (const Case& c : cases) {
        const KnnParams p{.k = c.k, .trees = 1, .exact = true};
        const KnnGraph oracle =
            cs::test::oracleKnnGraph(cs::recentredCoords(c.points), c.points.n, c.points.dims, c.k);
        cs::JobControl job;
        const KnnGraph gpu = g_backend->knnGraph(c.points, p, job);
        CS_CHECK_MSG(gpu.exact, c.name + ": not marked exact");
        CS_CHECK_MSG(gpu.indices == oracle.indices, c.name + ": " + firstDifference(oracle, gpu));
        CS_CHECK_MSG(gpu.distances == oracle.distances, c.name + ": distances differ");
        const auto timings = job.timings();
        const bool cudaCores = std::any_of(timings.begin(), timings.end(),
                                           [](const auto& t) { return t.name == "exact rows"; });
        CS_CHECK_MSG(cudaCores != c.tensorOnly,
                     c.name + (c.tensorOnly ? ": rows went to the CUDA cores"
                                            : ": expected the CUDA cores' search"));
    }
}

// The exact graph of a set that takes several launches (a wave of row tiles each): each
// launch's lists go to the host behind the next launch, and every row arrives once, final.
CS_TEST(exactAcrossLaunches) {
    const std::size_t wave = cs::kernels::knnTensorResidentBlocks(0) * cs::kernels::kKnnTensorTile;
    const PointSet pts = cs::makeUniformPoints(wave * 5 / 2 + 77, 8, 31);
    cs::JobControl cpuJob, gpuJob;
    const KnnParams p{.k = 10, .trees = 1, .exact = true};
    const KnnGraph cpu = cs::knnGraphCpu(pts, p, cpuJob, 0);
    const KnnGraph gpu = g_backend->knnGraph(pts, p, gpuJob);
    CS_CHECK_MSG(gpu.exact, "not marked exact");
    CS_CHECK_MSG(gpu.indices == cpu.indices && gpu.distances == cpu.distances,
                 firstDifference(cpu, gpu));
    const auto timings = gpuJob.timings();
    CS_CHECK_MSG(std::none_of(timings.begin(), timings.end(),
                              [](const auto& t) { return t.name == "exact rows"; }),
                 "rows went to the CUDA cores");
}

// Duplicates (distance 0, ties by index) and points far from the origin.
CS_TEST(tiesAndOffsets) {
    PointSet pts = cs::makeBlobPoints(6'000, 3, 5);
    for (std::size_t i = 0; i < 2'000; ++i)
        std::copy_n(pts.coords.begin() + std::ptrdiff_t(3 * (i % 50)), 3,
                    pts.coords.begin() + std::ptrdiff_t(3 * (1000 + i)));
    expectSame(pts, {.k = 10, .trees = 3, .leafSize = 128, .targetRecall = 0.0}, "duplicates");
    PointSet far = cs::makeBlobPoints(10'000, 3, 6);
    for (std::size_t i = 0; i < far.n; ++i)
        far.coords[3 * i] += 4.0e6f;
    expectSame(far, {.k = 10, .trees = 2, .leafSize = 256, .targetRecall = 0.0}, "offset");
}

// Clouds at 1e-30 and 1e30 (squared distances out of float's range without the recentred
// frame's scale): the same graph as the CPU, and finite distances.
CS_TEST(extremeScales) {
    for (double scale : {1e-30, 0x1p-100, 0x1p100, 1e30}) {
        PointSet pts = cs::makeBlobPoints(20'000, 3, 9);
        for (float& v : pts.coords)
            v = float(double(v) * scale);
        std::ostringstream name;
        name << "blobs x " << scale;
        const KnnGraph g = expectSame(
            pts, {.k = 10, .trees = 2, .leafSize = 256, .targetRecall = 0.0}, name.str());
        CS_CHECK_MSG(std::all_of(g.distances.begin(), g.distances.end(),
                                 [](float v) { return std::isfinite(v); }),
                     name.str() + ": a distance is not finite");
    }
}

// The stopping rule: the same number of trees on both backends, and the target reached.
CS_TEST(targetRecallStops) {
    const PointSet pts = cs::makeBlobPoints(60'000, 3, 21);
    const KnnGraph g = expectSame(
        pts, {.k = 10, .trees = 20, .leafSize = 512, .targetRecall = 0.9, .recallSample = 500},
        "blobs");
    CS_CHECK(g.treesBuilt < 20);
    CS_CHECK(g.recall() >= 0.9);
}

// The real clouds (PCL test data), if the data folder is there.
CS_TEST(realClouds) {
    int found = 0;
    for (const char* file :
         {"points/bunny.pcd", "points/cturtle.pcd", "points/table_scene_mug_stereo_textured.pcd"}) {
        const auto path = cs::test::sharedData(file);
        if (!std::filesystem::exists(path)) continue;
        ++found;
        const PointSet pts = cs::io::readPcd(path);
        expectSame(pts, {.k = 10, .trees = 3, .leafSize = 256, .targetRecall = 0.0},
                   std::string(file) + " (n=" + std::to_string(pts.n) + ")");
    }
    if (found == 0)
        CS_SKIP_MISSING_DATA("no point clouds under " + cs::test::sharedData("points").string() +
                             " (configure with -DCS_SHARED_DATA_DIR=...)");
}

// A million points: the sizes the live view works at.
CS_TEST(millionPoints) {
    const PointSet pts = cs::makeBlobPoints(1'000'000, 3, 1234);
    expectSame(pts, {.k = 10, .trees = 2, .leafSize = 512, .targetRecall = 0.0}, "blobs 1M");
}

// Resident points: no upload, the same graph; the device indices equal the host's.
CS_TEST(residentPointsAndDeviceIndices) {
    auto pts = std::make_shared<const PointSet>(cs::makeBlobPoints(70'000, 3, 8));
    cs::JobControl keep;
    const auto copy = g_backend->keepResident(pts, keep);
    CS_CHECK(copy != nullptr);
    const KnnParams p{.k = 10, .trees = 2, .leafSize = 512, .targetRecall = 0.0};
    cs::JobControl cpuJob, job;
    const KnnGraph cpu = cs::knnGraphCpu(*pts, p, cpuJob, 0);
    const KnnGraph gpu = g_backend->knnGraph(*pts, p, job);
    CS_CHECK_MSG(firstDifference(cpu, gpu).empty(), firstDifference(cpu, gpu));
    for (const auto& t : job.timings())
        CS_CHECK_MSG(t.name != "upload", "resident points uploaded");
    const auto* device = dynamic_cast<const cs::kernels::KnnDeviceGraph*>(gpu.device.get());
    CS_CHECK(device && device->n == pts->n && device->k == 10);
    CS_CHECK(device && device->indices.toHost() == gpu.indices);
    cs::JobControl none;
    g_backend->keepResident(nullptr, none);
}

bool hasStage(const cs::JobControl& job, const std::string& name) {
    for (const auto& t : job.timings())
        if (t.name == name) return true;
    return false;
}

// The trees and recall sample kept between runs on the same device coordinates (the GUI's live
// runs): every graph equals the CPU's (indices, distances, trees built and recall after each
// tree), trees are built only where none is kept, and the sample is searched only for a k above
// the kept one or for new points, seed, leaf size or sample.
CS_TEST(forestKeptBetweenRuns) {
    auto& ctx = static_cast<cs::kernels::CudaBackend&>(*g_backend).context();
    const PointSet pts = cs::makeBlobPoints(60'000, 3, 41);
    cs::JobControl upload;
    const cs::kernels::DevicePoints resident = cs::kernels::uploadRecentred(ctx, pts, upload);
    cs::kernels::KnnForestReuse reuse(std::size_t(1) << 34);
    struct Run {
        KnnParams p;
        bool trees;   // some tree is built
        bool sample;  // the sample's exact lists are searched
        int kept;     // trees kept afterwards
    };
    const KnnParams base{.k = 10, .trees = 3, .leafSize = 256, .targetRecall = 0.0};
    const auto with = [&](auto change) {
        KnnParams p = base;
        change(p);
        return p;
    };
    const std::vector<Run> runs = {
        {base, true, true, 3},
        {with([](KnnParams& p) { p.k = 8; }), false, false, 3},
        {with([](KnnParams& p) { p.k = 12; }), false, true, 3},
        {with([](KnnParams& p) { p.k = 11; }), false, false, 3},
        {with([](KnnParams& p) {
             p.k = 12;
             p.targetRecall = 0.9;
         }),
         false, false, 3},
        {with([](KnnParams& p) { p.trees = 5; }), true, false, 5},
        {with([](KnnParams& p) { p.seed = 2; }), true, true, 3},
        {with([](KnnParams& p) {
             p.seed = 2;
             p.leafSize = 128;
         }),
         true, true, 3},
        {with([](KnnParams& p) {
             p.seed = 2;
             p.leafSize = 128;
             p.recallSample = 100;
         }),
         true, true, 3},
    };
    for (const Run& run : runs) {
        const std::string what = describe("blobs kept", run.p);
        cs::JobControl cpuJob, job;
        const KnnGraph cpu = cs::knnGraphCpu(pts, run.p, cpuJob, 0);
        const KnnGraph gpu =
            cs::kernels::knnGraphCuda(ctx, pts, run.p, job, nullptr, &resident, &reuse);
        CS_CHECK_MSG(firstDifference(cpu, gpu).empty(), what + ": " + firstDifference(cpu, gpu));
        CS_CHECK_MSG(hasStage(job, "tree") == run.trees, what + ": trees built or not");
        CS_CHECK_MSG(hasStage(job, "exact sample") == run.sample, what + ": sample or not");
        CS_CHECK_EQ(reuse.trees(), run.kept);
        // Lists for the next graph are filled meanwhile; the next run (k = 8 after 10, whose
        // spare holds 12 a point) takes and trims them, or (k = 12 after 8) fills its own.
        CS_CHECK_EQ(reuse.spareListSlots(), pts.n * std::size_t(run.p.k + 2));
    }

    // A cancelled run leaves what is kept true for the next.
    cs::JobControl cancelled;
    cancelled.cancel();
    const KnnParams q = with([](KnnParams& p) {
        p.seed = 2;
        p.leafSize = 128;
        p.k = 6;
    });
    CS_CHECK_THROWS(cs::kernels::knnGraphCuda(ctx, pts, q, cancelled, nullptr, &resident, &reuse),
                    cs::Cancelled);
    cs::JobControl cpuJob, job;
    const KnnGraph after = cs::kernels::knnGraphCuda(ctx, pts, q, job, nullptr, &resident, &reuse);
    CS_CHECK_MSG(firstDifference(cs::knnGraphCpu(pts, q, cpuJob, 0), after).empty(),
                 "after a cancelled run");

    // Nothing is kept over the limit: every run builds its trees.
    cs::kernels::KnnForestReuse small(1024);
    for (int k : {10, 8}) {
        cs::JobControl j;
        (void)cs::kernels::knnGraphCuda(ctx, pts, with([k](KnnParams& p) { p.k = k; }), j, nullptr,
                                        &resident, &small);
        CS_CHECK(hasStage(j, "tree"));
        CS_CHECK_EQ(small.trees(), 0);
        CS_CHECK_EQ(small.bytes(), std::size_t(0));
    }
}

// The backend keeps the forest with its resident points: a k change builds no tree.
CS_TEST(residentPointsKeepTheForest) {
    auto pts = std::make_shared<const PointSet>(cs::makeBlobPoints(50'000, 3, 42));
    cs::JobControl keep;
    CS_CHECK(g_backend->keepResident(pts, keep) != nullptr);
    for (const auto& [k, trees] : std::vector<std::pair<int, bool>>{{10, true}, {9, false}}) {
        const KnnParams p{.k = k, .trees = 2, .leafSize = 256, .targetRecall = 0.0};
        cs::JobControl cpuJob, job;
        const KnnGraph gpu = g_backend->knnGraph(*pts, p, job);
        const KnnGraph cpu = cs::knnGraphCpu(*pts, p, cpuJob, 0);
        CS_CHECK_MSG(firstDifference(cpu, gpu).empty(), firstDifference(cpu, gpu));
        CS_CHECK_MSG(hasStage(job, "tree") == trees, describe("resident blobs", p));
    }
    cs::JobControl none;
    g_backend->keepResident(nullptr, none);
}

// Stages are timed, with the names the CPU backend uses.
CS_TEST(stagesAndProgress) {
    const PointSet pts = cs::makeBlobPoints(30'000, 3, 9);
    double last = -1.0;
    bool monotone = true;
    cs::JobControl job([&](double f, std::string_view) {
        monotone &= f >= last;
        last = f;
    });
    (void)g_backend->knnGraph(pts, {.k = 10, .trees = 3, .targetRecall = 0.0}, job);
    CS_CHECK(monotone);
    CS_CHECK_EQ(last, 1.0);
    for (const char* name :
         {"upload", "exact sample", "projection", "tree", "leaf search", "recall", "finish"}) {
        bool seen = false;
        for (const auto& t : job.timings())
            seen |= t.name == name;
        CS_CHECK_MSG(seen, std::string("no stage ") + name);
    }
}

CS_TEST(errorsAreClear) {
    cs::JobControl job;
    const PointSet few = cs::makeBlobPoints(5, 3, 1);
    CS_CHECK_THROWS(g_backend->knnGraph(few, {.k = 10}, job), cs::Error);
    const PointSet pts = cs::makeBlobPoints(2'000, 3, 1);
    CS_CHECK_THROWS(g_backend->knnGraph(pts, {.k = 0}, job), cs::Error);
    CS_CHECK_THROWS(g_backend->knnGraph(pts, {.k = 65}, job), cs::Error);
    CS_CHECK_THROWS(g_backend->knnGraph(pts, {.k = 10, .leafSize = 12}, job), cs::Error);
    PointSet bad = pts;
    bad.coords[100] = std::numeric_limits<float>::quiet_NaN();
    CS_CHECK_THROWS(g_backend->knnGraph(bad, {.k = 10}, job), cs::Error);
    // Far more than the device holds: refused before any allocation.
    bool thrown = false;
    try {
        (void)cs::kernels::knnDeviceBytes(2'000'000'000, 512, {.k = 64});
        PointSet huge;
        huge.n = 1'500'000'000;
        huge.dims = 512;
        // Sizes only: validateKnnInput looks at n and dims; the memory check comes before any
        // read of the (absent) coordinates.
        (void)cs::kernels::knnGraphCuda(
            static_cast<cs::kernels::CudaBackend&>(*g_backend).context(), huge, {.k = 64}, job);
    } catch (const cs::Error& e) {
        thrown = std::string(e.what()).find("GPU memory") != std::string::npos;
        cs::test::info(e.what());
    }
    CS_CHECK(thrown);
    // The context still works afterwards.
    expectSame(pts, {.k = 10, .trees = 2, .leafSize = 256}, "blobs after errors");
}

CS_TEST(cancellation) {
    const PointSet pts = cs::makeBlobPoints(300'000, 3, 99);
    cs::JobControl before;
    before.cancel();
    CS_CHECK_THROWS(g_backend->knnGraph(pts, {.k = 10}, before), cs::Cancelled);
    cs::JobControl* self = nullptr;
    cs::JobControl during([&](double, std::string_view stage) {
        if (stage.starts_with("tree 2")) self->cancel();
    });
    self = &during;
    CS_CHECK_THROWS(g_backend->knnGraph(pts, {.k = 10, .trees = 5, .targetRecall = 0.0}, during),
                    cs::Cancelled);
    expectSame(cs::makeBlobPoints(5'000, 3, 3), {.k = 10, .trees = 2}, "blobs after cancel");
}

// A rank's share of the distributed graph (Backend::knnSearchLeaves): rows whose point indices
// are scattered and out of order, lists already holding indices from elsewhere, leaves of
// uneven sizes in a shuffled order, duplicates (equal distances decided by the index); the CUDA
// lists are the CPU's, bit for bit.
CS_TEST(leafSearchOfAShare) {
    for (std::size_t dims : {3, 8, 33, 70}) {  // 70: on the tensor cores
        for (int k : {5, 16, 40}) {
            const std::size_t rows = 3000;
            cs::Random rng(dims * 100 + std::size_t(k));
            std::vector<float> coords(rows * dims);
            for (auto& c : coords)  // a coarse grid: many equal distances
                c = float(std::floor(rng.uniform() * 6.0)) * 0.5f;
            std::vector<std::int32_t> ids(rows);
            for (std::size_t r = 0; r < rows; ++r)  // distinct, not monotone in the row
                ids[r] = std::int32_t((r * 7919 + 13) % 1'000'003) * 3;
            std::vector<std::uint32_t> order(rows);
            for (std::size_t r = 0; r < rows; ++r)
                order[r] = std::uint32_t(r);
            for (std::size_t r = rows; r > 1; --r)
                std::swap(order[r - 1], order[rng.next() % r]);
            std::vector<std::uint32_t> offsets{0};
            while (offsets.back() < rows)
                offsets.push_back(std::min<std::uint32_t>(
                    std::uint32_t(rows), offsets.back() + 1 + std::uint32_t(rng.next() % 300)));
            // Lists from an earlier tree: k slots of indices that are not among the rows.
            std::vector<float> dist2(rows * std::size_t(k), cs::kKnnEmptyDist2);
            std::vector<std::int32_t> index(rows * std::size_t(k), cs::kKnnEmptyIndex);
            for (std::size_t r = 0; r < rows; ++r)
                for (int q = 0; q < k / 2; ++q)
                    cs::knnOffer(dist2.data() + r * std::size_t(k),
                                 index.data() + r * std::size_t(k), k,
                                 float(std::floor(rng.uniform() * 8.0)) * 0.25f,
                                 std::int32_t(3'000'010 + rng.next() % 1000) * 3 + 1);
            auto gpuDist2 = dist2;
            auto gpuIndex = index;
            cs::JobControl cpuJob, gpuJob;
            cs::CpuBackend cpu(4);
            cpu.knnSearchLeaves({.coords = coords,
                                 .dims = dims,
                                 .order = order,
                                 .leafOffsets = offsets,
                                 .ids = ids,
                                 .k = k,
                                 .dist2 = dist2,
                                 .index = index},
                                4, cpuJob);
            g_backend->knnSearchLeaves({.coords = coords,
                                        .dims = dims,
                                        .order = order,
                                        .leafOffsets = offsets,
                                        .ids = ids,
                                        .k = k,
                                        .dist2 = gpuDist2,
                                        .index = gpuIndex},
                                       1, gpuJob);
            const std::string what = "d=" + std::to_string(dims) + " k=" + std::to_string(k);
            CS_CHECK_MSG(index == gpuIndex, what + ": the neighbour indices differ");
            CS_CHECK_MSG(std::memcmp(dist2.data(), gpuDist2.data(), dist2.size() * 4) == 0,
                         what + ": the squared distances differ");
            // The search did something: most lists gained neighbours from their leaves.
            std::size_t fromLeaves = 0;
            for (const std::int32_t j : index)
                fromLeaves += j >= 0 && j % 3 == 0;
            CS_CHECK_MSG(fromLeaves > index.size() / 4, what + ": the leaves added too little");
        }
    }
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_knn_gpu");
    g_backend = cs::kernels::createCudaBackend();
    const int rc = cs::test::runTests("tst_knn_gpu", argc, argv);
    g_backend.reset();
    return rc;
}
