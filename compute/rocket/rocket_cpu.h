// SPDX-License-Identifier: MIT
#pragma once

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/rocket/rocket.h"

namespace cs {

/// ROCKET features on the CPU with `threads` threads (the reference and oracle of the GPU
/// tests), following compute/rocket/rocket.h to the letter: the same features bit for bit
/// whatever the thread count. Input: series of kernels.length samples and kernels.channels
/// channels (validateRocketInput). Stages (JobControl timings; the CUDA backend uses the same
/// names): "normalise" (rocketNormalised), "transform". threads <= 0: one per hardware thread.
/// Throws cs::Error on bad input, cs::Cancelled when the job is cancelled (checked every few
/// series x kernel blocks; never a half-filled result). Memory: O(n C L + n K).
/// @code auto k = cs::makeRocketKernels({.kernels = 10'000}, s.length, s.channels);
/// cs::RocketFeatures f = cs::rocketTransformCpu(s, k, job, 4); @endcode
RocketFeatures rocketTransformCpu(const SeriesSet& series, const RocketKernels& kernels,
                                  JobControl& job, int threads = 0);

}  // namespace cs
