// SPDX-License-Identifier: MIT
// ROCKET's host side: the random kernels (Dempster, Petitjean, Webb 2020, section 3.1, drawn as
// sktime's _generate_kernels does, from cs::Random so every platform draws the same), the
// normalised input every backend reads, and the feature map for display.
#include "compute/rocket/rocket.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "compute/core/error.h"
#include "compute/core/parallel.h"
#include "compute/core/random.h"
#include "compute/core/statistics.h"

namespace cs {
namespace {

std::string num(std::size_t v) {
    return std::to_string(v);
}

}  // namespace

const char* rocketVariantName(RocketVariant v) {
    switch (v) {
        case RocketVariant::MiniRocket:
            return "minirocket";
        case RocketVariant::MultiRocket:
            return "multirocket";
        case RocketVariant::Rocket:
            break;
    }
    return "rocket";
}

const char* rocketVariantTitle(RocketVariant v) {
    switch (v) {
        case RocketVariant::MiniRocket:
            return "MiniRocket";
        case RocketVariant::MultiRocket:
            return "MultiRocket";
        case RocketVariant::Rocket:
            break;
    }
    return "ROCKET";
}

RocketVariant rocketVariantFromName(std::string_view name) {
    for (auto v : {RocketVariant::Rocket, RocketVariant::MiniRocket, RocketVariant::MultiRocket})
        if (name == rocketVariantName(v)) return v;
    throw Error("unknown ROCKET variant '" + std::string(name) +
                "': expected rocket, minirocket or multirocket");
}

void validateRocketParams(const RocketParams& params) {
    if (params.kernels < 1 || params.kernels > kRocketMaxKernels)
        throw Error("kernels must be in [1, " + std::to_string(kRocketMaxKernels) + "], got " +
                    std::to_string(params.kernels));
}

RocketKernels makeRocketKernels(const RocketParams& params, std::size_t length,
                                std::size_t channels) {
    validateRocketParams(params);
    if (length < 2)
        throw Error("ROCKET needs series of at least 2 samples, got length " + num(length));
    if (channels < 1) throw Error("ROCKET needs series of at least 1 channel, got 0");
    if (length > (std::size_t(1) << 26))
        throw Error("ROCKET series of length " + num(length) + " are too long (at most 2^26)");
    static constexpr std::int32_t kLengths[3] = {7, 9, 11};

    RocketKernels k;
    k.length = length;
    k.channels = channels;
    k.normalise = params.normalise;
    const std::size_t count = std::size_t(params.kernels);
    k.lengths.reserve(count);
    k.biases.reserve(count);
    k.dilations.reserve(count);
    k.paddings.reserve(count);
    k.channelCounts.reserve(count);
    k.channelStart.reserve(count);
    k.weightStart.reserve(count);

    Random rng(params.seed);
    std::vector<std::int32_t> pool(channels);
    std::vector<double> w;
    for (std::size_t kernel = 0; kernel < count; ++kernel) {
        const std::int32_t m = kLengths[rng.below(3)];

        // Channel count: always drawn, even for one channel (u in [0, 1) gives 1).
        const std::size_t most = std::min<std::size_t>(channels, std::size_t(m));
        const double cu = rng.uniform(0.0, std::log2(double(most) + 1.0));
        const std::size_t cc =
            std::clamp<std::size_t>(std::size_t(std::floor(std::exp2(cu))), 1, most);

        // The channels: the first cc places of a partial Fisher-Yates shuffle, sorted.
        std::iota(pool.begin(), pool.end(), 0);
        for (std::size_t i = 0; i < cc; ++i)
            std::swap(pool[i], pool[i + std::size_t(rng.below(channels - i))]);
        std::sort(pool.begin(), pool.begin() + std::ptrdiff_t(cc));
        k.channelStart.push_back(std::int32_t(k.channelIndex.size()));
        k.channelCounts.push_back(std::int32_t(cc));
        k.channelIndex.insert(k.channelIndex.end(), pool.begin(),
                              pool.begin() + std::ptrdiff_t(cc));

        // Weights: m normals per channel, centred per channel in double, then rounded.
        k.weightStart.push_back(std::int32_t(k.weights.size()));
        w.resize(std::size_t(m));
        for (std::size_t c = 0; c < cc; ++c) {
            double mean = 0.0;
            for (auto& v : w) {
                v = rng.normal();
                mean += v;
            }
            mean /= double(m);
            for (double v : w)
                k.weights.push_back(float(v - mean));
        }

        k.biases.push_back(float(rng.uniform(-1.0, 1.0)));

        // Dilation: the exponent's range [0, A) is clamped at 0 for series shorter than the
        // kernel (A < 0), and the draw is made even when the range is empty (u = 0, d = 1).
        const double range = std::max(0.0, std::log2(double(length - 1) / double(m - 1)));
        const double du = rng.uniform(0.0, range);
        const std::int32_t d = std::max(1, std::int32_t(std::floor(std::exp2(du))));
        k.lengths.push_back(m);
        k.dilations.push_back(d);

        // Padding: the coin is always tossed; a kernel that does not fit unpadded is padded
        // whatever it says ((m - 1) d is even, so then there are exactly L outputs).
        const bool coin = rng.below(2) == 1;
        const std::size_t span = std::size_t(m - 1) * std::size_t(d) + 1;
        const bool padded = coin || span > length;
        k.paddings.push_back(padded ? (m - 1) * d / 2 : 0);
    }
    return k;
}

std::vector<float> rocketNormalised(const SeriesSet& series, bool normalise) {
    const std::size_t len = series.length, ch = series.channels;
    std::vector<float> out(series.n * ch * len, 0.0f);
    // Each series on its own: any split over threads gives the same values.
    parallelRanges(series.n, threadsFor(series.n * ch * len, std::size_t(1) << 20), nullptr,
                   [&](std::size_t begin, std::size_t end, unsigned) {
                       for (std::size_t i = begin; i < end; ++i) {
                           const std::size_t true_len =
                               std::min<std::size_t>(series.lengths[i], len);
                           for (std::size_t c = 0; c < ch; ++c) {
                               const float* x = series.values.data() + (i * ch + c) * len;
                               float* y = out.data() + (i * ch + c) * len;
                               if (true_len == 0) continue;
                               if (!normalise) {
                                   std::copy_n(x, true_len, y);
                                   continue;
                               }
                               const auto [mean, sd] = meanAndSd(x, true_len);
                               if (!(sd > 0.0)) continue;  // constant: zeros
                               for (std::size_t t = 0; t < true_len; ++t)
                                   y[t] = float((double(x[t]) - mean) / sd);
                           }
                       }
                   });
    return out;
}

void validateRocketInput(const SeriesSet& series, const RocketKernels& kernels) {
    if (series.n == 0) throw Error("ROCKET needs at least one series, the set is empty");
    if (series.channels != kernels.channels)
        throw Error("the series have " + num(series.channels) + " channel(s) but the kernels " +
                    "were drawn for " + num(kernels.channels));
    if (series.length != kernels.length)
        throw Error("the series have length " + num(series.length) + " but the kernels were " +
                    "drawn for length " + num(kernels.length));
    const std::size_t count = kernels.count();
    if (count == 0 || kernels.biases.size() != count || kernels.dilations.size() != count ||
        kernels.paddings.size() != count || kernels.channelCounts.size() != count ||
        kernels.channelStart.size() != count || kernels.weightStart.size() != count)
        throw Error("the ROCKET kernel set is inconsistent (" + num(count) + " kernels)");
    for (std::size_t w = 0; w < count; ++w) {
        const std::size_t cc = std::size_t(kernels.channelCounts[w]);
        const std::size_t cs0 = std::size_t(kernels.channelStart[w]);
        const std::size_t ws = std::size_t(kernels.weightStart[w]);
        const std::int64_t outputs = std::int64_t(kernels.length) + 2 * kernels.paddings[w] -
                                     std::int64_t(kernels.lengths[w] - 1) * kernels.dilations[w];
        if (kernels.lengths[w] < 1 || kernels.dilations[w] < 1 || kernels.paddings[w] < 0 ||
            kernels.channelCounts[w] < 1 || kernels.channelStart[w] < 0 ||
            kernels.weightStart[w] < 0 || cs0 + cc > kernels.channelIndex.size() ||
            ws + cc * std::size_t(kernels.lengths[w]) > kernels.weights.size() || outputs < 1)
            throw Error("ROCKET kernel " + num(w) + " is inconsistent");
        for (std::size_t c = 0; c < cc; ++c) {
            const auto ci = kernels.channelIndex[cs0 + c];
            if (ci < 0 || std::size_t(ci) >= kernels.channels)
                throw Error("ROCKET kernel " + num(w) + " reads channel " + std::to_string(ci) +
                            " of " + num(kernels.channels));
        }
    }
    series.validate();
}

}  // namespace cs
