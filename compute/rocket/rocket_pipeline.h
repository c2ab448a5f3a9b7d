// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "compute/backend/backend.h"

namespace cs {

// One way through the ROCKET family for every front end (CLI, panel, bench, Python): fit the
// transform on a set (ROCKET: draw the kernels; MiniRocket, MultiRocket: draw the model and fit
// its biases on the set's training rows), then compute the features of any set with the same
// channels. The ridge classifier, the feature map and the exports read RocketFeatures alike.

/// A fitted transform of one variant: the kernels (ROCKET) or the model (the others).
struct RocketTransform {
    RocketParams params;
    std::shared_ptr<const RocketKernels> kernels;  ///< ROCKET
    std::shared_ptr<const MiniRocketModel> model;  ///< MiniRocket, MultiRocket
};

/// Fits the transform for params.variant on `series` (biases from miniRocketFitRows). Stages
/// "kernels", then "biases" for MiniRocket and MultiRocket (on the backend).
/// @code auto t = cs::fitRocketTransform(backend, params, s, job);
/// cs::RocketFeatures f = cs::applyRocketTransform(backend, t, s, job); @endcode
RocketTransform fitRocketTransform(Backend& backend, const RocketParams& params,
                                   const SeriesSet& series, JobControl& job);
/// The features of `series` under a fitted transform (Backend::rocketTransform or
/// Backend::miniRocketTransform).
RocketFeatures applyRocketTransform(Backend& backend, const RocketTransform& transform,
                                    const SeriesSet& series, JobControl& job);
/// The number of feature values per series params give on series of this shape (without
/// fitting; for memory estimates and messages): 2K, 84 floor(K / 84) or 8 x that.
std::size_t rocketFeatureCount(const RocketParams& params);

}  // namespace cs
