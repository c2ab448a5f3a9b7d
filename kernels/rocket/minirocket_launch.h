// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launcher of the MiniRocket/MultiRocket transform (minirocket_kernels.cu).
// Asynchronous on `stream`; checks its launch.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// One MiniRocketRepresentation's arrays on the device (compute/rocket/minirocket.h).
struct MiniRocketRepView {
    std::int32_t dilationCount = 0;
    const std::int32_t* dilations = nullptr;            ///< D
    const std::int32_t* featuresPerDilation = nullptr;  ///< D
    const std::int32_t* featureStart = nullptr;         ///< D + 1
    const std::int32_t* channelCounts = nullptr;        ///< per combination
    const std::int32_t* channelStart = nullptr;         ///< per combination
    const std::int32_t* channelIndex = nullptr;
    const float* biases = nullptr;  ///< per feature
};

/// A fitted model: one representation (MiniRocket) or two (MultiRocket: the series, then its
/// first difference), `poolings` values per feature and representation (1 or 4).
struct MiniRocketView {
    std::int32_t representations = 1;
    std::int32_t poolings = 1;
    std::int32_t maxDilations = 0;             ///< the larger dilation count of the representations
    std::int32_t largestDilation = 1;          ///< over both representations
    std::int32_t mostFeaturesPerDilation = 0;  ///< the largest featuresPerDilation entry
    std::uint32_t featureCount = 0;            ///< per representation
    MiniRocketRepView rep[2];
};

/// How the transform is launched for series of at most `length` samples and `channels`
/// channels. Univariate series of up to 10,080 samples: `strip` outputs per thread in
/// registers. Otherwise the general kernel: the floats each block works in (shared memory when
/// they fit, else a slice of a global workspace of `workspaceBlocks` slices).
struct MiniRocketLaunchPlan {
    unsigned threads = 256;
    int strip = 0;  ///< outputs per thread of the univariate kernel; 0: the general kernel
    std::size_t blockFloats = 0;
    std::size_t sharedBytes = 0;   ///< dynamic shared memory per block
    unsigned workspaceBlocks = 0;  ///< 0 when the general kernel works in shared memory
};
MiniRocketLaunchPlan planMiniRocketLaunch(std::size_t channels, std::size_t length,
                                          const MiniRocketView& model, int multiprocessors);

/// The features of series [first, first + count) of `series` (n x channels x length, raw;
/// lengths[i] the true lengths) into features (n x featureCount x representations x poolings,
/// compute/rocket/minirocket.h's layout); taps: kMiniRocketTaps. workspace:
/// plan.workspaceBlocks x plan.blockFloats floats (when that is not 0).
void launchMiniRocketTransform(const float* series, const std::uint32_t* lengths,
                               std::size_t channels, std::size_t length, std::size_t first,
                               std::size_t count, const MiniRocketView& model,
                               const std::int8_t (*taps)[3], const MiniRocketLaunchPlan& plan,
                               float* workspace, float* features, cudaStream_t stream);

}  // namespace cs::kernels
