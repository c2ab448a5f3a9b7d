// SPDX-License-Identifier: MIT
// GPU ROCKET against the CPU backend (rocketTransformCpu): every feature must be bit-identical,
// since both follow compute/rocket/rocket.h's float sums exactly. Real UCR/UEA sets cover
// univariate, multivariate and variable-length data; generated series cover long ones (read from
// global memory instead of shared) and odd kernel counts.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/core/random.h"
#include "compute/demo/shape_series.h"
#include "compute/io/series_readers.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_cpu.h"
#include "kernels/cuda_backend.h"
#include "kernels/rocket/rocket_gpu.h"
#include "tests/common/error_of.h"
#include "tests/common/gpu_test.h"
#include "tests/common/test_paths.h"

using cs::RocketFeatures;
using cs::RocketKernels;
using cs::SeriesSet;

namespace {

std::shared_ptr<cs::Backend> g_backend;

std::string firstDifference(const RocketFeatures& a, const RocketFeatures& b) {
    if (a.n != b.n || a.kernels != b.kernels || a.values.size() != b.values.size())
        return "shapes differ";
    for (std::size_t e = 0; e < a.values.size(); ++e)
        if (std::memcmp(&a.values[e], &b.values[e], sizeof(float)) != 0) {
            std::ostringstream out;
            out.precision(9);
            const std::size_t series = e / a.columns(), column = e % a.columns();
            out << "series " << series << " kernel " << column / 2
                << (column % 2 ? " MAX " : " PPV ") << a.values[e] << " vs " << b.values[e];
            return out.str();
        }
    return {};
}

// CPU and GPU features of series under kernels, identical; returns the GPU ones.
RocketFeatures expectSame(const SeriesSet& series, const RocketKernels& kernels,
                          const std::string& what) {
    cs::JobControl cpuJob, gpuJob;
    const RocketFeatures cpu = cs::rocketTransformCpu(series, kernels, cpuJob, 0);
    RocketFeatures gpu = g_backend->rocketTransform(series, kernels, gpuJob);
    const std::string diff = firstDifference(cpu, gpu);
    CS_CHECK_MSG(diff.empty(), what + ": " + diff);
    return gpu;
}

SeriesSet readShared(const char* file) {
    return cs::io::readSeriesWithSplit(cs::test::sharedData(file));
}

// n noisy series of `length` samples and `channels` channels, some shorter than the rest.
SeriesSet generated(std::size_t n, std::size_t channels, std::size_t length, std::uint64_t seed,
                    bool ragged) {
    cs::Random rng(seed);
    SeriesSet s;
    s.n = n;
    s.channels = channels;
    s.length = length;
    s.values.assign(n * channels * length, 0.0f);
    s.lengths.assign(n, std::uint32_t(length));
    for (std::size_t i = 0; i < n; ++i) {
        if (ragged && i % 3 == 1) s.lengths[i] = std::uint32_t(length / 2 + rng.below(length / 2));
        const double f = 0.01 + 0.05 * rng.uniform();
        for (std::size_t c = 0; c < channels; ++c)
            for (std::size_t t = 0; t < s.lengths[i]; ++t)
                s.values[(i * channels + c) * length + t] =
                    float(std::sin(f * double(t) + double(c)) + 0.3 * rng.normal());
    }
    return s;
}

// The first way two ridge models of the same data differ beyond double rounding, or empty:
// the alpha, the leave-one-out accuracy, the leave-one-out errors within 1e-9 (1 + error), the
// intercepts within 1e-12, the weights within 1e-8 of the largest.
std::string ridgeDifference(const cs::RidgeModel& a, const cs::RidgeModel& b) {
    std::ostringstream out;
    out.precision(17);
    if (a.alpha != b.alpha) {
        out << "alpha " << a.alpha << " vs " << b.alpha;
        return out.str();
    }
    if (a.looAccuracy != b.looAccuracy) {
        out << "LOO accuracy " << a.looAccuracy << " vs " << b.looAccuracy;
        return out.str();
    }
    if (a.looError.size() != b.looError.size()) return "looError sizes differ";
    for (std::size_t i = 0; i < a.looError.size(); ++i)
        if (!(std::abs(a.looError[i] - b.looError[i]) <= 1e-9 * (1.0 + a.looError[i]))) {
            out << "alpha " << a.alphas[i] << ": LOO error " << a.looError[i] << " vs "
                << b.looError[i];
            return out.str();
        }
    if (a.intercept.size() != b.intercept.size()) return "intercept counts differ";
    for (std::size_t k = 0; k < a.intercept.size(); ++k)
        if (!(std::abs(a.intercept[k] - b.intercept[k]) <= 1e-12)) return "intercepts differ";
    if (a.weights.size() != b.weights.size()) return "weight counts differ";
    double largest = 0.0, worst = 0.0;
    for (std::size_t e = 0; e < a.weights.size(); ++e) {
        largest = std::max(largest, std::abs(a.weights[e]));
        worst = std::max(worst, std::abs(a.weights[e] - b.weights[e]));
    }
    if (!(worst <= 1e-8 * largest)) {
        out << "weights differ by " << worst << " (largest " << largest << ")";
        return out.str();
    }
    return {};
}

// The stage that says which path a fit took: "gram" or "covariance".
std::string ridgePath(const cs::JobControl& job) {
    for (const auto& t : job.timings())
        if (t.name == "gram" || t.name == "covariance") return t.name;
    return "none";
}

// n generated series of 4 classes, the first `train` labelled.
struct LabelledFeatures {
    RocketFeatures features;
    std::vector<std::int32_t> train;
    int classes = 0;
};
LabelledFeatures shapeFeatures(std::size_t n, std::size_t train, int kernels) {
    const SeriesSet s = cs::demo::makeShapeSeries(n, 64, 1, 13);
    LabelledFeatures out;
    cs::JobControl job;
    out.features = g_backend->rocketTransform(
        s, cs::makeRocketKernels({.kernels = kernels, .seed = 5}, 64, 1), job);
    out.train.assign(s.labels.begin(), s.labels.end());
    std::fill(out.train.begin() + std::ptrdiff_t(train), out.train.end(), -1);
    out.classes = int(s.classCount());
    return out;
}

}  // namespace

CS_TEST(ucrSetsMatchCpu) {
    int found = 0;
    for (const char* file :
         {"ucr/GunPoint/GunPoint_TRAIN.ts", "ucr/ItalyPowerDemand/ItalyPowerDemand_TRAIN.ts",
          "ucr/BasicMotions/BasicMotions_TRAIN.ts", "ucr/JapaneseVowels/JapaneseVowels_TRAIN.ts",
          "ucr/PLAID/PLAID_TRAIN.ts", "ucr/ArrowHead/ArrowHead_TRAIN.ts"}) {
        if (!std::filesystem::exists(cs::test::sharedData(file))) continue;
        ++found;
        const SeriesSet s = readShared(file);
        for (int kernels : {1, 37, 2'000}) {
            const RocketKernels k = cs::makeRocketKernels(
                {.kernels = kernels, .seed = std::uint64_t(kernels)}, s.length, s.channels);
            expectSame(s, k, std::string(file) + " kernels=" + std::to_string(kernels));
        }
        // The raw channels (RocketParams::normalise off), each series over its own length.
        const RocketKernels raw = cs::makeRocketKernels(
            {.kernels = 500, .seed = 4, .normalise = false}, s.length, s.channels);
        expectSame(s, raw, std::string(file) + " not normalised");
    }
    if (found == 0)
        CS_SKIP_MISSING_DATA("no UCR data under " + cs::test::sharedData("ucr").string());
}

// Long series (beyond shared memory), multivariate, ragged, constant series.
CS_TEST(generatedSeriesMatchCpu) {
    struct Case {
        std::size_t n, channels, length;
        int kernels;
        bool ragged;
    };
    for (const Case& c :
         {Case{40, 1, 30'000, 300, false}, Case{64, 3, 9'000, 500, true},
          Case{500, 1, 12, 1'000, true}, Case{7, 2, 2, 50, false}, Case{300, 5, 200, 777, true}}) {
        SeriesSet s = generated(c.n, c.channels, c.length, c.n * 31 + c.length, c.ragged);
        // One constant series: it normalises to zeros.
        std::fill_n(s.values.begin(), c.channels * c.length, 2.5f);
        const RocketKernels k =
            cs::makeRocketKernels({.kernels = c.kernels, .seed = c.length}, c.length, c.channels);
        expectSame(s, k,
                   "n=" + std::to_string(c.n) + " C=" + std::to_string(c.channels) +
                       " L=" + std::to_string(c.length));
    }
}

// The device copy equals the host features; the classifier sees the same numbers.
CS_TEST(deviceFeaturesAndClassifier) {
    const auto file = cs::test::sharedData("ucr/GunPoint/GunPoint_TRAIN.ts");
    if (!std::filesystem::exists(file)) CS_SKIP_MISSING_DATA("missing " + file.string());
    const SeriesSet s = cs::io::readSeriesWithSplit(file);
    const RocketKernels k = cs::makeRocketKernels({.kernels = 2'000}, s.length, s.channels);
    cs::JobControl job;
    const RocketFeatures gpu = g_backend->rocketTransform(s, k, job);
    const auto* device = dynamic_cast<const cs::kernels::RocketDeviceFeatures*>(gpu.device.get());
    CS_CHECK(device && device->n == s.n && device->kernels == 2'000);
    CS_CHECK(device && std::ranges::equal(device->values.toHost(), gpu.values));
    std::vector<std::int32_t> train(s.n, -1);
    for (std::size_t i = 0; i < s.n; ++i)
        if (s.isTest.empty() || !s.isTest[i]) train[i] = s.labels[i];
    cs::JobControl fit;
    const cs::RidgeModel model = g_backend->ridgeFit(gpu, train, int(s.classCount()), {}, fit);
    std::size_t right = 0, tested = 0;
    const std::vector<std::int32_t> predicted = cs::ridgePredict(model, gpu.values, gpu.n);
    for (std::size_t i = 0; i < s.n; ++i)
        if (!s.isTest.empty() && s.isTest[i]) {
            ++tested;
            right += predicted[i] == s.labels[i];
        }
    CS_CHECK(tested > 0);
    const double accuracy = double(right) / double(std::max<std::size_t>(tested, 1));
    cs::test::info("GunPoint, 2,000 kernels on the GPU: test accuracy " + std::to_string(accuracy));
    CS_CHECK(accuracy >= 0.95);  // published: 1.000 with 10,000 kernels
}

// The GPU ridge classifier against fitRidgeClassifier: the same alpha, leave-one-out errors and
// weights up to double rounding, the same predictions.
CS_TEST(ridgeMatchesCpu) {
    int found = 0;
    for (const char* file : {"ucr/GunPoint/GunPoint_TRAIN.ts", "ucr/ArrowHead/ArrowHead_TRAIN.ts",
                             "ucr/BasicMotions/BasicMotions_TRAIN.ts"}) {
        if (!std::filesystem::exists(cs::test::sharedData(file))) continue;
        ++found;
        const SeriesSet s = readShared(file);
        const RocketKernels k = cs::makeRocketKernels({.kernels = 1'000}, s.length, s.channels);
        cs::JobControl job;
        const RocketFeatures f = g_backend->rocketTransform(s, k, job);
        std::vector<std::int32_t> train(s.n, -1);
        for (std::size_t i = 0; i < s.n; ++i)
            if (s.isTest.empty() || !s.isTest[i]) train[i] = s.labels[i];
        cs::JobControl cpuJob, gpuJob;
        const cs::RidgeModel cpu = cs::fitRidgeClassifier(f.values, f.n, f.columns(), train,
                                                          int(s.classCount()), {}, cpuJob);
        const cs::RidgeModel gpu = g_backend->ridgeFit(f, train, int(s.classCount()), {}, gpuJob);
        const std::string name = file;
        const std::string diff = ridgeDifference(cpu, gpu);
        CS_CHECK_MSG(diff.empty(), name + ": " + diff);
        CS_CHECK(cs::ridgePredict(cpu, f.values, f.n) == cs::ridgePredict(gpu, f.values, f.n));
        bool gpuStages = false;
        for (const auto& t : gpuJob.timings())
            gpuStages |= t.name == "eigen";
        CS_CHECK(gpuStages);
    }
    if (found == 0)
        CS_SKIP_MISSING_DATA("no UCR data under " + cs::test::sharedData("ucr").string());
    // Two rows, two classes: one eigenvalue.
    RocketFeatures tiny;
    tiny.n = 2;
    tiny.kernels = 2;
    tiny.values = {0.1f, 1.0f, 0.3f, 2.0f, 0.7f, -1.0f, 0.2f, 0.5f};
    const std::vector<std::int32_t> labels = {0, 1};
    cs::JobControl a, b;
    const cs::RidgeModel cpu = cs::fitRidgeClassifier(tiny.values, 2, 4, labels, 2, {}, a);
    const cs::RidgeModel gpu = g_backend->ridgeFit(tiny, labels, 2, {}, b);
    // Leaving one of two rows out predicts the other's target whatever alpha is: the errors tie,
    // so only they (not the alpha that rounding picks) must agree.
    CS_CHECK_EQ(cpu.looError.size(), gpu.looError.size());
    for (std::size_t a = 0; a < cpu.looError.size() && a < gpu.looError.size(); ++a)
        CS_CHECK_NEAR(gpu.looError[a], cpu.looError[a], 1e-9 * (1.0 + cpu.looError[a]));
    CS_CHECK_EQ(cpu.looAccuracy, gpu.looAccuracy);
}

// Around n = p, where both paths apply: each path forced on the GPU against the same path on the
// CPU and against the other path; the automatic choice as on the CPU.
CS_TEST(ridgePathsAgree) {
    const std::size_t train = 160;
    for (int kernels : {70, 79, 80, 90}) {  // p = n - 20, n - 2, n, n + 20
        const LabelledFeatures d = shapeFeatures(240, train, kernels);
        const RocketFeatures& f = d.features;
        const std::string name =
            "n " + std::to_string(train) + ", p " + std::to_string(f.columns());
        cs::RidgeModel cpu[2], gpu[2];
        const cs::RidgeSolver solvers[2] = {cs::RidgeSolver::Gram, cs::RidgeSolver::Covariance};
        for (int i = 0; i < 2; ++i) {
            cs::JobControl cpuJob, gpuJob;
            cpu[i] = cs::fitRidgeClassifier(f.values, f.n, f.columns(), d.train, d.classes,
                                            {.solver = solvers[i]}, cpuJob);
            gpu[i] = g_backend->ridgeFit(f, d.train, d.classes, {.solver = solvers[i]}, gpuJob);
            CS_CHECK_EQ(ridgePath(gpuJob), std::string(i == 0 ? "gram" : "covariance"));
            const std::string diff = ridgeDifference(cpu[i], gpu[i]);
            CS_CHECK_MSG(diff.empty(), name + ", " + ridgePath(gpuJob) + ": CPU vs GPU: " + diff);
            CS_CHECK(cs::ridgePredict(cpu[i], f.values, f.n) ==
                     cs::ridgePredict(gpu[i], f.values, f.n));
        }
        const std::string diff = ridgeDifference(gpu[0], gpu[1]);
        CS_CHECK_MSG(diff.empty(), name + ": GPU Gram vs covariance: " + diff);
        cs::JobControl cpuJob, gpuJob;
        cs::fitRidgeClassifier(f.values, f.n, f.columns(), d.train, d.classes, {}, cpuJob);
        g_backend->ridgeFit(f, d.train, d.classes, {}, gpuJob);
        CS_CHECK_EQ(ridgePath(gpuJob), ridgePath(cpuJob));
        CS_CHECK_EQ(ridgePath(gpuJob), std::string(train <= f.columns() ? "gram" : "covariance"));
    }
}

// Many series: the covariance path (the Gram matrix of 18,000 or 90,000 rows would take 2.6 or
// 65 GB), GPU against CPU. 90,000 rows of 1,000 features take X V in several batches.
CS_TEST(ridgeManySeries) {
    struct Case {
        std::size_t n, train;
        int kernels;
    };
    for (const Case& c : {Case{20'000, 18'000, 50}, Case{100'000, 90'000, 500}}) {
        const LabelledFeatures d = shapeFeatures(c.n, c.train, c.kernels);
        const RocketFeatures& f = d.features;
        const std::string name =
            "n " + std::to_string(c.train) + ", p " + std::to_string(f.columns());
        cs::JobControl cpuJob, gpuJob;
        auto start = std::chrono::steady_clock::now();
        const cs::RidgeModel cpu =
            cs::fitRidgeClassifier(f.values, f.n, f.columns(), d.train, d.classes, {}, cpuJob);
        const double cpuSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        start = std::chrono::steady_clock::now();
        const cs::RidgeModel gpu = g_backend->ridgeFit(f, d.train, d.classes, {}, gpuJob);
        const double gpuSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        cs::test::info(name + ": CPU " + std::to_string(cpuSeconds) + " s, GPU " +
                       std::to_string(gpuSeconds) + " s");
        CS_CHECK_EQ(ridgePath(gpuJob), std::string("covariance"));
        const std::string diff = ridgeDifference(cpu, gpu);
        CS_CHECK_MSG(diff.empty(), name + ": CPU vs GPU: " + diff);
        const auto predicted = cs::ridgePredict(gpu, f.values, f.n);
        CS_CHECK(cs::ridgePredict(cpu, f.values, f.n) == predicted);
        std::size_t right = 0;
        for (std::size_t i = c.train; i < f.n; ++i)
            right += predicted[i] == std::int32_t(i % 4);  // makeShapeSeries: class i % 4
        CS_CHECK_MSG(double(right) >= 0.9 * double(f.n - c.train),
                     name + ": " + std::to_string(right) + " of " + std::to_string(f.n - c.train) +
                         " test series right");
    }
}

CS_TEST(errorsAreClear) {
    const SeriesSet s = generated(20, 2, 100, 5, false);
    const RocketKernels k = cs::makeRocketKernels({.kernels = 100}, 100, 2);
    cs::JobControl job;
    const RocketKernels otherLength = cs::makeRocketKernels({.kernels = 100}, 90, 2);
    CS_CHECK_THROWS(g_backend->rocketTransform(s, otherLength, job), cs::Error);
    const RocketKernels otherChannels = cs::makeRocketKernels({.kernels = 100}, 100, 3);
    CS_CHECK_THROWS(g_backend->rocketTransform(s, otherChannels, job), cs::Error);
    SeriesSet bad = s;
    bad.values[17] = std::numeric_limits<float>::quiet_NaN();
    CS_CHECK_THROWS(g_backend->rocketTransform(bad, k, job), cs::Error);
    SeriesSet empty;
    CS_CHECK_THROWS(g_backend->rocketTransform(empty, k, job), cs::Error);
    expectSame(s, k, "after errors");
}

// Features that did not come from this backend (uploaded for the fit) with non-finite values:
// found from the column means on the device and named as the CPU names them (the first in row
// order among the training rows); one in an unlabelled row does not matter.
CS_TEST(ridgeNamesNonFiniteFeatures) {
    const SeriesSet s = generated(40, 1, 64, 3, false);
    const RocketKernels k = cs::makeRocketKernels({.kernels = 50}, 64, 1);
    cs::JobControl job;
    const RocketFeatures f = g_backend->rocketTransform(s, k, job);
    std::vector<std::int32_t> labels(s.n);
    for (std::size_t i = 0; i < s.n; ++i)
        labels[i] = std::int32_t(i % 2);
    labels[3] = -1;      // unlabelled: its features are not checked
    RocketFeatures bad;  // host values only: ridgeFit uploads them
    bad.n = f.n;
    bad.kernels = f.kernels;
    bad.values = f.values;
    bad.values[3 * f.columns() + 1] = std::numeric_limits<float>::infinity();
    bad.values[9 * f.columns() + 70] = std::numeric_limits<float>::quiet_NaN();
    bad.values[7 * f.columns() + 88] = -std::numeric_limits<float>::infinity();
    cs::JobControl cpuJob, gpuJob;
    const std::string cpu = cs::test::errorOf([&] {
        (void)cs::fitRidgeClassifier(bad.values, bad.n, bad.columns(), labels, 2, {}, cpuJob);
    });
    const std::string gpu =
        cs::test::errorOf([&] { (void)g_backend->ridgeFit(bad, labels, 2, {}, gpuJob); });
    CS_CHECK_EQ(cpu, std::string("row 7 has a non-finite feature (column 88)"));
    CS_CHECK_EQ(gpu, cpu);
    // Without the unlabelled row's infinity and the others, the same call fits.
    bad.values = f.values;
    bad.values[3 * f.columns() + 1] = std::numeric_limits<float>::infinity();
    cs::JobControl fit;
    CS_CHECK_EQ(cs::test::errorOf([&] { (void)g_backend->ridgeFit(bad, labels, 2, {}, fit); }),
                std::string("(no error)"));
}

CS_TEST(cancellation) {
    const SeriesSet s = generated(2'000, 1, 2'000, 9, false);
    const RocketKernels k = cs::makeRocketKernels({.kernels = 10'000}, 2'000, 1);
    cs::JobControl before;
    before.cancel();
    CS_CHECK_THROWS(g_backend->rocketTransform(s, k, before), cs::Cancelled);
    cs::JobControl* self = nullptr;
    cs::JobControl during([&](double, std::string_view stage) {
        if (stage == "transform") self->cancel();
    });
    self = &during;
    CS_CHECK_THROWS(g_backend->rocketTransform(s, k, during), cs::Cancelled);
    expectSame(generated(10, 1, 50, 3, false), cs::makeRocketKernels({.kernels = 64}, 50, 1),
               "after cancel");
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_rocket_gpu");
    g_backend = cs::kernels::createCudaBackend();
    const int rc = cs::test::runTests("tst_rocket_gpu", argc, argv);
    g_backend.reset();
    return rc;
}
