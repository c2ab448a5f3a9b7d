// SPDX-License-Identifier: MIT
// MiniRocket (Dempster, Schmidt, Webb 2021, sections 3.1-3.4) and MultiRocket (Tan et al.
// 2022, section 3) on the host: the fitted parameters, the biases and the transform. The
// arithmetic is minirocket.h's to the letter; the loops only run over all outputs of one tap at
// once, which leaves every output's own order of additions alone.
#include "compute/rocket/minirocket.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "compute/core/error.h"
#include "compute/core/parallel.h"
#include "compute/core/random.h"

namespace cs {

const std::array<std::array<std::int8_t, 3>, 84> kMiniRocketTaps = [] {
    std::array<std::array<std::int8_t, 3>, 84> taps{};
    std::size_t k = 0;
    for (std::int8_t a = 0; a < 9; ++a)
        for (std::int8_t b = std::int8_t(a + 1); b < 9; ++b)
            for (std::int8_t c = std::int8_t(b + 1); c < 9; ++c)
                taps[k++] = {a, b, c};
    return taps;
}();

namespace {

std::string num(std::size_t v) {
    return std::to_string(v);
}

bool multi(const MiniRocketModel& m) {
    return m.variant == RocketVariant::MultiRocket;
}

// The true length of row i in representation r (the difference is one shorter).
std::size_t repLength(const SeriesSet& s, std::size_t i, bool difference) {
    const std::size_t l = std::min<std::size_t>(s.lengths[i], s.length);
    return difference ? (l > 0 ? l - 1 : 0) : l;
}

// Row i's channels as the representation reads them: the series, or its first difference,
// into buf (channels x length) for the difference. Returns the channel stride.
const float* repData(const SeriesSet& s, std::size_t i, bool difference, std::vector<float>& buf) {
    const float* x = s.values.data() + i * s.channels * s.length;
    if (!difference) return x;
    const std::size_t l = repLength(s, i, true);
    buf.resize(s.channels * s.length);
    for (std::size_t c = 0; c < s.channels; ++c)
        for (std::size_t t = 0; t < l; ++t)
            buf[c * s.length + t] = x[c * s.length + t + 1] - x[c * s.length + t];
    return buf.data();
}

// a[t] = sum over taps j ascending of x[t + (j - 4) d], from 0, in range only.
void alphaSum(const float* __restrict x, std::ptrdiff_t len, std::ptrdiff_t d,
              float* __restrict a) {
    for (std::ptrdiff_t t = 0; t < len; ++t)
        a[t] = 0.0f;
    for (std::ptrdiff_t j = 0; j < 9; ++j) {
        const std::ptrdiff_t off = (j - 4) * d;
        const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(0, -off);
        const std::ptrdiff_t hi = std::min<std::ptrdiff_t>(len, len - off);
        for (std::ptrdiff_t t = lo; t < hi; ++t)
            a[t] = a[t] + x[t + off];
    }
}

// y[t] = -a[t] + g_j0 + g_j1 + g_j2 (g_j = 3 x[t + (j - 4) d] where in range).
void kernelOutput(const float* __restrict x, const float* __restrict a, std::ptrdiff_t len,
                  std::ptrdiff_t d, const std::array<std::int8_t, 3>& taps, float* __restrict y) {
    for (std::ptrdiff_t t = 0; t < len; ++t)
        y[t] = -a[t];
    for (const std::int8_t j : taps) {
        const std::ptrdiff_t off = (std::ptrdiff_t(j) - 4) * d;
        const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(0, -off);
        const std::ptrdiff_t hi = std::min<std::ptrdiff_t>(len, len - off);
        for (std::ptrdiff_t t = lo; t < hi; ++t)
            y[t] = y[t] + 3.0f * x[t + off];
    }
}

// C over [0, len) for one combination, given every channel's alpha (stride `stride`).
void combinationOutput(const float* x, const float* alpha, std::size_t stride, std::ptrdiff_t len,
                       std::ptrdiff_t d, std::size_t k, const std::int32_t* channels,
                       std::size_t count, float* out, float* y) {
    for (std::size_t ci = 0; ci < count; ++ci) {
        const std::size_t c = std::size_t(channels[ci]);
        float* target = ci == 0 ? out : y;
        kernelOutput(x + c * stride, alpha + c * stride, len, d, kMiniRocketTaps[k], target);
        if (ci > 0)
            for (std::ptrdiff_t t = 0; t < len; ++t)
                out[t] = out[t] + y[t];
    }
}

// The pooled features of the outputs c[0 .. n) at bias b into out[0 .. poolings).
void pool(const float* __restrict c, std::ptrdiff_t n, float b, std::size_t poolings, float* out) {
    if (poolings == 1) {
        std::ptrdiff_t count = 0;
        for (std::ptrdiff_t t = 0; t < n; ++t)
            count += c[t] > b;
        out[0] = n > 0 ? float(double(count) / double(n)) : 0.0f;
        return;
    }
    std::ptrdiff_t count = 0, run = 0, longest = 0;
    std::int64_t indexSum = 0;
    double sum = 0.0;
    for (std::ptrdiff_t t = 0; t < n; ++t) {
        if (c[t] > b) {
            ++count;
            indexSum += t;
            sum += double(c[t]) - double(b);
            ++run;
            longest = std::max(longest, run);
        } else {
            run = 0;
        }
    }
    out[0] = n > 0 ? float(double(count) / double(n)) : 0.0f;
    out[1] = count > 0 ? float(sum / double(count)) : 0.0f;
    out[2] = count > 0 ? float(double(indexSum) / double(count)) : -1.0f;
    out[3] = float(longest);
}

void checkParams(const RocketParams& params) {
    validateRocketParams(params);
    if (params.variant != RocketVariant::MiniRocket && params.variant != RocketVariant::MultiRocket)
        throw Error(std::string("not a MiniRocket variant: ") + rocketVariantName(params.variant));
}

}  // namespace

void fitMiniRocketDilations(std::size_t referenceLength, int kernels, int maxDilations,
                            std::vector<std::int32_t>& dilations,
                            std::vector<std::int32_t>& featuresPerDilation) {
    if (referenceLength < 9)
        throw Error(
            "MiniRocket needs series of at least 9 samples (the kernel's length), the "
            "longest is " +
            num(referenceLength));
    const int perKernel = std::max(kernels, kMiniRocketKernels) / kMiniRocketKernels;
    const int trueMax = std::max(1, std::min(perKernel, maxDilations));
    const double multiplier = double(perKernel) / double(trueMax);
    const double exponent = std::log2(double(referenceLength - 1) / 8.0);
    // numpy's logspace(0, e, n, base 2): 2^(e i / (n - 1)), the last exactly 2^e.
    std::vector<std::int32_t> raw(static_cast<std::size_t>(trueMax));
    for (int i = 0; i < trueMax; ++i) {
        // numpy's linspace: i * step, the last point set to the stop exactly.
        const double step = trueMax == 1 ? 0.0 : exponent / double(trueMax - 1);
        const double y = i == trueMax - 1 && trueMax > 1 ? exponent : double(i) * step;
        raw[std::size_t(i)] = std::int32_t(std::pow(2.0, y));
    }
    dilations.clear();
    featuresPerDilation.clear();
    for (const std::int32_t d : raw) {  // ascending already: unique with counts
        if (dilations.empty() || dilations.back() != d) {
            dilations.push_back(d);
            featuresPerDilation.push_back(0);
        }
        ++featuresPerDilation.back();
    }
    int total = 0;
    for (auto& f : featuresPerDilation) {
        f = std::int32_t(double(f) * multiplier);
        total += f;
    }
    for (std::size_t i = 0; total < perKernel; i = (i + 1) % featuresPerDilation.size(), ++total)
        ++featuresPerDilation[i];
}

std::vector<float> miniRocketQuantiles(std::size_t n) {
    const double phi = (std::sqrt(5.0) + 1.0) / 2.0;
    std::vector<float> q(n);
    for (std::size_t i = 1; i <= n; ++i)
        q[i - 1] = float(std::fmod(double(i) * phi, 1.0));
    return q;
}

std::vector<std::size_t> miniRocketFitRows(const SeriesSet& series) {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < series.n; ++i)
        if (series.isTest.empty() || !series.isTest[i]) rows.push_back(i);
    return rows;
}

MiniRocketModel makeMiniRocketModel(const RocketParams& params, const SeriesSet& series,
                                    std::span<const std::size_t> fitRows) {
    checkParams(params);
    if (series.channels < 1) throw Error("MiniRocket needs series of at least 1 channel, got 0");
    if (fitRows.empty()) throw Error("MiniRocket needs at least one series to fit its biases");
    MiniRocketModel m;
    m.variant = params.variant;
    m.channels = series.channels;
    std::size_t longest = 0;
    for (const std::size_t i : fitRows) {
        if (i >= series.n) throw Error("fit row " + num(i) + " is not in the set");
        longest = std::max(longest, repLength(series, i, false));
    }
    const std::size_t reps = multi(m) ? 2 : 1;
    if (multi(m) && longest < 10)
        throw Error(
            "MultiRocket needs series of at least 10 samples (the kernel's length on "
            "the first difference), the longest is " +
            num(longest));

    Random rng(params.seed);
    const std::size_t channels = series.channels;
    const std::size_t most = std::min<std::size_t>(channels, 9);
    std::vector<std::int32_t> pool(channels);
    for (std::size_t r = 0; r < reps; ++r) {
        MiniRocketRepresentation rep;
        rep.referenceLength = std::int32_t(longest - r);
        fitMiniRocketDilations(longest - r, params.kernels, kMiniRocketMaxDilations, rep.dilations,
                               rep.featuresPerDilation);
        rep.featureStart.push_back(0);
        for (const auto f : rep.featuresPerDilation)
            rep.featureStart.push_back(rep.featureStart.back() + f * kMiniRocketKernels);
        rep.quantiles = miniRocketQuantiles(std::size_t(rep.featureStart.back()));
        // Channel sets first, then the examples (aeon's order of draws).
        const std::size_t combinations = rep.combinations();
        for (std::size_t c = 0; c < combinations; ++c) {
            const double u = rng.uniform(0.0, std::log2(double(most) + 1.0));
            const std::size_t count = std::clamp<std::size_t>(std::size_t(std::exp2(u)), 1, most);
            std::iota(pool.begin(), pool.end(), 0);
            for (std::size_t i = 0; i < count; ++i)
                std::swap(pool[i], pool[i + std::size_t(rng.below(channels - i))]);
            std::sort(pool.begin(), pool.begin() + std::ptrdiff_t(count));
            rep.channelStart.push_back(std::int32_t(rep.channelIndex.size()));
            rep.channelCounts.push_back(std::int32_t(count));
            rep.channelIndex.insert(rep.channelIndex.end(), pool.begin(),
                                    pool.begin() + std::ptrdiff_t(count));
        }
        for (std::size_t c = 0; c < combinations; ++c)
            rep.biasExample.push_back(std::int32_t(fitRows[rng.below(fitRows.size())]));
        m.representations.push_back(std::move(rep));
    }
    return m;
}

void validateMiniRocketInput(const SeriesSet& series, const MiniRocketModel& model,
                             bool needBiases) {
    if (series.n == 0) throw Error("MiniRocket needs at least one series, the set is empty");
    if (series.channels != model.channels)
        throw Error("the series have " + num(series.channels) + " channel(s) but the model was " +
                    "fitted for " + num(model.channels));
    const std::size_t reps = multi(model) ? 2 : 1;
    if (model.representations.size() != reps) throw Error("the MiniRocket model is inconsistent");
    const std::size_t features = model.featureCount();
    for (const auto& rep : model.representations) {
        const std::size_t dil = rep.dilations.size(), comb = rep.combinations();
        bool ok = dil > 0 && rep.featuresPerDilation.size() == dil &&
                  rep.featureStart.size() == dil + 1 && rep.channelCounts.size() == comb &&
                  rep.channelStart.size() == comb && rep.biasExample.size() == comb &&
                  rep.quantiles.size() == features &&
                  std::size_t(rep.featureStart.back()) == features &&
                  (!needBiases || rep.biases.size() == features);
        for (std::size_t i = 0; ok && i < dil; ++i)
            ok = rep.dilations[i] >= 1 && rep.featuresPerDilation[i] >= 0 &&
                 rep.featureStart[i + 1] ==
                     rep.featureStart[i] + rep.featuresPerDilation[i] * kMiniRocketKernels;
        for (std::size_t c = 0; ok && c < comb; ++c) {
            ok = rep.channelCounts[c] >= 1 && rep.channelStart[c] >= 0 &&
                 std::size_t(rep.channelStart[c] + rep.channelCounts[c]) <= rep.channelIndex.size();
            for (std::int32_t j = 0; ok && j < rep.channelCounts[c]; ++j) {
                const auto ch = rep.channelIndex[std::size_t(rep.channelStart[c] + j)];
                ok = ch >= 0 && std::size_t(ch) < model.channels;
            }
        }
        if (!ok) throw Error("the MiniRocket model is inconsistent");
    }
    const std::size_t shortest = multi(model) ? 2 : 1;
    for (std::size_t i = 0; i < series.n; ++i)
        if (repLength(series, i, false) < shortest)
            throw Error(std::string(rocketVariantTitle(model.variant)) +
                        " needs series of at least " + num(shortest) + " sample(s), series " +
                        num(i) + " has " + num(repLength(series, i, false)));
    series.validate();
}

void miniRocketConvolution(const SeriesSet& series, std::size_t row,
                           const MiniRocketRepresentation& rep, bool difference, std::size_t di,
                           std::size_t k, std::vector<float>& out, std::vector<float>& scratch) {
    std::vector<float> diff;
    const float* x = repData(series, row, difference, diff);
    const std::size_t len = repLength(series, row, difference);
    const std::size_t comb = di * kMiniRocketKernels + k;
    const std::int32_t* channels = rep.channelIndex.data() + rep.channelStart[comb];
    const std::size_t count = std::size_t(rep.channelCounts[comb]);
    const std::size_t stride = series.length;
    // Alpha only for the channels this combination reads.
    scratch.assign(series.channels * stride + stride, 0.0f);
    for (std::size_t ci = 0; ci < count; ++ci) {
        const std::size_t c = std::size_t(channels[ci]);
        alphaSum(x + c * stride, std::ptrdiff_t(len), rep.dilations[di],
                 scratch.data() + c * stride);
    }
    out.assign(len, 0.0f);
    combinationOutput(x, scratch.data(), stride, std::ptrdiff_t(len), rep.dilations[di], k,
                      channels, count, out.data(), scratch.data() + series.channels * stride);
}

void fitMiniRocketBiasesHost(const SeriesSet& series, MiniRocketModel& model, JobControl& job,
                             int threads) {
    validateMiniRocketInput(series, model, false);
    const auto stage = job.stage("biases");
    for (std::size_t r = 0; r < model.representations.size(); ++r) {
        MiniRocketRepresentation& rep = model.representations[r];
        rep.biases.assign(rep.featureCount(), 0.0f);
        const std::size_t comb = rep.combinations();
        for (const auto e : rep.biasExample)
            if (e < 0 || std::size_t(e) >= series.n)
                throw Error("MiniRocket fitting example " + std::to_string(e) +
                            " is not in the set");
        parallelFor(comb, &job, {.threads = workersFor(threads)}, [&](std::size_t c, unsigned) {
            const std::size_t di = c / kMiniRocketKernels, k = c % kMiniRocketKernels;
            std::vector<float> out, scratch;
            miniRocketConvolution(series, std::size_t(rep.biasExample[c]), rep, r == 1, di, k, out,
                                  scratch);
            std::sort(out.begin(), out.end());
            const std::size_t first = rep.firstFeature(di, k);
            const std::size_t n = out.size();
            for (std::int32_t f = 0; f < rep.featuresPerDilation[di]; ++f) {
                const double h = double(n - 1) * double(rep.quantiles[first + std::size_t(f)]);
                const std::size_t lo = std::min(n - 1, std::size_t(std::floor(h)));
                const std::size_t hi = std::min(n - 1, lo + 1);
                const double frac = h - double(lo);
                rep.biases[first + std::size_t(f)] =
                    float(double(out[lo]) + frac * (double(out[hi]) - double(out[lo])));
            }
        });
    }
}

RocketFeatures miniRocketTransformHost(const SeriesSet& series, const MiniRocketModel& model,
                                       JobControl& job, int threads) {
    validateMiniRocketInput(series, model, true);
    job.checkpoint();
    const auto stage = job.stage("transform");
    RocketFeatures f;
    f.n = series.n;
    f.kernels = model.featureCount();
    f.layers = model.layers();
    const std::size_t poolings = model.poolings(), layers = f.layers, cols = f.columns();
    f.values.assign(f.n * cols, 0.0f);
    const std::size_t stride = series.length, C = series.channels;
    const ParallelOptions options{.threads = workersFor(threads), .progress = [&](double done) {
                                      job.setProgress(done, "transform");
                                  }};
    parallelFor(series.n, &job, options, [&](std::size_t i, unsigned) {
        std::vector<float> diff, alpha(C * stride), out(stride), y(stride);
        float* row = f.values.data() + i * cols;
        for (std::size_t r = 0; r < model.representations.size(); ++r) {
            const MiniRocketRepresentation& rep = model.representations[r];
            const float* x = repData(series, i, r == 1, diff);
            const std::ptrdiff_t len = std::ptrdiff_t(repLength(series, i, r == 1));
            for (std::size_t di = 0; di < rep.dilations.size(); ++di) {
                job.checkpoint();
                const std::ptrdiff_t d = rep.dilations[di];
                for (std::size_t c = 0; c < C; ++c)
                    alphaSum(x + c * stride, len, d, alpha.data() + c * stride);
                const std::ptrdiff_t pad = 4 * d;
                for (std::size_t k = 0; k < std::size_t(kMiniRocketKernels); ++k) {
                    job.checkpoint();  // a long series: one kernel is a few passes over it
                    const std::size_t comb = di * kMiniRocketKernels + k;
                    combinationOutput(x, alpha.data(), stride, len, d, k,
                                      rep.channelIndex.data() + rep.channelStart[comb],
                                      std::size_t(rep.channelCounts[comb]), out.data(), y.data());
                    const bool padded = (di + k) % 2 == 0;
                    const std::ptrdiff_t lo = padded ? 0 : pad;
                    const std::ptrdiff_t n =
                        padded ? len : std::max<std::ptrdiff_t>(0, len - 2 * pad);
                    const std::size_t first = rep.firstFeature(di, k);
                    for (std::int32_t q = 0; q < rep.featuresPerDilation[di]; ++q) {
                        if (q % 8 == 7) job.checkpoint();  // long series: ~8 passes apart
                        const std::size_t feature = first + std::size_t(q);
                        float pooled[4];
                        pool(out.data() + lo, n, rep.biases[feature], poolings, pooled);
                        for (std::size_t p = 0; p < poolings; ++p)
                            row[feature * layers + r * poolings + p] = pooled[p];
                    }
                }
            }
        }
    });
    job.setProgress(1.0, "transform");
    return f;
}

}  // namespace cs
