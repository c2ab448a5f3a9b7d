// SPDX-License-Identifier: MIT
// From the union-find forest to canonical labels, on the device: each point's root (its own for
// core points, its nearest core point's for border points), the lowest input index of every
// cluster (warp-aggregated atomicMin), a flag at that index, an exclusive scan over input order
// (so clusters are numbered by their smallest member, dbscan.h's canonical ids), and a scatter of
// labels and core flags back to input order.
#include <algorithm>

#include "kernels/common/cuda_error.h"
#include "kernels/dbscan/dbscan_device.cuh"
#include "kernels/dbscan/dbscan_launch.h"

namespace cs::kernels {
namespace {

using detail::ufFind;

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t n) {
    return unsigned((n + kThreads - 1) / kThreads);
}

__global__ void identityKernel(std::uint32_t* parent, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) parent[i] = std::uint32_t(i);
}

__global__ void coreFromCountsKernel(const std::uint32_t* counts, std::size_t n,
                                     std::uint32_t minPts, std::uint8_t* core) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) core[i] = counts[i] >= minPts ? 1 : 0;
}

// No early return: every lane reaches the warp collective in warpAtomicMin.
__global__ void __launch_bounds__(kThreads)
    rootsKernel(const std::uint8_t* core, std::uint32_t* parent, const std::uint32_t* nearest,
                const std::uint32_t* orig, std::size_t n, std::uint32_t* root,
                std::uint32_t* minOrig) {
    const std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    const bool inside = p < n;
    std::uint32_t r = kNoPoint;
    if (inside) {
        if (core[p])
            r = ufFind(parent, std::uint32_t(p));
        else if (nearest && nearest[p] != kNoPoint)
            r = ufFind(parent, nearest[p]);
        root[p] = r;
    }
    const std::uint32_t o = inside ? (orig ? orig[p] : std::uint32_t(p)) : 0u;
    detail::warpAtomicMin(minOrig, r, o, inside && r != kNoPoint);
}

__global__ void headsKernel(const std::uint32_t* root, const std::uint32_t* minOrig, std::size_t n,
                            std::uint32_t* first) {
    const std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (p < n && root[p] == std::uint32_t(p)) first[minOrig[p]] = 1u;
}

__global__ void labelsKernel(const std::uint8_t* core, const std::uint32_t* root,
                             const std::uint32_t* minOrig, const std::uint32_t* clusterId,
                             const std::uint32_t* first, const std::uint32_t* orig, std::size_t n,
                             std::int32_t* labels, std::uint8_t* isCore, std::uint32_t* count) {
    const std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (p >= n) return;
    const std::size_t o = orig ? orig[p] : p;
    const std::uint32_t r = root[p];
    labels[o] = r == kNoPoint ? -1 : std::int32_t(clusterId[minOrig[r]]);
    isCore[o] = core[p];
    if (p == 0) count[0] = clusterId[n - 1] + first[n - 1];
}

// counts[0..2] += core, border and noise points; sizes[label] += 1 (warp-aggregated: labels
// often come in runs, so one atomic per run of equal labels in a warp).
__global__ void __launch_bounds__(kThreads)
    statsKernel(const std::int32_t* labels, const std::uint8_t* isCore, std::size_t n,
                std::uint32_t* sizes, std::uint32_t* counts) {
    std::uint32_t core = 0, border = 0, noise = 0;
    const std::size_t stride = std::size_t(gridDim.x) * kThreads;
    const std::size_t begin = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
    // Every lane runs the same number of rounds, so the warp collective sees all of them.
    const std::size_t rounds = (n + stride - 1) / stride;
    for (std::size_t r = 0; r < rounds; ++r) {
        const std::size_t p = begin + r * stride;
        const bool inside = p < n;
        const std::int32_t label = inside ? labels[p] : -1;
        if (inside) {
            const bool c = isCore[p] != 0;
            core += c;
            border += !c && label >= 0;
            noise += label < 0;
        }
        const unsigned peers = __match_any_sync(detail::kFullMask, label);
        const int leader = __ffs(peers) - 1;
        if (label >= 0 && int(threadIdx.x % 32) == leader)
            atomicAdd(&sizes[label], unsigned(__popc(peers)));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        core += __shfl_down_sync(detail::kFullMask, core, offset);
        border += __shfl_down_sync(detail::kFullMask, border, offset);
        noise += __shfl_down_sync(detail::kFullMask, noise, offset);
    }
    if (threadIdx.x % 32 == 0) {
        if (core) atomicAdd(&counts[0], core);
        if (border) atomicAdd(&counts[1], border);
        if (noise) atomicAdd(&counts[2], noise);
    }
}

__global__ void largestKernel(const std::uint32_t* sizes, std::size_t clusters,
                              std::uint32_t* counts) {
    std::uint32_t best = 0;
    for (std::size_t c = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; c < clusters;
         c += std::size_t(gridDim.x) * blockDim.x)
        best = max(best, sizes[c]);
    for (int offset = 16; offset > 0; offset /= 2)
        best = max(best, __shfl_down_sync(detail::kFullMask, best, offset));
    if (threadIdx.x % 32 == 0 && best) atomicMax(&counts[3], best);
}

}  // namespace

void launchDbscanStats(const std::int32_t* labels, const std::uint8_t* isCore, std::size_t n,
                       std::size_t clusters, std::uint32_t* sizes, std::uint32_t* counts,
                       cudaStream_t stream) {
    CS_CUDA_CHECK(cudaMemsetAsync(counts, 0, 4 * sizeof(std::uint32_t), stream));
    if (n == 0) return;
    if (clusters)
        CS_CUDA_CHECK(cudaMemsetAsync(sizes, 0, clusters * sizeof(std::uint32_t), stream));
    const unsigned blocks = std::min(blocksFor(n), 2048u);
    statsKernel<<<blocks, kThreads, 0, stream>>>(labels, isCore, n, sizes, counts);
    CS_CUDA_CHECK_LAUNCH();
    if (clusters == 0) return;
    largestKernel<<<std::min(unsigned((clusters + kThreads - 1) / kThreads), 1024u), kThreads, 0,
                    stream>>>(sizes, clusters, counts);
    CS_CUDA_CHECK_LAUNCH();
}

void launchIdentity(std::uint32_t* parent, std::size_t n, cudaStream_t stream) {
    if (n == 0) return;
    identityKernel<<<blocksFor(n), kThreads, 0, stream>>>(parent, n);
    CS_CUDA_CHECK_LAUNCH();
}

void launchCoreFromCounts(const std::uint32_t* counts, std::size_t n, int minPts,
                          std::uint8_t* core, cudaStream_t stream) {
    if (n == 0) return;
    coreFromCountsKernel<<<blocksFor(n), kThreads, 0, stream>>>(counts, n, std::uint32_t(minPts),
                                                                core);
    CS_CUDA_CHECK_LAUNCH();
}

void launchRoots(const std::uint8_t* core, std::uint32_t* parent, const std::uint32_t* nearest,
                 const std::uint32_t* orig, std::size_t n, std::uint32_t* root,
                 std::uint32_t* minOrig, cudaStream_t stream) {
    if (n == 0) return;
    CS_CUDA_CHECK(cudaMemsetAsync(minOrig, 0xFF, n * sizeof(std::uint32_t), stream));
    rootsKernel<<<blocksFor(n), kThreads, 0, stream>>>(core, parent, nearest, orig, n, root,
                                                       minOrig);
    CS_CUDA_CHECK_LAUNCH();
}

void launchClusterHeads(const std::uint32_t* root, const std::uint32_t* minOrig, std::size_t n,
                        std::uint32_t* first, cudaStream_t stream) {
    if (n == 0) return;
    CS_CUDA_CHECK(cudaMemsetAsync(first, 0, n * sizeof(std::uint32_t), stream));
    headsKernel<<<blocksFor(n), kThreads, 0, stream>>>(root, minOrig, n, first);
    CS_CUDA_CHECK_LAUNCH();
}

void launchLabels(const std::uint8_t* core, const std::uint32_t* root, const std::uint32_t* minOrig,
                  const std::uint32_t* clusterId, const std::uint32_t* first,
                  const std::uint32_t* orig, std::size_t n, std::int32_t* labels,
                  std::uint8_t* isCore, std::uint32_t* count, cudaStream_t stream) {
    if (n == 0) return;
    labelsKernel<<<blocksFor(n), kThreads, 0, stream>>>(core, root, minOrig, clusterId, first, orig,
                                                        n, labels, isCore, count);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
