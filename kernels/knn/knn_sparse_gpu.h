// SPDX-License-Identifier: MIT
#pragma once

// The kNN graph of sparse rows on the GPU, identical to knnGraphSparseCpu (the spec is
// compute/knn/knn_sparse_cpu.h). Host-only header. Per tree: the sparse x dense projections,
// the dense path's tree (one stable radix sort per level), then the sparse leaf kernel. The
// recall sample's exact neighbours are a brute force on the device (knnExactRowsSparseCuda, the
// host's knnExactRowsSparse bit for bit). Stages as the dense path's.

#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/sparse_set.h"
#include "compute/knn/knn_graph.h"
#include "kernels/common/device_buffer.h"

namespace cs::kernels {

class StreamHandles;

/// Device memory the sparse build needs, an upper bound used to refuse what does not fit.
std::size_t knnSparseDeviceBytes(const SparseSet& rows, const KnnParams& params);

/// knnExactRowsSparse (compute/knn/knn_sparse_cpu.h) on the device, bit for bit: the exact k
/// nearest rows of the listed rows, self excluded, (dist2, index) order; dist2 gets their
/// squared distances. Throws cs::Error on a bad k or row, cs::Cancelled between launches.
std::vector<std::int32_t> knnExactRowsSparseCuda(StreamHandles& ctx, const SparseSet& rows,
                                                 std::span<const std::int32_t> listed, int k,
                                                 std::vector<float>& dist2, JobControl& job);

/// The kNN graph of sparse rows, identical to knnGraphSparseCpu. With keepIndices, the device
/// neighbour indices are moved there. Throws cs::Error on bad parameters or input or too little
/// free device memory; cs::Cancelled when the job is cancelled (between trees and batches).
/// @code cs::KnnGraph g = cs::kernels::knnGraphSparseCuda(ctx, rows, {.k = 10}, job); @endcode
KnnGraph knnGraphSparseCuda(StreamHandles& ctx, const SparseSet& rows, const KnnParams& params,
                            JobControl& job, DeviceBuffer<std::int32_t>* keepIndices = nullptr);

}  // namespace cs::kernels
