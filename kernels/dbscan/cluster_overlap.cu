// SPDX-License-Identifier: MIT
// The contingency table of two clusterings on the device: one key per point for its pair of
// labels, sorted, then counted run by run. Unlike a dense table of countA x countB counters it
// holds for any number of clusters (a 10M-point cloud re-clustered has ~46,000 on each side).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <algorithm>
#include <bit>
#include <limits>

#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

template <typename Key>
__global__ void overlapKeysKernel(const std::int32_t* __restrict__ a,
                                  const std::int32_t* __restrict__ b, std::size_t n,
                                  std::uint32_t countA, std::uint32_t countB,
                                  Key* __restrict__ keys) {
    const std::uint64_t noise = std::uint64_t(countA) * countB;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::int32_t x = a[i];
        const std::int32_t y = b[i];
        const bool both =
            x >= 0 && y >= 0 && std::uint32_t(x) < countA && std::uint32_t(y) < countB;
        keys[i] = Key(both ? std::uint64_t(std::uint32_t(x)) * countB + std::uint32_t(y) : noise);
    }
}

// The sort's significant bits: keys run up to countA * countB (the noise key) inclusive.
int overlapKeyBits(std::uint32_t countA, std::uint32_t countB) {
    return std::max(1, int(std::bit_width(std::uint64_t(countA) * countB)));
}

// Keys, sort and runs in Key; returns the distinct keys as 64-bit words: in `wide` for 32-bit
// keys, else in whichever of keys and spare the sort left free.
template <typename Key>
const std::uint64_t* overlapPairs(const std::int32_t* a, const std::int32_t* b, std::size_t n,
                                  std::uint32_t countA, std::uint32_t countB, Key* keys, Key* spare,
                                  std::uint64_t* wide, std::uint32_t* points, std::uint32_t* runs,
                                  void* temp, std::size_t tempBytes, cudaStream_t stream) {
    const std::size_t blocks = std::min<std::size_t>((n + kThreads - 1) / kThreads, 65535);
    overlapKeysKernel<Key>
        <<<unsigned(blocks), kThreads, 0, stream>>>(a, b, n, countA, countB, keys);
    CS_CUDA_CHECK_LAUNCH();
    cub::DoubleBuffer<Key> sorted(keys, spare);
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, tempBytes, sorted, int(n), 0,
                                                 overlapKeyBits(countA, countB), stream));
    // The sort left its keys in one buffer (the selector is host-side).
    std::uint64_t* pairs = wide;
    if constexpr (sizeof(Key) == sizeof(std::uint64_t)) pairs = sorted.Alternate();
    CS_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp, tempBytes, sorted.Current(), pairs,
                                                     points, runs, int(n), stream));
    return pairs;
}

template <typename Key>
std::size_t overlapTempBytes(std::size_t n) {
    std::size_t sortBytes = 0, encodeBytes = 0;
    cub::DoubleBuffer<Key> keys(nullptr, nullptr);
    CS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sortBytes, keys, int(n), 0, 64));
    CS_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
        nullptr, encodeBytes, static_cast<const Key*>(nullptr),
        static_cast<std::uint64_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), int(n)));
    return std::max(sortBytes, encodeBytes);
}

}  // namespace

std::size_t overlapPairsTempBytes(std::size_t n) {
    return std::max<std::size_t>(
        {overlapTempBytes<std::uint32_t>(n), overlapTempBytes<std::uint64_t>(n), 1});
}

const std::uint64_t* launchOverlapPairs(const std::int32_t* a, const std::int32_t* b, std::size_t n,
                                        std::uint32_t countA, std::uint32_t countB,
                                        std::uint64_t* keys, std::uint64_t* spare,
                                        std::uint32_t* points, std::uint32_t* runs, void* temp,
                                        std::size_t tempBytes, cudaStream_t stream) {
    if (n == 0) return keys;
    // Most tables fit 32-bit keys (46,000 clusters on each side do): half the bytes to sort.
    // keys then holds both buffers of the sort, and spare the distinct keys.
    if (std::uint64_t(countA) * countB <= std::numeric_limits<std::uint32_t>::max()) {
        auto* halves = reinterpret_cast<std::uint32_t*>(keys);
        return overlapPairs<std::uint32_t>(a, b, n, countA, countB, halves, halves + n, spare,
                                           points, runs, temp, tempBytes, stream);
    }
    return overlapPairs<std::uint64_t>(a, b, n, countA, countB, keys, spare, nullptr, points, runs,
                                       temp, tempBytes, stream);
}

}  // namespace cs::kernels
