// SPDX-License-Identifier: MIT
#include "compute/dbscan/cluster_paint.h"

#include "compute/core/parallel.h"

namespace cs {

std::vector<std::uint32_t> paintClusters(std::span<const std::int32_t> labels,
                                         std::span<const std::uint8_t> isCore,
                                         const ClusterPaint& paint) {
    std::vector<std::uint32_t> out(labels.size());
    const bool haveCore = isCore.size() == labels.size();
    parallelRanges(labels.size(), threadsFor(labels.size()), nullptr,
                   [&](std::size_t begin, std::size_t end, unsigned) {
                       for (std::size_t i = begin; i < end; ++i)
                           out[i] = paint.colourOf(labels[i], !haveCore || isCore[i] != 0);
                   });
    return out;
}

}  // namespace cs
