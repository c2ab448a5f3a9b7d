// SPDX-License-Identifier: MIT
#pragma once

// The 3-D view of sparse rows on the GPU: sparsePcaCoords's iteration (compute/core/
// sparse_pca.h) over device products. The column layout (used columns, entries by column,
// column means) is built on the device by a stable radix sort of the entries by column; the
// sparse x dense products are warp-per-row kernels, the Gram matrices and rotations cuBLAS
// DGEMMs, all in double. The host keeps only the width x width matrices and makes every
// decision, so the view is the host's up to rounding. Host-only header.

#include <cstddef>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/sparse_set.h"

namespace cs::kernels {

class StreamHandles;

/// Device memory sparseViewCuda needs at its peak, an upper bound.
std::size_t sparseViewDeviceBytes(const SparseSet& rows);

/// sparsePcaCoords(rows, 1, &job) with the products on ctx's device. Throws CudaError (a
/// DeviceError) when the device fails or runs out of memory, cs::Cancelled between products.
/// @code std::vector<float> xyz = cs::kernels::sparseViewCuda(ctx, rows, job); @endcode
std::vector<float> sparseViewCuda(StreamHandles& ctx, const SparseSet& rows, JobControl& job);

}  // namespace cs::kernels
