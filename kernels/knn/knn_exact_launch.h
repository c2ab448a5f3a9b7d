// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launchers of the kNN searches on tensor cores (knn_exact_kernels.cu): the exact
// all-points graph and the leaves of the forest. FP16 tensor-core distances choose candidates
// within a proven error bound, canonicalDist2 re-ranks them, so the lists are the exact ones
// (compute/knn/knn_graph.h's order). Every
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

/// What the tensor-core search reads: the FP16 copy (rows x dH, scaled, zero-padded; by
/// position, see KnnTensorWork::order), its FP32 squared norms and norm upper bounds (one per
/// row), and the coordinates it re-ranks with.
struct KnnTensorInputs {
    const std::uint16_t* half = nullptr;
    int dH = 0;
    const float* norm2 = nullptr;
    const float* normUp = nullptr;
    float normMax = 0;              ///< the largest normUp
    float scale = 1;                ///< s, the FP16 copy's power-of-two scale (knnTensorScale)
    std::size_t n = 0;              ///< points
    const float* coords = nullptr;  ///< by row, dims each, row-major (what canonicalDist2 reads)
    int dims = 0;
    int k = 0;
    KnnTensorBound bound;  ///< knnTensorBound(dims, dH)
};

/// What one launch searches: ranges of positions of the FP16 copy, each cut into row tiles of
/// kKnnTensorTile; every row of a range meets every other position of the same range. Work items
/// [firstItem, firstItem + items) are (range item / rowTiles, row tile item % rowTiles).
struct KnnTensorWork {
    /// Range r is [offsets[r], offsets[r + 1]) (leaves of a tree); null: the one range [0, n).
    const std::uint32_t* offsets = nullptr;
    std::size_t rowTiles = 0;  ///< row tiles of the largest range
    std::size_t firstItem = 0;
    std::size_t items = 0;
    /// The largest norm bound of each range (null: KnnTensorInputs::normMax for all).
    const float* rangeNormMax = nullptr;
    /// The row at each position of the copy (null: the position itself).
    const std::uint32_t* order = nullptr;
    /// The point index a list holds for each row (null: the row itself; a rank's share of the
    /// points has its own).
    const std::int32_t* idOf = nullptr;
    /// Leaves: each row's lists hold k sorted entries already, which bound its search and which
    /// its best candidates are merged into, and a range with a row that overflowed is listed
    /// (whole) for the CUDA cores. Otherwise (the exact graph) the lists are written and the
    /// overflowing rows listed.
    bool merge = false;
    std::size_t firstRange = 0;  ///< the index range 0 of this launch is listed under
};

/// The lists (by row, k each, (dist2, index) ascending) and what is left to the CUDA cores.
struct KnnTensorOutput {
    float* dist2 = nullptr;
    std::int32_t* index = nullptr;
    std::uint32_t* overflow = nullptr;       ///< rows, or (merge) ranges
    std::uint32_t* overflowCount = nullptr;  ///< entries of overflow
    std::uint32_t* rangeListed = nullptr;    ///< merge: per range, set once it is listed
};

/// The FP16 copy's width: dims rounded up to the pipeline's chunk (64).
int knnTensorDims(int dims);
/// Blocks a launch of the tensor-core search keeps resident (two per multiprocessor); each
/// takes knnTensorWorkspaceBytes(1) of workspace.
std::size_t knnTensorResidentBlocks(int device);
/// Device workspace of a launch of `blocks` blocks (their candidate buffers).
std::size_t knnTensorWorkspaceBytes(std::size_t blocks);

/// *bits = the bits of max |x[i]| (a non-negative float).
void launchKnnMaxAbs(const float* x, std::size_t count, unsigned* bits, cudaStream_t stream);
/// The FP16 copy of coords (n rows x dims) times scale, nPad x dH, zero-padded; position p holds
/// row order[p] (null: p). norm2[p] is its FP32 squared norm (+inf for padding positions),
/// normUp[p] = sqrt(norm2[p] * normFactor) rounded up.
void launchKnnTensorPrepare(const float* coords, std::size_t n, int dims,
                            const std::uint32_t* order, std::size_t nPad, int dH, float scale,
                            float normFactor, std::uint16_t* half, float* norm2, float* normUp,
                            cudaStream_t stream);
/// The FP16 copy of the leaves [offsets[l], offsets[l + 1]) for l < leaves, each centred on its
/// centroid c: position p holds s (x - c) for x = row order[p] (see knnTensorBound's
/// `centred`), with norm2 and normUp as above; leafNormMax[l] is the leaf's largest normUp.
/// Positions outside the leaves are left as they are.
void launchKnnTensorPrepareLeaves(const float* coords, int dims, const std::uint32_t* order,
                                  const std::uint32_t* offsets, std::size_t leaves, int dH,
                                  float scale, float normFactor, std::uint16_t* half, float* norm2,
                                  float* normUp, float* leafNormMax, cudaStream_t stream);
/// The work's rows against their ranges: each row's exact k nearest of its range (self
/// excluded) written, or merged into its list, except where candidates overflowed (see
/// KnnTensorWork::merge). At most `blocks` blocks (the workspace's) run, each taking items in
/// turn.
void launchKnnTensorSearch(const KnnTensorInputs& in, const KnnTensorWork& work,
                           const KnnTensorOutput& out, void* workspace, std::size_t blocks,
                           cudaStream_t stream);

}  // namespace cs::kernels
