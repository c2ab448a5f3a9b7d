// SPDX-License-Identifier: MIT
#include "compute/core/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cs {

double distanceScale(double widestExtent) {
    constexpr double kLow = 0x1p-32, kHigh = 0x1p32;
    if (!(widestExtent > 0.0) || !std::isfinite(widestExtent) ||
        (widestExtent >= kLow && widestExtent <= kHigh))
        return 1.0;
    int exponent = 0;
    std::frexp(widestExtent, &exponent);  // widestExtent = f 2^exponent, f in [0.5, 1)
    return std::ldexp(1.0, -exponent);
}

void fromRecentred(std::vector<float>& distances, double scale) {
    if (scale == 1.0) return;
    const double back = 1.0 / scale;  // a power of two: exact
    for (float& d : distances)
        d = static_cast<float>(double(d) * back);
}

RecentredCoords recentredCoords(const PointSet& points) {
    const std::size_t n = points.n, d = points.dims;
    std::vector<double> lo(d, std::numeric_limits<double>::infinity());
    std::vector<double> hi(d, -std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) {
            const double v = points.coords[i * d + j];
            lo[j] = std::min(lo[j], v);
            hi[j] = std::max(hi[j], v);
        }
    std::vector<double> centre(d, 0.0);
    double widest = 0.0;
    for (std::size_t j = 0; j < d && n > 0; ++j) {
        centre[j] = 0.5 * (lo[j] + hi[j]);
        widest = std::max(widest, hi[j] - lo[j]);
    }
    RecentredCoords out;
    out.scale = distanceScale(widest);
    out.coords.resize(n * d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            out.coords[i * d + j] =
                static_cast<float>((double(points.coords[i * d + j]) - centre[j]) * out.scale);
    return out;
}

}  // namespace cs
