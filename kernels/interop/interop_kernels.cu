// SPDX-License-Identifier: MIT
#include "compute/backend/gl_interop.h"
#include "kernels/common/cuda_error.h"
#include "kernels/interop/interop_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t n) {
    // Grid-stride loops: a bounded grid covers any n.
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    return unsigned(blocks < 65'535 * 32 ? blocks : 65'535 * 32);
}

__global__ void paintClustersKernel(const std::int32_t* __restrict__ labels,
                                    const std::uint8_t* __restrict__ isCore, std::size_t n,
                                    const std::uint32_t* __restrict__ clusterRgba,
                                    std::size_t clusterCount, ClusterPaintRule rule,
                                    std::uint32_t* __restrict__ out) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::int32_t label = labels[i];
        std::uint32_t colour;
        if (label < 0 || std::size_t(label) >= clusterCount)
            colour = rule.showNoise ? rule.noiseRgba : 0u;
        else if (!(isCore[i] ? rule.showCore : rule.showBorder))
            colour = 0u;
        else
            colour = clusterRgba[label];
        out[i] = colour;
    }
}

__global__ void packPositionsKernel(const float* __restrict__ coords, std::size_t n,
                                    std::size_t dims, float* __restrict__ out) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        for (std::size_t j = 0; j < 3; ++j)
            out[3 * i + j] = j < dims ? coords[i * dims + j] : 0.0f;
}

__global__ void testPatternKernel(std::uint32_t* __restrict__ out, std::size_t words,
                                  std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = cs::interopTestPattern(seed, i);
}

}  // namespace

void launchPaintClusters(const std::int32_t* labels, const std::uint8_t* isCore, std::size_t n,
                         const std::uint32_t* clusterRgba, std::size_t clusterCount,
                         ClusterPaintRule rule, std::uint32_t* out, cudaStream_t stream) {
    if (n == 0) return;
    paintClustersKernel<<<blocksFor(n), kThreads, 0, stream>>>(labels, isCore, n, clusterRgba,
                                                               clusterCount, rule, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchPackPositions(const float* coords, std::size_t n, std::size_t dims, float* out,
                         cudaStream_t stream) {
    if (n == 0) return;
    packPositionsKernel<<<blocksFor(n), kThreads, 0, stream>>>(coords, n, dims, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchInteropTestPattern(std::uint32_t* out, std::size_t words, std::uint32_t seed,
                              cudaStream_t stream) {
    if (words == 0) return;
    testPatternKernel<<<blocksFor(words), kThreads, 0, stream>>>(out, words, seed);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
