// SPDX-License-Identifier: MIT
#include "kernels/common/device_scope.h"

#include "kernels/common/cuda_error.h"

namespace cs::kernels {

DeviceScope::DeviceScope(int device) : m_device(device) {
    CS_CUDA_CHECK(cudaGetDevice(&m_previous));
    if (m_previous != device) CS_CUDA_CHECK(cudaSetDevice(device));
}

DeviceScope::~DeviceScope() {
    if (m_previous >= 0 && m_previous != m_device) CS_CUDA_CHECK_NOTHROW(cudaSetDevice(m_previous));
}

}  // namespace cs::kernels
