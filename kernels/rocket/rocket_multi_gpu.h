// SPDX-License-Identifier: MIT
#pragma once

// ROCKET, MiniRocket and MultiRocket features on several devices, as CUROCKET splits instances
// over GPUs: the series cut into contiguous ranges, one per device, each transformed by the
// one-device path (rocketTransformCuda, miniRocketTransformCuda) on its own stream and handles in
// its own host thread, and the feature rows gathered in order. Features are per series, so they
// are bit-identical to one device's. Host-only header.
//
// The features end on the host only (RocketFeatures::device stays null): the feature map and
// the ridge upload them where they need them, as they do for the CPU backend's.

#include <span>

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/rocket.h"

namespace cs::kernels {

class StreamHandles;

/// rocketTransformCuda's features with the series split over contexts (one per worker; one
/// device may appear more than once, for testing). Throws as rocketTransformCuda does.
/// @code cs::RocketFeatures f = cs::kernels::rocketTransformMultiCuda(ctxs, series, k, job);
/// @endcode
RocketFeatures rocketTransformMultiCuda(std::span<StreamHandles* const> contexts,
                                        const SeriesSet& series, const RocketKernels& kernels,
                                        JobControl& job);

/// miniRocketTransformCuda's features with the series split over contexts, as above.
/// @code cs::RocketFeatures f = cs::kernels::miniRocketTransformMultiCuda(ctxs, s, m, job);
/// @endcode
RocketFeatures miniRocketTransformMultiCuda(std::span<StreamHandles* const> contexts,
                                            const SeriesSet& series, const MiniRocketModel& model,
                                            JobControl& job);

}  // namespace cs::kernels
