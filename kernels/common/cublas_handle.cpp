// SPDX-License-Identifier: MIT
#include "kernels/common/cublas_handle.h"

#include <cstdio>
#include <utility>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {
namespace {

void destroy(cublasHandle_t handle) noexcept {
    const cublasStatus_t status = cublasDestroy(handle);
    if (status != CUBLAS_STATUS_SUCCESS)
        std::fprintf(stderr, "clusterscope: cublasDestroy failed: %s (ignored)\n",
                     cublasGetStatusName(status));
}

}  // namespace

CublasHandle::CublasHandle(cudaStream_t stream) {
    CS_CUBLAS_CHECK(cublasCreate(&m_handle));
    try {
        setStream(stream);
    } catch (...) {
        destroy(m_handle);
        throw;
    }
}

CublasHandle::~CublasHandle() {
    if (m_handle) destroy(m_handle);
}

CublasHandle::CublasHandle(CublasHandle&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr)) {}

CublasHandle& CublasHandle::operator=(CublasHandle&& other) noexcept {
    if (this != &other) {
        if (m_handle) destroy(m_handle);
        m_handle = std::exchange(other.m_handle, nullptr);
    }
    return *this;
}

void CublasHandle::setStream(cudaStream_t stream) {
    CS_CUBLAS_CHECK(cublasSetStream(m_handle, stream));
}

}  // namespace cs::kernels
