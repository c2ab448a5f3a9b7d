// SPDX-License-Identifier: MIT
// MiniRocket and MultiRocket on the GPU. A block per (series, representation, dilation); every
// thread owns a strip of consecutive output positions and pools them against each kernel's
// biases; the strips' pooled states are merged in position order (warp, then block). Two kernels:
// univariateKernel (one channel, up to 10,080 samples: the strip in registers, 3 x and the tap
// sums in shared memory) and miniRocketKernel (any channels and length: the representation with
// 4 d zeros either side in shared memory or a global workspace).
//
// The outputs follow compute/rocket/minirocket.h's float operations in order, with no FMA. Zeros
// stand in for "skip the taps out of range": alpha starts at +0 and, rounding to nearest, a sum
// is -0 only when both terms are, so alpha + 0 = alpha; an output may become +0 where the CPU's
// is -0, which no comparison or subtraction of the pooling can tell apart. So PPV, MIPV and LSPV
// are bit-identical to the CPU backend's; MPV's double sums are added in another order (strip by
// strip, then in a fixed tree) and may differ in the last bit of the float.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/common/cuda_error.h"
#include "kernels/common/greater_bit.cuh"
#include "kernels/rocket/minirocket_launch.h"

namespace cs::kernels {
namespace {

constexpr int kMaxThreads = 256;
constexpr int kMaxWarps = kMaxThreads / 32;
// The univariate kernel's most threads per block (a 10,080-sample series at 15 outputs each) and
// registers per thread: MiniRocket's two blocks per SM need 40 or fewer (a block's 21 warps take
// registers as 24 would); MultiRocket's states take up to 80, at one block per SM.
constexpr unsigned kUnivariateThreads = 672;
constexpr int kUnivariateRegisters[2] = {40, 80};
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

// The longest run of set bits in a mask of at most 15 bits, without a loop: bit i of runs<p> is
// set where the p bits from i on are all set, and the run is found greedily from 8 down to 1 (a
// run of r + p starts at i where one of r starts at i and one of p at i + r).
__device__ __forceinline__ int longestRun(unsigned mask) {
    const unsigned runs1 = mask, runs2 = runs1 & (runs1 >> 1), runs4 = runs2 & (runs2 >> 2),
                   runs8 = runs4 & (runs4 >> 4);
    int r = 0;
    unsigned starts = mask;  // where a run of r or more starts (of 1 or more while r is 0)
    if (runs8 != 0) {
        starts = runs8;
        r = 8;
    }
    unsigned candidate = starts & (runs4 >> r);
    if (candidate != 0) {
        starts = candidate;
        r += 4;
    }
    candidate = starts & (runs2 >> r);
    if (candidate != 0) {
        starts = candidate;
        r += 2;
    }
    candidate = starts & (runs1 >> r);
    return candidate != 0 ? r + 1 : r;
}

// MultiRocket's state of a warp's 32 strips of S <= 15 outputs each against one bias, from each
// lane's mask of positive outputs (lane i's strip precedes lane i + 1's; an output that is not
// pooled is not positive and ends any run) and the lane's excess over the bias, the strip of
// lane 0 starting at position index0 of the pooled range. The lanes' excesses add in a fixed
// tree; the counts are warp reductions; the runs come from the masks and the warp's mask of
// all-positive strips. Lane 0 holds the result.
template <int S>
__device__ __forceinline__ PoolState<4> warpMultiState(unsigned positives, double excess,
                                                       int index0, int lane) {
    static_assert(S <= 15, "a strip's positives are a 15-bit mask");
    constexpr unsigned kAllPositive = (1u << S) - 1;
    const int count = __popc(positives);
    // The sum of the positive positions s: bit i of s, weighted 2^i.
    const int offsets = __popc(positives & 0xAAAAu) + 2 * __popc(positives & 0xCCCCu) +
                        4 * __popc(positives & 0xF0F0u) + 8 * __popc(positives & 0xFF00u);
    const int leading = __ffs(~positives) - 1;
    const int trailing = __clz(~(positives << (32 - S)));
    int longest = longestRun(positives);
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
    state.indexSum = warpSum(count * index0 + offsets);  // at most 32 x 15 x 10,080
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

// A thread's view of samples in shared memory (x while the tap sums are taken, then 3 x, the
// only multiple of x the kernels' sums take), by distance from its first output t0. Checked, a
// sample outside [0, L) reads as the zero padding the CPU's outputs see; unchecked, the caller
// knows none is.
struct ThreadSamples {
    const float* samples;
    int t0, L;
    template <bool Checked>
    __device__ __forceinline__ float at(int i) const {
        const int t = t0 + i;
        if constexpr (Checked) return unsigned(t) < unsigned(L) ? samples[t] : 0.0f;
        return samples[t];
    }
};

// One combination's outputs against G of its biases: each output is partial + 3 x[t + offset]
// (rounding as the CPU's ((-alpha + 3 x_a) + 3 x_b) + 3 x_c), -inf where Masked and outside the
// pooled range [lo, hi). MiniRocket adds each bias's positive count to the block's counts
// (integers: atomics in any order give the same); MultiRocket writes each bias's warp state to
// its slot.
template <int S, int G, bool Masked, int Poolings>
__device__ __forceinline__ void poolBiases(const float (&partial)[S], const ThreadSamples& x3,
                                           int offset, int lo, int hi, const float* biases,
                                           int* counts, PoolState<Poolings> (*slots)[32], int warp,
                                           int lane) {
    // Opaque to the compiler: what depends on them is computed here, for this group and only
    // where Masked, not hoisted out of the combination's loops for every warp (15 live indices
    // and bits, spilled).
    asm volatile("" : "+r"(offset), "+r"(lo), "+r"(hi));
    float b[G];
#pragma unroll
    for (int g = 0; g < G; ++g)
        b[g] = biases[g];
    // Masked: the strip's outputs in [lo, hi) as bits (a check per output would be computed for
    // every combination, masked or not, wherever the compiler hoists it).
    unsigned pooled = 0;
    if constexpr (Masked) {
        const int from = min(max(lo - x3.t0, 0), S), to = min(max(hi - x3.t0, 0), S);
        pooled = ((1u << to) - 1) & ~((1u << from) - 1);
    }
    auto output = [&](int s) {
        const float y = __fadd_rn(partial[s], x3.at<Masked>(s + offset));
        return Masked && ((pooled >> s) & 1u) == 0 ? -INFINITY : y;
    };
    if constexpr (Poolings == 1) {
        int n[G];
#pragma unroll
        for (int g = 0; g < G; ++g)
            n[g] = 0;
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const float y = output(s);
#pragma unroll
            for (int g = 0; g < G; ++g)
                n[g] += int(greaterBit(y, b[g]));
        }
#pragma unroll
        for (int g = 0; g < G; ++g)
            n[g] = warpSum(n[g]);
        if (lane == 0) {
#pragma unroll
            for (int g = 0; g < G; ++g)
                atomicAdd(counts + g, n[g]);
        }
    } else {
        // A lane's excess is the sum of its positive outputs less count x bias, so each output
        // converts to double once for all G biases. Over at most 15 outputs the rounding is
        // within 15 x 2^-53 of the sum of their magnitudes, and an output above the bias exceeds
        // it by 2^-24 of its magnitude or more (distinct floats): within 2^-25 of the excess.
        // MPV, the CPU's sum of each double(output) - double(bias), so stays within one unit of
        // the float (the test's tolerance).
        unsigned mask[G];
        double sum[G];
#pragma unroll
        for (int g = 0; g < G; ++g) {
            mask[g] = 0;
            sum[g] = 0.0;
        }
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const float y = output(s);
            const double yd = double(y);
#pragma unroll
            for (int g = 0; g < G; ++g) {
                if (y > b[g]) {  // predicated: FSETP, then the bit and the add
                    mask[g] |= 1u << s;
                    sum[g] = __dadd_rn(sum[g], yd);
                }
            }
        }
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const double excess =
                __dsub_rn(sum[g], __dmul_rn(double(__popc(mask[g])), double(b[g])));
            const PoolState<4> state = warpMultiState<S>(mask[g], excess, x3.t0 - lo, lane);
            if (lane == 0) slots[g][warp] = state;
        }
    }
}

// The most biases poolBiases takes at a time: MultiRocket's states need the registers.
template <int Poolings>
constexpr int kBiasGroup = Poolings == 1 ? 4 : 2;

// poolBiases for a group of 1 to kBiasGroup biases.
template <int S, int Poolings>
__device__ __forceinline__ void poolGroup(int group, bool masked, const float (&partial)[S],
                                          const ThreadSamples& x3, int offset, int lo, int hi,
                                          const float* biases, int* counts,
                                          PoolState<Poolings> (*slots)[32], int warp, int lane) {
    auto pool = [&](auto size, auto isMasked) {
        poolBiases<S, decltype(size)::value, decltype(isMasked)::value, Poolings>(
            partial, x3, offset, lo, hi, biases, counts, slots, warp, lane);
    };
    using One = std::integral_constant<int, 1>;
    using Two = std::integral_constant<int, 2>;
    using Yes = std::true_type;
    using No = std::false_type;
    switch (group) {
        case 1:
            masked ? pool(One{}, Yes{}) : pool(One{}, No{});
            break;
        case 2:
            masked ? pool(Two{}, Yes{}) : pool(Two{}, No{});
            break;
        default:
            if constexpr (kBiasGroup<Poolings> == 4) {
                using Three = std::integral_constant<int, 3>;
                using Four = std::integral_constant<int, 4>;
                if (group == 3)
                    masked ? pool(Three{}, Yes{}) : pool(Three{}, No{});
                else
                    masked ? pool(Four{}, Yes{}) : pool(Four{}, No{});
            }
            break;
    }
}

// Univariate series of up to 672 S samples: each thread owns S consecutive outputs. Shared
// memory holds 3 x, each output's tap sum alpha, the dilation's biases, and for MiniRocket their
// positive counts. The 84 combinations (a < b < c of the 9 taps, in kMiniRocketTaps's order)
// share their first two taps' sums: (-alpha + 3 x_a) + 3 x_b in registers once per pair, then
// one add per combination and group of biases. Warps whose outputs all read inside the series
// and all pool skip the checks; the others read the zero padding as the CPU does and mask what
// is not pooled. MultiRocket's warp states of up to 32 features (across combinations) are merged
// in position order at a time, a warp per feature.
template <int S, int Poolings>
__global__ void __maxnreg__(kUnivariateRegisters[Poolings == 4])
    univariateKernel(const float* __restrict__ series, const std::uint32_t* __restrict__ lengths,
                     std::uint32_t length, std::size_t first, std::uint32_t count, MiniRocketView m,
                     std::uint32_t capacity, float* __restrict__ features) {
    extern __shared__ float dynamicShared[];
    __shared__ PoolState<Poolings> slots[Poolings == 1 ? 1 : kFeatureGroup][32];
    __shared__ int slotFeature[kFeatureGroup], slotOutputs[kFeatureGroup];
    // Shared: 3 x, alpha (capacity each), the dilation's biases, for MiniRocket their counts.
    float* tripled = dynamicShared;
    float* alphas = tripled + capacity;
    float* dilationBiases = alphas + capacity;
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
        const MiniRocketRepView& rep = m.rep[r];
        const int pad = 4 * d;
        const float* x = series + w.row * std::size_t(length);
        float* rowFeatures = features + w.row * std::size_t(m.featureCount) * layers;
        // Each sample read once from global memory, into the 3 x array, which holds x until
        // the tap sums are taken from it.
        for (int e = tid; e < L; e += int(blockDim.x))
            tripled[e] = r == 1 ? __fsub_rn(__ldg(x + e + 1), __ldg(x + e)) : __ldg(x + e);
        const int perKernel = rep.featuresPerDilation[di];
        if constexpr (Poolings == 1)
            for (int f = tid; f < 84 * perKernel; f += int(blockDim.x))
                positives[f] = 0;
        const std::size_t firstOfDilation = std::size_t(rep.featureStart[di]);
        for (int f = tid; f < 84 * perKernel; f += int(blockDim.x))
            dilationBiases[f] = __fadd_rn(rep.biases[firstOfDilation + std::size_t(f)],
                                          0.0f);  // -0 becomes +0 (greaterBit)
        __syncthreads();
        {
            // alpha, the sum of each output's 9 taps in the CPU's order (0 outside [0, L)).
            const ThreadSamples xs{tripled, t0, L};
            auto tapSums = [&](auto checked) {
#pragma unroll 1
                for (int s = 0; s < S; ++s) {
                    float a = 0.0f;
#pragma unroll
                    for (int j = 0; j < 9; ++j)
                        a = __fadd_rn(a, xs.at<decltype(checked)::value>(s + (j - 4) * d));
                    alphas[t0 + s] = a;
                }
            };
            if (__all_sync(0xffffffffu, t0 >= pad && t0 + S <= L - pad))
                tapSums(std::false_type{});
            else
                tapSums(std::true_type{});
        }
        __syncthreads();
        for (int e = tid; e < L; e += int(blockDim.x))
            tripled[e] = __fmul_rn(3.0f, tripled[e]);
        __syncthreads();

        // MultiRocket: merges the slots' warp states and writes their features.
        int used = 0;
        auto flush = [&] {
            __syncthreads();
            for (int g = warp; g < used; g += warps) {
                const PoolState<Poolings> state =
                    mergeWarp(lane < warps ? slots[g][lane] : PoolState<Poolings>{}, lane);
                if (lane == 0)
                    writePooled(state, slotOutputs[g],
                                rowFeatures + std::size_t(slotFeature[g]) * layers +
                                    std::size_t(r) * Poolings);
            }
            __syncthreads();
            used = 0;
        };

        const bool masked = !__all_sync(0xffffffffu, t0 >= pad && t0 + S <= L - pad);
        const ThreadSamples x3{tripled, t0, L};
        int k = 0;
#pragma unroll 1
        for (int a = 0; a < 7; ++a) {
#pragma unroll 1
            for (int b = a + 1; b < 8; ++b) {
                const int oa = (a - 4) * d, ob = (b - 4) * d;
                float partial[S];
                if (masked) {
#pragma unroll
                    for (int s = 0; s < S; ++s)
                        partial[s] = __fadd_rn(__fadd_rn(-alphas[t0 + s], x3.at<true>(s + oa)),
                                               x3.at<true>(s + ob));
                } else {
#pragma unroll
                    for (int s = 0; s < S; ++s)
                        partial[s] = __fadd_rn(__fadd_rn(-alphas[t0 + s], x3.at<false>(s + oa)),
                                               x3.at<false>(s + ob));
                }
#pragma unroll 1
                for (int c = b + 1; c < 9; ++c, ++k) {
                    // Alternate combinations pool over the outputs clear of the padding only.
                    const bool all = (di + k) % 2 == 0;
                    const int lo = all ? 0 : pad;
                    const int hi = all ? L : max(lo, L - pad);
                    const float* biases = dilationBiases + k * perKernel;
                    for (int q = 0; q < perKernel;) {
                        const int group = min(kBiasGroup<Poolings>, perKernel - q);
                        if constexpr (Poolings == 4) {
                            if (used + group > kFeatureGroup) flush();
                            if (tid == 0)
                                for (int g = 0; g < group; ++g) {
                                    slotFeature[used + g] =
                                        int(firstOfDilation) + k * perKernel + q + g;
                                    slotOutputs[used + g] = hi - lo;
                                }
                        }
                        poolGroup<S, Poolings>(group, masked, partial, x3, (c - 4) * d, lo, hi,
                                               biases + q, positives + k * perKernel + q,
                                               slots + used, warp, lane);
                        q += group;
                        if constexpr (Poolings == 4) used += group;
                    }
                }
            }
        }
        if constexpr (Poolings == 4) {
            if (used > 0) flush();
        } else {
            __syncthreads();
            for (int f = tid; f < 84 * perKernel; f += int(blockDim.x)) {
                const int kf = f / perKernel;
                const int lo = (di + kf) % 2 == 0 ? 0 : pad;
                const int hi = (di + kf) % 2 == 0 ? L : max(lo, L - pad);
                PoolState<1> state;
                state.positive = positives[f];
                writePooled(state, hi - lo,
                            rowFeatures + (firstOfDilation + std::size_t(f)) * layers +
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
            if (threads <= kUnivariateThreads && threads * strip <= best) {
                best = threads * strip;
                plan.strip = strip;
                plan.threads = unsigned(threads);
            }
        }
        // 3 x and alpha for every thread's outputs, the biases, MiniRocket's counts.
        const std::size_t perDilation = 84 * std::size_t(model.mostFeaturesPerDilation);
        plan.sharedBytes = (2 * std::size_t(plan.threads) * std::size_t(plan.strip) + perDilation +
                            (model.poolings == 1 ? perDilation : 0)) *
                           sizeof(float);
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
        const std::uint32_t capacity = plan.threads * std::uint32_t(plan.strip);
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
