// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launchers of the ROCKET kernels (rocket_kernels.cu). Asynchronous on `stream`;
// each checks its launch.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// A RocketKernels set on the device (the arrays of compute/rocket/rocket.h), passed by value.
struct RocketKernelView {
    std::uint32_t count = 0;
    const std::int32_t* lengths = nullptr;
    const float* biases = nullptr;
    const std::int32_t* dilations = nullptr;
    const std::int32_t* paddings = nullptr;
    const std::int32_t* channelCounts = nullptr;
    const std::int32_t* channelStart = nullptr;
    const std::int32_t* channelIndex = nullptr;
    const std::int32_t* weightStart = nullptr;
    const float* weights = nullptr;
};

/// Shared memory the transform may use for one series (channels x length floats); longer series
/// are read from global memory.
inline constexpr std::size_t kRocketSharedSeriesBytes = 96 * 1024;

/// rocketNormalised (compute/rocket/rocket.h) in place on series (n x channels x length): each
/// row (series, channel) z-normalised over its true length lengths[series] with meanAndSd's
/// double sums in its order, or kept when !normalise; zeros after the true length and for a
/// constant row. Bit-identical to the host's. stats: 2 n channels doubles of scratch.
void launchRocketNormalise(float* series, const std::uint32_t* lengths, std::size_t n,
                           std::size_t channels, std::size_t length, bool normalise, double* stats,
                           cudaStream_t stream);

/// PPV and MAX of every kernel on series [first, first + count) of `series` (n x channels x
/// length, normalised; series i convolved over its true length lengths[i]):
/// features[(first + s) * 2 K + 2 w] = PPV, + 1 = MAX.
void launchRocketTransform(const float* series, const std::uint32_t* lengths, std::size_t channels,
                           std::size_t length, std::size_t first, std::size_t count,
                           const RocketKernelView& kernels, float* features, cudaStream_t stream);

}  // namespace cs::kernels
