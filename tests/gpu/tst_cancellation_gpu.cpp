// SPDX-License-Identifier: MIT
// Every CUDA job, run with parameters that keep an H200 busy for seconds, stops within 100 ms
// of JobControl::cancel(), so that live parameter changes never wait behind a stale job: the
// host code checkpoints between kernel batches. Each case starts the job on a thread, cancels after
// 300 ms and measures the time from cancel() to the cs::Cancelled leaving the job. The mirror of
// tests/compute/tst_cancellation.cpp.
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "compute/backend/backend.h"
#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/demo/demo_data.h"
#include "compute/knn/knn_graph.h"
#include "compute/rocket/rocket.h"
#include "kernels/cuda_backend.h"
#include "tests/common/gpu_test.h"

namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<cs::Backend> g_backend;

constexpr auto kRunBeforeCancel = std::chrono::milliseconds(300);
constexpr double kLatencyBoundMs = 100.0;

// Uniform points in the unit cube (fixed seed).
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

// Runs job on a thread, cancels it after kRunBeforeCancel and checks that cs::Cancelled leaves
// it within kLatencyBoundMs of the cancel.
void checkCancelsPromptly(const std::string& name,
                          const std::function<void(cs::JobControl&)>& job) {
    cs::JobControl control;
    std::optional<Clock::time_point> thrown;
    bool finished = false;
    std::string other;
    std::thread worker([&] {
        try {
            job(control);
            finished = true;
        } catch (const cs::Cancelled&) {
            thrown = Clock::now();
        } catch (const std::exception& e) {
            other = e.what();
        }
    });
    std::this_thread::sleep_for(kRunBeforeCancel);
    const auto cancelAt = Clock::now();
    control.cancel();
    worker.join();
    CS_CHECK_MSG(other.empty(), name + ": the job failed: " + other);
    CS_CHECK_MSG(!finished, name + ": finished within 300 ms, its parameters test no cancel");
    CS_CHECK_MSG(thrown.has_value(), name + ": no cs::Cancelled");
    const double ms = std::chrono::duration<double, std::milli>(*thrown - cancelAt).count();
    cs::test::info(name + ": cancel -> cs::Cancelled in " + std::to_string(ms) + " ms");
    CS_CHECK_MSG(ms <= kLatencyBoundMs, name + ": took " + std::to_string(ms) + " ms");
}

}  // namespace

CS_TEST(dbscanBruteEpsCoversCloud) {
    const cs::PointSet points = uniformPoints(4'000'000, 32);
    checkCancelsPromptly("dbscan brute 4M x 32, eps covers the cloud", [&](cs::JobControl& job) {
        g_backend->dbscan(points, {.eps = 1.0e4f, .minPts = 10, .path = cs::DbscanPath::Brute},
                          job);
    });
}

// No grid case: with eps covering the cloud the grid path finishes 20M points in under 300 ms
// on the H200 (minPts 10 or 100000), so there is no run long enough to cancel.

CS_TEST(kDistanceBruteLargestK) {
    const cs::PointSet points = uniformPoints(4'000'000, 32);
    checkCancelsPromptly("kdist brute 4M x 32, k = 256",
                         [&](cs::JobControl& job) { g_backend->kDistance(points, 256, job); });
}

CS_TEST(knnBigLeaves) {
    const cs::PointSet points = uniformPoints(4'000'000, 128);
    checkCancelsPromptly("knn 4M x 128, leaf 2048, k 64, 100 trees", [&](cs::JobControl& job) {
        g_backend->knnGraph(
            points,
            {.k = cs::kKnnMaxK, .trees = 100, .leafSize = cs::kKnnMaxLeafSize, .targetRecall = 0.0},
            job);
    });
}

CS_TEST(kshapeManySeries) {
    const cs::SeriesSet series = cs::demo::makeDemoSeries(100'000, 1024, 5);
    checkCancelsPromptly("kshape 100000 x 1024, k 100", [&](cs::JobControl& job) {
        g_backend->kshape(series, {.k = 100, .maxIterations = 100}, job);
    });
}

CS_TEST(rocketMostKernels) {
    const cs::SeriesSet series = cs::demo::makeDemoSeries(2'000, 4096, 5);
    const cs::RocketKernels kernels =
        cs::makeRocketKernels({.kernels = cs::kRocketMaxKernels}, series.length, 1);
    checkCancelsPromptly("rocket 2000 x 4096, 100000 kernels", [&](cs::JobControl& job) {
        g_backend->rocketTransform(series, kernels, job);
    });
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_cancellation_gpu");
    g_backend = cs::kernels::createCudaBackend();
    const int rc = cs::test::runTests("tst_cancellation_gpu", argc, argv);
    g_backend.reset();
    return rc;
}
