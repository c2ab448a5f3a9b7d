// SPDX-License-Identifier: MIT
// ROCKET's transform on the CPU (Dempster, Petitjean, Webb 2020, section 3.2; CUROCKET's
// division of work, one series x kernel pair at a time). Every output's sum takes the additions
// of rocket.h in the same order (tap, then the kernel's channels); the loops only run over all
// output positions of one tap at once, which the compiler vectorises without reordering any
// single output's additions (-ffp-contract=off: no fused multiply-add).
#include "compute/rocket/rocket_cpu.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/huge_pages.h"
#include "compute/core/parallel.h"

namespace cs {
namespace {

// Kernels per work item: a block shares the series' data in cache and amortises the
// cancellation check.
constexpr std::size_t kKernelBlock = 32;

// The PPV and MAX of kernel w on one series of true length `length` (channel-major, `stride`
// samples per channel). buf holds at least `length` floats (a kernel never has more outputs).
void applyKernel(const float* __restrict x, std::size_t stride, std::size_t length,
                 const RocketKernels& k, std::size_t w, float* __restrict buf, float& ppv,
                 float& max) {
    const std::ptrdiff_t m = k.lengths[w], d = k.dilations[w], p = k.paddings[w];
    const std::ptrdiff_t len = std::ptrdiff_t(length);
    const std::ptrdiff_t outputs = len + 2 * p - (m - 1) * d;
    if (outputs <= 0) {  // a series shorter than the kernel's span
        ppv = 0.0f;
        max = 0.0f;
        return;
    }
    const std::size_t cc = std::size_t(k.channelCounts[w]);
    const std::int32_t* channels = k.channelIndex.data() + k.channelStart[w];
    const float* weights = k.weights.data() + k.weightStart[w];
    const float bias = k.biases[w];
    for (std::ptrdiff_t o = 0; o < outputs; ++o)
        buf[o] = bias;
    // Output o is position i = o - p; tap j reads t = i + j d = o + off.
    for (std::ptrdiff_t j = 0; j < m; ++j) {
        const std::ptrdiff_t off = j * d - p;
        const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(0, -off);
        const std::ptrdiff_t hi = std::min<std::ptrdiff_t>(outputs, len - off);
        if (lo >= hi) continue;
        for (std::size_t c = 0; c < cc; ++c) {
            const float wv = weights[std::ptrdiff_t(c) * m + j];
            const float* __restrict xc =
                x + std::ptrdiff_t(channels[c]) * std::ptrdiff_t(stride) + off;
            for (std::ptrdiff_t o = lo; o < hi; ++o)
                buf[o] = buf[o] + wv * xc[o];
        }
    }
    std::ptrdiff_t positive = 0;
    float best = buf[0];
    for (std::ptrdiff_t o = 0; o < outputs; ++o) {
        positive += buf[o] > 0.0f;
        if (buf[o] > best) best = buf[o];
    }
    ppv = float(double(positive) / double(outputs));
    max = best;
}

}  // namespace

RocketFeatures rocketTransformCpu(const SeriesSet& series, const RocketKernels& kernels,
                                  JobControl& job, int threads) {
    validateRocketInput(series, kernels);
    job.checkpoint();
    const unsigned workers = workersFor(threads);

    std::vector<float> x;
    {
        auto stage = job.stage("normalise");
        x = rocketNormalised(series, kernels.normalise);
        job.checkpoint();
    }
    job.setProgress(0.05, "normalise");

    RocketFeatures f;
    f.n = series.n;
    f.kernels = kernels.count();
    {
        auto stage = job.stage("transform");
        const std::size_t n = series.n, len = series.length, stride = series.channels * len;
        const std::size_t count = kernels.count(), cols = 2 * count;
        const std::size_t blocks = (count + kKernelBlock - 1) / kKernelBlock;
        const std::size_t items = n * blocks;
        resizeCancellable(f.values, n * cols, &job);
        float* out = f.values.data();
        // Work items in series-major order, in runs of kItemsPerChunk, so a worker keeps one
        // series in cache for many kernel blocks; a run is short enough for a prompt cancel.
        constexpr std::size_t kItemsPerChunk = 8;
        const ParallelOptions options{.threads = workers, .progress = [&](double done) {
                                          job.setProgress(0.05 + 0.95 * done, "transform");
                                      }};
        parallelFor((items + kItemsPerChunk - 1) / kItemsPerChunk, &job, options,
                    [&](std::size_t chunk, unsigned) {
                        std::vector<float> buf(len);
                        const std::size_t end = std::min(items, (chunk + 1) * kItemsPerChunk);
                        for (std::size_t item = chunk * kItemsPerChunk; item < end; ++item) {
                            job.checkpoint();
                            const std::size_t i = item / blocks, b = item % blocks;
                            const float* xi = x.data() + i * stride;
                            const std::size_t trueLength =
                                std::min<std::size_t>(series.lengths[i], len);
                            float* row = out + i * cols;
                            const std::size_t wEnd = std::min(count, (b + 1) * kKernelBlock);
                            for (std::size_t w = b * kKernelBlock; w < wEnd; ++w)
                                applyKernel(xi, len, trueLength, kernels, w, buf.data(), row[2 * w],
                                            row[2 * w + 1]);
                        }
                    });
    }
    job.setProgress(1.0, "transform");
    return f;
}

}  // namespace cs
