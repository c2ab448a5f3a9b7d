// SPDX-License-Identifier: MIT
#include "compute/core/geometry.h"

#include <algorithm>
#include <limits>

namespace cs {

std::vector<float> recentredCoords(const PointSet& points) {
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
    for (std::size_t j = 0; j < d && n > 0; ++j)
        centre[j] = 0.5 * (lo[j] + hi[j]);
    std::vector<float> out(n * d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            out[i * d + j] = static_cast<float>(double(points.coords[i * d + j]) - centre[j]);
    return out;
}

}  // namespace cs
