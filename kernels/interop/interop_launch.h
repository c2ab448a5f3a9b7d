// SPDX-License-Identifier: MIT
#pragma once

// Launchers of the kernels that write into mapped GL buffers (bodies in interop_kernels.cu).
// Asynchronous on `stream`; each checks its launch.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "compute/core/edge_splat.h"
#include "compute/core/point_splat.h"

namespace cs::kernels {

/// Which roles of per-point categories are drawn, and the colour of no category
/// (cs::CategoryPaint's rule).
struct CategoryPaintRule {
    std::uint32_t noneRgba = 0;
    bool showPrimary = true;
    bool showSecondary = true;
    bool showNone = true;
};

/// out[i] = the colour of point i by cs::CategoryPaint::colourOf: categoryRgba[labels[i]] for a
/// shown member, rule.noneRgba for a shown point in no category (and labels >= clusterCount), 0
/// when hidden. primary may be null (every member primary).
void launchPaintCategories(const std::int32_t* labels, const std::uint8_t* primary, std::size_t n,
                           const std::uint32_t* categoryRgba, std::size_t clusterCount,
                           CategoryPaintRule rule, std::uint32_t* out, cudaStream_t stream);

/// out[3 i + j] = coords[i * dims + j] * rescale for j < min(dims, 3), 0 for the other j.
/// rescale: the view's scale over the copy's (both powers of two, so exact; 1 unless a wider
/// fourth or later column set the copy's), for positions as the view's host path writes them.
void launchPackPositions(const float* coords, std::size_t n, std::size_t dims, double rescale,
                         float* out, cudaStream_t stream);

/// cs::edgeIndexPairs on the device: out[2 s] = s / k, out[2 s + 1] = indices[s] for the n k
/// slots s of per-point edge targets.
void launchEdgeIndices(const std::int32_t* indices, std::size_t n, int k, std::uint32_t* out,
                       cudaStream_t stream);

/// cs::seriesMatrix on the device: out[r * length + t] = channel `channel` of series order[r],
/// z-normalised over its true length (double sums), NaN past it. values: n x channels x length.
void launchSeriesMatrix(const float* values, const std::uint32_t* lengths, std::size_t channels,
                        std::size_t length, std::size_t channel, const std::uint32_t* order,
                        std::size_t rows, float* out, cudaStream_t stream);

/// cs::columnZScores on the device: out[r * shown + c] = the z-score (over all rows) of layer
/// `layer` of column c of row order[r], for r < orderRows and c < shown. values: rows x columns x
/// layers, interleaved. columnOrder: shown device indices, column columnOrder[c] in place c (an
/// ordered map), or null for the columns in their order. scratch: 2 x shown doubles (each
/// column's mean and standard deviation).
void launchColumnZScores(const float* values, std::size_t rows, std::size_t columns,
                         std::size_t layers, std::size_t layer, const std::uint32_t* order,
                         std::size_t orderRows, std::size_t shown, const std::uint32_t* columnOrder,
                         double* scratch, float* out, cudaStream_t stream);

/// cs::splatPoints on the device: n points (xyz floats, RGBA8 colours, mask values or null)
/// drawn into image (view.width x view.height splat pixels). Two passes, as the reference: an
/// atomic minimum of splatKey per covered pixel, then resolveSplatPixel per pixel.
void launchSplatPoints(const float* positions, const std::uint32_t* rgba, const std::uint8_t* mask,
                       std::size_t n, const cs::PointSplatView& view, cs::SplatPixel* image,
                       cudaStream_t stream);
/// What launchSplatEdges found: the pixels its edges cover and the edges the rule kept.
struct EdgeSplatCounts {
    std::uint64_t fragments = 0;
    std::uint64_t edges = 0;
};
/// cs::splatEdges on the device: `edges` index pairs into n points (xyz floats, RGBA8 colours,
/// mask values or null) drawn into image (view.width x view.height RGBA8 words). A first pass
/// counts the pixels; above maxFragments nothing is written. Then 64-bit atomic sums per pixel
/// and a resolve pass, as the reference. Waits for the count (a copy to the host).
EdgeSplatCounts launchSplatEdges(const float* positions, const std::uint32_t* rgba,
                                 const std::uint8_t* mask, std::size_t n,
                                 const std::uint32_t* indices, std::size_t edges,
                                 const cs::EdgeSplatView& view, std::uint64_t maxFragments,
                                 std::uint32_t* image, cudaStream_t stream);
/// cs::splatKeys on the device: the first pass of launchSplatPoints alone.
void launchSplatKeys(const float* positions, const std::uint32_t* rgba, const std::uint8_t* mask,
                     std::size_t n, const cs::PointSplatView& view, cs::SplatPixel* image,
                     cudaStream_t stream);

/// out[i] = cs::interopTestPattern(seed, i) for i < words.
void launchInteropTestPattern(std::uint32_t* out, std::size_t words, std::uint32_t seed,
                              cudaStream_t stream);

}  // namespace cs::kernels
