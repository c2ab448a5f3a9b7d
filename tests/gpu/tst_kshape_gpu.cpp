// SPDX-License-Identifier: MIT
// GPU k-Shape against the CPU backend (kshapeCpu) and the direct definition (sbdDirect). FFTs and
// eigen solvers round differently, so the checks are: one iteration from the same random labels
// gives the same centroids (to 1e-4) and the same labels; full runs end in a valid k-Shape
// fixed point (every series at its nearest centroid by the direct SBD, up to near-ties) that
// agrees with the class labels as well as the CPU's does. Long series (m > kKShapeDenseSide) take
// the Gram path and, with large clusters too, the matrix-free power iteration on both backends:
// one and two iterations against the CPU on generated sets of each. Multivariate sets (all
// channels together, kshape.h) run the same checks, BasicMotions among the UCR sets by default;
// multivariateMatchesCpu adds JapaneseVowels (12 channels, unequal lengths), one channel of a
// multivariate set, and generated long multichannel series, for up to three iterations (the
// second and third align each channel by its own shift).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/demo/shape_series.h"
#include "compute/io/series_readers.h"
#include "compute/kshape/kshape.h"
#include "compute/kshape/kshape_cpu.h"
#include "kernels/cuda_backend.h"
#include "tests/common/gpu_test.h"
#include "tests/common/test_paths.h"

using cs::KShapeParams;
using cs::KShapeResult;
using cs::SeriesSet;

namespace {

std::shared_ptr<cs::Backend> g_backend;

const char* const kSets[] = {"ucr/ItalyPowerDemand/ItalyPowerDemand_TRAIN.ts",
                             "ucr/ArrowHead/ArrowHead_TRAIN.ts", "ucr/GunPoint/GunPoint_TRAIN.ts",
                             "ucr/BasicMotions/BasicMotions_TRAIN.ts", "ucr/PLAID/PLAID_TRAIN.ts"};

// Every series' label is its nearest centroid by the direct SBD, unless another centroid is
// within `slack`; returns the number of violations.
std::size_t misassigned(const SeriesSet& s, const KShapeParams& p, const KShapeResult& r,
                        double slack) {
    const std::vector<float> x = cs::kshapeInput(s, p.channel);
    const std::size_t cm = r.channels * r.length;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < s.n; ++i) {
        const std::span<const float> xi(x.data() + i * cm, cm);
        const double own = cs::sbdDirect(r.centroid(r.labels[i]), xi, nullptr, r.channels);
        for (int j = 0; j < r.k; ++j)
            if (cs::sbdDirect(r.centroid(j), xi, nullptr, r.channels) < own - slack) {
                ++bad;
                break;
            }
    }
    return bad;
}

}  // namespace

// One iteration from the same random labels: the same shapes and assignment.
CS_TEST(oneIterationMatchesCpu) {
    int found = 0;
    for (const char* file : kSets) {
        if (!std::filesystem::exists(cs::test::sharedData(file))) continue;
        ++found;
        const SeriesSet s = cs::io::readSeriesWithSplit(cs::test::sharedData(file));
        const int k = int(std::max<std::size_t>(s.classCount(), 2));
        // The second iteration aligns the members to the first's shapes; it is comparable while
        // the first gave the same labels everywhere.
        bool sameSoFar = true;
        for (int iterations : {1, 2}) {
            if (!sameSoFar) break;
            const KShapeParams p{.k = k, .maxIterations = iterations, .seed = 7};
            cs::JobControl cpuJob, gpuJob;
            const KShapeResult cpu = cs::kshapeCpu(s, p, cpuJob, 0);
            const KShapeResult gpu = g_backend->kshape(s, p, gpuJob);
            const std::string name =
                std::string(file) + " iterations=" + std::to_string(iterations);
            CS_CHECK_EQ(gpu.iterations, cpu.iterations);
            double worst = 0.0;
            for (std::size_t e = 0; e < cpu.centroids.size(); ++e)
                worst = std::max(worst, double(std::abs(cpu.centroids[e] - gpu.centroids[e])));
            CS_CHECK_MSG(worst <= 2e-3, name + ": centroids differ by " + std::to_string(worst));
            std::size_t differ = 0;
            for (std::size_t i = 0; i < s.n; ++i)
                differ += cpu.labels[i] != gpu.labels[i];
            CS_CHECK_MSG(differ <= s.n / 100,
                         name + ": " + std::to_string(differ) + " labels differ");
            sameSoFar = differ == 0;
            for (std::size_t i = 0; i < s.n; ++i)
                if (cpu.labels[i] == gpu.labels[i])
                    CS_CHECK_NEAR(gpu.distances[i], cpu.distances[i], 1e-4);
        }
    }
    if (found == 0)
        CS_SKIP_MISSING_DATA("no UCR data under " + cs::test::sharedData("ucr").string());
}

// Full runs: a valid fixed point, agreement with the classes like the CPU's.
CS_TEST(fullRunsAreFixedPoints) {
    int found = 0;
    for (const char* file : kSets) {
        if (!std::filesystem::exists(cs::test::sharedData(file))) continue;
        ++found;
        const SeriesSet s = cs::io::readSeriesWithSplit(cs::test::sharedData(file));
        const int k = int(std::max<std::size_t>(s.classCount(), 2));
        const KShapeParams p{.k = k, .maxIterations = 100, .seed = 3};
        cs::JobControl cpuJob, gpuJob;
        const KShapeResult cpu = cs::kshapeCpu(s, p, cpuJob, 0);
        const KShapeResult gpu = g_backend->kshape(s, p, gpuJob);
        const std::string name = file;
        if (gpu.converged) {
            const std::size_t bad = misassigned(s, p, gpu, 1e-4);
            CS_CHECK_MSG(bad == 0, name + ": " + std::to_string(bad) +
                                       " series not at their "
                                       "nearest centroid");
        }
        CS_CHECK_EQ(gpu.channels, cs::kshapeChannelCount(s, p));
        for (std::size_t row = 0; row < std::size_t(gpu.k) * gpu.channels; ++row) {
            double sum = 0.0, squares = 0.0;
            for (std::size_t t = 0; t < gpu.length; ++t) {
                const double v = gpu.centroids[row * gpu.length + t];
                sum += v;
                squares += v * v;
            }
            const double mean = sum / double(gpu.length);
            const double var = squares / double(gpu.length) - mean * mean;
            CS_CHECK_MSG(
                std::abs(mean) < 1e-4 && (std::abs(var - 1.0) < 1e-3 || var < 1e-12),
                name + ": centroid channel " + std::to_string(row) + " is not z-normalised");
        }
        const double riCpu = cs::clusterAgreement(cpu.labels, s.labels).randIndex;
        const double riGpu = cs::clusterAgreement(gpu.labels, s.labels).randIndex;
        cs::test::info(name + ": RI " + std::to_string(riGpu) + " on the GPU, " +
                       std::to_string(riCpu) + " on the CPU; iterations " +
                       std::to_string(gpu.iterations) + " / " + std::to_string(cpu.iterations));
        CS_CHECK_MSG(std::abs(riGpu - riCpu) <= 0.05, name + ": Rand indices differ");
    }
    if (found == 0)
        CS_SKIP_MISSING_DATA("no UCR data under " + cs::test::sharedData("ucr").string());
}

// Long series: the same shapes and labels as the CPU after one and two iterations, with the
// path the clusters take checked first (kshapeShapeSolverFor: Gram for 40 x 20,000, Power for
// 2,100 x 1,100 in two clusters).
CS_TEST(longSeriesMatchCpu) {
    struct Case {
        std::size_t n, m;
        cs::KShapeShapeSolver path;
    };
    for (const Case c : {Case{40, 20000, cs::KShapeShapeSolver::Gram},
                         Case{2100, 1100, cs::KShapeShapeSolver::Power}}) {
        constexpr std::uint64_t kSeed = 11;
        const SeriesSet s = cs::demo::makeShapeSeries(c.n, c.m, 1, kSeed);
        const std::string name = "generated " + std::to_string(c.n) + " x " + std::to_string(c.m) +
                                 " seed " + std::to_string(kSeed);
        bool sameSoFar = true;
        for (int iterations : {1, 2}) {
            if (!sameSoFar) break;
            const KShapeParams p{.k = 2, .maxIterations = iterations, .seed = kSeed};
            cs::JobControl cpuJob, gpuJob;
            const KShapeResult cpu = cs::kshapeCpu(s, p, cpuJob, 0);
            const KShapeResult gpu = g_backend->kshape(s, p, gpuJob);
            const std::string at = name + " iterations=" + std::to_string(iterations);
            if (iterations == 1) {  // the clusters of the first shapes: the random labels
                cs::Random random{kSeed};
                std::vector<std::size_t> sizes(2, 0);
                for (std::size_t i = 0; i < c.n; ++i)
                    ++sizes[random.below(2)];
                for (std::size_t size : sizes)
                    CS_CHECK_MSG(cs::kshapeShapeSolverFor(size, c.m) == c.path,
                                 at + ": a cluster of " + std::to_string(size) +
                                     " does not take the path under test");
            }
            CS_CHECK_EQ(gpu.iterations, cpu.iterations);
            double worst = 0.0;
            for (std::size_t e = 0; e < cpu.centroids.size(); ++e)
                worst = std::max(worst, double(std::abs(cpu.centroids[e] - gpu.centroids[e])));
            cs::test::info(at + ": centroids differ by " + std::to_string(worst) + " at most");
            CS_CHECK_MSG(worst <= 1e-3, at + ": centroids differ by " + std::to_string(worst));
            std::size_t differ = 0;
            for (std::size_t i = 0; i < c.n; ++i)
                differ += cpu.labels[i] != gpu.labels[i];
            CS_CHECK_MSG(differ <= c.n / 100,
                         at + ": " + std::to_string(differ) + " labels differ");
            sameSoFar = differ == 0;
            for (std::size_t i = 0; i < c.n; ++i)
                if (cpu.labels[i] == gpu.labels[i])
                    CS_CHECK_NEAR(gpu.distances[i], cpu.distances[i], 1e-4);
        }
    }
}

// All channels together against the CPU, iteration by iteration while the labels agree: the
// summed cross spectra, the shared shift and each channel's own alignment of the next shapes.
CS_TEST(multivariateMatchesCpu) {
    struct Case {
        std::string name;
        SeriesSet series;
        KShapeParams params;
    };
    std::vector<Case> cases;
    for (const char* file :
         {"ucr/BasicMotions/BasicMotions_TRAIN.ts", "ucr/JapaneseVowels/JapaneseVowels_TRAIN.ts"}) {
        if (!std::filesystem::exists(cs::test::sharedData(file))) continue;
        SeriesSet s = cs::io::readSeriesWithSplit(cs::test::sharedData(file));
        const int k = int(std::max<std::size_t>(s.classCount(), 2));
        cases.push_back({file, s, {.k = k, .seed = 5}});
        if (std::string(file).find("BasicMotions") != std::string::npos)
            cases.push_back(
                {std::string(file) + " channel 4", s, {.k = k, .seed = 5, .channel = 4}});
    }
    // Long channels: each channel's shape on the Gram path (m > kKShapeDenseSide).
    cases.push_back({"generated 60 x 3 x 1500",
                     cs::demo::makeShapeSeries(60, 1500, 3, 13),
                     {.k = 3, .seed = 13}});
    // Unequal lengths made by hand: every third series cut to 70 of 96 samples.
    {
        SeriesSet v = cs::demo::makeShapeSeries(90, 96, 4, 17);
        for (std::size_t i = 0; i < v.n; i += 3) {
            v.lengths[i] = 70;
            for (std::size_t d = 0; d < v.channels; ++d)
                std::fill(v.values.begin() + std::ptrdiff_t((i * v.channels + d) * 96 + 70),
                          v.values.begin() + std::ptrdiff_t((i * v.channels + d + 1) * 96), 0.0f);
        }
        cases.push_back({"generated 90 x 4 x 96, unequal", v, {.k = 4, .seed = 17}});
    }
    for (const Case& c : cases) {
        bool sameSoFar = true;
        for (int iterations : {1, 2, 3}) {
            if (!sameSoFar) break;
            KShapeParams p = c.params;
            p.maxIterations = iterations;
            cs::JobControl cpuJob, gpuJob;
            const KShapeResult cpu = cs::kshapeCpu(c.series, p, cpuJob, 0);
            const KShapeResult gpu = g_backend->kshape(c.series, p, gpuJob);
            const std::string at = c.name + " iterations=" + std::to_string(iterations);
            CS_CHECK_EQ(gpu.channels, cpu.channels);
            CS_CHECK_EQ(gpu.iterations, cpu.iterations);
            CS_CHECK_EQ(gpu.centroids.size(), cpu.centroids.size());
            if (gpu.centroids.size() != cpu.centroids.size()) break;
            double worst = 0.0;
            for (std::size_t e = 0; e < cpu.centroids.size(); ++e)
                worst = std::max(worst, double(std::abs(cpu.centroids[e] - gpu.centroids[e])));
            cs::test::info(at + ": centroids differ by " + std::to_string(worst) + " at most");
            CS_CHECK_MSG(worst <= 2e-3, at + ": centroids differ by " + std::to_string(worst));
            std::size_t differ = 0, shiftsDiffer = 0;
            for (std::size_t i = 0; i < c.series.n; ++i) {
                differ += cpu.labels[i] != gpu.labels[i];
                shiftsDiffer += cpu.labels[i] == gpu.labels[i] && cpu.shifts[i] != gpu.shifts[i];
            }
            CS_CHECK_MSG(differ <= c.series.n / 100,
                         at + ": " + std::to_string(differ) + " labels differ");
            CS_CHECK_MSG(shiftsDiffer <= c.series.n / 100,
                         at + ": " + std::to_string(shiftsDiffer) + " shifts differ");
            sameSoFar = differ == 0;
            for (std::size_t i = 0; i < c.series.n; ++i)
                if (cpu.labels[i] == gpu.labels[i])
                    CS_CHECK_NEAR(gpu.distances[i], cpu.distances[i], 1e-4);
        }
    }
}

CS_TEST(errorsAndCancellation) {
    SeriesSet s = cs::io::readSeriesWithSplit(
        cs::test::sharedData("ucr/ItalyPowerDemand/ItalyPowerDemand_TRAIN.ts"));
    cs::JobControl job;
    CS_CHECK_THROWS(g_backend->kshape(s, {.k = 0}, job), cs::Error);
    CS_CHECK_THROWS(g_backend->kshape(s, {.k = int(s.n) + 1}, job), cs::Error);
    CS_CHECK_THROWS(g_backend->kshape(s, {.k = 2, .channel = 3}, job), cs::Error);
    cs::JobControl cancelled;
    cancelled.cancel();
    CS_CHECK_THROWS(g_backend->kshape(s, {.k = 2}, cancelled), cs::Cancelled);
    cs::JobControl ok;
    const KShapeResult r = g_backend->kshape(s, {.k = 2, .maxIterations = 3}, ok);
    CS_CHECK_EQ(r.labels.size(), s.n);
    // k = 1: one cluster, every series in it.
    cs::JobControl one;
    const KShapeResult single = g_backend->kshape(s, {.k = 1, .maxIterations = 5}, one);
    for (std::int32_t label : single.labels)
        CS_CHECK_EQ(label, 0);
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_kshape_gpu");
    g_backend = cs::kernels::createCudaBackend();
    const int rc = cs::test::runTests("tst_kshape_gpu", argc, argv);
    g_backend.reset();
    return rc;
}
