// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cs::kernels::test {

/// y[i] = a * x[i] + y[i] for i < n, on stream; blockSize threads per block (a bad one makes
/// CS_CUDA_CHECK_LAUNCH throw). Throws CudaError.
void launchSaxpy(float a, const float* x, float* y, std::size_t n, cudaStream_t stream,
                 int blockSize = 256);

}  // namespace cs::kernels::test
