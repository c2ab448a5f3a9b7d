// SPDX-License-Identifier: MIT
// The contingency table of two clusterings on the device: a dense histogram of label pairs,
// then its non-empty bins.
#include <algorithm>

#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

// One thread per point, no grid-stride loop: every lane of a warp reaches the warp-wide match,
// out-of-range lanes with an invalid key.
__global__ void overlapHistogramKernel(const std::int32_t* __restrict__ a,
                                       const std::int32_t* __restrict__ b, std::size_t n,
                                       std::uint32_t countA, std::uint32_t countB,
                                       std::uint32_t* __restrict__ hist) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    constexpr std::uint32_t kInvalid = 0xFFFFFFFFu;
    std::uint32_t key = kInvalid;
    if (i < n) {
        const std::int32_t x = a[i];
        const std::int32_t y = b[i];
        if (x >= 0 && y >= 0 && std::uint32_t(x) < countA && std::uint32_t(y) < countB)
            key = std::uint32_t(x) * countB + std::uint32_t(y);
    }
    // Lanes with the same pair add once, by their lowest lane: big clusters would otherwise
    // serialise millions of atomics on a few counters.
    const unsigned peers = __match_any_sync(0xFFFFFFFFu, key);
    const int lane = int(threadIdx.x & 31u);
    if (key != kInvalid && lane == __ffs(peers) - 1) atomicAdd(&hist[key], __popc(peers));
}

__global__ void overlapCompactKernel(const std::uint32_t* __restrict__ hist, std::size_t bins,
                                     std::uint32_t countB, OverlapCell* __restrict__ cells,
                                     std::uint32_t* __restrict__ used) {
    for (std::size_t bin = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; bin < bins;
         bin += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint32_t count = hist[bin];
        if (count == 0) continue;
        const std::uint32_t slot = atomicAdd(used, 1u);
        cells[slot] = {std::int32_t(bin / countB), std::int32_t(bin % countB), count};
    }
}

}  // namespace

void launchOverlapHistogram(const std::int32_t* a, const std::int32_t* b, std::size_t n,
                            std::uint32_t countA, std::uint32_t countB, std::uint32_t* hist,
                            cudaStream_t stream) {
    if (n == 0 || countA == 0 || countB == 0) return;
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    overlapHistogramKernel<<<unsigned(blocks), kThreads, 0, stream>>>(a, b, n, countA, countB,
                                                                      hist);
    CS_CUDA_CHECK_LAUNCH();
}

void launchOverlapCompact(const std::uint32_t* hist, std::size_t bins, std::uint32_t countB,
                          OverlapCell* cells, std::uint32_t* used, cudaStream_t stream) {
    if (bins == 0) return;
    const std::size_t blocks = std::min<std::size_t>((bins + kThreads - 1) / kThreads, 4096);
    overlapCompactKernel<<<unsigned(blocks), kThreads, 0, stream>>>(hist, bins, countB, cells,
                                                                    used);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
