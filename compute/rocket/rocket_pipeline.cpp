// SPDX-License-Identifier: MIT
#include "compute/rocket/rocket_pipeline.h"

#include <algorithm>

namespace cs {

RocketTransform fitRocketTransform(Backend& backend, const RocketParams& params,
                                   const SeriesSet& series, JobControl& job) {
    RocketTransform t;
    t.params = params;
    if (params.variant == RocketVariant::Rocket) {
        const auto stage = job.stage("kernels");
        t.kernels = std::make_shared<const RocketKernels>(
            makeRocketKernels(params, series.length, series.channels));
        return t;
    }
    MiniRocketModel model;
    {
        const auto stage = job.stage("kernels");
        model = makeMiniRocketModel(params, series, miniRocketFitRows(series));
    }
    job.checkpoint();
    backend.miniRocketFitBiases(series, model, job);
    t.model = std::make_shared<const MiniRocketModel>(std::move(model));
    return t;
}

RocketFeatures applyRocketTransform(Backend& backend, const RocketTransform& transform,
                                    const SeriesSet& series, JobControl& job) {
    if (transform.kernels) return backend.rocketTransform(series, *transform.kernels, job);
    return backend.miniRocketTransform(series, *transform.model, job);
}

std::size_t rocketFeatureCount(const RocketParams& params) {
    const std::size_t k = std::size_t(std::max(params.kernels, 0));
    switch (params.variant) {
        case RocketVariant::MiniRocket:
            return std::max<std::size_t>(k / 84, 1) * 84;
        case RocketVariant::MultiRocket:
            return 8 * std::max<std::size_t>(k / 84, 1) * 84;
        case RocketVariant::Rocket:
            break;
    }
    return 2 * k;
}

}  // namespace cs
