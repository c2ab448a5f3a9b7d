// SPDX-License-Identifier: MIT
#include "kernels/common/device_sort.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {

std::size_t sortPairsTempBytes(std::size_t n) {
    std::size_t bytes = 0;
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const std::uint64_t*>(nullptr),
        static_cast<std::uint64_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), int(n), 0, 64));
    return bytes;
}

void sortPairs(void* temp, std::size_t tempBytes, const std::uint64_t* keysIn,
               std::uint64_t* keysOut, const std::uint32_t* valuesIn, std::uint32_t* valuesOut,
               std::size_t n, unsigned bits, cudaStream_t stream) {
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, tempBytes, keysIn, keysOut, valuesIn,
                                                  valuesOut, int(n), 0, int(bits), stream));
}

std::size_t scanTempBytes(std::size_t n) {
    std::size_t a = 0, b = 0;
    CS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, a,
                                                static_cast<const std::uint32_t*>(nullptr),
                                                static_cast<std::uint32_t*>(nullptr), int(n)));
    CS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b,
                                                static_cast<const std::uint32_t*>(nullptr),
                                                static_cast<std::uint32_t*>(nullptr), int(n)));
    return std::max(a, b);
}

void inclusiveScan(void* temp, std::size_t tempBytes, const std::uint32_t* in, std::uint32_t* out,
                   std::size_t n, cudaStream_t stream) {
    CS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, tempBytes, in, out, int(n), stream));
}

void exclusiveScan(void* temp, std::size_t tempBytes, const std::uint32_t* in, std::uint32_t* out,
                   std::size_t n, cudaStream_t stream) {
    CS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, tempBytes, in, out, int(n), stream));
}

std::size_t sortFloatsTempBytes(std::size_t n) {
    std::size_t bytes = 0;
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const float*>(nullptr),
                                                 static_cast<float*>(nullptr), int(n)));
    return bytes;
}

void sortFloats(void* temp, std::size_t tempBytes, const float* in, float* out, std::size_t n,
                cudaStream_t stream) {
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, tempBytes, in, out, int(n), 0,
                                                 int(sizeof(float) * 8), stream));
}

}  // namespace cs::kernels
