// SPDX-License-Identifier: MIT
#include "compute/core/edge_splat.h"

#include <string>

#include "compute/core/error.h"

namespace cs {

const EdgeSplatTables& edgeSplatTables() {
    static const EdgeSplatTables tables = [] {
        EdgeSplatTables t{};
        for (int a = 0; a < 256; ++a) {
            const double alpha = a == 255 ? 1.0 - 1.0 / 1024.0 : double(a) / 255.0;
            t.logTransmittance[a] = std::uint32_t(-std::log2(1.0 - alpha) * 65536.0 + 0.5);
            t.coarse[a] = std::exp2(-double(a) / 256.0);
            t.fine[a] = float(std::exp2(-double(a) / 65536.0));
        }
        return t;
    }();
    return tables;
}

std::vector<std::uint32_t> splatEdges(std::span<const float> positions,
                                      std::span<const std::uint32_t> rgba,
                                      std::span<const std::uint8_t> mask,
                                      std::span<const std::uint32_t> indices,
                                      const EdgeSplatView& view, std::size_t* drawn) {
    const std::size_t n = rgba.size();
    if (positions.size() != 3 * n || (!mask.empty() && mask.size() != n) || indices.size() % 2)
        throw Error("edge splat: " + std::to_string(positions.size()) + " coordinates, " +
                    std::to_string(n) + " colours, " + std::to_string(mask.size()) +
                    " mask values and " + std::to_string(indices.size()) +
                    " edge ends do not describe the same points and whole edges");
    for (const std::uint32_t i : indices)
        if (i >= n)
            throw Error("edge splat: an edge ends at point " + std::to_string(i) + " of " +
                        std::to_string(n));
    const std::size_t pixels = std::size_t(view.width) * view.height;
    std::vector<std::uint64_t> weight(pixels, 0), logTransmittance(pixels, 0);
    std::vector<std::uint64_t> colour(3 * pixels, 0);
    const EdgeSplatTables& tables = edgeSplatTables();
    std::size_t kept = 0;
    for (std::size_t e = 0; 2 * e < indices.size(); ++e) {
        const std::uint32_t i = indices[2 * e], j = indices[2 * e + 1];
        const bool shown = walkSplatEdge(
            view, positions.data() + 3 * std::size_t(i), positions.data() + 3 * std::size_t(j),
            rgba[i], rgba[j], mask.empty() ? 0 : mask[i], mask.empty() ? 0 : mask[j],
            [&](int x, int y, std::uint32_t c) {
                const std::size_t p = std::size_t(y) * view.width + std::size_t(x);
                const std::uint32_t a = c >> 24;
                weight[p] += a;
                for (int channel = 0; channel < 3; ++channel)
                    colour[3 * p + std::size_t(channel)] += a * ((c >> (8 * channel)) & 0xFFu);
                logTransmittance[p] += tables.logTransmittance[a];
            });
        kept += shown ? 1 : 0;
    }
    if (drawn) *drawn = kept;
    std::vector<std::uint32_t> image(pixels);
    for (std::size_t p = 0; p < pixels; ++p)
        image[p] = resolveEdgeSplatPixel(tables.coarse, tables.fine, weight[p],
                                         colour.data() + 3 * p, logTransmittance[p]);
    return image;
}

}  // namespace cs
