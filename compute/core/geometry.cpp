// SPDX-License-Identifier: MIT
#include "compute/core/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/core/huge_pages.h"

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

CoordinateBox coordinateBox(const PointSet& points) {
    const std::size_t n = points.n, d = points.dims;
    CoordinateBox box{std::vector<double>(d, std::numeric_limits<double>::infinity()),
                      std::vector<double>(d, -std::numeric_limits<double>::infinity())};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) {
            const double v = points.coords[i * d + j];
            box.lo[j] = std::min(box.lo[j], v);
            box.hi[j] = std::max(box.hi[j], v);
        }
    return box;
}

RecentredCoords recentredCoordsIn(const PointSet& points, const CoordinateBox& box,
                                  JobControl* job) {
    const std::size_t n = points.n, d = points.dims;
    std::vector<double> centre(d, 0.0);
    double widest = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        if (!(box.lo[j] <= box.hi[j])) continue;  // no points anywhere
        centre[j] = 0.5 * (box.lo[j] + box.hi[j]);
        widest = std::max(widest, box.hi[j] - box.lo[j]);
    }
    RecentredCoords out;
    out.scale = distanceScale(widest);
    resizeCancellable(out.coords, n * d, job);
    for (std::size_t i = 0; i < n; ++i) {
        if (job && i % 65536 == 65535) job->checkpoint();
        for (std::size_t j = 0; j < d; ++j)
            out.coords[i * d + j] =
                static_cast<float>((double(points.coords[i * d + j]) - centre[j]) * out.scale);
    }
    return out;
}

RecentredCoords recentredCoords(const PointSet& points) {
    return recentredCoordsIn(points, coordinateBox(points));
}

}  // namespace cs
