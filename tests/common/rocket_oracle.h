// SPDX-License-Identifier: MIT
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "compute/core/series_set.h"
#include "compute/rocket/rocket.h"

namespace cs::test {

// Plain C++ (no Qt), shared by tests/compute/tst_rocket.cpp and the GPU suite. Written from the
// feature spec in compute/rocket/rocket.h, one output position at a time, without the backends'
// code, so it can referee them.

/// The spec's input: channel c of series i z-normalised over its true length (mean and
/// population standard deviation in double, float((x - mean) / sd); a constant channel gives
/// zeros), zero after it; the raw values when !normalise. n x channels x length floats.
inline std::vector<float> oracleRocketInput(const SeriesSet& s, bool normalise = true) {
    std::vector<float> out(s.n * s.channels * s.length, 0.0f);
    for (std::size_t i = 0; i < s.n; ++i)
        for (std::size_t c = 0; c < s.channels; ++c) {
            const std::size_t base = (i * s.channels + c) * s.length;
            const std::size_t len = s.lengths[i];
            if (!normalise) {
                for (std::size_t t = 0; t < len; ++t)
                    out[base + t] = s.values[base + t];
                continue;
            }
            double mean = 0.0;
            for (std::size_t t = 0; t < len; ++t)
                mean += double(s.values[base + t]);
            mean /= double(len);
            double var = 0.0;
            for (std::size_t t = 0; t < len; ++t)
                var += (double(s.values[base + t]) - mean) * (double(s.values[base + t]) - mean);
            const double sd = std::sqrt(var / double(len));
            for (std::size_t t = 0; t < len; ++t)
                out[base + t] = sd == 0.0 ? 0.0f : float((double(s.values[base + t]) - mean) / sd);
        }
    return out;
}

/// PPV and MAX of kernel w on one series x of true length `length` (channel-major,
/// kernels.length samples per channel), straight from the spec: every output position i in
/// -p .. L + p - (m - 1) d - 1 (none: PPV 0, MAX 0),
/// sum = b, then for each tap j with 0 <= t = i + j d < L, for each of the kernel's channels
/// in order, sum = sum + w * x (float, no FMA: the tests build with -ffp-contract=off).
struct OracleFeature {
    float ppv = 0.0f;
    float max = 0.0f;
};
inline OracleFeature oracleRocketFeature(const float* x, std::size_t length, const RocketKernels& k,
                                         std::size_t w) {
    const long long len = static_cast<long long>(length);
    const long long stride = static_cast<long long>(k.length);
    const long long m = k.lengths[w], d = k.dilations[w], p = k.paddings[w];
    const int cc = k.channelCounts[w];
    long long positives = 0, outputs = 0;
    float best = -std::numeric_limits<float>::infinity();
    for (long long i = -p; i <= len + p - (m - 1) * d - 1; ++i) {
        float sum = k.biases[w];
        for (long long j = 0; j < m; ++j) {
            const long long t = i + j * d;
            if (t < 0 || t >= len) continue;
            for (int c = 0; c < cc; ++c) {
                const long long channel = k.channelIndex[std::size_t(k.channelStart[w] + c)];
                const float weight = k.weights[std::size_t(k.weightStart[w] + c * m + j)];
                const float product = weight * x[channel * stride + t];
                sum = sum + product;
            }
        }
        ++outputs;
        if (sum > 0.0f) ++positives;
        if (sum > best) best = sum;
    }
    OracleFeature f;
    f.ppv = outputs ? float(double(positives) / double(outputs)) : 0.0f;
    f.max = outputs ? best : 0.0f;
    return f;
}

/// All features of all series: n x (2 x kernels), [PPV, MAX] per kernel.
inline std::vector<float> oracleRocketFeatures(const SeriesSet& s, const RocketKernels& k) {
    const std::vector<float> x = oracleRocketInput(s, k.normalise);
    const std::size_t cols = 2 * k.count();
    std::vector<float> out(s.n * cols);
    for (std::size_t i = 0; i < s.n; ++i)
        for (std::size_t w = 0; w < k.count(); ++w) {
            const auto f =
                oracleRocketFeature(x.data() + i * s.channels * s.length, s.lengths[i], k, w);
            out[i * cols + 2 * w] = f.ppv;
            out[i * cols + 2 * w + 1] = f.max;
        }
    return out;
}

}  // namespace cs::test
