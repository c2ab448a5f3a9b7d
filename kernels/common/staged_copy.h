// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cs::kernels {

/// Copies bytes from pageable host memory to device memory through page-locked staging memory,
/// ordered on stream: the host copies into one staging chunk while the DMA engine drains the
/// previous one, on up to 4 host threads. Returns once every chunk is queued; the source may be
/// reused then, the destination is ready in stream order. The staging memory is cached per
/// device for the process's life (pinning is slow). Throws CudaError.
/// @code copyToDeviceStaged(d.data(), points.coords.data(), d.bytes(), ctx.device(), s); @endcode
void copyToDeviceStaged(void* device, const void* host, std::size_t bytes, int deviceId,
                        cudaStream_t stream);

/// Copies bytes of device memory (after the work queued on stream) to pageable host memory
/// through the same staging memory; returns when the host memory holds them. Throws CudaError.
/// @code copyToHostStaged(labels.data(), d.data(), d.bytes(), ctx.device(), s); @endcode
void copyToHostStaged(void* host, const void* device, std::size_t bytes, int deviceId,
                      cudaStream_t stream);

}  // namespace cs::kernels
