// SPDX-License-Identifier: MIT
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "compute/kshape/kshape.h"

namespace cs::test {

// Plain C++ (no Qt, no Eigen, no FFT), shared by tests/compute/tst_kshape.cpp and the GPU suite.
// One k-Shape iteration written from the spec in compute/kshape/kshape.h: alignment and
// assignment by sbdDirect (O(m^2) per pair, double), M = P S P formed explicitly, its dominant
// eigenvector by power iteration in double. Slow: for small sets only.

/// One iteration's output.
struct OracleKShapeStep {
    std::vector<float> centroids;        ///< k x m, the new shapes
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

/// One iteration from `labels` and `centroids` (k x m; zeros: not aligned) on x (n x m, the
/// kshapeInput() values).
inline OracleKShapeStep oracleKShapeStep(const std::vector<float>& x, std::size_t n, std::size_t m,
                                         int k, const std::vector<std::int32_t>& labels,
                                         const std::vector<float>& centroids) {
    OracleKShapeStep out;
    out.centroids.assign(std::size_t(k) * m, 0.0f);
    for (int j = 0; j < k; ++j) {
        const std::span<const float> cur(centroids.data() + std::size_t(j) * m, m);
        bool zero = true;
        for (float v : cur)
            zero = zero && v == 0.0f;
        std::vector<std::vector<double>> aligned;  // not z-normalised
        for (std::size_t i = 0; i < n; ++i) {
            if (labels[i] != j) continue;
            const std::span<const float> xi(x.data() + i * m, m);
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
            out.centroids[std::size_t(j) * m + t] = float(c[t]);
    }
    out.labels.assign(n, 0);
    out.distances.assign(n, 0.0);
    out.shifts.assign(n, 0);
    out.secondDistance.assign(n, std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < n; ++i) {
        const std::span<const float> xi(x.data() + i * m, m);
        double best = std::numeric_limits<double>::infinity();
        for (int j = 0; j < k; ++j) {
            int shift = 0;
            const double d = sbdDirect(
                std::span<const float>(out.centroids.data() + std::size_t(j) * m, m), xi, &shift);
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

}  // namespace cs::test
