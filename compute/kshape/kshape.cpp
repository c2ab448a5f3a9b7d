// SPDX-License-Identifier: MIT
// k-Shape's shared pieces: input validation and preparation, the direct SBD (the oracle of the
// FFT versions), zero-filled shifts and the agreement metrics (scikit-learn's conventions).
#include "compute/kshape/kshape.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "compute/core/error.h"
#include "compute/core/huge_pages.h"
#include "compute/core/parallel.h"
#include "compute/core/statistics.h"

namespace cs {
namespace {

std::string num(std::size_t v) {
    return std::to_string(v);
}

}  // namespace

KShapeClusterSizes kshapeClusterSizes(const KShapeResult& result) {
    KShapeClusterSizes c;
    c.sizes.assign(std::size_t(std::max(result.k, 0)), 0);
    for (const std::int32_t label : result.labels)
        if (label >= 0 && std::size_t(label) < c.sizes.size()) ++c.sizes[std::size_t(label)];
    c.empty = std::size_t(std::count(c.sizes.begin(), c.sizes.end(), std::size_t(0)));
    return c;
}

void validateKShape(const SeriesSet& series, const KShapeParams& params) {
    if (params.k < 1) throw Error("k-Shape needs k >= 1 clusters, got " + std::to_string(params.k));
    if (params.maxIterations < 1)
        throw Error("k-Shape needs at least one iteration, got max iterations " +
                    std::to_string(params.maxIterations));
    if (series.n == 0) throw Error("k-Shape needs at least one series, the set is empty");
    if (series.n < std::size_t(params.k))
        throw Error("k-Shape cannot make " + std::to_string(params.k) + " clusters of " +
                    num(series.n) + " series");
    if (series.length < 2)
        throw Error("k-Shape needs series of length 2 or more, the set's length is " +
                    num(series.length));
    if (series.length > kKShapeMaxLength)
        throw Error("k-Shape supports series of up to " + num(kKShapeMaxLength) +
                    " samples (its FFTs and shifts use 32-bit sizes), the set's length is " +
                    num(series.length));
    if (series.channels == 0) throw Error("k-Shape needs series of at least one channel");
    if (params.channel && *params.channel >= series.channels)
        throw Error("channel " + num(*params.channel) + " is out of range: the series have " +
                    num(series.channels) + " channel(s)");
    series.validate();
}

std::size_t kshapeChannelCount(const SeriesSet& series, const KShapeParams& params) {
    return params.channel ? 1 : series.channels;
}

std::vector<float> kshapeInput(const SeriesSet& series, std::optional<std::size_t> channel,
                               JobControl* job) {
    if (channel && *channel >= series.channels)
        throw Error("channel " + num(*channel) + " is out of range: the series have " +
                    num(series.channels) + " channel(s)");
    const std::size_t m = series.length;
    const std::size_t first = channel.value_or(0), channels = channel ? 1 : series.channels;
    const std::size_t rowCount = series.n * channels;
    // Hundreds of MB at Times-C's sizes: on 2 MiB pages, mapped by several threads, the zero
    // fill runs over mapped memory (and a cancel waits less for it).
    std::vector<float> out;
    resizeOnHugePages(out, rowCount * m);
    if (job) job->checkpoint();
    // Each channel of each series on its own: any split over threads gives the same values.
    // Blocks of about 1 M samples, so that a cancel waits for one block only.
    const std::size_t rowsPerBlock = std::max<std::size_t>(1, (std::size_t(1) << 20) / m);
    parallelFor((rowCount + rowsPerBlock - 1) / rowsPerBlock, job,
                {.threads = threadsFor(rowCount * m, std::size_t(1) << 20)},
                [&](std::size_t block, unsigned) {
                    const std::size_t end = std::min(rowCount, (block + 1) * rowsPerBlock);
                    for (std::size_t row = block * rowsPerBlock; row < end; ++row) {
                        const std::size_t i = row / channels, d = first + row % channels;
                        const std::size_t len = std::min<std::size_t>(
                            i < series.lengths.size() ? series.lengths[i] : m, m);
                        if (len == 0) continue;
                        const float* x = series.values.data() + (i * series.channels + d) * m;
                        float* y = out.data() + row * m;
                        const auto [mean, sd] = meanAndSd(x, len);
                        if (!(sd > 0.0)) continue;  // constant: zeros
                        for (std::size_t t = 0; t < len; ++t)
                            y[t] = float((double(x[t]) - mean) / sd);
                    }
                });
    return out;
}

void zNormaliseInPlace(std::span<float> v) {
    if (v.empty()) return;
    const auto [mean, sd] = meanAndSd(v.data(), v.size());
    if (!(sd > 0.0)) {
        std::fill(v.begin(), v.end(), 0.0f);
        return;
    }
    for (float& x : v)
        x = float((double(x) - mean) / sd);
}

KShapeShapeSolver kshapeShapeSolverFor(std::size_t count, std::size_t m) {
    if (m <= kKShapeDenseSide) return KShapeShapeSolver::Length;
    if (count <= kKShapeDenseSide) return KShapeShapeSolver::Gram;
    return KShapeShapeSolver::Power;
}

std::vector<double> kshapePowerStart(std::size_t side) {
    std::vector<double> ramp(side);
    for (std::size_t a = 0; a < side; ++a)
        ramp[a] = double(a) + 1.0 - double(side + 1) / 2.0 + 0.25;
    return ramp;
}

std::size_t kshapeFftSize(std::size_t m) {
    const std::size_t target = m < 1 ? 1 : 2 * m - 1;
    for (std::size_t n = target;; ++n) {
        std::size_t r = n;
        for (std::size_t p : {2, 3, 5, 7})
            while (r % p == 0)
                r /= p;
        if (r == 1) return n;
    }
}

double sbdDirect(std::span<const float> x, std::span<const float> y, int* shift,
                 std::size_t channels) {
    if (x.size() != y.size())
        throw Error("SBD needs series of equal length, got " + num(x.size()) + " and " +
                    num(y.size()));
    if (channels == 0 || x.size() % channels != 0)
        throw Error("SBD cannot split " + num(x.size()) + " values into " + num(channels) +
                    " channels");
    const std::ptrdiff_t m = std::ptrdiff_t(x.size() / channels);
    double nx = 0.0, ny = 0.0;
    for (std::size_t t = 0; t < x.size(); ++t) {
        nx += double(x[t]) * double(x[t]);
        ny += double(y[t]) * double(y[t]);
    }
    const double den = std::sqrt(nx) * std::sqrt(ny);
    double best = -std::numeric_limits<double>::infinity();
    std::ptrdiff_t bestW = -(m - 1);
    for (std::ptrdiff_t w = -(m - 1); w <= m - 1; ++w) {
        // NCC_w = sum_d sum_t x_d[t] y_d[t - w]
        double cc = 0.0;
        const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(0, w);
        const std::ptrdiff_t hi = std::min<std::ptrdiff_t>(m, m + w);
        for (std::size_t d = 0; d < channels; ++d) {
            const float* xd = x.data() + d * std::size_t(m);
            const float* yd = y.data() + d * std::size_t(m);
            for (std::ptrdiff_t t = lo; t < hi; ++t)
                cc += double(xd[t]) * double(yd[t - w]);
        }
        const double ncc = den > 0.0 ? cc / den : 0.0;
        if (ncc > best) {
            best = ncc;
            bestW = w;
        }
    }
    if (shift) *shift = int(bestW);
    return 1.0 - best;
}

std::vector<float> shiftZeroFilled(std::span<const float> y, int shift) {
    const std::ptrdiff_t m = std::ptrdiff_t(y.size());
    std::vector<float> out(y.size(), 0.0f);
    for (std::ptrdiff_t t = 0; t < m; ++t) {
        const std::ptrdiff_t s = t - shift;
        if (s >= 0 && s < m) out[std::size_t(t)] = y[std::size_t(s)];
    }
    return out;
}

ClusterAgreement clusterAgreement(std::span<const std::int32_t> labels,
                                  std::span<const std::int32_t> truth) {
    if (labels.size() != truth.size())
        throw Error("cannot compare " + num(labels.size()) + " cluster labels with " +
                    num(truth.size()) + " truth labels");
    std::map<std::pair<std::int32_t, std::int32_t>, double> table;
    std::map<std::int32_t, double> rows, cols;  // truth classes, clusters
    double n = 0.0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (truth[i] < 0 || labels[i] < 0) continue;
        table[{truth[i], labels[i]}] += 1.0;
        rows[truth[i]] += 1.0;
        cols[labels[i]] += 1.0;
        n += 1.0;
    }
    ClusterAgreement a;
    a.compared = std::size_t(n);
    // Pair counts as scikit-learn's pair_confusion_matrix (ordered pairs).
    double sumSquares = 0.0, rowSquares = 0.0, colSquares = 0.0;
    for (const auto& [key, c] : table)
        sumSquares += c * c;
    for (const auto& [key, c] : rows)
        rowSquares += c * c;
    for (const auto& [key, c] : cols)
        colSquares += c * c;
    const double tp = sumSquares - n;
    const double fp = colSquares - sumSquares;
    const double fn = rowSquares - sumSquares;
    const double tn = n * n - fp - fn - sumSquares;
    // rand_score: 1 when there are no pairs or all pairs agree.
    const double agree = tp + tn, pairs = tp + tn + fp + fn;
    a.randIndex = (pairs == 0.0 || agree == pairs) ? 1.0 : agree / pairs;
    // adjusted_rand_score: 1 for identical partitions (including the special cases).
    if (fn == 0.0 && fp == 0.0)
        a.adjustedRandIndex = 1.0;
    else
        a.adjustedRandIndex =
            2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn));
    // normalized_mutual_info_score, average_method="arithmetic", natural log.
    if ((rows.size() == 1 && cols.size() == 1) || (rows.empty() && cols.empty())) {
        a.normalizedMutualInformation = 1.0;
    } else {
        double mi = 0.0;
        for (const auto& [key, c] : table)
            mi += c / n * (std::log(c * n) - std::log(rows[key.first] * cols[key.second]));
        mi = std::max(mi, 0.0);
        auto entropy = [n](const std::map<std::int32_t, double>& counts) {
            double h = 0.0;
            for (const auto& [key, c] : counts)
                h -= c / n * std::log(c / n);
            return h;
        };
        if (mi == 0.0) {
            a.normalizedMutualInformation = 0.0;
        } else {
            const double normaliser = 0.5 * (entropy(rows) + entropy(cols));
            a.normalizedMutualInformation =
                mi / std::max(normaliser, std::numeric_limits<double>::epsilon());
        }
    }
    return a;
}

}  // namespace cs
