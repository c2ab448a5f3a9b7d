// SPDX-License-Identifier: MIT
#include "tests/gpu/saxpy_kernel.h"

#include <algorithm>

#include "kernels/common/cuda_error.h"

namespace cs::kernels::test {
namespace {

// Grid-stride loop: any n with a bounded grid.
__global__ void saxpyKernel(float a, const float* __restrict__ x, float* __restrict__ y,
                            std::size_t n) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        y[i] = a * x[i] + y[i];
}

}  // namespace

void launchSaxpy(float a, const float* x, float* y, std::size_t n, cudaStream_t stream,
                 int blockSize) {
    if (n == 0) return;
    const std::size_t wanted = (n + blockSize - 1) / std::max(blockSize, 1);
    const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(wanted, 65535u * 8));
    saxpyKernel<<<grid, blockSize, 0, stream>>>(a, x, y, n);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels::test
