// SPDX-License-Identifier: MIT
#pragma once

// Launchers of the GPU ridge classifier's element-wise kernels (ridge_kernels.cu). Asynchronous
// on `stream`; each checks its launch.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// mean[j], scale[j] = 1 / population sd (0 when constant) of column j of features (row-major
/// n x p floats) over the nt rows listed in rows (in order, double).
void launchRidgeColumnStats(const float* features, std::size_t p, const std::uint32_t* rows,
                            std::size_t nt, double* mean, double* scale, cudaStream_t stream);
/// z[r + j nt] = (features[rows[r]][j] - mean[j]) scale[j]: column-major nt x p.
void launchRidgeStandardise(const float* features, std::size_t p, const std::uint32_t* rows,
                            std::size_t nt, const double* mean, const double* scale, double* z,
                            cudaStream_t stream);
/// out[i] = a[i]^2.
void launchRidgeSquare(const double* a, std::size_t count, double* out, cudaStream_t stream);
/// w[j] = 1 / (max(eig[j], 0) + alpha) for j < m; s = diag(w) qtY (m x classes, column-major).
void launchRidgeShrink(const double* eig, std::size_t m, double alpha, const double* qtY,
                       int classes, double* w, double* s, cudaStream_t stream);

}  // namespace cs::kernels
