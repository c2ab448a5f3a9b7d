// SPDX-License-Identifier: MIT
// The contingency table of two clusterings on the device: one key per point for its pair of
// labels, sorted, then counted run by run. Unlike a dense table of countA x countB counters it
// holds for any number of clusters (a 10M-point cloud re-clustered has ~46,000 on each side).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <algorithm>
#include <bit>

#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void overlapKeysKernel(const std::int32_t* __restrict__ a,
                                  const std::int32_t* __restrict__ b, std::size_t n,
                                  std::uint32_t countA, std::uint32_t countB,
                                  std::uint64_t* __restrict__ keys) {
    const std::uint64_t noise = std::uint64_t(countA) * countB;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::int32_t x = a[i];
        const std::int32_t y = b[i];
        const bool both =
            x >= 0 && y >= 0 && std::uint32_t(x) < countA && std::uint32_t(y) < countB;
        keys[i] = both ? std::uint64_t(std::uint32_t(x)) * countB + std::uint32_t(y) : noise;
    }
}

// The sort's significant bits: keys run up to countA * countB (the noise key) inclusive.
int overlapKeyBits(std::uint32_t countA, std::uint32_t countB) {
    return std::max(1, int(std::bit_width(std::uint64_t(countA) * countB)));
}

}  // namespace

std::size_t overlapPairsTempBytes(std::size_t n) {
    std::size_t sortBytes = 0, encodeBytes = 0;
    cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sortBytes, keys, int(n), 0, 64));
    CS_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
        nullptr, encodeBytes, static_cast<const std::uint64_t*>(nullptr),
        static_cast<std::uint64_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), int(n)));
    return std::max<std::size_t>({sortBytes, encodeBytes, 1});
}

const std::uint64_t* launchOverlapPairs(const std::int32_t* a, const std::int32_t* b, std::size_t n,
                                        std::uint32_t countA, std::uint32_t countB,
                                        std::uint64_t* keys, std::uint64_t* spare,
                                        std::uint32_t* points, std::uint32_t* runs, void* temp,
                                        std::size_t tempBytes, cudaStream_t stream) {
    if (n == 0) return keys;
    const std::size_t blocks = std::min<std::size_t>((n + kThreads - 1) / kThreads, 65535);
    overlapKeysKernel<<<unsigned(blocks), kThreads, 0, stream>>>(a, b, n, countA, countB, keys);
    CS_CUDA_CHECK_LAUNCH();
    cub::DoubleBuffer<std::uint64_t> sorted(keys, spare);
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, tempBytes, sorted, int(n), 0,
                                                 overlapKeyBits(countA, countB), stream));
    // The sort left its keys in one buffer (the selector is host-side); the runs go to the other.
    std::uint64_t* pairs = sorted.Alternate();
    CS_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp, tempBytes, sorted.Current(), pairs,
                                                     points, runs, int(n), stream));
    return pairs;
}

}  // namespace cs::kernels
