// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

namespace cs::kernels {

/// A non-blocking stream of the current device (never the legacy default stream, so that work
/// on it does not serialise with other jobs or with GL interop). Move-only.
/// @code CudaStream s; launchFoo(..., s.get()); s.synchronize(); @endcode
class CudaStream {
public:
    /// Creates a stream with cudaStreamNonBlocking on the current device; throws CudaError.
    CudaStream();
    ~CudaStream();
    CudaStream(CudaStream&& other) noexcept;
    CudaStream& operator=(CudaStream&& other) noexcept;
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;

    /// The raw handle, for CUDA calls and kernel launches.
    cudaStream_t get() const { return m_stream; }
    /// Blocks the calling thread until everything queued so far has finished.
    void synchronize() const;

private:
    cudaStream_t m_stream = nullptr;
};

}  // namespace cs::kernels
