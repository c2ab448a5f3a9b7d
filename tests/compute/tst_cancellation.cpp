// SPDX-License-Identifier: MIT
// Every CPU job, run with its worst parameters, stops within 100 ms of JobControl::cancel(), so
// that live parameter changes never wait behind a stale job: each case starts the job on a
// thread, cancels after 300 ms and measures the time from cancel() to the cs::Cancelled leaving
// the job.
#include <QTest>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/demo/demo_data.h"
#include "compute/io/point_readers.h"
#include "compute/knn/knn_cpu.h"
#include "compute/kshape/kshape_cpu.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_cpu.h"
#include "tests/common/test_paths.h"

namespace {

using Clock = std::chrono::steady_clock;
using Job = std::function<void(cs::JobControl&)>;

constexpr auto kRunBeforeCancel = std::chrono::milliseconds(300);
constexpr double kLatencyBoundMs = 100.0;

// Uniform points in the unit cube of `dims` dimensions (fixed seed).
cs::PointSet uniformPoints(std::size_t n, std::size_t dims) {
    cs::PointSet p;
    p.n = n;
    p.dims = dims;
    p.coords.resize(n * dims);
    std::mt19937 random(12345);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (auto& c : p.coords)
        c = unit(random);
    return p;
}

const cs::PointSet& cturtle() {
    static const cs::PointSet points =
        cs::io::readPoints(cs::test::sharedData("points/cturtle.pcd"));
    return points;
}

}  // namespace

Q_DECLARE_METATYPE(Job)

class TestCancellation : public QObject {
    Q_OBJECT

private slots:
    void cancelsPromptly_data();
    void cancelsPromptly();
};

void TestCancellation::cancelsPromptly_data() {
    QTest::addColumn<Job>("job");
    const cs::PointSet& turtle = cturtle();
    QVERIFY2(turtle.n > 100'000, "cturtle.pcd should hold ~167k points");
    // A cube's eps that covers every cloud here (coordinates are in metres or the unit cube).
    constexpr float kHugeEps = 1.0e4f;
    QTest::newRow("kdist k=100000 cturtle")
        << Job([&turtle](cs::JobControl& job) { cs::kDistanceCpu(turtle, 100'000, job); });
    QTest::newRow("kdist k=n cturtle")
        << Job([&turtle](cs::JobControl& job) { cs::kDistanceCpu(turtle, int(turtle.n), job); });
    QTest::newRow("kdist k=1000 cturtle (tree)")
        << Job([&turtle](cs::JobControl& job) { cs::kDistanceCpu(turtle, 1000, job); });
    // The grid path is left out: it settles an eps that covers the cloud cell by cell, well
    // within the 300 ms.
    for (const auto path : {cs::DbscanPath::KdTree, cs::DbscanPath::Brute}) {
        const std::string name =
            std::string("dbscan ") + std::string(cs::toString(path)) + " eps covers cturtle";
        QTest::newRow(name.c_str()) << Job([&turtle, path](cs::JobControl& job) {
            cs::dbscanCpu(turtle, {.eps = kHugeEps, .minPts = 10, .path = path}, job);
        });
    }
    // Sweeps: the grid's counts and cells, and the kd-tree's searches with an eps that covers
    // the cloud.
    QTest::newRow("dbscan sweep grid cturtle") << Job([&turtle](cs::JobControl& job) {
        cs::dbscanSweepCpu(turtle, cs::defaultDbscanSweep(0.02f), job);
    });
    QTest::newRow("dbscan sweep kdtree eps covers cturtle") << Job([&turtle](cs::JobControl& job) {
        cs::dbscanSweepCpu(
            turtle, {.eps = {1.0f, kHugeEps}, .minPts = {3, 10}, .path = cs::DbscanPath::KdTree},
            job);
    });
    static const cs::PointSet wide = uniformPoints(200'000, 16);
    QTest::newRow("dbscan kdtree eps covers 200k x 16") << Job([](cs::JobControl& job) {
        cs::dbscanCpu(wide, {.eps = kHugeEps, .minPts = 10, .path = cs::DbscanPath::KdTree}, job);
    });
    QTest::newRow("dbscan brute eps covers 200k x 16") << Job([](cs::JobControl& job) {
        cs::dbscanCpu(wide, {.eps = kHugeEps, .minPts = 10, .path = cs::DbscanPath::Brute}, job);
    });
    static const cs::PointSet deep = uniformPoints(200'000, 128);
    QTest::newRow("knn exact sample 200k x 128") << Job([](cs::JobControl& job) {
        cs::knnGraphCpu(deep, {.k = cs::kKnnMaxK, .trees = 100, .leafSize = cs::kKnnMaxLeafSize},
                        job);
    });
    QTest::newRow("knn leaf search 200k x 128") << Job([](cs::JobControl& job) {
        cs::knnGraphCpu(deep,
                        {.k = cs::kKnnMaxK,
                         .trees = 100,
                         .leafSize = cs::kKnnMaxLeafSize,
                         .targetRecall = 0.0,
                         .recallSample = 1},
                        job);
    });
    // Length 256: the centroid's dense m x m eigensolve (Eigen, no checkpoint inside) takes
    // ~1 s at m = 1024 on one core; at 256 it is a few ms.
    static const cs::SeriesSet series = cs::demo::makeDemoSeries(20'000, 256, 5);
    QTest::newRow("kshape k=200 20000 x 256") << Job(
        [](cs::JobControl& job) { cs::kshapeCpu(series, {.k = 200, .maxIterations = 100}, job); });
    // Few series: the features are n x 2 x 100000 floats, allocated before any checkpoint.
    static const cs::SeriesSet fewLong = cs::demo::makeDemoSeries(200, 4096, 5);
    static const cs::RocketKernels kernels =
        cs::makeRocketKernels({.kernels = cs::kRocketMaxKernels}, fewLong.length, 1);
    QTest::newRow("rocket 100000 kernels 200 x 4096")
        << Job([](cs::JobControl& job) { cs::rocketTransformCpu(fewLong, kernels, job); });
    // MiniRocket / MultiRocket at the most features, on a few long series: the biases' fit (a
    // sorted convolution per combination) and the transform (a check per kernel and dilation).
    static const cs::SeriesSet veryLong = cs::demo::makeDemoSeries(4, 200'000, 2);
    static const cs::RocketParams multi{.kernels = cs::kRocketMaxKernels,
                                        .variant = cs::RocketVariant::MultiRocket};
    QTest::newRow("multirocket biases 100000 x 8 features 4 x 200000")
        << Job([](cs::JobControl& job) {
               auto m = cs::makeMiniRocketModel(multi, veryLong, cs::miniRocketFitRows(veryLong));
               cs::fitMiniRocketBiasesHost(veryLong, m, job);
           });
    static const cs::MiniRocketModel unfitted = [] {
        auto m = cs::makeMiniRocketModel(multi, veryLong, cs::miniRocketFitRows(veryLong));
        for (auto& rep : m.representations)
            rep.biases.assign(rep.featureCount(), 0.0f);  // any biases: the work is the same
        return m;
    }();
    QTest::newRow("multirocket transform 100000 x 8 features 4 x 200000")
        << Job([](cs::JobControl& job) { cs::miniRocketTransformHost(veryLong, unfitted, job); });
}

void TestCancellation::cancelsPromptly() {
    QFETCH(Job, job);
    // The latency is the time to the job's next check: the code decides it, but a loaded machine
    // (ctest -j on two cores) can stretch one measurement. Up to three tries: a job that checks
    // too rarely fails every one of them.
    std::vector<double> tries;
    for (int attempt = 0; attempt < 3; ++attempt) {
        cs::JobControl control;
        std::optional<Clock::time_point> thrown;
        bool cancelled = false, finished = false;
        std::string other;
        std::thread worker([&] {
            try {
                job(control);
                finished = true;
            } catch (const cs::Cancelled&) {
                thrown = Clock::now();
                cancelled = true;
            } catch (const std::exception& e) {
                other = e.what();
            }
        });
        std::this_thread::sleep_for(kRunBeforeCancel);
        const auto cancelAt = Clock::now();
        control.cancel();
        worker.join();
        QVERIFY2(other.empty(), ("the job failed: " + other).c_str());
        QVERIFY2(!finished,
                 "the job finished within 300 ms: its parameters no longer test a cancel");
        QVERIFY(cancelled && thrown);
        tries.push_back(std::chrono::duration<double, std::milli>(*thrown - cancelAt).count());
        qInfo("%s: cancel -> cs::Cancelled in %.1f ms", QTest::currentDataTag(), tries.back());
        if (tries.back() <= kLatencyBoundMs) return;
    }
    QFAIL(qPrintable(QString("every try took more than %1 ms (fastest %2 ms)")
                         .arg(kLatencyBoundMs)
                         .arg(*std::min_element(tries.begin(), tries.end()))));
}

QTEST_GUILESS_MAIN(TestCancellation)
#include "tst_cancellation.moc"
