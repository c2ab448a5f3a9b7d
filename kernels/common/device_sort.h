// SPDX-License-Identifier: MIT
#pragma once

// CUB's device-wide radix sort and prefix sums, wrapped once for every kernel folder (bodies in
// device_sort.cu, the only place that includes CUB). Each pair of calls works as CUB's: ask for
// the scratch bytes, allocate them, run on a stream; asynchronous, each call checked.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// Scratch bytes sortPairs needs for n pairs.
std::size_t sortPairsTempBytes(std::size_t n);
/// Stable radix sort of (key, value) pairs on the low `bits` bits of the keys; results in
/// keysOut / valuesOut.
void sortPairs(void* temp, std::size_t tempBytes, const std::uint64_t* keysIn,
               std::uint64_t* keysOut, const std::uint32_t* valuesIn, std::uint32_t* valuesOut,
               std::size_t n, unsigned bits, cudaStream_t stream);

/// Scratch bytes inclusiveScan and exclusiveScan need for n values.
std::size_t scanTempBytes(std::size_t n);
/// out[i] = sum of in[0..i]; in and out may be the same.
void inclusiveScan(void* temp, std::size_t tempBytes, const std::uint32_t* in, std::uint32_t* out,
                   std::size_t n, cudaStream_t stream);
/// out[i] = sum of in[0..i); in and out may be the same.
void exclusiveScan(void* temp, std::size_t tempBytes, const std::uint32_t* in, std::uint32_t* out,
                   std::size_t n, cudaStream_t stream);

/// Scratch bytes sortFloats needs for n values.
std::size_t sortFloatsTempBytes(std::size_t n);
/// Ascending radix sort of n floats.
void sortFloats(void* temp, std::size_t tempBytes, const float* in, float* out, std::size_t n,
                cudaStream_t stream);

}  // namespace cs::kernels
