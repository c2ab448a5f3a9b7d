// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/common/cuda_error.h"
#include "kernels/common/device_memory.h"

namespace cs::kernels {

/// count elements of T in device memory, owned, move-only, bound to the stream it was
/// allocated on: allocation, copies, zero() and the free all run in that stream's order
/// (cudaMallocAsync/cudaFreeAsync), so a buffer must not outlive its stream.
/// Asking for more than the device holds throws CudaError (cudaErrorMemoryAllocation).
/// @code
/// DeviceBuffer<float> d(points.size(), ctx.stream());
/// d.copyFromHost(points);            // asynchronous on ctx.stream()
/// launchFoo(d.data(), d.size(), ctx.stream());
/// std::vector<float> back = d.toHost();  // copies and waits
/// @endcode
template <typename T>
class DeviceBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds trivially copyable types");

public:
    /// An empty buffer (data() == nullptr).
    DeviceBuffer() = default;
    /// Uninitialised storage for count elements, allocated in stream order.
    DeviceBuffer(std::size_t count, cudaStream_t stream) : m_stream(stream) {
        if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
            detail::throwCudaError(cudaErrorMemoryAllocation, "DeviceBuffer: size overflows",
                                   __FILE__, __LINE__);
        m_data = static_cast<T*>(deviceAllocate(count * sizeof(T), stream));
        m_size = count;
    }
    ~DeviceBuffer() { reset(); }

    DeviceBuffer(DeviceBuffer&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr)),
          m_size(std::exchange(other.m_size, 0)),
          m_stream(other.m_stream) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            m_data = std::exchange(other.m_data, nullptr);
            m_size = std::exchange(other.m_size, 0);
            m_stream = other.m_stream;
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    /// Number of elements.
    std::size_t size() const { return m_size; }
    /// Size in bytes.
    std::size_t bytes() const { return m_size * sizeof(T); }
    /// True when no memory is held.
    bool empty() const { return m_size == 0; }
    /// Device pointer (nullptr when empty).
    T* data() { return m_data; }
    /// Device pointer (nullptr when empty).
    const T* data() const { return m_data; }
    /// The stream the buffer is ordered on.
    cudaStream_t stream() const { return m_stream; }

    /// Copies host elements to [offset, offset + host.size()), asynchronously on stream().
    /// The host memory must stay valid until the stream reaches the copy (pageable memory is
    /// staged by the driver; PinnedBuffer memory is copied truly asynchronously).
    void copyFromHost(std::span<const T> host, std::size_t offset = 0) {
        checkRange(offset, host.size());
        if (host.empty()) return;
        CS_CUDA_CHECK(cudaMemcpyAsync(m_data + offset, host.data(), host.size_bytes(),
                                      cudaMemcpyHostToDevice, m_stream));
    }
    /// Copies [offset, offset + host.size()) to host, asynchronously on stream(); synchronise
    /// the stream before reading host.
    void copyToHost(std::span<T> host, std::size_t offset = 0) const {
        checkRange(offset, host.size());
        if (host.empty()) return;
        CS_CUDA_CHECK(cudaMemcpyAsync(host.data(), m_data + offset, host.size_bytes(),
                                      cudaMemcpyDeviceToHost, m_stream));
    }
    /// Copies another device buffer's elements to [offset, ...), on stream().
    void copyFromDevice(const DeviceBuffer& other, std::size_t offset = 0) {
        checkRange(offset, other.size());
        if (other.empty()) return;
        CS_CUDA_CHECK(cudaMemcpyAsync(m_data + offset, other.data(), other.bytes(),
                                      cudaMemcpyDeviceToDevice, m_stream));
    }
    /// The whole buffer as a vector: copies and waits for stream().
    std::vector<T> toHost() const {
        std::vector<T> host(m_size);
        copyToHost(host);
        CS_CUDA_CHECK(cudaStreamSynchronize(m_stream));
        return host;
    }
    /// Sets every byte to 0, asynchronously on stream().
    void zero() {
        if (m_size) CS_CUDA_CHECK(cudaMemsetAsync(m_data, 0, bytes(), m_stream));
    }
    /// Frees the memory (in stream order) and leaves the buffer empty; never throws.
    void reset() noexcept {
        deviceFree(m_data, m_stream);
        m_data = nullptr;
        m_size = 0;
    }

private:
    void checkRange(std::size_t offset, std::size_t count) const {
        if (offset > m_size || count > m_size - offset)
            throw std::out_of_range("DeviceBuffer: copy of " + std::to_string(count) +
                                    " elements at " + std::to_string(offset) +
                                    " exceeds the buffer's " + std::to_string(m_size));
    }

    T* m_data = nullptr;
    std::size_t m_size = 0;
    cudaStream_t m_stream = nullptr;
};

/// A device copy of a host vector (at least one element, so that an empty table still has an
/// address to pass), ordered on stream.
/// @code DeviceBuffer<std::int32_t> d = uploadVector(kernels.lengths, ctx.stream()); @endcode
template <typename T>
DeviceBuffer<T> uploadVector(const std::vector<T>& host, cudaStream_t stream) {
    DeviceBuffer<T> d(host.empty() ? 1 : host.size(), stream);
    if (!host.empty()) d.copyFromHost(host);
    return d;
}

}  // namespace cs::kernels
