// SPDX-License-Identifier: MIT
#pragma once

// The ridge classifier of compute/rocket/ridge.h on the GPU, in double: the standardised
// training rows; on the Gram path (ridgeSolverFor, as on the host) their Gram matrix (cuBLAS)
// and its eigendecomposition on the complement of the constant vector (cuSOLVER syevd), on the
// covariance path X^T X (cuBLAS syrk) and its eigendecomposition; then the exact leave-one-out
// error per alpha and the weights (cuBLAS). The same model as fitRidgeClassifier up to double
// rounding. Host-only header. Stages as the CPU's: "standardise", "gram" or "covariance",
// "eigen", "alpha", "weights" (plus "upload" when the features are not on the device yet).

#include <cstdint>
#include <span>

#include "compute/core/job_control.h"
#include "compute/rocket/ridge.h"

namespace cs::kernels {

class StreamHandles;

/// Fits on the rows of features (n x p floats on ctx's device) whose label is >= 0; throws
/// cs::Error as fitRidgeClassifier does, and when the matrices do not fit in device memory.
/// Device memory: O(n p + min(n, p)^2) doubles; the covariance path computes X V in batches of
/// rows when the whole would not fit.
/// hostFeatures: the same n x p values on the host, read only to name a non-finite feature when
/// a column's mean on the device is not finite (so the host never scans all of them).
RidgeModel ridgeFitCuda(StreamHandles& ctx, const float* features, std::size_t n, std::size_t p,
                        std::span<const std::int32_t> labels, int classes,
                        const RidgeParams& params, JobControl& job,
                        std::span<const float> hostFeatures);

}  // namespace cs::kernels
