// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

namespace cs::kernels {

/// A dense cuSOLVER handle of the current device, bound to one stream. Move-only.
/// @code CusolverDnHandle h(stream); CS_CUSOLVER_CHECK(cusolverDnSsyevd(h.get(), ...)); @endcode
class CusolverDnHandle {
public:
    /// Creates the handle and binds it to stream; throws CudaError.
    explicit CusolverDnHandle(cudaStream_t stream);
    ~CusolverDnHandle();
    CusolverDnHandle(CusolverDnHandle&& other) noexcept;
    CusolverDnHandle& operator=(CusolverDnHandle&& other) noexcept;
    CusolverDnHandle(const CusolverDnHandle&) = delete;
    CusolverDnHandle& operator=(const CusolverDnHandle&) = delete;

    /// The raw handle.
    cusolverDnHandle_t get() const { return m_handle; }
    /// Rebinds the handle to another stream.
    void setStream(cudaStream_t stream);

private:
    cusolverDnHandle_t m_handle = nullptr;
};

}  // namespace cs::kernels
