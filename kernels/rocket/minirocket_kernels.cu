// SPDX-License-Identifier: MIT
// MiniRocket and MultiRocket on the GPU. A block per (series, representation, dilation): the
// representation's samples in its working memory with 4 d zeros either side, then every thread
// owns a strip of consecutive output positions, for which it computes each channel's tap sum
// (alpha) once and each of the 84 kernels' outputs in turn, and pools them against that
// kernel's biases; the strips' pooled states are merged in position order (warp, then block).
//
// The outputs follow compute/rocket/minirocket.h's float operations in order, with no FMA. The
// zero padding stands in for "skip the taps out of range": alpha starts at +0 and, rounding to
// nearest, a sum is -0 only when both terms are, so alpha + 0 = alpha; an output may become +0
// where the CPU's is -0, which no comparison or subtraction of the pooling can tell apart. So
// PPV, MIPV and LSPV are bit-identical to the CPU backend's; MPV's double sum is added strip by
// strip, then in a fixed tree, not left to right, and may differ in the last bit of the float.
#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_error.h"
#include "kernels/rocket/minirocket_launch.h"

namespace cs::kernels {
namespace {

constexpr int kMaxThreads = 256;
constexpr int kMaxWarps = kMaxThreads / 32;
// The univariate kernel's most threads per block: MiniRocket's two blocks per SM (40 registers)
// hold a 10,000-sample series each; MultiRocket's state needs 64 registers, one block per SM.
constexpr unsigned kUnivariateThreads[2] = {672, 1024};
// Features pooled between two block-wide merges.
constexpr int kFeatureGroup = 32;

// The three taps of weight 2 of each of the 84 kernels (compute/rocket/minirocket.cpp's
// kMiniRocketTaps, which launchMiniRocketTransform checks this against).
__constant__ std::int8_t c_taps[84][3];

// The pooled state of a run of consecutive outputs against one bias.
template <int Poolings>
struct PoolState;

template <>
struct PoolState<1> {
    int positive = 0;
    __device__ void add(float v, float bias, int) { positive += v > bias; }
    __device__ void merge(const PoolState& right) { positive += right.positive; }
    __device__ PoolState shuffleDown(int offset) const {
        PoolState s;
        s.positive = __shfl_down_sync(0xffffffffu, positive, offset);
        return s;
    }
};

template <>
struct PoolState<4> {
    int outputs = 0;
    int positive = 0;
    int leadingRun = 0;   // positive outputs before the first one that is not
    int trailingRun = 0;  // positive outputs after the last one that is not
    int longestRun = 0;
    long long indexSum = 0;
    double excessSum = 0.0;

    __device__ void add(float v, float bias, int index) {
        if (v > bias) {
            if (leadingRun == outputs) ++leadingRun;
            ++positive;
            ++trailingRun;
            longestRun = max(longestRun, trailingRun);
            indexSum += index;
            excessSum = __dadd_rn(excessSum, __dsub_rn(double(v), double(bias)));
        } else {
            trailingRun = 0;
        }
        ++outputs;
    }
    __device__ void merge(const PoolState& right) {
        longestRun = max(max(longestRun, right.longestRun), trailingRun + right.leadingRun);
        if (leadingRun == outputs) leadingRun += right.leadingRun;
        trailingRun =
            right.trailingRun == right.outputs ? trailingRun + right.outputs : right.trailingRun;
        outputs += right.outputs;
        positive += right.positive;
        indexSum += right.indexSum;
        excessSum = __dadd_rn(excessSum, right.excessSum);
    }
    __device__ PoolState shuffleDown(int offset) const {
        PoolState s;
        s.outputs = __shfl_down_sync(0xffffffffu, outputs, offset);
        s.positive = __shfl_down_sync(0xffffffffu, positive, offset);
        s.leadingRun = __shfl_down_sync(0xffffffffu, leadingRun, offset);
        s.trailingRun = __shfl_down_sync(0xffffffffu, trailingRun, offset);
        s.longestRun = __shfl_down_sync(0xffffffffu, longestRun, offset);
        s.indexSum = __shfl_down_sync(0xffffffffu, indexSum, offset);
        s.excessSum = __shfl_down_sync(0xffffffffu, excessSum, offset);
        return s;
    }
};

// PPV (MiniRocket) or PPV, MPV, MIPV, LSPV (MultiRocket) of n outputs, as the CPU writes them.
__device__ void writePooled(const PoolState<1>& s, int n, float* out) {
    out[0] = n > 0 ? __double2float_rn(__ddiv_rn(double(s.positive), double(n))) : 0.0f;
}
__device__ void writePooled(const PoolState<4>& s, int n, float* out) {
    const int count = s.positive;
    out[0] = n > 0 ? __double2float_rn(__ddiv_rn(double(count), double(n))) : 0.0f;
    out[1] = count > 0 ? __double2float_rn(__ddiv_rn(s.excessSum, double(count))) : 0.0f;
    out[2] = count > 0 ? __double2float_rn(__ddiv_rn(double(s.indexSum), double(count))) : -1.0f;
    out[3] = float(s.longestRun);
}

// Merges the lanes' states in lane order (lane i's strip precedes lane i + 1's): at offset o,
// lane i (a multiple of 2 o) holds lanes [i, i + o) and takes [i + o, i + 2 o). Lane 0 ends
// with the whole warp.
template <int Poolings>
__device__ PoolState<Poolings> mergeWarp(PoolState<Poolings> s, int lane) {
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        const PoolState<Poolings> right = s.shuffleDown(offset);
        if (lane % (2 * offset) == 0) s.merge(right);
    }
    return s;
}

// One block's work item: series `row`, representation r, dilation d (index di), whose
// representation has L samples. False for a dilation index past the representation's count
// (MultiRocket's two representations may have different counts): the whole block skips it.
struct WorkItem {
    int di = 0, r = 0, L = 0, d = 1;
    std::size_t row = 0;
};
__device__ __forceinline__ bool decodeItem(std::size_t item, const MiniRocketView& m,
                                           std::size_t first,
                                           const std::uint32_t* __restrict__ lengths,
                                           std::uint32_t length, WorkItem& w) {
    w.di = int(item % std::size_t(m.maxDilations));
    w.r = int(item / std::size_t(m.maxDilations) % std::size_t(m.representations));
    w.row = first + item / std::size_t(m.maxDilations * m.representations);
    if (w.di >= m.rep[w.r].dilationCount) return false;
    const int trueLength = int(min(lengths[w.row], length));
    w.L = w.r == 1 ? max(trueLength - 1, 0) : trueLength;
    w.d = m.rep[w.r].dilations[w.di];
    return true;
}

template <int Poolings>
__global__ void __launch_bounds__(kMaxThreads)
    miniRocketKernel(const float* __restrict__ series, const std::uint32_t* __restrict__ lengths,
                     std::uint32_t channels, std::uint32_t length, std::size_t first,
                     std::uint32_t count, MiniRocketView m, float* workspace,
                     std::size_t blockFloats, float* __restrict__ features) {
    extern __shared__ float dynamicShared[];
    __shared__ PoolState<Poolings> partial[kFeatureGroup][kMaxWarps];
    float* memory = workspace ? workspace + blockIdx.x * blockFloats : dynamicShared;
    const int tid = int(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int warps = int(blockDim.x) / 32;
    const std::size_t layers = std::size_t(m.representations) * Poolings;
    const std::size_t items = std::size_t(count) * std::size_t(m.representations * m.maxDilations);

    for (std::size_t item = blockIdx.x; item < items; item += gridDim.x) {
        WorkItem w;
        if (!decodeItem(item, m, first, lengths, length, w)) continue;  // the whole block skips
        const int di = w.di, r = w.r, L = w.L, d = w.d;
        const std::size_t row = w.row;
        const MiniRocketRepView& rep = m.rep[r];
        const int pad = 4 * d;
        const int padded = L + 2 * pad;
        // memory: x (channels x padded), alpha (channels x L), outputs (L).
        float* x = memory;
        float* alpha = x + std::size_t(channels) * std::size_t(padded);
        float* outputs = alpha + std::size_t(channels) * std::size_t(L);

        const float* source = series + row * std::size_t(channels) * length;
        for (std::size_t e = std::size_t(tid); e < std::size_t(channels) * std::size_t(padded);
             e += blockDim.x) {
            const std::size_t c = e / std::size_t(padded);
            const int t = int(e % std::size_t(padded)) - pad;
            float v = 0.0f;
            if (t >= 0 && t < L) {
                const float* xc = source + c * length;
                v = r == 1 ? __fsub_rn(xc[t + 1], xc[t]) : xc[t];
            }
            x[e] = v;
        }
        __syncthreads();

        // An odd strip length: the lanes' reads at t + offset fall in 32 different banks.
        const int strip = ((L + int(blockDim.x) - 1) / int(blockDim.x)) | 1;
        const int begin = min(L, tid * strip), end = min(L, begin + strip);
        for (std::uint32_t c = 0; c < channels; ++c) {
            const float* xc = x + std::size_t(c) * padded + pad;
            float* ac = alpha + std::size_t(c) * L;
            for (int t = begin; t < end; ++t) {
                float a = 0.0f;
#pragma unroll
                for (int j = 0; j < 9; ++j)
                    a = __fadd_rn(a, xc[t + (j - 4) * d]);
                ac[t] = a;
            }
        }

        const int perKernel = rep.featuresPerDilation[di];
        for (int k = 0; k < 84; ++k) {
            const int combination = di * 84 + k;
            const int chosen = rep.channelCounts[combination];
            const std::int32_t* chans = rep.channelIndex + rep.channelStart[combination];
            const int o0 = (c_taps[k][0] - 4) * d, o1 = (c_taps[k][1] - 4) * d,
                      o2 = (c_taps[k][2] - 4) * d;
            for (int ci = 0; ci < chosen; ++ci) {
                const std::size_t c = std::size_t(chans[ci]);
                const float* xc = x + c * padded + pad;
                const float* ac = alpha + c * L;
                for (int t = begin; t < end; ++t) {
                    float y = -ac[t];
                    y = __fadd_rn(y, __fmul_rn(3.0f, xc[t + o0]));
                    y = __fadd_rn(y, __fmul_rn(3.0f, xc[t + o1]));
                    y = __fadd_rn(y, __fmul_rn(3.0f, xc[t + o2]));
                    outputs[t] = ci == 0 ? y : __fadd_rn(outputs[t], y);
                }
            }
            // Alternate combinations pool over the outputs clear of the padding only.
            const bool all = (di + k) % 2 == 0;
            const int lo = all ? 0 : pad;
            const int hi = all ? L : max(lo, L - pad);
            const int from = max(begin, lo), to = min(end, hi);
            const std::size_t firstFeature =
                std::size_t(rep.featureStart[di]) + std::size_t(k) * std::size_t(perKernel);
            for (int q0 = 0; q0 < perKernel; q0 += kFeatureGroup) {
                const int group = min(kFeatureGroup, perKernel - q0);
                for (int g = 0; g < group; ++g) {
                    const float bias = rep.biases[firstFeature + std::size_t(q0 + g)];
                    PoolState<Poolings> s;
                    for (int t = from; t < to; ++t)
                        s.add(outputs[t], bias, t - lo);
                    s = mergeWarp(s, lane);
                    if (lane == 0) partial[g][warp] = s;
                }
                __syncthreads();
                if (tid < group) {
                    PoolState<Poolings> s = partial[tid][0];
                    for (int w = 1; w < warps; ++w)
                        s.merge(partial[tid][w]);
                    const std::size_t feature = firstFeature + std::size_t(q0 + tid);
                    writePooled(s, hi - lo,
                                features + row * std::size_t(m.featureCount) * layers +
                                    feature * layers + std::size_t(r) * Poolings);
                }
                __syncthreads();
            }
        }
        __syncthreads();  // before the next item overwrites x
    }
}

__device__ __forceinline__ int warpSum(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
#endif
}

__device__ __forceinline__ int warpMax(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset /= 2)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
#endif
}

// MultiRocket's state of a warp's 32 strips of S <= 16 outputs each (in registers; -inf where not
// pooled, which no bias is below and which ends any run; lane i's strip precedes lane i + 1's)
// against one bias, the strip of lane 0 starting at position index0 of the pooled range. Each
// lane sums its strip's excesses in order, the lanes' sums add in a fixed tree; the counts are
// warp reductions; the runs come from each strip's mask of positive outputs and the warp's mask
// of all-positive strips. Lane 0 holds the result.
template <int S>
__device__ __forceinline__ PoolState<4> warpMultiState(const float (&outputs)[S], int index0,
                                                       float bias, int lane) {
    static_assert(S <= 16, "a strip's positives are a 16-bit mask");
    constexpr unsigned kAllPositive = (1u << S) - 1;
    unsigned positives = 0;
    double excess = 0.0;
    const double b = double(bias);
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const bool positive = outputs[s] > bias;
        positives |= unsigned(positive) << s;
        if (positive) excess = __dadd_rn(excess, __dsub_rn(double(outputs[s]), b));
    }
    const int count = __popc(positives);
    // The sum of the positive positions s: bit i of s, weighted 2^i.
    const int offsets = __popc(positives & 0xAAAAu) + 2 * __popc(positives & 0xCCCCu) +
                        4 * __popc(positives & 0xF0F0u) + 8 * __popc(positives & 0xFF00u);
    const int leading = __ffs(~positives) - 1;
    const int trailing = __clz(~(positives << (32 - S)));
    int longest = 0;
    for (unsigned m = positives; m != 0; m &= m >> 1)
        ++longest;
    const unsigned full = __ballot_sync(0xffffffffu, positives == kAllPositive);
    // The run through lane's trailing outputs, the all-positive strips after it, and the leading
    // outputs of the next strip that is not (a run past the warp is the block merge's).
    const int fullAfter = lane == 31 ? 0 : __ffs(~(full >> (lane + 1))) - 1;
    const int next = lane + 1 + fullAfter;
    const int leadingOfNext = __shfl_sync(0xffffffffu, leading, next & 31);
    longest = max(longest, trailing + S * fullAfter + (next < 32 ? leadingOfNext : 0));

    PoolState<4> state;
    state.outputs = 32 * S;
    state.positive = warpSum(count);
    state.indexSum = warpSum(count * index0 + offsets);  // at most 32 x 16 x 15,360
    state.longestRun = warpMax(longest);
    const int fullLeading = full == 0xffffffffu ? 32 : __ffs(~full) - 1;
    const int fullTrailing = __clz(~full);
    const int leadingOfFirst = __shfl_sync(0xffffffffu, leading, fullLeading & 31);
    const int trailingOfLast = __shfl_sync(0xffffffffu, trailing, (31 - fullTrailing) & 31);
    state.leadingRun = fullLeading == 32 ? 32 * S : fullLeading * S + leadingOfFirst;
    state.trailingRun = fullTrailing == 32 ? 32 * S : fullTrailing * S + trailingOfLast;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        const double right = __shfl_down_sync(0xffffffffu, excess, offset);
        if (lane % (2 * offset) == 0) excess = __dadd_rn(excess, right);
    }
    state.excessSum = excess;
    return state;
}

// Univariate series of up to 672 S (MiniRocket) or 1,024 S (MultiRocket) samples: each thread's S
// outputs, and their tap sums, in registers; shared memory holds only 3 x (the only multiple of x
// the kernels' sums take) with its zero padding, and for MiniRocket the block's positive counts.
// PPV counts are summed with atomics (integers: any order gives the same); MultiRocket's states
// merge in position order.
template <int S, int Poolings>
__global__ void __launch_bounds__(kUnivariateThreads[Poolings == 4], Poolings == 4 ? 1 : 2)
    univariateKernel(const float* __restrict__ series, const std::uint32_t* __restrict__ lengths,
                     std::uint32_t length, std::size_t first, std::uint32_t count, MiniRocketView m,
                     std::uint32_t paddedCapacity, float* __restrict__ features) {
    extern __shared__ float dynamicShared[];
    __shared__ PoolState<Poolings> partial[Poolings == 1 ? 1 : kFeatureGroup][32];
    // Shared: 3 x with its padding, the dilation's biases, and for MiniRocket their counts.
    float* tripled = dynamicShared;
    float* dilationBiases = tripled + paddedCapacity;
    int* positives = reinterpret_cast<int*>(dilationBiases + 84 * m.mostFeaturesPerDilation);
    const int tid = int(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int warps = int(blockDim.x) / 32;
    const std::size_t layers = std::size_t(m.representations) * Poolings;
    const std::size_t items = std::size_t(count) * std::size_t(m.representations * m.maxDilations);
    const int t0 = tid * S;

    for (std::size_t item = blockIdx.x; item < items; item += gridDim.x) {
        WorkItem w;
        if (!decodeItem(item, m, first, lengths, length, w)) continue;  // the whole block skips
        const int di = w.di, r = w.r, L = w.L, d = w.d;
        const std::size_t row = w.row;
        const MiniRocketRepView& rep = m.rep[r];
        const int pad = 4 * d;
        const float* x = series + row * std::size_t(length);
        // The representation's sample t (0 outside [0, L)).
        auto sample = [&](int t) {
            if (t < 0 || t >= L) return 0.0f;
            return r == 1 ? __fsub_rn(__ldg(x + t + 1), __ldg(x + t)) : __ldg(x + t);
        };
        for (int e = tid; e < L + 2 * pad; e += int(blockDim.x))
            tripled[e] = __fmul_rn(3.0f, sample(e - pad));
        const int perKernel = rep.featuresPerDilation[di];
        if constexpr (Poolings == 1)
            for (int f = tid; f < 84 * perKernel; f += int(blockDim.x))
                positives[f] = 0;

        float alpha[S];
#pragma unroll
        for (int s = 0; s < S; ++s) {
            float a = 0.0f;
#pragma unroll
            for (int j = 0; j < 9; ++j)
                a = __fadd_rn(a, sample(t0 + s + (j - 4) * d));
            alpha[s] = a;
        }
        const std::size_t firstOfDilation = std::size_t(rep.featureStart[di]);
        for (int f = tid; f < 84 * perKernel; f += int(blockDim.x))
            dilationBiases[f] = rep.biases[firstOfDilation + std::size_t(f)];
        __syncthreads();

        const float* x3 = tripled + pad + t0;
        for (int k = 0; k < 84; ++k) {
            const int o0 = (c_taps[k][0] - 4) * d, o1 = (c_taps[k][1] - 4) * d,
                      o2 = (c_taps[k][2] - 4) * d;
            // Alternate combinations pool over the outputs clear of the padding only.
            const bool all = (di + k) % 2 == 0;
            const int lo = all ? 0 : pad;
            const int hi = all ? L : max(lo, L - pad);
            float outputs[S];
#pragma unroll
            for (int s = 0; s < S; ++s)
                outputs[s] =
                    t0 + s >= lo && t0 + s < hi
                        ? __fadd_rn(__fadd_rn(__fadd_rn(-alpha[s], x3[s + o0]), x3[s + o1]),
                                    x3[s + o2])
                        : -INFINITY;
            const float* biases = dilationBiases + k * perKernel;
            if constexpr (Poolings == 1) {
                // Four biases at a time: independent counts for the scheduler to overlap.
                int q = 0;
                for (; q + 4 <= perKernel; q += 4) {
                    const float b0 = biases[q], b1 = biases[q + 1], b2 = biases[q + 2],
                                b3 = biases[q + 3];
                    int n0 = 0, n1 = 0, n2 = 0, n3 = 0;
#pragma unroll
                    for (int s = 0; s < S; ++s) {
                        n0 += outputs[s] > b0;
                        n1 += outputs[s] > b1;
                        n2 += outputs[s] > b2;
                        n3 += outputs[s] > b3;
                    }
                    n0 = warpSum(n0);
                    n1 = warpSum(n1);
                    n2 = warpSum(n2);
                    n3 = warpSum(n3);
                    if (lane == 0) {
                        int* counts = positives + k * perKernel + q;
                        atomicAdd(counts, n0);
                        atomicAdd(counts + 1, n1);
                        atomicAdd(counts + 2, n2);
                        atomicAdd(counts + 3, n3);
                    }
                }
                for (; q < perKernel; ++q) {
                    const float b0 = biases[q];
                    int n0 = 0;
#pragma unroll
                    for (int s = 0; s < S; ++s)
                        n0 += outputs[s] > b0;
                    n0 = warpSum(n0);
                    if (lane == 0) atomicAdd(positives + k * perKernel + q, n0);
                }
            } else {
                for (int q0 = 0; q0 < perKernel; q0 += kFeatureGroup) {
                    const int group = min(kFeatureGroup, perKernel - q0);
                    for (int g = 0; g < group; ++g) {
                        const PoolState<4> state =
                            warpMultiState<S>(outputs, t0 - lo, biases[q0 + g], lane);
                        if (lane == 0) partial[g][warp] = state;
                    }
                    __syncthreads();
                    // A warp per feature merges the warps' states, lane w holding warp w's.
                    for (int g = warp; g < group; g += warps) {
                        const PoolState<4> state =
                            mergeWarp(lane < warps ? partial[g][lane] : PoolState<4>{}, lane);
                        if (lane == 0) {
                            const std::size_t feature = firstOfDilation +
                                                        std::size_t(k) * std::size_t(perKernel) +
                                                        std::size_t(q0 + g);
                            writePooled(state, hi - lo,
                                        features + row * std::size_t(m.featureCount) * layers +
                                            feature * layers + std::size_t(r) * Poolings);
                        }
                    }
                    __syncthreads();
                }
            }
        }
        if constexpr (Poolings == 1) {
            __syncthreads();
            for (int f = tid; f < 84 * perKernel; f += int(blockDim.x)) {
                const int k = f / perKernel;
                const int lo = (di + k) % 2 == 0 ? 0 : pad;
                const int hi = (di + k) % 2 == 0 ? L : max(lo, L - pad);
                PoolState<1> state;
                state.positive = positives[f];
                writePooled(state, hi - lo,
                            features + row * std::size_t(m.featureCount) * layers +
                                (firstOfDilation + std::size_t(f)) * layers +
                                std::size_t(r) * Poolings);
            }
        }
        __syncthreads();  // before the next item overwrites shared memory
    }
}

// The univariate kernel's strip lengths (odd: a warp's reads at t + offset then fall in 32
// different banks).
constexpr int kStrips[] = {7, 9, 11, 13, 15};

template <int Poolings, typename Launch>
void withUnivariateKernel(int strip, Launch&& launch) {
    switch (strip) {
        case 7:
            launch(univariateKernel<7, Poolings>);
            break;
        case 9:
            launch(univariateKernel<9, Poolings>);
            break;
        case 11:
            launch(univariateKernel<11, Poolings>);
            break;
        case 13:
            launch(univariateKernel<13, Poolings>);
            break;
        default:
            launch(univariateKernel<15, Poolings>);
            break;
    }
}

}  // namespace

MiniRocketLaunchPlan planMiniRocketLaunch(std::size_t channels, std::size_t length,
                                          const MiniRocketView& model, int multiprocessors) {
    MiniRocketLaunchPlan plan;
    const std::size_t padded = length + 8 * std::size_t(std::max(model.largestDilation, 1));
    if (channels == 1) {
        // The strip that wastes the fewest threads past the end (the longer on a tie).
        std::size_t best = SIZE_MAX;
        for (const int strip : kStrips) {
            const std::size_t threads = ((length + strip - 1) / strip + 31) / 32 * 32;
            if (threads <= kUnivariateThreads[model.poolings == 4] && threads * strip <= best) {
                best = threads * strip;
                plan.strip = strip;
                plan.threads = unsigned(threads);
            }
        }
        const std::size_t perDilation = 84 * std::size_t(model.mostFeaturesPerDilation);
        plan.sharedBytes =
            (padded + perDilation + (model.poolings == 1 ? perDilation : 0)) * sizeof(float);
        // Beside the static shared memory (MultiRocket: 40 KiB of merge states).
        const std::size_t limit = (model.poolings == 4 ? 176 : 216) * std::size_t(1024);
        if (plan.strip > 0 && plan.sharedBytes <= limit) return plan;
        plan = MiniRocketLaunchPlan{};
    }
    // Strips of about 8 outputs or more; short series in smaller blocks.
    plan.threads = 32;
    while (plan.threads < unsigned(kMaxThreads) && plan.threads * 8 < length)
        plan.threads *= 2;
    plan.blockFloats = channels * padded + channels * length + length;
    if (plan.blockFloats * sizeof(float) <= 160 * 1024)
        plan.sharedBytes = plan.blockFloats * sizeof(float);
    else
        plan.workspaceBlocks = unsigned(std::max(multiprocessors, 1) * 4);
    return plan;
}

void launchMiniRocketTransform(const float* series, const std::uint32_t* lengths,
                               std::size_t channels, std::size_t length, std::size_t first,
                               std::size_t count, const MiniRocketView& model,
                               const std::int8_t (*taps)[3], const MiniRocketLaunchPlan& plan,
                               float* workspace, float* features, cudaStream_t stream) {
    if (count == 0 || model.maxDilations == 0) return;
    CS_CUDA_CHECK(
        cudaMemcpyToSymbolAsync(c_taps, taps, sizeof(c_taps), 0, cudaMemcpyHostToDevice, stream));
    const std::size_t items =
        count * std::size_t(model.representations) * std::size_t(model.maxDilations);
    const unsigned blocks = plan.workspaceBlocks > 0
                                ? unsigned(std::min<std::size_t>(items, plan.workspaceBlocks))
                                : unsigned(std::min<std::size_t>(items, 1u << 30));
    // Always the same value (the most a block may have beside its static shared memory), so
    // that launches from several threads never see another one's smaller limit.
    auto optIn = [&](auto kernel) {
        int device = 0, optin = 0;
        CS_CUDA_CHECK(cudaGetDevice(&device));
        CS_CUDA_CHECK(
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        cudaFuncAttributes attributes{};
        CS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
        CS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           optin - int(attributes.sharedSizeBytes)));
    };
    if (plan.strip > 0) {
        const std::uint32_t capacity =
            std::uint32_t(length + 8 * std::size_t(std::max(model.largestDilation, 1)));
        auto launch = [&](auto kernel) {
            optIn(kernel);
            kernel<<<blocks, plan.threads, plan.sharedBytes, stream>>>(
                series, lengths, std::uint32_t(length), first, std::uint32_t(count), model,
                capacity, features);
            CS_CUDA_CHECK_LAUNCH();
        };
        if (model.poolings == 4)
            withUnivariateKernel<4>(plan.strip, launch);
        else
            withUnivariateKernel<1>(plan.strip, launch);
        return;
    }
    auto launch = [&](auto kernel) {
        optIn(kernel);
        kernel<<<blocks, plan.threads, plan.sharedBytes, stream>>>(
            series, lengths, std::uint32_t(channels), std::uint32_t(length), first,
            std::uint32_t(count), model, plan.workspaceBlocks > 0 ? workspace : nullptr,
            plan.blockFloats, features);
        CS_CUDA_CHECK_LAUNCH();
    };
    if (model.poolings == 4)
        launch(miniRocketKernel<4>);
    else
        launch(miniRocketKernel<1>);
}

}  // namespace cs::kernels
