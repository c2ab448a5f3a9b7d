// SPDX-License-Identifier: MIT
// Host orchestration of MiniRocket/MultiRocket on the GPU: checks, memory sizing, uploads,
// batches with cancellation checkpoints, stage timings. The kernel is in minirocket_kernels.cu.
#include "kernels/rocket/minirocket_gpu.h"

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
#include "kernels/rocket/minirocket_launch.h"

namespace cs::kernels {
namespace {

// Per launch: about 2^35 pooled outputs (series x length x features), tens of ms on an H200, so
// a cancel is noticed quickly.
constexpr double kWorkPerLaunch = 0x1p35;

// One representation's arrays on the device.
struct DeviceRepresentation {
    DeviceBuffer<std::int32_t> dilations, featuresPerDilation, featureStart, channelCounts,
        channelStart, channelIndex;
    DeviceBuffer<float> biases;

    DeviceRepresentation(const MiniRocketRepresentation& rep, cudaStream_t s)
        : dilations(uploadVector(rep.dilations, s)),
          featuresPerDilation(uploadVector(rep.featuresPerDilation, s)),
          featureStart(uploadVector(rep.featureStart, s)),
          channelCounts(uploadVector(rep.channelCounts, s)),
          channelStart(uploadVector(rep.channelStart, s)),
          channelIndex(uploadVector(rep.channelIndex, s)),
          biases(uploadVector(rep.biases, s)) {}

    MiniRocketRepView view(const MiniRocketRepresentation& rep) const {
        return {std::int32_t(rep.dilations.size()),
                dilations.data(),
                featuresPerDilation.data(),
                featureStart.data(),
                channelCounts.data(),
                channelStart.data(),
                channelIndex.data(),
                biases.data()};
    }
};

}  // namespace

RocketFeatures miniRocketTransformCuda(StreamHandles& ctx, const SeriesSet& series,
                                       const MiniRocketModel& model, JobControl& job,
                                       DeviceBuffer<float>* keepValues) {
    std::optional<JobControl::Stage> prepare;
    prepare.emplace(job, "prepare");  // checks, memory, buffers
    validateMiniRocketInput(series, model, true);
    DeviceScope scope(ctx.device());
    job.checkpoint();
    const std::size_t n = series.n, cols = model.featureCount() * model.layers();
    const std::size_t valueCount = n * series.channels * series.length;

    MiniRocketView view;
    view.representations = std::int32_t(model.representations.size());
    view.poolings = std::int32_t(model.poolings());
    view.featureCount = std::uint32_t(model.featureCount());
    for (const auto& rep : model.representations) {
        view.maxDilations = std::max(view.maxDilations, std::int32_t(rep.dilations.size()));
        view.largestDilation = std::max(view.largestDilation, rep.dilations.back());
        for (const auto f : rep.featuresPerDilation)
            view.mostFeaturesPerDilation = std::max(view.mostFeaturesPerDilation, f);
    }
    int multiprocessors = 1;
    CS_CUDA_CHECK(
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, ctx.device()));
    const MiniRocketLaunchPlan plan =
        planMiniRocketLaunch(series.channels, series.length, view, multiprocessors);
    const std::size_t workspaceFloats = std::size_t(plan.workspaceBlocks) * plan.blockFloats;
    const std::size_t bytes = (valueCount + n * cols + workspaceFloats) * sizeof(float) +
                              n * sizeof(std::uint32_t) + (std::size_t(8) << 20);
    if (const auto free = ctx.shortOfMemory(bytes))
        throw Error(std::string(rocketVariantTitle(model.variant)) + " on " + std::to_string(n) +
                    " series needs about " + mebibytes(bytes) + " of GPU memory, but only " +
                    mebibytes(*free) +
                    " are free; use fewer features or series, or the CPU backend");

    keepPoolWarm(ctx.device(), bytes);  // repeated runs (the live panel) reuse the mapping
    RocketFeatures out;
    out.n = n;
    out.kernels = model.featureCount();
    out.layers = model.layers();
    // Gigabytes of features at 100,000 series, left unmapped: the download's threads touch them
    // first, a batch at a time while the GPU computes the next one.
    reserveOnHugePages(out.values, n * cols);
    out.values.resize(n * cols);
    const cudaStream_t s = ctx.stream();
    DeviceBuffer<float> values;
    DeviceBuffer<std::uint32_t> lengths;
    std::vector<DeviceRepresentation> reps;
    prepare.reset();
    {
        ScopedGpuStage stage(ctx, job, "upload");
        values = DeviceBuffer<float>(std::max<std::size_t>(valueCount, 1), s);
        copyToDeviceStaged(values.data(), series.values.data(), valueCount * sizeof(float),
                           ctx.device(), s);
        lengths = uploadVector(series.lengths, s);
        for (const auto& rep : model.representations)
            reps.emplace_back(rep, s);
    }
    for (std::size_t r = 0; r < reps.size(); ++r)
        view.rep[r] = reps[r].view(model.representations[r]);

    static_assert(sizeof(kMiniRocketTaps) == 84 * 3, "the taps table is 84 x 3 bytes");
    const auto* taps = reinterpret_cast<const std::int8_t(*)[3]>(kMiniRocketTaps.data());
    DeviceBuffer<float> workspace(std::max<std::size_t>(workspaceFloats, 1), s);
    DeviceBuffer<float> features(std::max<std::size_t>(n * cols, 1), s);
    {
        const double perSeries = double(series.length) * double(series.channels) *
                                 double(model.featureCount() * model.representations.size());
        const std::size_t batch =
            std::max<std::size_t>(1, std::size_t(kWorkPerLaunch / std::max(perSeries, 1.0)));
        const std::size_t rowBytes = cols * sizeof(float);
        transformInBatches(
            ctx, job, n, batch, rowBytes, out.values.data(), features.data(),
            [&](std::size_t first, std::size_t count) {
                launchMiniRocketTransform(values.data(), lengths.data(), series.channels,
                                          series.length, first, count, view, taps, plan,
                                          workspace.data(), features.data(), s);
            },
            [&] {  // the pool takes them back while the last batch is copied
                values.reset();
                workspace.reset();
            });
    }
    if (keepValues) *keepValues = std::move(features);
    return out;
}

}  // namespace cs::kernels
