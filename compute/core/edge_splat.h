// SPDX-License-Identifier: MIT
#pragma once

// Plain C++ that the CUDA edge splat (kernels/interop) compiles too, as point_splat.h: both
// sides walk every edge and resolve every pixel with the same operations.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/point_splat.h"

namespace cs {

/// How the point view draws its kNN edges (resources/shaders/edges_length.* under GL's line
/// rules), as one rule for the renderers that draw them without GL's line pipeline: the CUDA
/// edge splat (GlInterop::splatEdges), for graphs of millions of edges that keep the GPU's few
/// rasteriser units busy for tens of milliseconds, and splatEdges() below, its CPU reference.
///
/// Edge e joins points indices[2e] and indices[2e + 1] (the view's GL_LINES element buffer):
/// - it is not drawn when an end's alpha is 0 or its mask value is 2, or its length (the
///   distance of the two positions over `scale`) lies outside [filter[0], filter[1]];
/// - it is clipped to the clip volume (-w <= x, y, z <= w) and covers, along its longer window
///   axis, the one pixel per column (or row) whose centre the segment crosses (a line one
///   pixel wide, as GL draws it);
/// - at a pixel t of the way along it, it has the colour mix(c0, c1, t) (or, byLength, the
///   colour map at its length) and the alpha opacity * mix(a0, a1, t), each rounded to a byte;
/// - the edges at a pixel are blended in no particular order: the pixel takes their
///   alpha-weighted mean colour at the alpha 1 - prod(1 - alpha) (order-independent
///   transparency: a single edge gives exactly its own colour and alpha), and GL then blends
///   that over the framebuffer as it blends one line.
struct EdgeSplatView {
    float mvp[16] = {};                   ///< model-view-projection, column-major
    std::uint32_t width = 0;              ///< framebuffer pixels
    std::uint32_t height = 0;             ///< framebuffer pixels
    float scale = 1.0f;                   ///< view units per data unit
    float filter[2] = {0.0f, 3.4e38f};    ///< shortest and longest length drawn, data units
    float colourRange[2] = {0.0f, 0.0f};  ///< lengths at the colour map's two ends
    std::uint32_t byLength = 0;           ///< 1: the colour map at the length; 0: the points'
    float opacity = 1.0f;                 ///< the edge opacity in [0, 1]
    std::uint32_t map[256] = {};          ///< the colour map, packed RGBA8
};

/// The fragments a splat may write before it leaves the frame to GL's lines (a view zoomed in
/// so far that the edges are long): beyond it the atomics cost more than GL's rasteriser.
constexpr std::uint64_t kMaxEdgeSplatFragments = 400'000'000;

/// While edges are splatted, each pixel keeps 64-bit integer sums, so that the order of the
/// edges cannot change them: the alpha bytes (its weight), the alpha-weighted colour bytes, and
/// the edges' logTransmittance below; resolveEdgeSplatPixel turns them into its colour.
///
/// What both renderers take from the host rather than from their own maths libraries (whose
/// logarithms may differ in the last bit): per alpha byte a, -log2(1 - a / 255) in 1/65536ths
/// (an opaque edge counts as alpha 1 - 1/1024, so that no one edge hides the others' colours
/// entirely); and 2^(-i / 256) (coarse) and 2^(-i / 65536) (fine) for i in 0 .. 255, whose
/// products give 2^(-L) for any L in 1/65536ths.
struct EdgeSplatTables {
    std::uint32_t logTransmittance[256];
    double coarse[256];
    float fine[256];
};
/// The tables, computed once.
const EdgeSplatTables& edgeSplatTables();

/// One edge's fragments: calls emit(x, y, rgba) for each pixel it covers (alpha in the high
/// byte), after the rule's tests; returns false when the edge is not drawn at all.
template <typename Emit>
CS_HOST_DEVICE inline bool walkSplatEdge(const EdgeSplatView& v, const float* p0, const float* p1,
                                         std::uint32_t c0, std::uint32_t c1, std::uint8_t m0,
                                         std::uint8_t m1, Emit&& emit) {
    if ((c0 >> 24) == 0 || (c1 >> 24) == 0 || m0 >= 2 || m1 >= 2) return false;
    const float dx = p1[0] - p0[0], dy = p1[1] - p0[1], dz = p1[2] - p0[2];
    const float length = sqrtf(fmaf(dx, dx, fmaf(dy, dy, dz * dz))) / v.scale;
    if (!(length >= v.filter[0] && length <= v.filter[1])) return false;
    if (v.byLength) {
        const float span = v.colourRange[1] - v.colourRange[0];
        float t = span > 0.0f ? (length - v.colourRange[0]) / span : 0.5f;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        const std::uint32_t rgb = v.map[int(fmaf(t, 255.0f, 0.5f))] & 0x00FF'FFFFu;
        c0 = (c0 & 0xFF00'0000u) | rgb;
        c1 = (c1 & 0xFF00'0000u) | rgb;
    }
    // Clip coordinates of both ends, then the part of the segment inside every plane
    // (Liang-Barsky on -w <= x, y, z <= w).
    float a[4], b[4];
    for (int r = 0; r < 4; ++r) {
        a[r] = fmaf(v.mvp[r], p0[0],
                    fmaf(v.mvp[4 + r], p0[1], fmaf(v.mvp[8 + r], p0[2], v.mvp[12 + r])));
        b[r] = fmaf(v.mvp[r], p1[0],
                    fmaf(v.mvp[4 + r], p1[1], fmaf(v.mvp[8 + r], p1[2], v.mvp[12 + r])));
    }
    float s0 = 0.0f, s1 = 1.0f;
    for (int plane = 0; plane < 6; ++plane) {
        const int axis = plane >> 1;
        const float sign = (plane & 1) ? -1.0f : 1.0f;
        const float da = fmaf(sign, a[axis], a[3]);
        const float db = fmaf(sign, b[axis], b[3]);
        if (!(da >= 0.0f) && !(db >= 0.0f)) return true;  // outside (or not finite): drawn, unseen
        if (da < 0.0f)
            s0 = fmaxf(s0, da / (da - db));
        else if (db < 0.0f)
            s1 = fminf(s1, da / (da - db));
    }
    if (!(s0 <= s1)) return true;
    const float halfWidth = 0.5f * float(v.width), halfHeight = 0.5f * float(v.height);
    float wx[2], wy[2];
    for (int end = 0; end < 2; ++end) {
        const float s = end == 0 ? s0 : s1;
        const float x = fmaf(s, b[0] - a[0], a[0]);
        const float y = fmaf(s, b[1] - a[1], a[1]);
        const float w = fmaf(s, b[3] - a[3], a[3]);
        if (!(w > 0.0f)) return true;
        wx[end] = fmaf(x / w, halfWidth, halfWidth);
        wy[end] = fmaf(y / w, halfHeight, halfHeight);
    }
    // Along the longer window axis, one pixel per column (or row) whose centre lies in
    // [start, end) of the segment there.
    const float ex = wx[1] - wx[0], ey = wy[1] - wy[0];
    const bool alongX = fabsf(ex) >= fabsf(ey);
    const float major0 = alongX ? wx[0] : wy[0];
    const float majorSpan = alongX ? ex : ey;
    const float lo = fminf(major0, major0 + majorSpan), hi = fmaxf(major0, major0 + majorSpan);
    int first = int(ceilf(lo - 0.5f)), last = int(ceilf(hi - 0.5f)) - 1;
    const int limit = int(alongX ? v.width : v.height) - 1;
    first = first < 0 ? 0 : first;
    last = last > limit ? limit : last;
    const int otherLimit = int(alongX ? v.height : v.width);
    for (int pixel = first; pixel <= last; ++pixel) {
        const float u =
            (float(pixel) + 0.5f - major0) / majorSpan;  // 0 .. 1 along the clipped part
        const float other = alongX ? fmaf(u, ey, wy[0]) : fmaf(u, ex, wx[0]);
        const int o = int(floorf(other));
        if (o < 0 || o >= otherLimit) continue;
        const float t = fmaf(u, s1 - s0, s0);  // along the whole edge
        std::uint32_t rgba = 0;
        for (int channel = 0; channel < 3; ++channel) {
            const float x0 = float((c0 >> (8 * channel)) & 0xFFu);
            const float x1 = float((c1 >> (8 * channel)) & 0xFFu);
            rgba |= std::uint32_t(fmaf(t, x1 - x0, x0) + 0.5f) << (8 * channel);
        }
        const float alpha0 = float(c0 >> 24), alpha1 = float(c1 >> 24);
        const std::uint32_t alpha =
            std::uint32_t(fmaf(v.opacity, fmaf(t, alpha1 - alpha0, alpha0), 0.5f));
        rgba |= (alpha > 255u ? 255u : alpha) << 24;
        emit(alongX ? pixel : o, alongX ? o : pixel, rgba);
    }
    return true;
}

/// A pixel's RGBA8 from its sums: 0 (nothing) where no edge with a non-zero alpha met it.
/// coarse and fine: EdgeSplatTables' arrays.
CS_HOST_DEVICE inline std::uint32_t resolveEdgeSplatPixel(const double* coarse, const float* fine,
                                                          std::uint64_t weight,
                                                          const std::uint64_t* colour,
                                                          std::uint64_t logTransmittance) {
    if (weight == 0) return 0;
    std::uint32_t rgba = 0;
    for (int channel = 0; channel < 3; ++channel)
        rgba |= std::uint32_t((colour[channel] + weight / 2) / weight) << (8 * channel);
    // 2^(-L): a power of two times two table entries, the same on both sides.
    const std::uint64_t whole = logTransmittance >> 16;
    const double transmittance = whole >= 64 ? 0.0
                                             : ldexp(coarse[(logTransmittance >> 8) & 0xFFu] *
                                                         double(fine[logTransmittance & 0xFFu]),
                                                     -int(whole));
    const std::uint32_t alpha = std::uint32_t(fma(1.0 - transmittance, 255.0, 0.5));
    return rgba | (alpha > 255u ? 255u : alpha) << 24;
}

/// The CPU reference: edges (pairs of point indices, as GL_LINES) between points (xyz each)
/// with one RGBA8 colour each and a mask value each (or none) drawn into a width x height RGBA8
/// image (0 where no edge is), row 0 at the bottom; *drawn (when given) the edges the rule's
/// tests kept. Throws cs::Error when the sizes disagree or an index names no point.
std::vector<std::uint32_t> splatEdges(std::span<const float> positions,
                                      std::span<const std::uint32_t> rgba,
                                      std::span<const std::uint8_t> mask,
                                      std::span<const std::uint32_t> indices,
                                      const EdgeSplatView& view, std::size_t* drawn = nullptr);

}  // namespace cs
