// SPDX-License-Identifier: MIT
#include "kernels/common/cuda_event.h"

#include <utility>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {

CudaEvent::CudaEvent(bool timing) {
    CS_CUDA_CHECK(
        cudaEventCreateWithFlags(&m_event, timing ? cudaEventDefault : cudaEventDisableTiming));
}

CudaEvent::~CudaEvent() {
    if (m_event) CS_CUDA_CHECK_NOTHROW(cudaEventDestroy(m_event));
}

CudaEvent::CudaEvent(CudaEvent&& other) noexcept : m_event(std::exchange(other.m_event, nullptr)) {}

CudaEvent& CudaEvent::operator=(CudaEvent&& other) noexcept {
    if (this != &other) {
        if (m_event) CS_CUDA_CHECK_NOTHROW(cudaEventDestroy(m_event));
        m_event = std::exchange(other.m_event, nullptr);
    }
    return *this;
}

void CudaEvent::record(cudaStream_t stream) {
    CS_CUDA_CHECK(cudaEventRecord(m_event, stream));
}

void CudaEvent::synchronize() const {
    CS_CUDA_CHECK(cudaEventSynchronize(m_event));
}

bool CudaEvent::isDone() const {
    const cudaError_t status = cudaEventQuery(m_event);
    if (status == cudaErrorNotReady) return false;
    CS_CUDA_CHECK(status);
    return true;
}

void CudaEvent::streamWait(cudaStream_t stream) const {
    CS_CUDA_CHECK(cudaStreamWaitEvent(stream, m_event, 0));
}

float elapsedMs(const CudaEvent& start, const CudaEvent& stop) {
    stop.synchronize();
    float ms = 0.0f;
    CS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

}  // namespace cs::kernels
