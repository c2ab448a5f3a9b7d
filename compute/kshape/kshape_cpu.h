// SPDX-License-Identifier: MIT
#pragma once

#include <span>

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/kshape/kshape.h"

namespace cs {

/// k-Shape on the CPU with `threads` threads (the reference and oracle of the GPU tests),
/// following compute/kshape/kshape.h: SBD through FFTW3 single-precision cross-correlations
/// (padded to kshapeFftSize(m)), shapes in double by kshapeShapeSolverFor's path (Eigen's
/// symmetric eigensolver on M or on the Gram, or the power iteration). The same
/// result whatever the thread count. Input: one channel of the series or all of them
/// (validateKShape, kshapeInput: n x C x m floats); with several channels the cross spectra are
/// summed over the channels before one inverse transform per series and centroid. Stages
/// (JobControl timings, one entry per occurrence; the CUDA backend uses the same names):
/// "normalise" (input and series spectra), then per iteration "shapes" and "assign". threads <= 0:
/// one per hardware thread. Throws cs::Error on bad input, cs::Cancelled when the job is cancelled
/// (between iterations and inside the stages; never a half-filled result). Memory: O(n C m), never
/// O(m^2): the input (n x C x m floats), the members z-normalised (n x m doubles in all, one
/// channel at a time), the series spectra (n x C x (m + 1) complex floats while they fit in 1 GiB,
/// else recomputed every iteration) and, per centroid channel computed at once, a matrix of side
/// min(count, m) <= kKShapeDenseSide (kKShapeFallbackSide when the power iteration fails its
/// check).
/// @code cs::KShapeResult r = cs::kshapeCpu(series, {.k = 3, .seed = 7}, job, 4); @endcode
KShapeResult kshapeCpu(const SeriesSet& series, const KShapeParams& params, JobControl& job,
                       int threads = 0);

/// How kshapeShapeCpu found a shape.
struct KShapeShapeInfo {
    KShapeShapeSolver solver = KShapeShapeSolver::Length;  ///< the path asked for
    int powerSteps = 0;                                    ///< power steps taken (Power)
    bool powerPassed = false;  ///< the power iteration passed its check (Power)
    bool fallback = false;     ///< it did not, and the smaller side was solved densely (Power)
};

/// One cluster's shape as kshapeCpu computes it (kshape.h, iteration step 1), by the path
/// `solver` whatever kshapeShapeSolverFor would choose (for tests: every path on the same
/// members). aligned: count x m floats, row-major, the members already aligned (not
/// z-normalised); centroid: m floats out; fallbackSide: kKShapeFallbackSide unless a test
/// moves it. Throws cs::Error when the sizes do not match.
/// @code auto info = cs::kshapeShapeCpu(rows, 40, 20000, cs::KShapeShapeSolver::Gram, c, job);
/// @endcode
KShapeShapeInfo kshapeShapeCpu(std::span<const float> aligned, std::size_t count, std::size_t m,
                               KShapeShapeSolver solver, std::span<float> centroid,
                               const JobControl& job,
                               std::size_t fallbackSide = kKShapeFallbackSide);

/// SBD of x and y (channels x m each, m >= 1) the way kshapeCpu computes it: FFTW single precision
/// cross-correlation padded to kshapeFftSize(m), normalised in double, the first shift of the
/// maximum; shift receives it when not null. One-off plans: for tests, not for loops.
double sbdFft(std::span<const float> x, std::span<const float> y, int* shift = nullptr,
              std::size_t channels = 1);

}  // namespace cs
