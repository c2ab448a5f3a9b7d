// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cs {

/// How a clustering becomes per-point colours (packed RGBA8, r | g << 8 | b << 16 | a << 24):
/// a member takes its cluster's colour, noise (label -1) takes noiseRgba, and a hidden class
/// gets alpha 0 (not drawn). One rule, two implementations: paintClusters below on the host and
/// the GL interop kernel (kernels/interop) on the device, byte for byte the same.
struct ClusterPaint {
    std::vector<std::uint32_t> clusterRgba;  ///< colour per cluster id (0 .. clusterCount-1)
    std::uint32_t noiseRgba = 0;             ///< colour of noise points
    bool showCore = true;                    ///< draw core points
    bool showBorder = true;                  ///< draw non-core members of a cluster
    bool showNoise = true;                   ///< draw noise

    /// The colour of point i with label `label` and core flag `core`; labels without an entry in
    /// clusterRgba count as noise.
    std::uint32_t colourOf(std::int32_t label, bool core) const {
        if (label < 0 || std::uint64_t(label) >= clusterRgba.size())
            return showNoise ? noiseRgba : 0u;
        if (!(core ? showCore : showBorder)) return 0u;
        return clusterRgba[std::size_t(label)];
    }
};

/// Per-point colours by paint.colourOf(labels[i], isCore[i]); isCore may be empty (every member
/// counts as core).
std::vector<std::uint32_t> paintClusters(std::span<const std::int32_t> labels,
                                         std::span<const std::uint8_t> isCore,
                                         const ClusterPaint& paint);

}  // namespace cs
