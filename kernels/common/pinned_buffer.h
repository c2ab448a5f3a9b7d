// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {

/// count elements of T in page-locked host memory (cudaHostAlloc), owned, move-only: the
/// staging area for truly asynchronous copies to and from DeviceBuffer.
/// @code PinnedBuffer<float> h(n); d.copyToHost(h.span()); stream.synchronize(); @endcode
template <typename T>
class PinnedBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "PinnedBuffer holds trivially copyable types");

public:
    /// An empty buffer.
    PinnedBuffer() = default;
    /// Uninitialised page-locked storage for count elements; throws CudaError.
    explicit PinnedBuffer(std::size_t count) {
        if (count == 0) return;
        if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
            detail::throwCudaError(cudaErrorMemoryAllocation, "PinnedBuffer: size overflows",
                                   __FILE__, __LINE__);
        void* pointer = nullptr;
        CS_CUDA_CHECK(cudaHostAlloc(&pointer, count * sizeof(T), cudaHostAllocDefault));
        m_data = static_cast<T*>(pointer);
        m_size = count;
    }
    ~PinnedBuffer() { reset(); }

    PinnedBuffer(PinnedBuffer&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            m_data = std::exchange(other.m_data, nullptr);
            m_size = std::exchange(other.m_size, 0);
        }
        return *this;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    /// Number of elements.
    std::size_t size() const { return m_size; }
    /// True when no memory is held.
    bool empty() const { return m_size == 0; }
    /// Host pointer (nullptr when empty).
    T* data() { return m_data; }
    /// Host pointer (nullptr when empty).
    const T* data() const { return m_data; }
    /// The elements as a span.
    std::span<T> span() { return {m_data, m_size}; }
    /// The elements as a span.
    std::span<const T> span() const { return {m_data, m_size}; }
    /// Element i (no bounds check).
    T& operator[](std::size_t i) { return m_data[i]; }
    /// Element i (no bounds check).
    const T& operator[](std::size_t i) const { return m_data[i]; }

    /// Frees the memory; never throws. Copies still in flight must have finished.
    void reset() noexcept {
        if (m_data) CS_CUDA_CHECK_NOTHROW(cudaFreeHost(m_data));
        m_data = nullptr;
        m_size = 0;
    }

private:
    T* m_data = nullptr;
    std::size_t m_size = 0;
};

}  // namespace cs::kernels
