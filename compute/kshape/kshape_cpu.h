// SPDX-License-Identifier: MIT
#pragma once

#include <span>

#include "compute/core/job_control.h"
#include "compute/core/series_set.h"
#include "compute/kshape/kshape.h"

namespace cs {

/// k-Shape on the CPU with `threads` threads (the reference and oracle of the GPU tests),
/// following compute/kshape/kshape.h: SBD through FFTW3 single-precision cross-correlations
/// (padded to kshapeFftSize(m)), shapes from Eigen's symmetric eigensolver in double. The same
/// result whatever the thread count. Input: one channel of the series (validateKShape); series
/// n x m floats (kshapeInput). Stages (JobControl timings, one entry per occurrence; the CUDA
/// backend uses the same names): "normalise" (input and series spectra), then per iteration
/// "shapes" and "assign". threads <= 0: one per hardware thread. Throws cs::Error on bad input,
/// cs::Cancelled when the job is cancelled (between iterations and inside the stages; never a
/// half-filled result). Memory: O(n m) plus the series spectra (n x (m + 1) complex floats,
/// recomputed per iteration instead when over 1 GiB) and k m^2 doubles.
/// @code cs::KShapeResult r = cs::kshapeCpu(series, {.k = 3, .seed = 7}, job, 4); @endcode
KShapeResult kshapeCpu(const SeriesSet& series, const KShapeParams& params, JobControl& job,
                       int threads = 0);

/// SBD of x and y (equal lengths, >= 1) the way kshapeCpu computes it: FFTW single precision
/// cross-correlation padded to kshapeFftSize(m), normalised in double, the first shift of the
/// maximum; shift receives it when not null. One-off plans: for tests, not for loops.
double sbdFft(std::span<const float> x, std::span<const float> y, int* shift = nullptr);

}  // namespace cs
