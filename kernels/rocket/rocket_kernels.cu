// SPDX-License-Identifier: MIT
// ROCKET on the GPU, CUROCKET's way: the series in shared memory, one warp per kernel at a time
// with its lanes over the output positions, MAX and the PPV count reduced across the warp. The
// sums follow compute/rocket/rocket.h exactly (float, taps then channels in order, no FMA), so
// the features are bit-identical to the CPU backend's.
#include <cfloat>

#include "kernels/common/cuda_error.h"
#include "kernels/common/greater_bit.cuh"
#include "kernels/rocket/rocket_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// Kernels per block (each warp takes every kWarps-th of them).
constexpr std::uint32_t kKernelsPerBlock = 64;

// One output of a univariate kernel of M taps at position i (o - p), every tap checked: the
// operations of compute/rocket/rocket.h, in its order.
template <int M>
__device__ __forceinline__ void checkedOutput(const float* x, int length, int d, int i,
                                              const float (&w)[M], float bias, float& best,
                                              int& positive) {
    float sum = bias;
#pragma unroll
    for (int j = 0; j < M; ++j) {
        const int t = i + j * d;
        if (t >= 0 && t < length) sum = __fadd_rn(sum, __fmul_rn(w[j], x[t]));
    }
    best = fmaxf(best, sum);
    positive += int(greaterBit(sum, 0.0f));
}

// One univariate kernel of M taps on x, the warp's lanes over the output positions, the weights in
// registers. Where the kernel lies inside the series each lane computes Q outputs d apart
// (i0, i0 + d, i0 + 2 d), whose taps are M + Q - 1 samples d apart: a third of the shared-memory
// loads. An odd Q spreads the lanes' groups (3 d apart) over the banks. Every output is the same
// float sum as before; MAX and the count do not depend on the order of the outputs.
template <int M>
__device__ __forceinline__ void convolveOne(const float* x, int length, int d, int p, float bias,
                                            const float* weights, int lane, float& best,
                                            int& positive) {
    constexpr int Q = 3;
    float w[M];
#pragma unroll
    for (int j = 0; j < M; ++j)
        w[j] = weights[j];
    const int span = (M - 1) * d;
    const int outputs = length + 2 * p - span;
    if (outputs <= 0) return;
    // Positions [0, interior) have every tap inside; blocks of Q d of them make d groups each.
    const int interior = max(length - span, 0);
    const int blocks = interior / (Q * d);
    const int groups = blocks * d;
    // Group g = b d + r starts at b Q d + r; the lanes step 32 groups at a time.
    int b = lane / d, r = lane % d;
    const int stepBlocks = 32 / d, stepRest = 32 % d;
    for (int g = lane; g < groups; g += 32) {
        const float* xi = x + b * Q * d + r;
        float v[M + Q - 1];
#pragma unroll
        for (int t = 0; t < M + Q - 1; ++t)
            v[t] = xi[t * d];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            float sum = bias;
#pragma unroll
            for (int j = 0; j < M; ++j)
                sum = __fadd_rn(sum, __fmul_rn(w[j], v[q + j]));
            best = fmaxf(best, sum);
            positive += int(greaterBit(sum, 0.0f));
        }
        b += stepBlocks;
        r += stepRest;
        if (r >= d) {
            r -= d;
            ++b;
        }
    }
    // The rest one at a time: the p positions before 0, and those from the blocks' end on.
    const int blockedEnd = blocks * Q * d;
    const int rest = outputs - blockedEnd;
    for (int e = lane; e < rest; e += 32) {
        const int i = e < p ? e - p : blockedEnd + (e - p);
        checkedOutput<M>(x, length, d, i, w, bias, best, positive);
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
                positive += int(greaterBit(sum, 0.0f));
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

// One thread per row (series, channel): compute/core/statistics.h's meanAndSd over the row's
// true length, the same double operations in the same order (no FMA). The loads are the row's
// own, one new cache line every 32 samples.
__global__ void rowStatsKernel(const float* __restrict__ x,
                               const std::uint32_t* __restrict__ lengths, std::size_t rows,
                               std::uint32_t channels, std::uint32_t stride,
                               double* __restrict__ means, double* __restrict__ sds) {
    const std::size_t row = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const std::uint32_t len = min(lengths[row / channels], stride);
    const float* v = x + row * stride;
    double mean = 0.0, sd = 0.0;
    if (len > 0) {
        double sum = 0.0;
        for (std::uint32_t t = 0; t < len; ++t)
            sum = __dadd_rn(sum, double(v[t]));
        mean = __ddiv_rn(sum, double(len));
        double squares = 0.0;
        for (std::uint32_t t = 0; t < len; ++t) {
            const double d = __dsub_rn(double(v[t]), mean);
            squares = __dadd_rn(squares, __dmul_rn(d, d));
        }
        sd = __dsqrt_rn(__ddiv_rn(squares, double(len)));
    }
    means[row] = mean;
    sds[row] = sd;
}

// rocketNormalised's values from the rows' statistics, element by element.
__global__ void normaliseKernel(float* __restrict__ x, const std::uint32_t* __restrict__ lengths,
                                std::size_t count, std::uint32_t channels, std::uint32_t stride,
                                bool normalise, const double* __restrict__ means,
                                const double* __restrict__ sds) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= count) return;
    const std::size_t row = e / stride;
    const std::uint32_t t = std::uint32_t(e % stride);
    const std::uint32_t len = min(lengths[row / channels], stride);
    if (t >= len) {
        x[e] = 0.0f;
    } else if (normalise) {
        const double sd = sds[row];
        x[e] =
            sd > 0.0 ? __double2float_rn(__ddiv_rn(__dsub_rn(double(x[e]), means[row]), sd)) : 0.0f;
    }
}

}  // namespace

void launchRocketNormalise(float* series, const std::uint32_t* lengths, std::size_t n,
                           std::size_t channels, std::size_t length, bool normalise, double* stats,
                           cudaStream_t stream) {
    const std::size_t rows = n * channels, count = rows * length;
    if (count == 0) return;
    if (normalise) {
        rowStatsKernel<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(
            series, lengths, rows, std::uint32_t(channels), std::uint32_t(length), stats,
            stats + rows);
        CS_CUDA_CHECK_LAUNCH();
    }
    normaliseKernel<<<unsigned((count + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        series, lengths, count, std::uint32_t(channels), std::uint32_t(length), normalise, stats,
        stats + rows);
    CS_CUDA_CHECK_LAUNCH();
}

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
