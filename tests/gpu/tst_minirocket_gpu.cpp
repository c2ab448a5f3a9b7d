// SPDX-License-Identifier: MIT
// GPU MiniRocket and MultiRocket against the CPU backend (miniRocketTransformHost): PPV, MIPV and
// LSPV bit-identical, MPV within one unit in the last place (minirocket_kernels.cu says why).
// Real UCR/UEA sets cover univariate, multivariate and unequal-length data; generated series
// cover long ones (a global workspace instead of shared memory), ragged ones and test series
// longer than the fitting ones.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/io/series_readers.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket_pipeline.h"
#include "kernels/cuda_backend.h"
#include "kernels/rocket/minirocket_launch.h"
#include "kernels/rocket/rocket_gpu.h"
#include "tests/common/gpu_cases.h"
#include "tests/common/gpu_test.h"
#include "tests/common/test_paths.h"

using cs::MiniRocketModel;
using cs::RocketFeatures;
using cs::RocketVariant;
using cs::SeriesSet;

namespace {

using cs::test::noisySeries;

std::shared_ptr<cs::Backend> g_backend;

// Units in the last place between two floats of the same sign (huge when they differ in sign).
std::int64_t ulps(float a, float b) {
    if (std::memcmp(&a, &b, sizeof a) == 0) return 0;
    if ((a < 0) != (b < 0)) return a == b ? 0 : INT64_MAX;
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, sizeof a);
    std::memcpy(&ib, &b, sizeof b);
    return std::llabs(std::int64_t(ia) - std::int64_t(ib));
}

// The first feature where the GPU's differ from the CPU's beyond the stated tolerance, or empty.
std::string firstDifference(const RocketFeatures& cpu, const RocketFeatures& gpu,
                            std::size_t poolings, std::size_t* mpvOffByOne) {
    if (cpu.n != gpu.n || cpu.kernels != gpu.kernels || cpu.layers != gpu.layers ||
        cpu.values.size() != gpu.values.size())
        return "shapes differ";
    static const char* const names[] = {"PPV", "MPV", "MIPV", "LSPV"};
    for (std::size_t e = 0; e < cpu.values.size(); ++e) {
        const std::size_t layer = e % cpu.layers, pooling = layer % poolings;
        const std::int64_t off = ulps(cpu.values[e], gpu.values[e]);
        if (off == 0) continue;
        if (pooling == 1 && off == 1) {
            ++*mpvOffByOne;
            continue;
        }
        std::ostringstream out;
        out.precision(9);
        out << "series " << e / cpu.columns() << " feature " << (e % cpu.columns()) / cpu.layers
            << " representation " << layer / poolings << " " << names[pooling] << ": "
            << cpu.values[e] << " vs " << gpu.values[e];
        return out.str();
    }
    return {};
}

MiniRocketModel fitted(const SeriesSet& s, RocketVariant variant, int kernels, std::uint64_t seed) {
    cs::JobControl job;
    auto m = cs::makeMiniRocketModel({.kernels = kernels, .seed = seed, .variant = variant}, s,
                                     cs::miniRocketFitRows(s));
    cs::fitMiniRocketBiasesHost(s, m, job);
    return m;
}

// CPU and GPU features of `series` under `model` agree; returns the GPU's.
RocketFeatures expectSame(const SeriesSet& series, const MiniRocketModel& model,
                          const std::string& what) {
    cs::JobControl cpuJob, gpuJob;
    const RocketFeatures cpu = cs::miniRocketTransformHost(series, model, cpuJob);
    RocketFeatures gpu = g_backend->miniRocketTransform(series, model, gpuJob);
    std::size_t offByOne = 0;
    const std::string diff = firstDifference(cpu, gpu, model.poolings(), &offByOne);
    CS_CHECK_MSG(diff.empty(), what + ": " + diff);
    if (offByOne > 0)
        std::cout << "  " << what << ": " << offByOne << " MPV values one unit apart\n";
    return gpu;
}

SeriesSet readShared(const char* file) {
    return cs::io::readSeriesWithSplit(cs::test::sharedData(file));
}

void bothVariants(const SeriesSet& s, int kernels, const std::string& what) {
    for (const RocketVariant v : {RocketVariant::MiniRocket, RocketVariant::MultiRocket})
        expectSame(s, fitted(s, v, kernels, 7), what + " " + cs::rocketVariantName(v));
}

}  // namespace

CS_TEST(univariateSet) {
    bothVariants(readShared("ucr/GunPoint/GunPoint_TRAIN.ts"), 10'000, "GunPoint");
}

CS_TEST(multivariateSet) {
    bothVariants(readShared("ucr/BasicMotions/BasicMotions_TRAIN.ts"), 2'000, "BasicMotions");
}

CS_TEST(unequalLengthSet) {
    bothVariants(readShared("ucr/JapaneseVowels/JapaneseVowels_TRAIN.ts"), 2'000, "JapaneseVowels");
}

// Short series (small blocks), ragged lengths down to 12 samples (combinations with no
// unpadded output), and few features per kernel.
CS_TEST(raggedGenerated) {
    bothVariants(noisySeries(40, 1, 300, 3, true), 840, "ragged univariate");
    bothVariants(noisySeries(25, 3, 200, 4, true), 1'000, "ragged 3 channels");
}

// 30,000 samples do not fit in shared memory: the blocks work in a global workspace.
CS_TEST(longSeriesUseWorkspace) {
    bothVariants(noisySeries(6, 1, 30'000, 5, false), 1'000, "30,000 samples");
}

// Every strip length of the univariate kernel but GunPoint's 7 (S = 15 at 10,000 samples, 13,
// 11 and 9 below), with dilations up to an eighth of the series (most warps' outputs reach
// into the padding), on a large offset: 3 x becomes coarse, so many outputs tie each other and
// the biases taken from them, and outputs near the padding are far larger than their excess
// over the bias (MPV's sums).
CS_TEST(everyStrip) {
    const std::pair<std::size_t, int> cases[] = {
        {10'000, 15}, {8'300, 13}, {7'000, 11}, {5'000, 9}};
    for (const auto& [length, strip] : cases) {
        SeriesSet s = noisySeries(3, 1, length, 11 + length, false);
        for (float& v : s.values)
            v += 1.0e4f;
        for (const RocketVariant v : {RocketVariant::MiniRocket, RocketVariant::MultiRocket}) {
            const MiniRocketModel m = fitted(s, v, 2'000, 5);
            cs::kernels::MiniRocketView view;
            view.poolings = std::int32_t(m.poolings());
            for (const auto& rep : m.representations) {
                view.largestDilation = std::max(view.largestDilation, rep.dilations.back());
                for (const auto f : rep.featuresPerDilation)
                    view.mostFeaturesPerDilation = std::max(view.mostFeaturesPerDilation, f);
            }
            const std::string what =
                std::to_string(length) + " samples " + cs::rocketVariantName(v);
            CS_CHECK_MSG(cs::kernels::planMiniRocketLaunch(1, length, view, 132).strip == strip,
                         what + ": not the strip this case is for");
            expectSame(s, m, what);
        }
    }
}

// A model fitted on short series applied to longer ones (dilations fitted for the short ones).
CS_TEST(longerTestSeries) {
    const SeriesSet train = noisySeries(20, 1, 100, 8, false);
    const SeriesSet test = noisySeries(10, 1, 2'000, 9, true);
    for (const RocketVariant v : {RocketVariant::MiniRocket, RocketVariant::MultiRocket})
        expectSame(test, fitted(train, v, 1'000, 2),
                   std::string("longer ") + cs::rocketVariantName(v));
}

// The features stay on the device with the model's layers, for the ridge and the feature map.
CS_TEST(featuresStayOnDevice) {
    const SeriesSet s = readShared("ucr/GunPoint/GunPoint_TRAIN.ts");
    const MiniRocketModel m = fitted(s, RocketVariant::MultiRocket, 840, 1);
    cs::JobControl job;
    const RocketFeatures f = g_backend->miniRocketTransform(s, m, job);
    const auto* device = dynamic_cast<const cs::kernels::RocketDeviceFeatures*>(f.device.get());
    CS_CHECK(device != nullptr);
    CS_CHECK_EQ(device->layers(), std::size_t(8));
    CS_CHECK_EQ(device->columns(), f.kernels);
    std::vector<float> back(f.values.size());
    CS_CHECK_EQ(cudaMemcpy(back.data(), device->values.data(), back.size() * sizeof(float),
                           cudaMemcpyDeviceToHost),
                cudaSuccess);
    CS_CHECK(std::memcmp(back.data(), f.values.data(), back.size() * sizeof(float)) == 0);
}

// The whole pipeline (fit on the backend, transform, ridge) predicts the CPU's classes.
CS_TEST(pipelineMatchesCpu) {
    const SeriesSet s = readShared("ucr/ItalyPowerDemand/ItalyPowerDemand_TRAIN.ts");
    cs::CpuBackend cpuBackend;
    for (const RocketVariant v : {RocketVariant::MiniRocket, RocketVariant::MultiRocket}) {
        cs::JobControl a, b;
        const cs::RocketParams params{.kernels = 2'000, .seed = 3, .variant = v};
        const auto tc = cs::fitRocketTransform(cpuBackend, params, s, a);
        const auto tg = cs::fitRocketTransform(*g_backend, params, s, b);
        CS_CHECK(tc.model->representations.front().biases ==
                 tg.model->representations.front().biases);
        const RocketFeatures fc = cs::applyRocketTransform(cpuBackend, tc, s, a);
        const RocketFeatures fg = cs::applyRocketTransform(*g_backend, tg, s, b);
        std::size_t offByOne = 0;
        CS_CHECK_MSG(firstDifference(fc, fg, tc.model->poolings(), &offByOne).empty(),
                     cs::rocketVariantName(v));
    }
}

// Cancelling stops between launches with cs::Cancelled and leaves the backend usable.
CS_TEST(cancelStops) {
    const SeriesSet s = noisySeries(400, 1, 3'000, 11, false);
    const MiniRocketModel m = fitted(s, RocketVariant::MiniRocket, 10'000, 1);
    cs::JobControl job;
    job.cancel();
    bool cancelled = false;
    try {
        g_backend->miniRocketTransform(s, m, job);
    } catch (const cs::Cancelled&) {
        cancelled = true;
    }
    CS_CHECK(cancelled);
    expectSame(noisySeries(3, 1, 500, 12, false),
               fitted(noisySeries(3, 1, 500, 12, false), RocketVariant::MiniRocket, 840, 1),
               "after a cancel");
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_minirocket_gpu");
    g_backend = cs::kernels::createCudaBackend();
    const int rc = cs::test::runTests("tst_minirocket_gpu", argc, argv);
    g_backend.reset();
    return rc;
}
