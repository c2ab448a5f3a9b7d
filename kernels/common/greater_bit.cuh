// SPDX-License-Identifier: MIT
#pragma once

// Counting comparisons on the GPU.

namespace cs::kernels {

/// 1 where y > b, else 0, for a y that is not NaN and a b that is not -0 (add +0 to a bias
/// that may be): the sign of b - y, which rounding to nearest makes +0 where they are equal and
/// never 0 where they are not. A count kept as `n += greaterBit(y, b)` takes two instructions a
/// comparison, where the compiler turns `n += y > b` into three (a comparison, an add and a
/// predicated move).
__device__ __forceinline__ unsigned greaterBit(float y, float b) {
    return __float_as_uint(__fsub_rn(b, y)) >> 31;
}

}  // namespace cs::kernels
