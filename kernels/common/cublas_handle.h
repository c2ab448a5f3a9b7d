// SPDX-License-Identifier: MIT
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace cs::kernels {

/// A cuBLAS handle of the current device, bound to one stream. Move-only. The math mode is
/// cuBLAS's default (no TF32), so SGEMM keeps full float precision.
/// @code CublasHandle h(stream); CS_CUBLAS_CHECK(cublasSgemm(h.get(), ...)); @endcode
class CublasHandle {
public:
    /// Creates the handle and binds it to stream; throws CudaError.
    explicit CublasHandle(cudaStream_t stream);
    ~CublasHandle();
    CublasHandle(CublasHandle&& other) noexcept;
    CublasHandle& operator=(CublasHandle&& other) noexcept;
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;

    /// The raw handle.
    cublasHandle_t get() const { return m_handle; }
    /// Rebinds the handle to another stream.
    void setStream(cudaStream_t stream);

private:
    cublasHandle_t m_handle = nullptr;
};

}  // namespace cs::kernels
