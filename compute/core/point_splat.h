// SPDX-License-Identifier: MIT
#pragma once

// Plain C++ that the CUDA splat renderer (kernels/interop) compiles too: no CUDA header here,
// CS_HOST_DEVICE marks the functions both sides call, so that both compute every point and
// pixel with the same operations (explicit fmaf where a compiler could otherwise contract) and
// draw bit-identical images.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#if defined(__CUDACC__)
#define CS_HOST_DEVICE __host__ __device__
#else
#define CS_HOST_DEVICE
#endif

namespace cs {

/// How the point view draws its points (resources/shaders/points.vert and points.frag under GL's
/// point rules), as one rule for the renderers that draw them without GL's point pipeline: the
/// CUDA splat renderer (GlInterop::splatPoints), for clouds that keep the GPU's few rasteriser
/// units busy for tens of milliseconds, and splatPoints() below, its CPU reference.
///
/// Point i, at xyz with RGBA8 colour c and mask value m (0 shown, 1 dimmed, 2 hidden):
/// - is not drawn when c's alpha is 0 or m is 2;
/// - lies on the far plane (clip z = w) when c's alpha is below 255 or it is dimmed: behind
///   every opaque point, as noise is;
/// - is not drawn when its clip position lies outside the clip volume (-w <= x, y, z <= w);
/// - covers the pixels whose centres lie within diameter / 2 of its window position;
/// - shows at a covered pixel when no point covering it is nearer; of points at the same depth,
///   the one drawn last (the highest index): GL's LEQUAL depth test in drawing order;
/// - is painted in its RGB (dimmed: mixed 80 % of the way to the background), darkened toward
///   the rim by shading * (r / R)^4.
struct PointSplatView {
    float mvp[16] = {};        ///< model-view-projection, column-major as GL takes it
    std::uint32_t width = 0;   ///< framebuffer pixels
    std::uint32_t height = 0;  ///< framebuffer pixels
    float diameter = 1.0f;     ///< framebuffer pixels
    float shading = 0.0f;      ///< points.frag's u_shading
    float background[3] = {};  ///< what dimmed points fade toward, 0..1
};

/// A pixel of a splat image: the window depth's float bits in the high word (depths in [0, 1]
/// order as unsigned integers do) and the RGBA8 colour (alpha 255) in the low word. Rows start
/// at the bottom, as GL's.
using SplatPixel = std::uint64_t;
/// Where no point is drawn (the high word is a NaN, never a depth).
constexpr SplatPixel kEmptySplatPixel = ~SplatPixel(0);
/// Diameters above this are left to GL: a splat's work per point grows with its area.
constexpr float kMaxSplatDiameter = 8.0f;
/// Points a splat can index (its first pass keeps ~index in the low word).
constexpr std::size_t kMaxSplatPoints = 0xFFFF'FFFEu;

/// A drawn point, projected.
struct SplatPoint {
    float x = 0.0f;  ///< window position in pixels, origin at the bottom left
    float y = 0.0f;
    float depth = 0.0f;  ///< window depth, 0 (near) to 1 (far)
    bool dimmed = false;
};

CS_HOST_DEVICE inline std::uint32_t splatFloatBits(float value) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(value);
#else
    return std::bit_cast<std::uint32_t>(value);
#endif
}

/// The point at xyz with colour rgba and mask value `mask`, projected; false when it is not
/// drawn (hidden, outside the clip volume, or not finite).
CS_HOST_DEVICE inline bool projectSplatPoint(const PointSplatView& v, const float* xyz,
                                             std::uint32_t rgba, std::uint8_t mask,
                                             SplatPoint& out) {
    const std::uint32_t alpha = rgba >> 24;
    if (alpha == 0 || mask >= 2) return false;
    float clip[4];
    for (int r = 0; r < 4; ++r)
        clip[r] = fmaf(v.mvp[r], xyz[0],
                       fmaf(v.mvp[4 + r], xyz[1], fmaf(v.mvp[8 + r], xyz[2], v.mvp[12 + r])));
    const float w = clip[3];
    out.dimmed = mask == 1;
    // points.vert's a_colour.a < 0.999: alpha 254 / 255 is below it, 255 is not.
    const float z = alpha < 255 || out.dimmed ? w : clip[2];
    // Written so that NaN fails every test.
    if (!(w > 0.0f) || !(fabsf(clip[0]) <= w) || !(fabsf(clip[1]) <= w) || !(fabsf(z) <= w))
        return false;
    const float halfWidth = 0.5f * float(v.width);
    const float halfHeight = 0.5f * float(v.height);
    out.x = fmaf(clip[0] / w, halfWidth, halfWidth);
    out.y = fmaf(clip[1] / w, halfHeight, halfHeight);
    out.depth = fmaf(z / w, 0.5f, 0.5f);
    return true;
}

/// The square of the splat's radius, in pixels squared.
CS_HOST_DEVICE inline float splatRadius2(const PointSplatView& v) {
    const float r = 0.5f * v.diameter;
    return r * r;
}

/// The squared distance of pixel (px, py)'s centre from the point; it covers the pixel when
/// this is at most splatRadius2.
CS_HOST_DEVICE inline float splatDistance2(const SplatPoint& p, int px, int py) {
    const float dx = (float(px) + 0.5f) - p.x;
    const float dy = (float(py) + 0.5f) - p.y;
    return fmaf(dx, dx, dy * dy);
}

/// The pixels that may be covered: [x0, x1] x [y0, y1], clamped to the image (empty when
/// x0 > x1).
struct SplatPixelRange {
    int x0, x1, y0, y1;
};
CS_HOST_DEVICE inline SplatPixelRange splatPixelRange(const PointSplatView& v,
                                                      const SplatPoint& p) {
    const float r = 0.5f * v.diameter;
    const int x0 = int(floorf(p.x - r - 0.5f));
    const int x1 = int(ceilf(p.x + r - 0.5f));
    const int y0 = int(floorf(p.y - r - 0.5f));
    const int y1 = int(ceilf(p.y + r - 0.5f));
    const int w = int(v.width) - 1;
    const int h = int(v.height) - 1;
    return {x0 < 0 ? 0 : x0, x1 > w ? w : x1, y0 < 0 ? 0 : y0, y1 > h ? h : y1};
}

/// The first pass's word for point `index` at depth: the nearest wins a minimum, and of equal
/// depths the highest index.
CS_HOST_DEVICE inline SplatPixel splatKey(float depth, std::uint32_t index) {
    return (SplatPixel(splatFloatBits(depth)) << 32) | SplatPixel(~index);
}

/// The point a first-pass key names.
CS_HOST_DEVICE inline std::uint32_t splatKeyIndex(SplatPixel key) {
    return ~std::uint32_t(key);
}

/// The colour the point shows at a pixel distance2 from its centre (alpha 255).
CS_HOST_DEVICE inline std::uint32_t splatColour(const PointSplatView& v, std::uint32_t rgba,
                                                bool dimmed, float distance2) {
    if (!dimmed && !(v.shading > 0.0f)) return rgba | 0xFF00'0000u;
    float rim = 1.0f;
    if (v.shading > 0.0f) {
        const float q = distance2 / splatRadius2(v);
        rim = fmaf(-v.shading, q * q, 1.0f);
    }
    std::uint32_t out = 0xFF00'0000u;
    for (int channel = 0; channel < 3; ++channel) {
        float c = float((rgba >> (8 * channel)) & 0xFFu) / 255.0f;
        if (dimmed) c = fmaf(0.8f, v.background[channel] - c, c);  // mix(c, background, 0.8)
        const float scaled = fmaf(c * rim, 255.0f, 0.5f);
        const std::uint32_t byte =
            scaled <= 0.0f ? 0u : (scaled >= 255.0f ? 255u : std::uint32_t(scaled));
        out |= byte << (8 * channel);
    }
    return out;
}

/// The second pass at pixel (px, py): the splat word of the point whose key won the first pass
/// there (kEmptySplatPixel stays).
CS_HOST_DEVICE inline SplatPixel resolveSplatPixel(const PointSplatView& v, SplatPixel key, int px,
                                                   int py, const float* positions,
                                                   const std::uint32_t* rgba,
                                                   const std::uint8_t* mask) {
    if (key == kEmptySplatPixel) return key;
    const std::uint32_t index = splatKeyIndex(key);
    SplatPoint p;
    // The same inputs as in the first pass: it projects the same way.
    projectSplatPoint(v, positions + 3 * std::size_t(index), rgba[index], mask ? mask[index] : 0,
                      p);
    return (key & 0xFFFF'FFFF'0000'0000ull) |
           splatColour(v, rgba[index], p.dimmed, splatDistance2(p, px, py));
}

/// The CPU reference: points (xyz each, a multiple of 3 floats) with one RGBA8 colour each and
/// a mask value each (or none: every point shown) drawn into a width x height image, row 0 at
/// the bottom. Throws cs::Error when the sizes disagree or there are more than kMaxSplatPoints.
std::vector<SplatPixel> splatPoints(std::span<const float> positions,
                                    std::span<const std::uint32_t> rgba,
                                    std::span<const std::uint8_t> mask, const PointSplatView& view);
/// The first pass alone: per pixel the splatKey of the point shown there (splatKeyIndex names
/// it), or kEmptySplatPixel. What picking reads: which point is under each pixel.
std::vector<SplatPixel> splatKeys(std::span<const float> positions,
                                  std::span<const std::uint32_t> rgba,
                                  std::span<const std::uint8_t> mask, const PointSplatView& view);

}  // namespace cs
