// SPDX-License-Identifier: MIT
#include "compute/dbscan/cluster_paint.h"

namespace cs {

bool ClusterPaint::hasTranslucent(std::size_t noisePoints) const {
    const std::uint32_t alpha = noiseRgba >> 24;
    if (showNoise && noisePoints > 0 && alpha > 0 && alpha < 255) return true;
    for (const std::uint32_t c : clusterRgba) {
        const std::uint32_t a = c >> 24;
        if ((showCore || showBorder) && a > 0 && a < 255) return true;
    }
    return false;
}

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
