// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace cs::kernels {

/// Allocates bytes of device memory, ordered on stream (cudaMallocAsync from the device's
/// default memory pool; plain cudaMalloc on a device without memory pools). Throws CudaError
/// with cudaErrorMemoryAllocation when the device cannot hold it. Never managed memory.
/// DeviceBuffer<T> is the way to use it; call it directly only from other RAII wrappers.
void* deviceAllocate(std::size_t bytes, cudaStream_t stream);

/// Frees memory from deviceAllocate() on stream (after the work queued there); never throws.
void deviceFree(void* pointer, cudaStream_t stream) noexcept;

/// True when the current device supports stream-ordered allocation (memory pools).
bool memoryPoolsSupported();

/// Lets device's default memory pool keep up to bytes cached across synchronisations (never
/// lowers the threshold): without it the pool hands freed memory back at every synchronisation
/// and repeated runs (slider moves, benchmark repetitions) map their buffers anew. Throws
/// CudaError.
void keepPoolWarm(int device, std::size_t bytes);

/// "12 MiB" (rounded up): sizes in the messages of a run that does not fit on the device.
std::string mebibytes(std::size_t bytes);

}  // namespace cs::kernels
