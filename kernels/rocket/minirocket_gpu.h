// SPDX-License-Identifier: MIT
#pragma once

// MiniRocket and MultiRocket features on the GPU (the spec is compute/rocket/minirocket.h).
// Host-only header. The raw series and the model's arrays are uploaded once; then one launch per
// batch of series, a block per (series, representation, dilation) (minirocket_kernels.cu). The
// biases are fitted on the host (Backend's default): one example per combination, milliseconds.
// Stages: "prepare" (host), "upload" and "transform" (CUDA events), "download" (host: each
// batch's features copied while the next batch is computed, then the last).

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/rocket.h"
#include "kernels/common/device_buffer.h"

namespace cs::kernels {

class StreamHandles;

/// The features of every series under a fitted model: PPV, MIPV and LSPV bit-identical to
/// miniRocketTransformHost, MPV within one unit in the last place (its double sum is added in
/// another order). With keepValues, the device features are moved there. Throws cs::Error on
/// input that does not fit the model or too little free device memory; cs::Cancelled when the
/// job is cancelled (between batches).
/// @code cs::RocketFeatures f = cs::kernels::miniRocketTransformCuda(ctx, series, model, job);
/// @endcode
RocketFeatures miniRocketTransformCuda(StreamHandles& ctx, const SeriesSet& series,
                                       const MiniRocketModel& model, JobControl& job,
                                       DeviceBuffer<float>* keepValues = nullptr);

}  // namespace cs::kernels
