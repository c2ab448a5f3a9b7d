// SPDX-License-Identifier: MIT
#include "kernels/common/device_memory.h"

#include <atomic>
#include <cstdint>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {
namespace {

// Per-device answer of cudaDevAttrMemoryPoolsSupported: 0 not asked yet, 1 no, 2 yes.
constexpr int kMaxDevices = 64;
constexpr int kPoolsNo = 1;
constexpr int kPoolsYes = 2;
std::atomic<int> g_poolsSupported[kMaxDevices];  // zero-initialised: not asked yet

int deviceOf(cudaStream_t stream) {
    int device = 0;
    if (stream) {
        CS_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
    } else {
        CS_CUDA_CHECK(cudaGetDevice(&device));
    }
    return device;
}

bool poolsSupportedOn(int device) {
    if (device < 0 || device >= kMaxDevices) return false;
    int cached = g_poolsSupported[device].load(std::memory_order_relaxed);
    if (cached == 0) {
        int value = 0;
        CS_CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMemoryPoolsSupported, device));
        cached = value ? kPoolsYes : kPoolsNo;
        g_poolsSupported[device].store(cached, std::memory_order_relaxed);
    }
    return cached == kPoolsYes;
}

}  // namespace

bool memoryPoolsSupported() {
    return poolsSupportedOn(deviceOf(nullptr));
}

void* deviceAllocate(std::size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return nullptr;
    void* pointer = nullptr;
    if (poolsSupportedOn(deviceOf(stream))) {
        CS_CUDA_CHECK(cudaMallocAsync(&pointer, bytes, stream));
    } else {
        CS_CUDA_CHECK(cudaMalloc(&pointer, bytes));
    }
    return pointer;
}

void deviceFree(void* pointer, cudaStream_t stream) noexcept {
    if (!pointer) return;
    // The pool answer was cached when the pointer was allocated, so nothing here throws.
    // cudaFree also accepts pool memory (it synchronises), the safe fallback.
    int device = -1;
    const cudaError_t status =
        stream ? cudaStreamGetDevice(stream, &device) : cudaGetDevice(&device);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        device = -1;
    }
    const bool pooled =
        device >= 0 && device < kMaxDevices && g_poolsSupported[device].load() == kPoolsYes;
    if (pooled) {
        CS_CUDA_CHECK_NOTHROW(cudaFreeAsync(pointer, stream));
    } else {
        CS_CUDA_CHECK_NOTHROW(cudaFree(pointer));
    }
}

void keepPoolWarm(int device, std::size_t bytes) {
    if (!memoryPoolsSupported()) return;
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    std::uint64_t current = 0;
    CS_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &current));
    if (current >= bytes) return;
    std::uint64_t wanted = bytes;
    CS_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &wanted));
}

std::string mebibytes(std::size_t bytes) {
    return std::to_string((bytes + (std::size_t(1) << 20) - 1) >> 20) + " MiB";
}

}  // namespace cs::kernels
