// SPDX-License-Identifier: MIT
#include "compute/dbscan/cluster_paint.h"

namespace cs {

std::vector<std::uint32_t> paintClusters(std::span<const std::int32_t> labels,
                                         std::span<const std::uint8_t> isCore,
                                         const ClusterPaint& paint) {
    std::vector<std::uint32_t> out(labels.size());
    const bool haveCore = isCore.size() == labels.size();
    for (std::size_t i = 0; i < labels.size(); ++i)
        out[i] = paint.colourOf(labels[i], !haveCore || isCore[i] != 0);
    return out;
}

}  // namespace cs
