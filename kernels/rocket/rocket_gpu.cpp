// SPDX-License-Identifier: MIT
// Host orchestration of ROCKET on the GPU: checks, memory sizing, uploads, batches with
// cancellation checkpoints, stage timings. The kernels are in rocket_kernels.cu.
#include "kernels/rocket/rocket_gpu.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/huge_pages.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/stream_handles.h"
#include "kernels/rocket/feature_batches.h"
#include "kernels/rocket/rocket_launch.h"

namespace cs::kernels {
namespace {

// Per launch: series x kernels x length x 9 about 2^36 tap sums, some tens of ms on an H200, so a
// cancel is noticed quickly and no launch runs into a watchdog.
constexpr double kWorkPerLaunch = 0x1p36;

}  // namespace

RocketFeatures rocketTransformCuda(StreamHandles& ctx, const SeriesSet& series,
                                   const RocketKernels& kernels, JobControl& job,
                                   DeviceBuffer<float>* keepValues) {
    std::optional<JobControl::Stage> prepare;
    prepare.emplace(job, "prepare");  // checks, memory, buffers
    validateRocketInput(series, kernels);
    DeviceScope scope(ctx.device());
    job.checkpoint();
    const std::size_t n = series.n;
    const std::size_t k = kernels.count();
    const std::size_t valueCount = n * series.channels * series.length;
    const std::size_t bytes = (valueCount + n * 2 * k + kernels.weights.size()) * sizeof(float) +
                              2 * n * series.channels * sizeof(double) +
                              k * 9 * sizeof(std::int32_t) + (std::size_t(4) << 20);
    if (const auto free = ctx.shortOfMemory(bytes))
        throw Error("ROCKET on " + std::to_string(n) + " series needs about " + mebibytes(bytes) +
                    " of GPU memory, but only " + mebibytes(*free) +
                    " are free; use fewer kernels or series, or the CPU backend");

    keepPoolWarm(ctx.device(), bytes);  // repeated runs (the live panel) reuse the mapping
    const cudaStream_t s = ctx.stream();
    // Gigabytes at 100,000 series, left unmapped: the download's threads touch them first, a
    // batch at a time while the GPU computes the next one, in 2 MiB pages (8 GB took 5.7 s with
    // 4 KiB pages on the H200's host).
    RocketFeatures out;
    out.n = n;
    out.kernels = k;
    reserveOnHugePages(out.values, n * 2 * k);
    out.values.resize(n * 2 * k);
    DeviceBuffer<float> values;
    DeviceBuffer<std::uint32_t> seriesLengths;
    DeviceBuffer<std::int32_t> lengths, dilations, paddings, counts, starts, indices, weightStart;
    DeviceBuffer<float> biases, weights;
    prepare.reset();
    {
        ScopedGpuStage stage(ctx, job, "upload");
        values = DeviceBuffer<float>(valueCount, s);
        copyToDeviceStaged(values.data(), series.values.data(), values.bytes(), ctx.device(), s);
        seriesLengths = uploadVector(series.lengths, s);
        lengths = uploadVector(kernels.lengths, s);
        biases = uploadVector(kernels.biases, s);
        dilations = uploadVector(kernels.dilations, s);
        paddings = uploadVector(kernels.paddings, s);
        counts = uploadVector(kernels.channelCounts, s);
        starts = uploadVector(kernels.channelStart, s);
        indices = uploadVector(kernels.channelIndex, s);
        weightStart = uploadVector(kernels.weightStart, s);
        weights = uploadVector(kernels.weights, s);
    }
    {
        // On the device (the host's rocketNormalised took 30 ms at 1,000 x 10,000).
        ScopedGpuStage stage(ctx, job, "normalise");
        DeviceBuffer<double> stats(2 * n * series.channels, s);
        launchRocketNormalise(values.data(), seriesLengths.data(), n, series.channels,
                              series.length, kernels.normalise, stats.data(), s);
    }
    job.checkpoint();
    const RocketKernelView view{std::uint32_t(k),   lengths.data(), biases.data(), dilations.data(),
                                paddings.data(),    counts.data(),  starts.data(), indices.data(),
                                weightStart.data(), weights.data()};
    DeviceBuffer<float> features(n * 2 * k, s);
    {
        const double perSeries = double(k) * double(series.length) * 9.0 *
                                 double(std::max<std::size_t>(series.channels, 1));
        const std::size_t batch =
            std::max<std::size_t>(1, std::size_t(kWorkPerLaunch / std::max(perSeries, 1.0)));
        const std::size_t rowBytes = 2 * k * sizeof(float);
        transformInBatches(
            ctx, job, n, batch, rowBytes, out.values.data(), features.data(),
            [&](std::size_t first, std::size_t count) {
                launchRocketTransform(values.data(), seriesLengths.data(), series.channels,
                                      series.length, first, count, view, features.data(), s);
            },
            [&] { values.reset(); });  // the pool takes them back while the last batch is copied
    }
    if (keepValues) *keepValues = std::move(features);
    return out;
}

}  // namespace cs::kernels
