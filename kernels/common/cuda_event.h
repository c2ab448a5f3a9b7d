// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

namespace cs::kernels {

/// A CUDA event of the current device, with timing enabled unless asked otherwise. Move-only.
/// @code
/// CudaEvent start, stop;
/// start.record(stream); launchFoo(..., stream); stop.record(stream);
/// float ms = elapsedMs(start, stop);
/// @endcode
class CudaEvent {
public:
    /// timing = false creates a cheaper event for synchronisation only.
    explicit CudaEvent(bool timing = true);
    ~CudaEvent();
    CudaEvent(CudaEvent&& other) noexcept;
    CudaEvent& operator=(CudaEvent&& other) noexcept;
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    /// The raw handle.
    cudaEvent_t get() const { return m_event; }
    /// Captures the work queued on stream so far.
    void record(cudaStream_t stream);
    /// Blocks until the captured work has finished.
    void synchronize() const;
    /// True once the captured work has finished (does not block).
    bool isDone() const;
    /// Makes stream wait for the captured work (no host synchronisation).
    void streamWait(cudaStream_t stream) const;

private:
    cudaEvent_t m_event = nullptr;
};

/// Milliseconds between two recorded timing events; waits for stop to complete.
float elapsedMs(const CudaEvent& start, const CudaEvent& stop);

}  // namespace cs::kernels
