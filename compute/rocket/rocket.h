// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/huge_pages.h"
#include "compute/core/series_set.h"

namespace cs {

// ROCKET (Dempster, Petitjean, Webb 2020) as CUROCKET runs it on the GPU: K random dilated
// convolution kernels, two features per kernel and series (PPV, the proportion of positive
// outputs, and MAX), then a ridge classifier (compute/rocket/ridge.h). Every backend computes the
// same features bit for bit:
//  - the kernels come from makeRocketKernels() on the host (one set for training and testing);
//  - the input is rocketNormalised(): every channel of every series z-normalised over its true
//    length on the host (mean and population standard deviation in double; a constant channel
//    becomes zeros), zero after its end; or, with normalise off, the raw values;
//  - each series is convolved over its own true length L (lengths[i]; nothing past it is read,
//    so a series' features do not depend on the longer series beside it): output position i of
//    kernel w (length m, dilation d, padding p, bias b) runs over i = -p .. L + p - (m - 1) d - 1:
//      sum = b; for j in 0..m-1: t = i + j d; if 0 <= t < L: for each of the kernel's channels c
//      in order: sum = sum + w[c][j] * x[c][t]       (float, no fused multiply-add)
//  - PPV = float(double(positive sums) / double(output positions)); MAX = the largest sum; a
//    series too short for the kernel (no output position) has PPV 0 and MAX 0.
// Features are stored per series as [PPV_0, MAX_0, PPV_1, MAX_1, ...] (sktime's order).

/// Which transform of the ROCKET family (compute/rocket/minirocket.h for the last two).
enum class RocketVariant {
    Rocket,       ///< random kernels, PPV and MAX
    MiniRocket,   ///< 84 fixed kernels, fitted dilations and biases, PPV
    MultiRocket,  ///< MiniRocket's kernels on the series and its difference, 4 poolings
};
/// "rocket", "minirocket", "multirocket".
const char* rocketVariantName(RocketVariant v);
/// "ROCKET", "MiniRocket", "MultiRocket": the variant's name in text for people.
const char* rocketVariantTitle(RocketVariant v);
/// The variant of a name above; throws cs::Error for another word.
RocketVariant rocketVariantFromName(std::string_view name);

/// ROCKET parameters.
struct RocketParams {
    /// ROCKET: random kernels, features = 2 x kernels. MiniRocket: features, rounded down to a
    /// multiple of 84 (at least 84). MultiRocket: features per representation and pooling
    /// (the same rounding; 8 x that in all: 6,250 gives the authors' default 49,728).
    int kernels = 10'000;
    std::uint64_t seed = 1;  ///< the kernels' (ROCKET) or channels' and examples' random draws
    RocketVariant variant = RocketVariant::Rocket;
    /// ROCKET: z-normalise every channel of every series first, as the paper and CUROCKET do.
    /// Off keeps the channels' levels, which can carry the class (JapaneseVowels: 0.84 with,
    /// 0.99 without). MiniRocket and MultiRocket never normalise.
    bool normalise = true;
};

inline constexpr int kRocketMaxKernels = 100'000;

/// A set of random kernels for series of `length` samples and `channels` channels. Kernel w has
/// lengths[w] taps (7, 9 or 11) over channelCounts[w] channels (channelIndex[channelStart[w] ..
/// + channelCounts[w]), ascending); its weights are weights[weightStart[w] + c * lengths[w] + j]
/// for its c-th channel and tap j, mean-centred per channel.
struct RocketKernels {
    std::size_t length = 0;    ///< series length they were drawn for
    std::size_t channels = 0;  ///< channels of those series
    bool normalise = true;     ///< RocketParams::normalise: the input is z-normalised
    std::vector<std::int32_t> lengths;
    std::vector<float> biases;                ///< uniform in [-1, 1)
    std::vector<std::int32_t> dilations;      ///< floor(2^u), u uniform in [0, log2((L-1)/(m-1)))
    std::vector<std::int32_t> paddings;       ///< (m - 1) d / 2 or 0
    std::vector<std::int32_t> channelCounts;  ///< 1 for univariate series
    std::vector<std::int32_t> channelStart;   ///< into channelIndex
    std::vector<std::int32_t> channelIndex;
    std::vector<std::int32_t> weightStart;  ///< into weights
    std::vector<float> weights;

    std::size_t count() const { return lengths.size(); }
};

/// The features of N series: n x (layers x kernels) floats, row-major, the layers of a kernel
/// together: ROCKET [PPV, MAX] per kernel; MiniRocket [PPV] and MultiRocket [PPV, MPV, MIPV,
/// LSPV of the series, of its difference] per feature column (compute/rocket/minirocket.h).
struct RocketFeatures {
    std::size_t n = 0;
    std::size_t kernels = 0;  ///< feature columns: kernels (ROCKET) or biases (the others)
    std::size_t layers = 2;   ///< values per column
    /// Row-major n x columns(). Not zero-filled by resize(): the GPU paths download gigabytes
    /// into it, and the CPU paths assign() it.
    std::vector<float, UninitialisedAllocator<float>> values;
    /// The features as the backend left them in device memory (the CUDA backend), for the
    /// feature map through GL interop and the GPU ridge; null on the CPU. Not part of the value.
    std::shared_ptr<const DeviceResident> device;

    std::size_t columns() const { return layers * kernels; }
    float ppv(std::size_t series, std::size_t kernel) const {
        return values[series * columns() + layers * kernel];
    }
    float max(std::size_t series, std::size_t kernel) const {
        return values[series * columns() + layers * kernel + 1];
    }
};

/// Throws cs::Error when kernels is outside [1, kRocketMaxKernels].
void validateRocketParams(const RocketParams& params);

/// The kernels, drawn from cs::Random(params.seed) kernel after kernel in this order: the length
/// (below(3) -> 7, 9, 11); the channel count floor(2^u), u uniform in [0, log2(min(C, m) + 1)),
/// capped at min(C, m); the channels (a partial Fisher-Yates shuffle of 0..C-1, then sorted);
/// m normals per channel (double, mean-centred, then rounded to float); the bias; the dilation
/// exponent; the padding coin (below(2) == 1: padded). A kernel longer than the series
/// ((m - 1) d + 1 > L unpadded) is always padded, so every kernel has at least one output.
/// Throws cs::Error for length < 2 or channels < 1 besides validateRocketParams.
/// Resolved details (every draw is always made, so kernel w depends only on the seed, length
/// and channels, never on the kernel count): the channel count is drawn for one channel too
/// (it is then 1); the channels are chosen by swapping place i with i + below(C - i) for
/// i < count; the dilation is d = max(1, int(floor(exp2(u)))), u = uniform(0, A) with
/// A = max(0, log2(double(L - 1) / double(m - 1))) (so d = 1 when the series is shorter than
/// the kernel); the padding coin is tossed even when the kernel must be padded; p =
/// (m - 1) d / 2 exactly ((m - 1) is even), so a padded kernel has exactly L outputs.
/// @code auto k = cs::makeRocketKernels({.kernels = 10'000, .seed = 1}, s.length, s.channels);
/// @endcode
RocketKernels makeRocketKernels(const RocketParams& params, std::size_t length,
                                std::size_t channels);

/// The series the features are computed on: series z-normalised per channel over their true
/// lengths (see above; the raw values when !normalise), zero after them; n x channels x length
/// like SeriesSet.
std::vector<float> rocketNormalised(const SeriesSet& series, bool normalise = true);

/// Throws cs::Error when the series do not fit the kernels (length or channels differ) or are
/// empty, when the kernel set is inconsistent, or when series.validate() fails (non-finite
/// values, bad lengths).
void validateRocketInput(const SeriesSet& series, const RocketKernels& kernels);

}  // namespace cs
