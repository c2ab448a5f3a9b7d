// SPDX-License-Identifier: MIT
#pragma once

// Ordered floats (nvcc only): floats mapped to unsigned words with the same order.

#include <cuda_runtime.h>

#include <cstdint>

namespace cs::kernels::detail {

// Maps floats to unsigned words with the same order, so atomicMin/atomicMax on words compute
// float minima and maxima (-0 sorts below +0; both compare equal as floats afterwards).

__device__ __forceinline__ std::uint32_t floatToOrdered(float f) {
    const std::uint32_t u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ float orderedToFloatDevice(std::uint32_t o) {
    return __uint_as_float((o & 0x80000000u) ? (o & 0x7FFFFFFFu) : ~o);
}

}  // namespace cs::kernels::detail
