// SPDX-License-Identifier: MIT
#include "compute/core/point_quantities.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/core/parallel.h"

namespace cs {

std::vector<std::uint32_t> paintCategories(std::span<const std::int32_t> labels,
                                           std::span<const std::uint8_t> primary,
                                           const CategoryPaint& paint) {
    std::vector<std::uint32_t> out(labels.size());
    const bool havePrimary = primary.size() == labels.size();
    parallelRanges(labels.size(), threadsFor(labels.size()), nullptr,
                   [&](std::size_t begin, std::size_t end, unsigned) {
                       for (std::size_t i = begin; i < end; ++i)
                           out[i] = paint.colourOf(labels[i], !havePrimary || primary[i] != 0);
                   });
    return out;
}

std::vector<float> edgeLengthSample(const PointEdges& edges, const PointSet& points,
                                    std::size_t most) {
    std::vector<float> sample;
    if (edges.n != points.n || edges.k < 1 || points.coords.size() != points.n * points.dims)
        return sample;
    const std::size_t count = edges.edgeCount();
    const std::size_t step = std::max<std::size_t>(1, count / std::max<std::size_t>(most, 1));
    const std::size_t k = std::size_t(edges.k);
    const std::size_t d = points.dims, used = std::min<std::size_t>(d, 3);
    const float* x = points.coords.data();
    // Each length is a random read of the target's coordinates (tens of megabytes apart at 1M
    // points): a few milliseconds on one thread, measured on several into places of their own.
    const std::size_t places = (count + step - 1) / step;
    sample.assign(places, std::numeric_limits<float>::quiet_NaN());
    parallelRanges(places, threadsFor(places, std::size_t(1) << 13), nullptr,
                   [&](std::size_t begin, std::size_t end, unsigned) {
                       for (std::size_t p = begin; p < end; ++p) {
                           const std::size_t e = p * step, i = e / k;
                           const std::int32_t t = edges.targets[e];
                           if (t < 0 || std::size_t(t) >= edges.n) continue;
                           double s = 0.0;
                           for (std::size_t j = 0; j < used; ++j) {
                               const double diff =
                                   double(x[i * d + j]) - double(x[std::size_t(t) * d + j]);
                               s += diff * diff;
                           }
                           if (std::isfinite(s)) sample[p] = float(std::sqrt(s));
                       }
                   });
    std::erase_if(sample, [](float v) { return std::isnan(v); });
    return sample;
}

std::vector<std::uint32_t> edgeIndexPairs(const PointEdges& edges) {
    const std::size_t k = std::size_t(std::max(edges.k, 0));
    std::vector<std::uint32_t> out(2 * edges.n * k);
    for (std::size_t i = 0; i < edges.n; ++i)
        for (std::size_t c = 0; c < k; ++c) {
            out[2 * (i * k + c)] = std::uint32_t(i);
            // A missing neighbour (a point outside a run on a selection) is a zero-length
            // line from the point to itself: nothing is drawn.
            const std::int32_t t = edges.targets[i * k + c];
            out[2 * (i * k + c) + 1] = t < 0 ? std::uint32_t(i) : std::uint32_t(t);
        }
    return out;
}

}  // namespace cs
