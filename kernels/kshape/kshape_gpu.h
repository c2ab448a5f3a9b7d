// SPDX-License-Identifier: MIT
#pragma once

// k-Shape on the GPU in Times-C's three stages per iteration (the Times-C paper): the members of
// each cluster gathered and aligned; the shape by power iteration (cuBLAS) on P S P for short
// series, on the count x count Gram for long ones, or matrix-free on the members (S v =
// Z (Z^T v)) when both are large, with cuSOLVER's symmetric eigensolver when it does not
// converge or its check fails (kshapeShapeSolverFor in compute/kshape/kshape.h: device memory
// O(n m), never O(m^2)); and the assignment by SBD with cuFFT (the series' spectra once per run,
// the centroids' per iteration, the cross spectra element-wise, one inverse transform per
// series x centroid, the NCC maximum in one kernel). All channels together (multivariate
// k-Shape): the series' and centroids' spectra are batched over their channels, the cross
// spectra summed over the channels before the one inverse transform per series x centroid,
// and after the assignment each channel's own shift onto its centroid's channel comes from one
// more batched inverse transform per batch; the shapes are found channel by channel.
// Semantics: compute/kshape/kshape.h; agrees
// with the CPU backend within float rounding. Host-only header. Stages (CUDA events):
// "normalise", "upload", "spectra", then per iteration "shapes" and "assign".

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/kshape/kshape.h"

namespace cs::kernels {

class StreamHandles;

/// Throws cs::Error as validateKShape does and when the series do not fit in device memory;
/// cs::Cancelled between iterations.
/// @code cs::KShapeResult r = cs::kernels::kshapeCuda(ctx, series, {.k = 4}, job); @endcode
KShapeResult kshapeCuda(StreamHandles& ctx, const SeriesSet& series, const KShapeParams& params,
                        JobControl& job);

}  // namespace cs::kernels
