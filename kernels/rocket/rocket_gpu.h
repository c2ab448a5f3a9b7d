// SPDX-License-Identifier: MIT
#pragma once

// ROCKET features on the GPU (the CUROCKET paper), bit-identical to the CPU backend (the spec
// is compute/rocket/rocket.h). Host-only header. The series and the kernels' arrays are
// uploaded once and the series normalised there as rocketNormalised does it; then one launch
// per batch of series: a block per (series, 64 kernels) with the series in
// shared memory, a warp per kernel. Stages: "prepare" (host), "upload", "normalise" and
// "transform" (CUDA events), "download" (host: each batch's features copied while the next batch
// is computed, then the last).

#include <cstddef>
#include <memory>
#include <string>

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/rocket/rocket.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/device_quantities.h"

namespace cs::kernels {

class StreamHandles;

/// RocketFeatures kept on the device (RocketFeatures::device): n x layers x K floats, for the
/// feature map through GL interop and the GPU ridge. Its context (in the base, so it outlives
/// the buffer) is the stream that frees them.
struct RocketDeviceFeatures final : DeviceFeatureMatrix {
    DeviceBuffer<float> values;  ///< RocketFeatures::values' layout
    std::size_t n = 0;
    std::size_t kernels = 0;
    std::size_t layerCount = 2;  ///< ROCKET [PPV, MAX]; MiniRocket 1, MultiRocket 8
    const float* matrixValues() const override { return values.data(); }
    std::size_t rows() const override { return n; }
    std::size_t columns() const override { return kernels; }
    std::size_t layers() const override { return layerCount; }
};

/// The features of every series, identical to rocketTransformCpu. With keepValues, the device
/// features are moved there. Throws cs::Error on input that does not fit the kernels or too
/// little free device memory; cs::Cancelled when the job is cancelled (between batches).
/// @code cs::RocketFeatures f = cs::kernels::rocketTransformCuda(ctx, series, kernels, job);
/// @endcode
RocketFeatures rocketTransformCuda(StreamHandles& ctx, const SeriesSet& series,
                                   const RocketKernels& kernels, JobControl& job,
                                   DeviceBuffer<float>* keepValues = nullptr);

}  // namespace cs::kernels
