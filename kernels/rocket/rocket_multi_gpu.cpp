// SPDX-License-Identifier: MIT
#include "kernels/rocket/rocket_multi_gpu.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/parallel.h"
#include "kernels/common/device_workers.h"
#include "kernels/rocket/minirocket_gpu.h"
#include "kernels/rocket/rocket_gpu.h"

namespace cs::kernels {
namespace {

// transform(ctx, slice, job) on contiguous slices of the series, one per worker; the rows
// gathered in order.
template <class Transform>
RocketFeatures splitSeries(std::span<StreamHandles* const> contexts, const SeriesSet& series,
                           JobControl& job, Transform transform) {
    if (contexts.empty()) throw Error("ROCKET needs at least one device");
    // A worker without series would have nothing to do.
    const std::size_t workers = std::min<std::size_t>(contexts.size(), series.n);
    if (workers <= 1) return transform(*contexts[0], series, job);
    std::vector<RocketFeatures> parts(workers);
    runOnDevices(workers, job, [&](std::size_t w, JobControl& workerJob) {
        const auto [begin, end] = chunkRange(series.n, workers, w);
        std::vector<std::uint32_t> rows(end - begin);
        std::iota(rows.begin(), rows.end(), std::uint32_t(begin));
        const SeriesSet slice = subsetOf(series, ItemSubset::of(std::move(rows), series.n));
        parts[w] = transform(*contexts[w], slice, workerJob);
    });
    const auto stage = job.stage("gather devices");
    RocketFeatures out;
    out.n = series.n;
    out.kernels = parts[0].kernels;
    out.layers = parts[0].layers;
    out.values.resize(out.n * out.columns());
    std::size_t at = 0;
    for (RocketFeatures& part : parts) {
        std::copy(part.values.begin(), part.values.end(), out.values.begin() + std::ptrdiff_t(at));
        at += part.values.size();
        part = {};
    }
    if (at != out.values.size())
        throw Error("ROCKET on several devices: the parts hold " + std::to_string(at) +
                    " features, expected " + std::to_string(out.values.size()));
    return out;
}

}  // namespace

RocketFeatures rocketTransformMultiCuda(std::span<StreamHandles* const> contexts,
                                        const SeriesSet& series, const RocketKernels& kernels,
                                        JobControl& job) {
    // On the whole set first, so that a message names the set's series, not a slice's.
    validateRocketInput(series, kernels);
    return splitSeries(contexts, series, job,
                       [&](StreamHandles& ctx, const SeriesSet& slice, JobControl& j) {
                           return rocketTransformCuda(ctx, slice, kernels, j);
                       });
}

RocketFeatures miniRocketTransformMultiCuda(std::span<StreamHandles* const> contexts,
                                            const SeriesSet& series, const MiniRocketModel& model,
                                            JobControl& job) {
    validateMiniRocketInput(series, model, true);
    return splitSeries(contexts, series, job,
                       [&](StreamHandles& ctx, const SeriesSet& slice, JobControl& j) {
                           return miniRocketTransformCuda(ctx, slice, model, j);
                       });
}

}  // namespace cs::kernels
