// SPDX-License-Identifier: MIT
#pragma once

// No GL or CUDA header here: ui/ sees GL buffers as plain ids, kernels/ implements the writes.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/edge_splat.h"
#include "compute/core/point_quantities.h"
#include "compute/core/point_splat.h"
#include "compute/core/series_quantities.h"

namespace cs {

/// One OpenGL buffer object registered with the accelerator, written there with no copy through
/// host memory (CUDA–GL interop: map on a stream, run a kernel into it, unmap).
///
/// Thread and context rule: a link is made, used and destroyed on the thread where the GL
/// context that owns the buffer is current (the GUI thread, inside the view's context), and it
/// is destroyed before the buffer is reallocated or deleted and before that context goes away.
/// Device-resident inputs may come from work on any thread, provided that work has finished
/// (backends hand results over after their stream synchronised). Every write has finished on the
/// device when the call returns, so the input may be freed right after.
class GlBufferLink {
public:
    virtual ~GlBufferLink() = default;
    /// The GL buffer name.
    virtual std::uint32_t glBuffer() const = 0;
    /// The bytes registered (the buffer's size when it was linked).
    virtual std::size_t bytes() const = 0;
    /// Fills the buffer with bytes() / 4 packed RGBA8 colours: paint.colourOf(label, primary)
    /// per point of categories (a PointCategories::device of the same backend, with exactly that
    /// many points). Throws cs::Error when they do not fit, cs::DeviceError when the device
    /// fails.
    virtual void paintCategories(const DeviceResident& categories, const CategoryPaint& paint) = 0;
    /// Fills the buffer with bytes() / 12 xyz float positions: the first three columns of a
    /// Backend::keepResident copy of the same backend (recentred coordinates; missing columns 0)
    /// at `scale` (the view's distanceScale(), a power of two) instead of the copy's own.
    /// Throws cs::Error when the points do not fit, cs::DeviceError when the device fails.
    virtual void writePositions(const DeviceResident& points, double scale) = 0;
    /// Fills the buffer (a pixel buffer of order.size() x length floats) with seriesMatrix():
    /// channel `channel` of series order[r] of a Backend::keepSeriesResident copy, z-normalised
    /// per row, NaN past each series' length. Throws cs::Error when the sizes do not fit,
    /// cs::DeviceError when the device fails.
    virtual void writeSeriesMatrix(const DeviceResident& series,
                                   std::span<const std::uint32_t> order, std::size_t channel) = 0;
    /// Fills the buffer (an element buffer of bytes() / 4 uint32 indices) with per-point edges
    /// (a PointEdges::device of the same backend) as GL_LINES pairs in edgeIndexPairs() order:
    /// for point i and slot c, word 2 (i k + c) is i and the next word the target. Throws
    /// cs::Error when the edges do not fit, cs::DeviceError when the device fails.
    virtual void writeEdgeIndices(const DeviceResident& edges) = 0;
    /// Fills the buffer (a pixel buffer of order.size() x columns floats) with columnZScores():
    /// layer `layer` of the first `columns` columns of rows order[r] of a FeatureMatrix::device
    /// (the same backend), each column z-scored over all rows. Throws cs::Error when the sizes
    /// do not fit, cs::DeviceError when the device fails.
    virtual void writeColumnZScores(const DeviceResident& matrix,
                                    std::span<const std::uint32_t> order, std::size_t layer,
                                    std::size_t columns) = 0;
    /// The same with the columns in another order (a map ordered by FeatureOrder): place c of
    /// each row holds matrix column columns[c]; the buffer holds order.size() x columns.size()
    /// floats. What columnZScores(matrix, order, layer, columns) computes. This default throws
    /// cs::Error (the view then uploads from the host).
    virtual void writeOrderedColumnZScores(const DeviceResident& matrix,
                                           std::span<const std::uint32_t> order, std::size_t layer,
                                           std::span<const std::uint32_t> columns);
    /// Fills the buffer with interopTestPattern(seed, i) for every 32-bit word i: proof that a
    /// kernel wrote what GL reads, for tests and `clusterscope --check-interop`.
    virtual void writeTestPattern(std::uint32_t seed) = 0;
};

/// The point view's buffers that a splat reads, each linked (GlInterop::link).
struct PointSplatBuffers {
    GlBufferLink* positions = nullptr;  ///< n xyz floats
    GlBufferLink* colours = nullptr;    ///< n packed RGBA8 colours
    GlBufferLink* mask = nullptr;       ///< n mask values (bytes), or null: every point shown
    std::size_t n = 0;
};

/// The point view's buffers that an edge splat reads, each linked (GlInterop::link).
struct EdgeSplatBuffers {
    PointSplatBuffers points;
    GlBufferLink* edges = nullptr;  ///< 2 * edgeCount uint32 point indices (GL_LINES pairs)
    std::size_t edgeCount = 0;
};

/// What GlInterop::splatEdges did.
struct EdgeSplatOutcome {
    /// False when the edges would cover more than kMaxEdgeSplatFragments pixels: nothing was
    /// written, and GL's lines draw them better.
    bool drawn = false;
    /// The edges the rule's tests kept (drawn or outside the view), as GL's primitive count.
    std::size_t edges = 0;
};

/// Makes GlBufferLinks: the accelerator side of drawing straight from device memory. A backend
/// build provides one (kernels/interop); without it, or when it reports itself unavailable, views
/// upload from host memory.
class GlInterop {
public:
    virtual ~GlInterop() = default;
    /// For the log: "CUDA–GL interop on NVIDIA H200".
    virtual std::string description() const = 0;
    /// Registers GL buffer `glBuffer` of `bytes` bytes (allocated with glBufferData) for writes
    /// and reads. Call with the owning context current. Throws cs::DeviceError when the driver
    /// refuses (a renderer on another GPU or a software renderer, no GL context ...).
    virtual std::unique_ptr<GlBufferLink> link(std::uint32_t glBuffer, std::size_t bytes) = 0;
    /// Draws the points in `points` into `image` (a pixel buffer of view.width x view.height
    /// SplatPixels) by cs::splatPoints' rule (compute/core/point_splat.h), reading the GL
    /// buffers in place: the point view's renderer for clouds too big for GL's point pipeline.
    /// Done on the device when it returns. Throws cs::Error when the buffers are too small for
    /// the points or the image (the view then draws with GL), cs::DeviceError when the device
    /// fails. This default throws cs::Error.
    virtual void splatPoints(const PointSplatBuffers& points, const PointSplatView& view,
                             GlBufferLink& image);
    /// The first pass of splatPoints alone (cs::splatKeys), copied to the host: which point
    /// each pixel of a small image shows. The point view's pick while its points are splatted
    /// (view: the pixels around the cursor). Throws as splatPoints; this default throws
    /// cs::Error.
    virtual std::vector<SplatPixel> splatKeys(const PointSplatBuffers& points,
                                              const PointSplatView& view);
    /// Draws the edges into `image` (a pixel buffer of view.width x view.height RGBA8 words) by
    /// cs::splatEdges' rule (compute/core/edge_splat.h), reading the GL buffers in place: the
    /// point view's renderer for graphs too big for GL's line pipeline. Done on the device when
    /// it returns. Throws as splatPoints; this default throws cs::Error.
    virtual EdgeSplatOutcome splatEdges(const EdgeSplatBuffers& edges, const EdgeSplatView& view,
                                        GlBufferLink& image);
};

/// The known pattern GlBufferLink::writeTestPattern writes: word i for a seed, an opaque RGBA8
/// colour whose 24 colour bits are a splitmix-style hash (a shifted, truncated or stale buffer
/// cannot match by chance, and a screenshot shows every point).
constexpr std::uint32_t interopTestPattern(std::uint32_t seed, std::size_t i) {
    std::uint64_t z = (std::uint64_t(seed) << 32) + std::uint64_t(i) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return std::uint32_t(z ^ (z >> 31)) | 0xFF000000u;
}

/// Installs the process's GL interop maker (app/gui does, when built with CUDA and GL). It is
/// called once, on the first glInterop() call, and throws cs::BackendUnavailable with a reason
/// when there is nothing to interoperate with (no CUDA device ...).
void setGlInteropFactory(std::function<std::shared_ptr<GlInterop>()> factory);
/// The process's GL interop, made on first use; nullptr when this build or machine has none,
/// with the reason in *whyNot ("this build has no CUDA", "no CUDA driver on this machine ...").
std::shared_ptr<GlInterop> glInterop(std::string* whyNot = nullptr);
/// Drops the process's GL interop (its device stream); call before main() returns, after the
/// views that used it are gone.
void releaseGlInterop();

}  // namespace cs
