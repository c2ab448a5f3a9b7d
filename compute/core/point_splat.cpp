// SPDX-License-Identifier: MIT
#include "compute/core/point_splat.h"

#include <string>

#include "compute/core/error.h"

namespace cs {

std::vector<SplatPixel> splatKeys(std::span<const float> positions,
                                  std::span<const std::uint32_t> rgba,
                                  std::span<const std::uint8_t> mask, const PointSplatView& view) {
    const std::size_t n = rgba.size();
    if (positions.size() != 3 * n || (!mask.empty() && mask.size() != n))
        throw Error("point splat: " + std::to_string(positions.size()) + " coordinates, " +
                    std::to_string(n) + " colours and " + std::to_string(mask.size()) +
                    " mask values do not describe the same points");
    if (n > kMaxSplatPoints)
        throw Error("point splat: " + std::to_string(n) + " points, at most " +
                    std::to_string(kMaxSplatPoints) + " can be drawn");
    std::vector<SplatPixel> image(std::size_t(view.width) * view.height, kEmptySplatPixel);
    const float radius2 = splatRadius2(view);
    for (std::size_t i = 0; i < n; ++i) {
        SplatPoint p;
        if (!projectSplatPoint(view, positions.data() + 3 * i, rgba[i], mask.empty() ? 0 : mask[i],
                               p))
            continue;
        const SplatPixel key = splatKey(p.depth, std::uint32_t(i));
        const SplatPixelRange r = splatPixelRange(view, p);
        for (int y = r.y0; y <= r.y1; ++y)
            for (int x = r.x0; x <= r.x1; ++x) {
                if (!(splatDistance2(p, x, y) <= radius2)) continue;
                SplatPixel& pixel = image[std::size_t(y) * view.width + std::size_t(x)];
                if (key < pixel) pixel = key;
            }
    }
    return image;
}

std::vector<SplatPixel> splatPoints(std::span<const float> positions,
                                    std::span<const std::uint32_t> rgba,
                                    std::span<const std::uint8_t> mask,
                                    const PointSplatView& view) {
    std::vector<SplatPixel> image = splatKeys(positions, rgba, mask, view);
    for (std::size_t y = 0; y < view.height; ++y)
        for (std::size_t x = 0; x < view.width; ++x) {
            SplatPixel& pixel = image[y * view.width + x];
            pixel = resolveSplatPixel(view, pixel, int(x), int(y), positions.data(), rgba.data(),
                                      mask.empty() ? nullptr : mask.data());
        }
    return image;
}

}  // namespace cs
