// SPDX-License-Identifier: MIT
#include "compute/core/point_quantities.h"

#include <algorithm>

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
