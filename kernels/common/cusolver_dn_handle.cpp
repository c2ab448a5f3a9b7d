// SPDX-License-Identifier: MIT
#include "kernels/common/cusolver_dn_handle.h"

#include <cstdio>
#include <utility>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {
namespace {

void destroy(cusolverDnHandle_t handle) noexcept {
    const cusolverStatus_t status = cusolverDnDestroy(handle);
    if (status != CUSOLVER_STATUS_SUCCESS)
        std::fprintf(stderr, "clusterscope: cusolverDnDestroy failed: %s (ignored)\n",
                     statusName(status));
}

}  // namespace

CusolverDnHandle::CusolverDnHandle(cudaStream_t stream) {
    CS_CUSOLVER_CHECK(cusolverDnCreate(&m_handle));
    try {
        setStream(stream);
    } catch (...) {
        destroy(m_handle);
        throw;
    }
}

CusolverDnHandle::~CusolverDnHandle() {
    if (m_handle) destroy(m_handle);
}

CusolverDnHandle::CusolverDnHandle(CusolverDnHandle&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr)) {}

CusolverDnHandle& CusolverDnHandle::operator=(CusolverDnHandle&& other) noexcept {
    if (this != &other) {
        if (m_handle) destroy(m_handle);
        m_handle = std::exchange(other.m_handle, nullptr);
    }
    return *this;
}

void CusolverDnHandle::setStream(cudaStream_t stream) {
    CS_CUSOLVER_CHECK(cusolverDnSetStream(m_handle, stream));
}

}  // namespace cs::kernels
