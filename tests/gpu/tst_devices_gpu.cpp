// SPDX-License-Identifier: MIT
// Several devices in one process (CudaBackend::setDevices): the kNN graph with every tree's
// leaves spread over workers and the ROCKET transforms with the series split over them must give
// exactly what one device gives. On a one-GPU machine the workers share device 0 (two or three
// logical workers, each with its own stream and handles, on their own host threads); with two
// GPUs or more, the real device set is checked too.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/dbscan/dbscan_datasets.h"
#include "compute/io/series_readers.h"
#include "compute/knn/knn_datasets.h"
#include "compute/knn/knn_graph.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket.h"
#include "kernels/cuda_backend.h"
#include "kernels/knn/knn_gpu.h"
#include "tests/common/gpu_cases.h"
#include "tests/common/gpu_test.h"
#include "tests/common/test_paths.h"

using cs::KnnGraph;
using cs::KnnParams;
using cs::PointSet;
using cs::RocketFeatures;
using cs::SeriesSet;

namespace {

using cs::test::firstDifference;
using cs::test::noisySeries;

std::shared_ptr<cs::Backend> g_one;  // device 0 alone: the reference

// Backends on several workers: {0, 0}, {0, 0, 0}, and every real device when there are two or
// more.
std::vector<std::pair<std::string, std::shared_ptr<cs::Backend>>> g_many;

std::shared_ptr<cs::Backend> backendOn(const std::vector<int>& devices) {
    auto backend = cs::kernels::createCudaBackend();
    backend->setDevices(devices);
    return backend;
}

std::string firstDifference(const RocketFeatures& a, const RocketFeatures& b) {
    if (a.n != b.n || a.kernels != b.kernels || a.layers != b.layers ||
        a.values.size() != b.values.size())
        return "shapes differ";
    for (std::size_t e = 0; e < a.values.size(); ++e)
        if (std::memcmp(&a.values[e], &b.values[e], sizeof(float)) != 0) {
            std::ostringstream out;
            out.precision(9);
            out << "series " << e / a.columns() << " column " << e % a.columns() << ": "
                << a.values[e] << " vs " << b.values[e];
            return out.str();
        }
    return {};
}

void expectSameGraph(const PointSet& pts, const KnnParams& p, const std::string& what) {
    cs::JobControl oneJob;
    const KnnGraph one = g_one->knnGraph(pts, p, oneJob);
    for (const auto& [name, backend] : g_many) {
        cs::JobControl job;
        const KnnGraph many = backend->knnGraph(pts, p, job);
        const std::string diff = firstDifference(one, many);
        CS_CHECK_MSG(diff.empty(), what + " on " + name + ": " + diff);
        // The merged indices are on the first device for the point view's edges.
        const auto* device = dynamic_cast<const cs::kernels::KnnDeviceGraph*>(many.device.get());
        CS_CHECK_MSG(device && device->n == pts.n && device->indices.toHost() == many.indices,
                     what + " on " + name + ": device indices");
    }
}

void expectSameRocket(const SeriesSet& s, const std::string& what) {
    const cs::RocketKernels kernels =
        cs::makeRocketKernels({.kernels = 500, .seed = 3}, s.length, s.channels);
    cs::JobControl oneJob;
    const RocketFeatures one = g_one->rocketTransform(s, kernels, oneJob);
    for (const auto& [name, backend] : g_many) {
        cs::JobControl job;
        const RocketFeatures many = backend->rocketTransform(s, kernels, job);
        const std::string diff = firstDifference(one, many);
        CS_CHECK_MSG(diff.empty(), what + " ROCKET on " + name + ": " + diff);
    }
    for (const cs::RocketVariant v :
         {cs::RocketVariant::MiniRocket, cs::RocketVariant::MultiRocket}) {
        cs::JobControl fitJob;
        auto model = cs::makeMiniRocketModel({.kernels = 2'000, .seed = 5, .variant = v}, s,
                                             cs::miniRocketFitRows(s));
        cs::fitMiniRocketBiasesHost(s, model, fitJob);
        cs::JobControl job;
        const RocketFeatures oneMini = g_one->miniRocketTransform(s, model, job);
        for (const auto& [name, backend] : g_many) {
            cs::JobControl manyJob;
            const RocketFeatures many = backend->miniRocketTransform(s, model, manyJob);
            const std::string diff = firstDifference(oneMini, many);
            CS_CHECK_MSG(diff.empty(),
                         what + " " + cs::rocketVariantName(v) + " on " + name + ": " + diff);
        }
    }
}

}  // namespace

CS_TEST(devicesAreListed) {
    CS_CHECK(g_one->devices() == std::vector<int>{0});
    CS_CHECK(g_many.front().second->devices() == (std::vector<int>{0, 0}));
    CS_CHECK_THROWS(backendOn({}), cs::Error);
    CS_CHECK_THROWS(backendOn({g_one->deviceCount()}), cs::Error);
    // Back to one device: as before.
    auto backend = backendOn({0, 0});
    backend->setDevices({0});
    CS_CHECK(backend->devices() == std::vector<int>{0});
}

CS_TEST(knnForestsMatchOneDevice) {
    struct Case {
        std::size_t n, dims;
        int k, leafSize, trees;
        double targetRecall;
    };
    for (const Case& c : {Case{20'000, 3, 10, 256, 4, 0.0}, Case{33'333, 2, 16, 100, 3, 0.0},
                          Case{12'345, 9, 8, 64, 5, 0.0}, Case{40'000, 64, 12, 300, 3, 0.0},
                          Case{25'000, 1, 5, 12, 6, 0.0}, Case{30'000, 3, 10, 128, 12, 0.9},
                          Case{900, 5, 7, 1024, 2, 0.0}}) {
        // The last: one leaf, so some workers have none.
        const PointSet pts = c.dims > 16 ? cs::makeEmbedPoints(c.n, c.dims, c.n)
                                         : cs::makeBlobPoints(c.n, c.dims, c.n);
        const KnnParams p{.k = c.k,
                          .trees = c.trees,
                          .leafSize = c.leafSize,
                          .targetRecall = c.targetRecall,
                          .seed = c.n};
        expectSameGraph(pts, p, "n=" + std::to_string(c.n) + " d=" + std::to_string(c.dims));
    }
}

CS_TEST(knnTiesMatchOneDevice) {
    PointSet pts = cs::makeBlobPoints(6'000, 3, 5);
    for (std::size_t i = 3'000; i < 6'000; ++i)  // every point twice: distance-0 ties
        for (std::size_t j = 0; j < 3; ++j)
            pts.coords[i * 3 + j] = pts.coords[(i - 3'000) * 3 + j];
    expectSameGraph(pts, {.k = 16, .trees = 3, .leafSize = 128, .targetRecall = 0.0}, "dupes");
}

CS_TEST(knnResidentPoints) {
    auto pts = std::make_shared<const PointSet>(cs::makeBlobPoints(50'000, 3, 8));
    for (auto& [name, backend] : g_many) {
        cs::JobControl keep;
        CS_CHECK(backend->keepResident(pts, keep) != nullptr);
    }
    expectSameGraph(*pts, {.k = 10, .trees = 2, .leafSize = 512, .targetRecall = 0.0}, "resident");
    for (auto& [name, backend] : g_many) {
        cs::JobControl none;
        backend->keepResident(nullptr, none);
    }
}

CS_TEST(knnCancellationStopsEveryWorker) {
    const PointSet pts = cs::makeBlobPoints(300'000, 3, 99);
    for (const auto& [name, backend] : g_many) {
        cs::JobControl* self = nullptr;
        cs::JobControl during([&](double, std::string_view stage) {
            if (stage.starts_with("tree 2")) self->cancel();
        });
        self = &during;
        CS_CHECK_THROWS(backend->knnGraph(pts, {.k = 10, .trees = 5, .targetRecall = 0.0}, during),
                        cs::Cancelled);
    }
    expectSameGraph(cs::makeBlobPoints(5'000, 3, 3), {.k = 10, .trees = 2}, "after cancel");
}

CS_TEST(rocketMatchesOneDevice) {
    expectSameRocket(noisySeries(301, 1, 200, 1, true), "univariate ragged");
    expectSameRocket(noisySeries(97, 3, 120, 2, true), "multivariate");
    expectSameRocket(noisySeries(2, 1, 100, 4, true), "fewer series than workers");
    const auto gunPoint = cs::test::sharedData("ucr/GunPoint/GunPoint_TRAIN.ts");
    if (std::filesystem::exists(gunPoint))
        expectSameRocket(cs::io::readSeriesWithSplit(gunPoint), "GunPoint");
}

CS_TEST(rocketFeaturesFitTheRidge) {
    // Several devices leave the features on the host: the ridge uploads them, same model.
    SeriesSet s = noisySeries(200, 1, 150, 9, true);
    s.labels.resize(s.n);
    s.classNames = {"a", "b"};
    for (std::size_t i = 0; i < s.n; ++i)
        s.labels[i] = std::int32_t(i % 2);
    const auto kernels = cs::makeRocketKernels({.kernels = 200, .seed = 1}, s.length, s.channels);
    cs::JobControl a, b, c, d;
    const RocketFeatures one = g_one->rocketTransform(s, kernels, a);
    const RocketFeatures many = g_many.front().second->rocketTransform(s, kernels, b);
    CS_CHECK(many.device == nullptr);
    const cs::RidgeModel m1 = g_one->ridgeFit(one, s.labels, 2, {}, c);
    const cs::RidgeModel m2 = g_many.front().second->ridgeFit(many, s.labels, 2, {}, d);
    CS_CHECK_EQ(m1.alpha, m2.alpha);
    CS_CHECK_EQ(m1.weights.size(), m2.weights.size());
    double largest = 0.0, apart = 0.0;
    for (std::size_t i = 0; i < std::min(m1.weights.size(), m2.weights.size()); ++i) {
        largest = std::max(largest, std::abs(m1.weights[i]));
        apart = std::max(apart, std::abs(m1.weights[i] - m2.weights[i]));
    }
    CS_CHECK(apart <= 1e-9 * largest);
}

CS_TEST(rocketStagesNameTheWorkers) {
    const SeriesSet s = noisySeries(50, 1, 100, 3, true);
    const auto kernels = cs::makeRocketKernels({.kernels = 100}, s.length, s.channels);
    cs::JobControl job;
    (void)g_many.front().second->rocketTransform(s, kernels, job);
    bool first = false, second = false;
    for (const auto& t : job.timings()) {
        first |= t.name == "transform";
        second |= t.name == "transform (worker 1)";
    }
    CS_CHECK(first && second);
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_devices_gpu");
    g_one = cs::kernels::createCudaBackend();
    g_many.emplace_back("workers 0,0", backendOn({0, 0}));
    g_many.emplace_back("workers 0,0,0", backendOn({0, 0, 0}));
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count >= 2) {
        std::vector<int> all(std::size_t(count), 0);
        for (int d = 0; d < count; ++d)
            all[std::size_t(d)] = d;
        g_many.emplace_back("all " + std::to_string(count) + " devices", backendOn(all));
    }
    const int rc = cs::test::runTests("tst_devices_gpu", argc, argv);
    g_many.clear();
    g_one.reset();
    return rc;
}
