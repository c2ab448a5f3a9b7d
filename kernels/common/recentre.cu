// SPDX-License-Identifier: MIT
// recentredCoords() (compute/core/geometry.h) on the device, bit for bit: per-dimension float
// min / max (exact in any order), the centre 0.5 (lo + hi) in double, and
// float((double(x) - centre) * scale) rounded to nearest (the scale, a power of two, chosen on
// the host from the bounds), written with explicit _rn intrinsics so that
// nvcc cannot contract or reorder them. The host loop keeps the first of equal extremes, which
// matters only for the sign of a zero centre (a dimension of zeros only, -0 first or not): when
// lo == hi the centre is the first non-NaN value itself, as 0.5 (v + v) = v on the host.
#include <algorithm>
#include <cstdint>

#include "kernels/common/cuda_error.h"
#include "kernels/common/device_points.h"
#include "kernels/common/ordered_float.cuh"

namespace cs::kernels {
namespace {

using detail::floatToOrdered;
using detail::orderedToFloatDevice;

constexpr int kThreads = 256;
constexpr std::uint32_t kNoPoint = 0xFFFFFFFFu;  // no non-NaN value seen yet
constexpr unsigned kMaxBlocks = 1024;

// Threads step through the row-major array by `span`, a multiple of dims, so each thread keeps
// one dimension (t % dims) throughout: one register pair of extremes, coalesced loads.
struct Walk {
    std::size_t span = 0;
    unsigned blocks = 0;
};

Walk walkFor(std::size_t n, std::size_t dims) {
    const std::size_t total = n * dims;
    std::size_t blocks = std::min<std::size_t>((total + kThreads - 1) / kThreads, kMaxBlocks);
    blocks = std::max(blocks, (dims + kThreads - 1) / kThreads);
    const std::size_t threads = blocks * kThreads;
    Walk w;
    w.span = threads / dims * dims;
    w.blocks = unsigned((w.span + kThreads - 1) / kThreads);
    return w;
}

__global__ void initBoundsKernel(std::uint32_t* lo, std::uint32_t* hi, std::uint32_t* first,
                                 std::size_t dims) {
    const std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (j >= dims) return;
    lo[j] = floatToOrdered(__int_as_float(0x7F800000));        // +inf
    hi[j] = floatToOrdered(__int_as_float(int(0xFF800000u)));  // -inf
    first[j] = kNoPoint;
}

// NaN is skipped, as std::min / std::max skip it on the host. first[j]: the lowest row with a
// non-NaN value in dimension j (each thread meets its rows in ascending order).
__global__ void __launch_bounds__(kThreads)
    coordBoundsKernel(const float* x, std::size_t n, std::size_t dims, std::size_t span,
                      std::uint32_t* lo, std::uint32_t* hi, std::uint32_t* first) {
    __shared__ std::uint32_t sLo[kThreads], sHi[kThreads], sFirst[kThreads];
    const std::size_t start = blockIdx.x * std::size_t(kThreads);
    const std::size_t t = start + threadIdx.x;
    // Threads tid and tid + dims of a block share a dimension, so dims < kThreads folds them
    // onto dims shared slots before one global atomic per slot.
    const unsigned slots = unsigned(dims < kThreads ? dims : kThreads);
    if (threadIdx.x < slots) {
        sLo[threadIdx.x] = 0xFFFFFFFFu;
        sHi[threadIdx.x] = 0u;
        sFirst[threadIdx.x] = kNoPoint;
    }
    __syncthreads();
    if (t < span) {
        std::uint32_t myLo = 0xFFFFFFFFu, myHi = 0u, myFirst = kNoPoint;
        const std::size_t total = n * dims;
        for (std::size_t e = t; e < total; e += span) {
            const float v = x[e];
            if (v != v) continue;
            const std::uint32_t o = floatToOrdered(v);
            myLo = min(myLo, o);
            myHi = max(myHi, o);
            if (myFirst == kNoPoint) myFirst = std::uint32_t(e / dims);
        }
        const unsigned slot = threadIdx.x % slots;
        atomicMin(&sLo[slot], myLo);
        atomicMax(&sHi[slot], myHi);
        atomicMin(&sFirst[slot], myFirst);
    }
    __syncthreads();
    if (threadIdx.x < slots && start + threadIdx.x < span) {
        const std::size_t j = (start + threadIdx.x) % dims;
        if (sFirst[threadIdx.x] != kNoPoint) {
            atomicMin(&lo[j], sLo[threadIdx.x]);
            atomicMax(&hi[j], sHi[threadIdx.x]);
            atomicMin(&first[j], sFirst[threadIdx.x]);
        }
    }
}

__global__ void centreKernel(const float* x, std::size_t dims, const std::uint32_t* lo,
                             const std::uint32_t* hi, const std::uint32_t* first, double* centre) {
    const std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (j >= dims) return;
    const double l = orderedToFloatDevice(lo[j]), h = orderedToFloatDevice(hi[j]);
    // No non-NaN value: lo = +inf, hi = -inf, so the general formula gives NaN as on the host.
    centre[j] =
        l == h ? double(x[std::size_t(first[j]) * dims + j]) : __dmul_rn(0.5, __dadd_rn(l, h));
}

__global__ void __launch_bounds__(kThreads)
    applyCentreKernel(float* x, std::size_t n, std::size_t dims, std::size_t span,
                      const double* centre, double scale) {
    const std::size_t t = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
    if (t >= span) return;
    const double c = centre[t % dims];
    const std::size_t total = n * dims;
    for (std::size_t e = t; e < total; e += span)
        x[e] = __double2float_rn(__dmul_rn(__dsub_rn(double(x[e]), c), scale));
}

}  // namespace

void launchRecentreBounds(const float* coords, std::size_t n, std::size_t dims,
                          std::uint32_t* words, double* centre, cudaStream_t stream) {
    if (n == 0 || dims == 0) return;
    std::uint32_t* lo = words;
    std::uint32_t* hi = words + dims;
    std::uint32_t* first = words + 2 * dims;
    const unsigned dimBlocks = unsigned((dims + kThreads - 1) / kThreads);
    initBoundsKernel<<<dimBlocks, kThreads, 0, stream>>>(lo, hi, first, dims);
    CS_CUDA_CHECK_LAUNCH();
    const Walk w = walkFor(n, dims);
    coordBoundsKernel<<<w.blocks, kThreads, 0, stream>>>(coords, n, dims, w.span, lo, hi, first);
    CS_CUDA_CHECK_LAUNCH();
    centreKernel<<<dimBlocks, kThreads, 0, stream>>>(coords, dims, lo, hi, first, centre);
    CS_CUDA_CHECK_LAUNCH();
}

void launchApplyCentre(float* coords, std::size_t n, std::size_t dims, const double* centre,
                       double scale, cudaStream_t stream) {
    if (n == 0 || dims == 0) return;
    const Walk w = walkFor(n, dims);
    applyCentreKernel<<<w.blocks, kThreads, 0, stream>>>(coords, n, dims, w.span, centre, scale);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
