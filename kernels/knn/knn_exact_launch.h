// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launchers of the exact all-points kNN on tensor cores (knn_exact_kernels.cu):
// FP16 tensor-core distances choose candidates within a proven error bound, canonicalDist2
// re-ranks them, so the lists are the exact ones (compute/knn/knn_graph.h's order). Every
// launcher is asynchronous on `stream` and checks its launch.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "compute/knn/knn_tensor_bound.h"

namespace cs::kernels {

/// Query rows and candidates per block tile.
inline constexpr int kKnnTensorTile = 128;
/// Largest dimension the tensor-core search takes: a block's query rows stay in shared memory
/// (128 x 520 halves at 512). Wider sets use the CUDA-core exact search.
inline constexpr int kKnnTensorMaxDims = 512;

/// What the tensor-core search reads: the FP16 copy (nPad x dH, scaled, zero-padded), its FP32
/// squared norms and norm upper bounds (nPad each), and the coordinates it re-ranks with.
struct KnnTensorInputs {
    const std::uint16_t* half = nullptr;
    int dH = 0;
    const float* norm2 = nullptr;
    const float* normUp = nullptr;
    float normMax = 0;  ///< the largest normUp
    std::size_t n = 0;
    std::size_t nPad = 0;           ///< n rounded up to kKnnTensorTile
    const float* coords = nullptr;  ///< n x dims, row-major (what canonicalDist2 reads)
    int dims = 0;
    int k = 0;
    KnnTensorBound bound;  ///< knnTensorBound(dims, dH)
};

/// The FP16 copy's width: dims rounded up to the pipeline's chunk (64).
int knnTensorDims(int dims);
/// Device workspace of a launch of rowTiles query tiles (the candidate buffers).
std::size_t knnTensorWorkspaceBytes(std::size_t rowTiles);

/// *bits = the bits of max |x[i]| (a non-negative float).
void launchKnnMaxAbs(const float* x, std::size_t count, unsigned* bits, cudaStream_t stream);
/// The FP16 copy of coords (n x dims) times scale, nPad x dH, zero-padded; norm2[i] its FP32
/// squared norm (+inf for padding rows), normUp[i] = sqrt(norm2[i] * normFactor) rounded up.
void launchKnnTensorPrepare(const float* coords, std::size_t n, int dims, std::size_t nPad, int dH,
                            float scale, float normFactor, std::uint16_t* half, float* norm2,
                            float* normUp, cudaStream_t stream);
/// Query tiles [firstRowTile, firstRowTile + rowTiles) against every point: the exact lists
/// (k per row, (dist2, index) ascending, self excluded) of their rows, except the rows whose
/// candidates overflowed, which are appended to overflowRows (overflowCount counts them).
void launchKnnTensorExact(const KnnTensorInputs& in, std::size_t firstRowTile, std::size_t rowTiles,
                          void* workspace, float* dist2, std::int32_t* index,
                          std::uint32_t* overflowRows, std::uint32_t* overflowCount,
                          cudaStream_t stream);

}  // namespace cs::kernels
