// SPDX-License-Identifier: MIT
// Element-wise helpers of the GPU ridge classifier (ridge_gpu.cpp); the heavy lifting is cuBLAS
// and cuSOLVER.
#include "kernels/common/cuda_error.h"
#include "kernels/rocket/ridge_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t work) {
    return unsigned((work + kThreads - 1) / kThreads);
}

// Per column over the training rows, rows in order as on the host: the mean, then the
// population standard deviation; scale = 1 / sd (0 for a constant column).
__global__ void columnStatsKernel(const float* features, std::size_t p, const std::uint32_t* rows,
                                  std::size_t nt, double* mean, double* scale) {
    const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= p) return;
    double sum = 0.0;
    for (std::size_t r = 0; r < nt; ++r)
        sum = __dadd_rn(sum, double(features[std::size_t(rows[r]) * p + j]));
    const double m = __ddiv_rn(sum, double(nt));
    double sq = 0.0;
    for (std::size_t r = 0; r < nt; ++r) {
        const double d = __dsub_rn(double(features[std::size_t(rows[r]) * p + j]), m);
        sq = __dadd_rn(sq, __dmul_rn(d, d));
    }
    const double sd = __dsqrt_rn(__ddiv_rn(sq, double(nt)));
    mean[j] = m;
    scale[j] = sd > 0.0 ? __ddiv_rn(1.0, sd) : 0.0;
}

// z (column-major nt x p) = standardised training rows.
__global__ void standardiseKernel(const float* features, std::size_t p, const std::uint32_t* rows,
                                  std::size_t nt, const double* mean, const double* scale,
                                  double* z) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= nt * p) return;
    const std::size_t r = e % nt, j = e / nt;
    z[e] = __dmul_rn(__dsub_rn(double(features[std::size_t(rows[r]) * p + j]), mean[j]), scale[j]);
}

// out[i] = a[i] * a[i].
__global__ void squareKernel(const double* a, std::size_t count, double* out) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) out[i] = a[i] * a[i];
}

// w[j] = 1 / (max(eig[j], 0) + alpha); s (m x classes, column-major) = diag(w) qtY.
__global__ void shrinkKernel(const double* eig, std::size_t m, double alpha, const double* qtY,
                             int classes, double* w, double* s) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= m * std::size_t(classes)) return;
    const std::size_t j = e % m;
    const double wj = 1.0 / (fmax(eig[j], 0.0) + alpha);
    if (e < m) w[j] = wj;
    s[e] = wj * qtY[e];
}

}  // namespace

void launchRidgeColumnStats(const float* features, std::size_t p, const std::uint32_t* rows,
                            std::size_t nt, double* mean, double* scale, cudaStream_t stream) {
    if (p == 0) return;
    columnStatsKernel<<<blocksFor(p), kThreads, 0, stream>>>(features, p, rows, nt, mean, scale);
    CS_CUDA_CHECK_LAUNCH();
}

void launchRidgeStandardise(const float* features, std::size_t p, const std::uint32_t* rows,
                            std::size_t nt, const double* mean, const double* scale, double* z,
                            cudaStream_t stream) {
    if (p == 0 || nt == 0) return;
    standardiseKernel<<<blocksFor(nt * p), kThreads, 0, stream>>>(features, p, rows, nt, mean,
                                                                  scale, z);
    CS_CUDA_CHECK_LAUNCH();
}

void launchRidgeSquare(const double* a, std::size_t count, double* out, cudaStream_t stream) {
    if (count == 0) return;
    squareKernel<<<blocksFor(count), kThreads, 0, stream>>>(a, count, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchRidgeShrink(const double* eig, std::size_t m, double alpha, const double* qtY,
                       int classes, double* w, double* s, cudaStream_t stream) {
    if (m == 0) return;
    shrinkKernel<<<blocksFor(m * std::size_t(classes)), kThreads, 0, stream>>>(eig, m, alpha, qtY,
                                                                               classes, w, s);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
