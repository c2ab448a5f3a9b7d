// SPDX-License-Identifier: MIT
// ROCKET on the GPU, CUROCKET's way: the series in shared memory, one warp per kernel at a time
// with its lanes over the output positions, MAX and the PPV count reduced across the warp. The
// sums follow compute/rocket/rocket.h exactly (float, taps then channels in order, no FMA), so
// the features are bit-identical to the CPU backend's.
#include <cfloat>

#include "kernels/common/cuda_error.h"
#include "kernels/rocket/rocket_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// Kernels per block (each warp takes every kWarps-th of them).
constexpr std::uint32_t kKernelsPerBlock = 64;

// One univariate kernel of M taps on x, the warp's lanes over the output positions: the weights in
// registers, and no bounds checks where the kernel lies inside the series. The same float
// operations, in the same order, as the general loop below.
template <int M>
__device__ __forceinline__ void convolveOne(const float* x, int length, int d, int p, float bias,
                                            const float* weights, int lane, float& best,
                                            int& positive) {
    float w[M];
#pragma unroll
    for (int j = 0; j < M; ++j)
        w[j] = weights[j];
    const int outputs = length + 2 * p - (M - 1) * d;
    for (int o = lane; o < outputs; o += 32) {
        const int i = o - p;
        float sum = bias;
        if (i >= 0 && i + (M - 1) * d < length) {
#pragma unroll
            for (int j = 0; j < M; ++j)
                sum = __fadd_rn(sum, __fmul_rn(w[j], x[i + j * d]));
        } else {
#pragma unroll
            for (int j = 0; j < M; ++j) {
                const int t = i + j * d;
                if (t >= 0 && t < length) sum = __fadd_rn(sum, __fmul_rn(w[j], x[t]));
            }
        }
        best = fmaxf(best, sum);
        positive += sum > 0.0f;
    }
}

template <bool Shared>
__global__ void __launch_bounds__(kThreads)
    transformKernel(const float* __restrict__ series, const std::uint32_t* __restrict__ lengths,
                    std::uint32_t channels, std::uint32_t stride, std::size_t first,
                    RocketKernelView k, float* __restrict__ features) {
    extern __shared__ float shared[];
    const std::size_t s = first + blockIdx.x;
    const float* x = series + s * std::size_t(channels) * stride;
    // The series' own length: nothing past it is read (compute/rocket/rocket.h).
    const std::uint32_t length = min(lengths[s], stride);
    if constexpr (Shared) {
        for (std::uint32_t e = threadIdx.x; e < channels * length; e += kThreads)
            shared[e] = x[e / length * stride + e % length];
        __syncthreads();
        x = shared;
    }
    const std::uint32_t channelStride = Shared ? length : stride;
    const int lane = threadIdx.x % 32;
    const std::uint32_t begin = blockIdx.y * kKernelsPerBlock;
    const std::uint32_t end = min(k.count, begin + kKernelsPerBlock);
    for (std::uint32_t w = begin + threadIdx.x / 32; w < end; w += kWarps) {
        const int m = k.lengths[w];
        const int d = k.dilations[w];
        const int p = k.paddings[w];
        const float bias = k.biases[w];
        const int nc = k.channelCounts[w];
        const std::int32_t* chans = k.channelIndex + k.channelStart[w];
        const float* weights = k.weights + k.weightStart[w];
        const int outputs = int(length) + 2 * p - (m - 1) * d;
        float best = -INFINITY;
        int positive = 0;
        const float* one = x + std::size_t(chans[0]) * channelStride;
        if (nc == 1 && m == 7)
            convolveOne<7>(one, int(length), d, p, bias, weights, lane, best, positive);
        else if (nc == 1 && m == 9)
            convolveOne<9>(one, int(length), d, p, bias, weights, lane, best, positive);
        else if (nc == 1 && m == 11)
            convolveOne<11>(one, int(length), d, p, bias, weights, lane, best, positive);
        else {  // several channels, or a length other than 7, 9, 11
            for (int o = lane; o < outputs; o += 32) {
                const int i = o - p;
                float sum = bias;
                for (int j = 0; j < m; ++j) {
                    const int t = i + j * d;
                    if (t < 0 || t >= int(length)) continue;
                    for (int c = 0; c < nc; ++c)
                        sum =
                            __fadd_rn(sum, __fmul_rn(weights[c * m + j],
                                                     x[std::size_t(chans[c]) * channelStride + t]));
                }
                best = fmaxf(best, sum);
                positive += sum > 0.0f;
            }
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, offset));
            positive += __shfl_xor_sync(0xffffffffu, positive, offset);
        }
        if (lane == 0) {
            float* out = features + s * 2 * std::size_t(k.count) + 2 * std::size_t(w);
            // A series shorter than the kernel's span has no output: PPV 0, MAX 0.
            out[0] = outputs > 0 ? __double2float_rn(__ddiv_rn(double(positive), double(outputs)))
                                 : 0.0f;
            out[1] = outputs > 0 ? best : 0.0f;
        }
    }
}

}  // namespace

void launchRocketTransform(const float* series, const std::uint32_t* lengths, std::size_t channels,
                           std::size_t length, std::size_t first, std::size_t count,
                           const RocketKernelView& kernels, float* features, cudaStream_t stream) {
    if (count == 0 || kernels.count == 0) return;
    const dim3 grid(unsigned(count), (kernels.count + kKernelsPerBlock - 1) / kKernelsPerBlock);
    const std::size_t bytes = channels * length * sizeof(float);
    if (bytes <= kRocketSharedSeriesBytes) {
        static const bool optedIn = [] {
            return cudaFuncSetAttribute(transformKernel<true>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        int(kRocketSharedSeriesBytes)) == cudaSuccess;
        }();
        if (optedIn || bytes <= 48 * 1024) {
            transformKernel<true><<<grid, kThreads, bytes, stream>>>(
                series, lengths, std::uint32_t(channels), std::uint32_t(length), first, kernels,
                features);
            CS_CUDA_CHECK_LAUNCH();
            return;
        }
        (void)cudaGetLastError();
    }
    transformKernel<false><<<grid, kThreads, 0, stream>>>(
        series, lengths, std::uint32_t(channels), std::uint32_t(length), first, kernels, features);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
