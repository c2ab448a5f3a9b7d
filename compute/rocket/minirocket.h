// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/rocket/rocket.h"

namespace cs {

// MiniRocket (Dempster, Schmidt, Webb 2021) and MultiRocket (Tan, Dempster, Bergmeir, Webb 2022)
// as the authors' code (angus924/minirocket, ChangWeiTan/MultiRocket) and aeon define them; the
// random draws come from cs::Random, so the numbers differ from numpy's, the structure does not.
//
// The 84 kernels: length 9, weight -1 on six taps and 2 on the three taps of kernel k, the k-th
// 3-subset of {0..8} in lexicographic order (kMiniRocketTaps). A kernel at dilation d reads tap j
// at t + (j - 4) d. Dilations (makeMiniRocketModel): for K = max(kernels, 84) features per
// representation, f = K / 84 features per kernel, D' = min(f, maxDilations) values
// floor(2^(e i / (D' - 1))), i = 0 .. D'-1, e = log2((R - 1) / 8) for the reference length R
// (the longest fitting series); the distinct ones are the dilations, each with its count times
// f / D' features (truncated), the remainder given round-robin from the smallest dilation.
// A combination is (dilation, kernel), dilation-major; it has a channel set (a count
// floor(2^u), u uniform in [0, log2(min(C, 9) + 1)), then that many distinct channels, sorted)
// and a fitting example, and its features are its biases: the quantiles
// q_i = frac(i (1 + sqrt 5) / 2), i = 1, 2 ... (one per feature in order) of the padded
// convolution output of the example (linear interpolation, numpy's default).
//
// The convolution of one series (true length L, no normalisation, nothing read past L) at
// output t in [0, L), in float, no fused multiply-add, for each channel c of the combination:
//   a = 0; for j = 0 .. 8: if 0 <= t + (j-4) d < L: a = a + x_c[t + (j-4) d]
//   y_c = -a; for the kernel's taps j0 < j1 < j2: y_c = y_c + g_j  (g_j = 3 x_c[t + (j-4) d], or
//   0 when out of range)
// and C[t] = y_{c0} + y_{c1} + ... over the combination's channels in ascending order (starting
// from y_{c0}). Padding alternates: combination (dilation index i, kernel k) pools over all L
// outputs when (i + k) is even, else over the unpadded ones t in [4d, L - 4d) (possibly none).
// Pooling over the n chosen outputs with bias b (z = C[t] - b is "positive" when C[t] > b):
//   PPV  = float(double(count) / double(n))
//   MPV  = float(sum over positive t, ascending, of (double(C[t]) - double(b)), / count), 0 if none
//   MIPV = float(double(sum of (t - first chosen t) over positive t) / count), -1 if none
//   LSPV = float(longest run of consecutive positive outputs)
// and with no outputs at all: PPV 0, MPV 0, MIPV -1, LSPV 0 (the references' nan_to_num).
// MultiRocket: the same on the series and on its first difference x[t + 1] - x[t] (float, length
// L - 1), each representation with its own dilations (for R - 1), channel sets and biases.
// Features per series: feature f of the representation, layer l: values[(row F + f) layers + l];
// MiniRocket one layer (PPV), MultiRocket eight (PPV, MPV, MIPV, LSPV of the series, then of
// its difference). The MultiRocket code adds the bias in MPV (mean of C + b) and counts LSPV
// between values below the bias; we follow the paper's definitions above (standardised by the
// ridge, MPV differs only by a per-column constant where count > 0).

/// The 84 kernels' three taps of weight 2 (the others weigh -1), lexicographic.
extern const std::array<std::array<std::int8_t, 3>, 84> kMiniRocketTaps;
inline constexpr int kMiniRocketKernels = 84;
inline constexpr int kMiniRocketMaxDilations = 32;

/// One representation of the series (the series itself, or its first difference) as fitted.
struct MiniRocketRepresentation {
    std::int32_t referenceLength = 0;               ///< R, the length dilations were fitted for
    std::vector<std::int32_t> dilations;            ///< D, ascending
    std::vector<std::int32_t> featuresPerDilation;  ///< D; each kernel has that many biases there
    std::vector<std::int32_t> featureStart;         ///< D + 1: first feature of each dilation
    /// Per combination (dilation-major, then kernel): its channels are channelIndex[
    /// channelStart[c] .. + channelCounts[c]), ascending.
    std::vector<std::int32_t> channelCounts;
    std::vector<std::int32_t> channelStart;
    std::vector<std::int32_t> channelIndex;
    /// Per combination: the row of the fitting set whose output gives its biases.
    std::vector<std::int32_t> biasExample;
    std::vector<float> quantiles;  ///< per feature
    std::vector<float> biases;     ///< per feature (empty until the biases are fitted)

    std::size_t featureCount() const { return quantiles.size(); }
    std::size_t combinations() const { return dilations.size() * kMiniRocketKernels; }
    /// The first feature of combination (dilation index di, kernel k).
    std::size_t firstFeature(std::size_t di, std::size_t k) const {
        return std::size_t(featureStart[di]) + k * std::size_t(featuresPerDilation[di]);
    }
};

/// A fitted MiniRocket or MultiRocket transform.
struct MiniRocketModel {
    RocketVariant variant = RocketVariant::MiniRocket;
    std::size_t channels = 0;
    /// The series (and for MultiRocket its first difference, second).
    std::vector<MiniRocketRepresentation> representations;

    /// Pooling operators per representation: 1 (PPV) or 4 (PPV, MPV, MIPV, LSPV).
    std::size_t poolings() const { return variant == RocketVariant::MultiRocket ? 4 : 1; }
    /// Values per feature column: poolings() x representations.
    std::size_t layers() const { return poolings() * representations.size(); }
    /// Features per representation (the feature map's columns).
    std::size_t featureCount() const {
        return representations.empty() ? 0 : representations.front().featureCount();
    }
};

/// The dilations and their feature counts for reference length R (see above); throws cs::Error
/// for R < 9.
void fitMiniRocketDilations(std::size_t referenceLength, int kernels, int maxDilations,
                            std::vector<std::int32_t>& dilations,
                            std::vector<std::int32_t>& featuresPerDilation);
/// q_1 .. q_n (see above).
std::vector<float> miniRocketQuantiles(std::size_t n);

/// The model before its biases: dilations, quantiles, and from cs::Random(params.seed) per
/// representation, the channel counts and channels of every combination, then every
/// combination's fitting example (uniform among fitRows). fitRows: the rows biases may come
/// from (the training rows); their longest true length is R (R - 1 for the difference). Throws
/// cs::Error for a variant other than MiniRocket or MultiRocket, no fit rows, R < 9 (10 for
/// MultiRocket), a series shorter than 1 (2) sample, or bad params.
/// @code auto m = cs::makeMiniRocketModel({.kernels = 10'000, .variant =
/// cs::RocketVariant::MiniRocket}, series, rows); @endcode
MiniRocketModel makeMiniRocketModel(const RocketParams& params, const SeriesSet& series,
                                    std::span<const std::size_t> fitRows);

/// The rows biases are fitted on: the rows not marked test (every row without a split).
std::vector<std::size_t> miniRocketFitRows(const SeriesSet& series);

/// Throws cs::Error when the series do not fit the model (channels, lengths too short, empty)
/// or the model is inconsistent; `needBiases`: the biases must be there.
void validateMiniRocketInput(const SeriesSet& series, const MiniRocketModel& model,
                             bool needBiases);

/// The padded convolution output C[0 .. L) of combination (di, k) of representation r on row i
/// (L its true length, minus one for the difference), as defined above; for the fit and tests.
void miniRocketConvolution(const SeriesSet& series, std::size_t row,
                           const MiniRocketRepresentation& rep, bool difference, std::size_t di,
                           std::size_t k, std::vector<float>& out, std::vector<float>& scratch);

/// The biases on the host (Backend::miniRocketFitBiases' default): for every combination, the
/// quantiles of its example's padded output (linear interpolation in double, then rounded).
void fitMiniRocketBiasesHost(const SeriesSet& series, MiniRocketModel& model, JobControl& job,
                             int threads = 0);

/// The features on the host (Backend::miniRocketTransform's default), multithreaded over
/// series; the same bits whatever the thread count. Stage "transform".
RocketFeatures miniRocketTransformHost(const SeriesSet& series, const MiniRocketModel& model,
                                       JobControl& job, int threads = 0);

}  // namespace cs
