// SPDX-License-Identifier: MIT
#include "kernels/common/cuda_stream.h"

#include <utility>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {

CudaStream::CudaStream() {
    CS_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
}

CudaStream::~CudaStream() {
    if (m_stream) CS_CUDA_CHECK_NOTHROW(cudaStreamDestroy(m_stream));
}

CudaStream::CudaStream(CudaStream&& other) noexcept
    : m_stream(std::exchange(other.m_stream, nullptr)) {}

CudaStream& CudaStream::operator=(CudaStream&& other) noexcept {
    if (this != &other) {
        if (m_stream) CS_CUDA_CHECK_NOTHROW(cudaStreamDestroy(m_stream));
        m_stream = std::exchange(other.m_stream, nullptr);
    }
    return *this;
}

void CudaStream::synchronize() const {
    CS_CUDA_CHECK(cudaStreamSynchronize(m_stream));
}

}  // namespace cs::kernels
