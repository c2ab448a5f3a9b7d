// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launchers of the kNN-graph kernels (knn_kernels.cu). g++ compiles the
// orchestration (knn_gpu.cpp) against this header. Every launcher is asynchronous on `stream`
// and checks its launch.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// Rows (threads) per block of the leaf and sample kernels.
inline constexpr int kKnnRowsPerBlock = 128;
/// Candidates per shared-memory tile.
inline constexpr int kKnnTile = 32;

/// Dimensions padded for the structure-of-arrays layouts: d for d <= 4 rounded up to 4, else a
/// multiple of 16 (the chunk the kernels stream through shared memory; padding adds exact zeros).
int knnPaddedDims(int dims);

/// proj[l * n + i] = knnProjection(point i, direction l) for every level l < levels: coords
/// n x dims row-major, directions levels x dims row-major.
void launchKnnProjections(const float* coords, std::size_t n, int dims, const float* directions,
                          int levels, float* proj, cudaStream_t stream);

/// The keys of one tree level, laid out by point: keys[i] = (node of point i, the knnSortKey
/// bits of proj[i]) with the node (of position position[i]; 0 at level 0, where position may be
/// null) in the high word, ids[i] = i. A stable sort of them (sortPairs on the 32 + level
/// bits in use) orders every node by (projection, index), as knnSortKey does.
void launchKnnLevelKeys(const float* proj, const std::uint32_t* position, std::size_t n, int level,
                        std::uint64_t* keys, std::uint32_t* ids, cudaStream_t stream);
/// position[order[p]] = p.
void launchKnnPositions(const std::uint32_t* order, std::size_t n, std::uint32_t* position,
                        cudaStream_t stream);
/// order[p] = p (a tree without levels).
void launchKnnIdentity(std::size_t n, std::uint32_t* order, cudaStream_t stream);
/// out[r k + c] = dist2[rows[r] k + c]: the lists' squared distances of some points (what the
/// recall compares).
void launchKnnGatherRows(const float* dist2, int k, const std::uint32_t* rows, std::size_t count,
                         float* out, cudaStream_t stream);
/// The same for the lists' indices: out[r k + c] = index[rows[r] k + c] (what merging the lists
/// of several devices needs).
void launchKnnGatherRowIndices(const std::int32_t* index, int k, const std::uint32_t* rows,
                               std::size_t count, std::int32_t* out, cudaStream_t stream);

/// Structure of arrays: soa[j * stride + p] = coords[ids[p] * dims + j] for p < count, j < dims;
/// rows dims .. dPad - 1 and columns count .. stride - 1 zero.
void launchKnnGatherSoa(const float* coords, int dims, int dPad, const std::uint32_t* ids,
                        std::size_t count, std::size_t stride, float* soa, cudaStream_t stream);

/// Fills n * k list slots with the empty entry (infinity, INT32_MAX).
void launchKnnClearLists(float* dist2, std::int32_t* index, std::size_t slots, cudaStream_t stream);

/// One tree's leaf search: every point of every leaf [offsets[s], offsets[s + 1]) (tree
/// positions; soa is the tree-ordered structure of arrays, order maps positions to point ids)
/// meets every other point of its leaf; lists (point id x k, sorted by (dist2, index)) keep the
/// k smallest pairs without repeats. maxLeaf: the largest leaf. idOf (may be null): the point
/// index the lists hold for each id of order, when the ids are rows of a share of the points
/// (the lists stay by row).
void launchKnnLeafSearch(const float* soa, std::size_t stride, int dPad, const std::uint32_t* order,
                         const std::int32_t* idOf, const std::uint32_t* offsets, std::size_t leaves,
                         int maxLeaf, int k, float* dist2, std::int32_t* index,
                         cudaStream_t stream);

/// The same for the leaves listed[0 .. count) (indices into offsets' leaves).
void launchKnnLeafSearchListed(const float* soa, std::size_t stride, int dPad,
                               const std::uint32_t* order, const std::int32_t* idOf,
                               const std::uint32_t* offsets, const std::uint32_t* listed,
                               std::size_t count, int maxLeaf, int k, float* dist2,
                               std::int32_t* index, cudaStream_t stream);

/// Blocks of launchKnnLeafSearch (kKnnRowsPerBlock rows each) that one multiprocessor of the
/// current device holds at once for these padded dimensions and k. Throws CudaError.
int knnLeafSearchBlocksPerMultiprocessor(int dPad, int k);

/// Candidates per chunk of launchKnnExactPartial: ceil(count / chunks).
std::size_t knnExactChunkLength(std::size_t count, std::size_t chunks);
/// Exact neighbours of `rows` points (rowSoa: dPad x rowStride, ids rowIds) among `count`
/// candidates (candSoa: dPad x candStride, ids candIds), in `chunks` chunks of candidates:
/// partial lists at ((chunk * rows + r) * k), each sorted by (dist2, index), self excluded.
/// One launch searches the part [from, to) of every chunk (offsets within it); parts after the
/// first (from > 0) continue the lists the earlier parts left.
void launchKnnExactPartial(const float* rowSoa, std::size_t rowStride, const std::uint32_t* rowIds,
                           std::size_t rows, const float* candSoa, std::size_t candStride,
                           const std::uint32_t* candIds, std::size_t count, int dPad, int k,
                           std::size_t chunks, std::size_t from, std::size_t to, float* dist2,
                           std::int32_t* index, cudaStream_t stream);
/// Merges the chunks partial lists of each row into its first (chunk 0) list.
void launchKnnMergePartial(float* dist2, std::int32_t* index, std::size_t rows, std::size_t chunks,
                           int k, cudaStream_t stream);

/// Rows' lists put in place: dist2[rows[r] k + c] = fromDist2[r k + c], the same for index.
void launchKnnScatterRows(const float* fromDist2, const std::int32_t* fromIndex, int k,
                          const std::uint32_t* rows, std::size_t count, float* dist2,
                          std::int32_t* index, cudaStream_t stream);

/// distances[s] = correctly rounded sqrt(dist2[s]) for every slot.
void launchKnnSqrt(const float* dist2, std::size_t slots, float* distances, cudaStream_t stream);

}  // namespace cs::kernels
