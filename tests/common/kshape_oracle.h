// SPDX-License-Identifier: MIT
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "compute/core/random.h"
#include "compute/kshape/kshape.h"

namespace cs::test {

// Plain C++ (no Qt, no Eigen, no FFT), shared by tests/compute/tst_kshape.cpp and the GPU suite.
// One k-Shape iteration written from the spec in compute/kshape/kshape.h: alignment and
// assignment by sbdDirect (O(m^2) per pair, double), M = P S P formed explicitly, its dominant
// eigenvector by power iteration in double. Slow: for small sets only.

/// One iteration's output.
struct OracleKShapeStep {
    std::vector<float> centroids;        ///< k x channels x m, the new shapes
    std::vector<std::int32_t> labels;    ///< the assignment to them
    std::vector<double> distances;       ///< SBD to the own centroid
    std::vector<int> shifts;             ///< sbdDirect(centroid, series)'s shift
    std::vector<double> secondDistance;  ///< SBD to the second-best centroid (tie margin)
};

/// z-normalised copy in double (population sd; constant: zeros).
inline std::vector<double> oracleZNormalised(const std::vector<double>& v) {
    double mean = 0.0;
    for (double a : v)
        mean += a;
    mean /= double(v.size());
    double sq = 0.0;
    for (double a : v)
        sq += (a - mean) * (a - mean);
    const double sd = std::sqrt(sq / double(v.size()));
    std::vector<double> out(v.size(), 0.0);
    if (sd > 0.0)
        for (std::size_t t = 0; t < v.size(); ++t)
            out[t] = (v[t] - mean) / sd;
    return out;
}

/// The dominant unit eigenvector of the symmetric positive semi-definite m x m matrix a (row
/// major) by power iteration from a fixed start; iterations until the direction settles.
inline std::vector<double> oracleDominantEigenvector(const std::vector<double>& a, std::size_t m) {
    std::vector<double> v(m), w(m);
    for (std::size_t t = 0; t < m; ++t)  // fixed, not orthogonal to anything in particular
        v[t] = 1.0 + 0.37 * double(t % 7) - 0.011 * double(t);
    for (int it = 0; it < 20000; ++it) {
        double norm = 0.0;
        for (std::size_t r = 0; r < m; ++r) {
            double s = 0.0;
            for (std::size_t c = 0; c < m; ++c)
                s += a[r * m + c] * v[c];
            w[r] = s;
            norm += s * s;
        }
        norm = std::sqrt(norm);
        if (!(norm > 0.0)) break;
        double change = 0.0;
        for (std::size_t t = 0; t < m; ++t) {
            const double next = w[t] / norm;
            change = std::max(change, std::abs(next - v[t]));
            v[t] = next;
        }
        if (change < 1e-14) break;
    }
    double norm = 0.0;
    for (double x : v)
        norm += x * x;
    norm = std::sqrt(norm);
    for (double& x : v)
        x /= norm;
    return v;
}

/// SBD of x and y (channels x m each, channel-major) written from kshape.h's words rather than
/// sbdDirect's loop: y moved by every shift w (zero-filled, shiftZeroFilled), its dot product
/// with x summed over the channels, over the product of the whole norms; the first w of the
/// maximum. shift receives it.
inline double oracleSbd(std::span<const float> x, std::span<const float> y, std::size_t channels,
                        int* shift) {
    const std::size_t m = x.size() / channels;
    double xx = 0.0, yy = 0.0;
    for (std::size_t e = 0; e < x.size(); ++e) {
        xx += double(x[e]) * double(x[e]);
        yy += double(y[e]) * double(y[e]);
    }
    const double den = std::sqrt(xx) * std::sqrt(yy);
    double best = -std::numeric_limits<double>::infinity();
    for (int w = -int(m) + 1; w <= int(m) - 1; ++w) {
        double dot = 0.0;
        for (std::size_t d = 0; d < channels; ++d) {
            const std::vector<float> moved = shiftZeroFilled(y.subspan(d * m, m), w);
            for (std::size_t t = 0; t < m; ++t)
                dot += double(x[d * m + t]) * double(moved[t]);
        }
        const double ncc = den > 0.0 ? dot / den : 0.0;
        if (ncc > best) {
            best = ncc;
            *shift = w;
        }
    }
    return 1.0 - best;
}

/// One iteration from `labels` and `centroids` (k x channels x m; a zero channel: not aligned)
/// on x (n x channels x m, the kshapeInput() values). With several channels (kshape.h,
/// multivariate), written as kshape-python's _kshape reads: each centroid channel is the shape
/// of the members' channel, each aligned to it by the univariate sbdDirect of that channel
/// alone, computed here afresh; the assignment is by the multichannel sbdDirect.
inline OracleKShapeStep oracleKShapeStep(const std::vector<float>& x, std::size_t n, std::size_t m,
                                         int k, const std::vector<std::int32_t>& labels,
                                         const std::vector<float>& centroids,
                                         std::size_t channels = 1) {
    OracleKShapeStep out;
    const std::size_t cm = channels * m;
    out.centroids.assign(std::size_t(k) * cm, 0.0f);
    for (int j = 0; j < k; ++j)
        for (std::size_t d = 0; d < channels; ++d) {
            const std::size_t row = std::size_t(j) * channels + d;
            const std::span<const float> cur(centroids.data() + row * m, m);
            bool zero = true;
            for (float v : cur)
                zero = zero && v == 0.0f;
            std::vector<std::vector<double>> aligned;  // not z-normalised
            for (std::size_t i = 0; i < n; ++i) {
                if (labels[i] != j) continue;
                const std::span<const float> xi(x.data() + (i * channels + d) * m, m);
                std::vector<float> a(xi.begin(), xi.end());
                if (!zero) {
                    int shift = 0;
                    sbdDirect(cur, xi, &shift);
                    a = shiftZeroFilled(xi, shift);
                }
                aligned.emplace_back(a.begin(), a.end());
            }
            if (aligned.empty()) continue;  // zeros
            std::vector<double> s(m * m, 0.0);
            for (const auto& a : aligned) {
                const std::vector<double> y = oracleZNormalised(a);
                for (std::size_t r = 0; r < m; ++r)
                    for (std::size_t c = 0; c < m; ++c)
                        s[r * m + c] += y[r] * y[c];
            }
            // M = P S P, P = I - 11^T / m, by two explicit products.
            std::vector<double> p(m * m), ps(m * m, 0.0), mat(m * m, 0.0);
            for (std::size_t r = 0; r < m; ++r)
                for (std::size_t c = 0; c < m; ++c)
                    p[r * m + c] = (r == c ? 1.0 : 0.0) - 1.0 / double(m);
            for (std::size_t r = 0; r < m; ++r)
                for (std::size_t q = 0; q < m; ++q)
                    for (std::size_t c = 0; c < m; ++c)
                        ps[r * m + c] += p[r * m + q] * s[q * m + c];
            for (std::size_t r = 0; r < m; ++r)
                for (std::size_t q = 0; q < m; ++q)
                    for (std::size_t c = 0; c < m; ++c)
                        mat[r * m + c] += ps[r * m + q] * p[q * m + c];
            std::vector<double> v = oracleDominantEigenvector(mat, m);
            double minus = 0.0, plus = 0.0;
            for (const auto& a : aligned) {
                double dm = 0.0, dp = 0.0;
                for (std::size_t t = 0; t < m; ++t) {
                    dm += (a[t] - v[t]) * (a[t] - v[t]);
                    dp += (a[t] + v[t]) * (a[t] + v[t]);
                }
                minus += std::sqrt(dm);
                plus += std::sqrt(dp);
            }
            if (minus >= plus)
                for (double& e : v)
                    e = -e;
            const std::vector<double> c = oracleZNormalised(v);
            for (std::size_t t = 0; t < m; ++t)
                out.centroids[row * m + t] = float(c[t]);
        }
    out.labels.assign(n, 0);
    out.distances.assign(n, 0.0);
    out.shifts.assign(n, 0);
    out.secondDistance.assign(n, std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < n; ++i) {
        const std::span<const float> xi(x.data() + i * cm, cm);
        double best = std::numeric_limits<double>::infinity();
        for (int j = 0; j < k; ++j) {
            int shift = 0;
            const double d =
                sbdDirect(std::span<const float>(out.centroids.data() + std::size_t(j) * cm, cm),
                          xi, &shift, channels);
            if (d < best) {
                out.secondDistance[i] = best;
                best = d;
                out.labels[i] = j;
                out.shifts[i] = shift;
            } else if (d < out.secondDistance[i]) {
                out.secondDistance[i] = d;
            }
        }
        out.distances[i] = best;
    }
    return out;
}

/// A whole run written as kshape.h and kshape-python's loop read, from oracleKShapeStep: the
/// labels drawn by cs::Random(seed).below(k) in series order, zero centroids, steps until no
/// label changes or maxIterations. minMargin receives the smallest gap, over every step and
/// series, between the best and second-best SBD (where rounding could make another
/// implementation choose otherwise). iterations receives the steps run.
inline OracleKShapeStep oracleKShapeRun(const std::vector<float>& x, std::size_t n, std::size_t m,
                                        int k, std::uint64_t seed, int maxIterations,
                                        std::size_t channels, double& minMargin, int& iterations) {
    std::vector<std::int32_t> labels(n);
    Random random(seed);
    for (auto& l : labels)
        l = std::int32_t(random.below(std::uint64_t(k)));
    OracleKShapeStep step;
    step.centroids.assign(std::size_t(k) * channels * m, 0.0f);
    minMargin = std::numeric_limits<double>::infinity();
    iterations = 0;
    for (int it = 0; it < maxIterations; ++it) {
        step = oracleKShapeStep(x, n, m, k, labels, step.centroids, channels);
        ++iterations;
        for (std::size_t i = 0; i < n; ++i)
            minMargin = std::min(minMargin, step.secondDistance[i] - step.distances[i]);
        const bool changed = step.labels != labels;
        labels = step.labels;
        if (!changed) break;
    }
    return step;
}

}  // namespace cs::test
