// SPDX-License-Identifier: MIT
#pragma once

// Host-callable launchers of the DBSCAN and k-distance kernels, and the plain structs they
// share with the device code. g++ compiles the orchestration (dbscan_gpu.cpp) against this
// header; the bodies live in the .cu files of this folder. Every launcher is asynchronous on
// `stream` and checks its launch (CS_CUDA_CHECK_LAUNCH).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// "No point": an empty union-find slot, no nearest core, no representative.
inline constexpr std::uint32_t kNoPoint = 0xFFFFFFFFu;
/// Columns of the largest stencil: (2 * 2 + 1)^2 for d = 3 with cells of side eps / sqrt(3).
inline constexpr int kMaxStencilColumns = 25;
/// Threads per block of the paper's tiled kernel (d <= 3): also its tile of points.
inline constexpr int kBruteTile = 128;
/// Points per tile and dimensions per chunk of the register-tiled kernel for any d.
inline constexpr int kWideTile = 32;
inline constexpr int kWideChunk = 16;

// ---------------------------------------------------------------------------------------------
// Uniform grid (d <= 3)
// ---------------------------------------------------------------------------------------------

/// Lattice geometry, chosen on the host: cell coordinate j of x is
/// clamp(floor((x_j - origin_j) * invSide_j), 0, cells_j - 1), computed in double. Keys pack
/// the cell coordinates with the last dimension lowest, so a "column" (all but the last
/// coordinate fixed) is a contiguous run of keys, cells and sorted points.
struct GridGeometry {
    int dims = 0;                        ///< 1 to 3
    double origin[3] = {0, 0, 0};        ///< lattice origin (the bounding box's low corner)
    double side[3] = {1, 1, 1};          ///< cell side per dimension
    double invSide[3] = {1, 1, 1};       ///< 1 / side
    std::uint32_t cells[3] = {1, 1, 1};  ///< cells per dimension
    unsigned shift[3] = {0, 0, 0};       ///< bit position of each coordinate in the key
    unsigned bits[3] = {0, 0, 0};        ///< bits of each coordinate in the key
    int radius[3] = {1, 1, 1};           ///< stencil half-width in cells (neighbour search)
};

/// A built grid on the device; points in cell order. Passed to kernels by value.
struct GridView {
    GridGeometry geo;
    std::uint32_t n = 0;                         ///< points
    std::uint32_t cellCount = 0;                 ///< non-empty cells
    std::uint32_t columnCount = 0;               ///< non-empty columns
    const float* pos = nullptr;                  ///< n x 4 floats (x, y, z, 0) in cell order
    const std::uint32_t* orig = nullptr;         ///< sorted position -> input index
    const std::uint32_t* pointCell = nullptr;    ///< sorted position -> cell
    const std::uint64_t* cellKey = nullptr;      ///< cellCount keys, ascending
    const std::uint32_t* cellStart = nullptr;    ///< cellCount + 1 point offsets
    const float* cellLo = nullptr;               ///< cellCount x 4: box low corner
    const float* cellHi = nullptr;               ///< cellCount x 4: box high corner
    const std::uint8_t* cellClique = nullptr;    ///< 1: every pair of the cell is within eps
    const std::uint32_t* cellRep = nullptr;      ///< lowest core position of the cell or kNoPoint
    const std::uint32_t* columnStart = nullptr;  ///< columnCount + 1 cell offsets
    const std::uint64_t* hashKeys = nullptr;     ///< open addressing: column key or ~0
    const std::uint32_t* hashColumn = nullptr;   ///< column index of each slot
    std::uint32_t hashMask = 0;                  ///< table size - 1 (a power of two minus one)
    int columnOffsets = 0;                       ///< entries of columnOffset
    /// Neighbour column offsets (first d - 1 dimensions), nearest first; (0, 0) first.
    signed char columnOffset[kMaxStencilColumns][2] = {};
};

/// Bounding box and finiteness of n x dims row-major points: out[0..2] ordered-float low
/// corner, out[3..5] high corner (dims <= 3 only), out[6] = 1 when any value is not finite.
/// out must be pre-set by initPointBounds.
void launchPointBounds(const float* coords, std::size_t n, int dims, std::uint32_t* out,
                       cudaStream_t stream);
/// Sets out (7 words) to the empty box and "all finite".
void initPointBounds(std::uint32_t* out, cudaStream_t stream);
// Ordered-float words written by launchPointBounds decode with orderedToFloat
// (kernels/common/device_points.h).

/// Cell key and identity index per input point.
void launchGridKeys(const float* coords, std::size_t n, const GridGeometry& geo,
                    std::uint64_t* keys, std::uint32_t* index, cudaStream_t stream);
/// Sorted coordinates (x, y, z, 0) and the head flags of cells (1 where the key changes).
void launchGridGather(const float* coords, int dims, const std::uint64_t* sortedKeys,
                      const std::uint32_t* sortedIndex, std::size_t n, float* pos,
                      std::uint32_t* headFlags, cudaStream_t stream);
/// From the scanned head flags (pointCell = cell of each position): cellStart and cellKey of
/// every cell, and cellStart[cellCount] = n.
void launchGridCells(const std::uint64_t* sortedKeys, const std::uint32_t* pointCell, std::size_t n,
                     std::uint32_t* cellStart, std::uint64_t* cellKey, cudaStream_t stream);
/// Cell boxes (exact float min / max of the member coordinates) and the clique flag
/// canonicalDist2(hi, lo) <= eps2. lo/hi hold cellCount x 4 words; the call initialises them.
void launchGridBoxes(const GridView& grid, float eps2, float* lo, float* hi, std::uint8_t* clique,
                     cudaStream_t stream);
/// sumSq[0] += sum over cells of size^2 (the mean cell size a point sees is sumSq / n), but
/// size * min(size, cap) for clique cells: built with eps2 = 0, those hold one point repeated,
/// and the k-distance search of each copy stops after k of them (cap = k). sumSq must be
/// zeroed before.
void launchCellOccupancy(const GridView& grid, unsigned long long cap, unsigned long long* sumSq,
                         cudaStream_t stream);
/// Column head flags over cells (1 where the column key changes).
void launchColumnFlags(const GridView& grid, std::uint32_t* flags, cudaStream_t stream);
/// columnStart of every column from the scanned flags; columnStart[columnCount] = cellCount;
/// fills the open-addressing table (hashKeys pre-set to ~0 by the call).
void launchGridColumns(const GridView& grid, const std::uint32_t* cellColumn,
                       std::uint32_t* columnStart, std::uint64_t* hashKeys,
                       std::uint32_t* hashColumn, cudaStream_t stream);

/// Points whose neighbour search would scan more than this many candidates serially are handed
/// to a warp each (count and border), so that a few points next to huge cells do not make the
/// whole launch wait for one thread.
inline constexpr std::uint32_t kGridScanBudget = 1024;

/// Core flags on the grid (dense clique cells at once, else counts with early exit). work holds
/// n + 1 words of scratch (a list of hard points and its length). counts (optional, n words in
/// sorted order): each point's neighbours within eps where the count stopped, exact below
/// minPts and >= minPts otherwise.
void launchGridCount(const GridView& grid, float eps2, int minPts, std::uint8_t* core,
                     std::uint32_t* work, cudaStream_t stream, std::uint32_t* counts = nullptr);
/// cellRep (lowest core position per cell; pre-set to kNoPoint by the call) and the initial
/// union-find forest: core points of a clique cell hang under its representative.
void launchGridLinkCells(const GridView& grid, const std::uint8_t* core, std::uint32_t* cellRep,
                         std::uint32_t* parent, cudaStream_t stream);
/// Unites core points within eps: clique cells against clique cells of the half stencil, one
/// thread per cell, near ring then outer ring; points of non-clique cells, and of cells whose
/// search ran out of budget, one thread each. deferred: cellCount bytes of scratch.
void launchGridUnion(const GridView& grid, float eps2, const std::uint8_t* core,
                     std::uint32_t* parent, std::uint8_t* deferred, cudaStream_t stream);
/// Nearest core point (by canonicalDist2, ties: lowest input index) of every non-core point
/// within eps, as a sorted position, or kNoPoint. work as for launchGridCount.
void launchGridBorder(const GridView& grid, float eps2, const std::uint8_t* core,
                      std::uint32_t* nearest, std::uint32_t* work, cudaStream_t stream);
/// k-distance by expanding rings of cells; out in input order. kMax: 16, 64 or 256.
void launchGridKDistance(const GridView& grid, int k, int kMax, float* out, cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// Brute force (the seed paper's kernel, any d)
// ---------------------------------------------------------------------------------------------

/// Structure-of-arrays copy X[j * stride + i] of row-major points, zero-padded to dPad
/// dimensions and stride points, and the hoisted squared norms P[i] (float, FMA).
void launchBruteLayout(const float* coords, std::size_t n, int dims, int dPad, std::size_t stride,
                       float* soa, float* norms, cudaStream_t stream);
/// Largest norm of each tile of `tile` points.
void launchTileMax(const float* norms, std::size_t n, int tile, float* tileMax,
                   cudaStream_t stream);

/// Inputs of the brute kernels.
struct BruteView {
    std::uint32_t n = 0;             ///< points
    int dims = 0;                    ///< d
    int dPad = 0;                    ///< rows of soa (d for d <= 3, else a multiple of kWideChunk)
    std::size_t stride = 0;          ///< columns of soa (n rounded up to a tile)
    const float* soa = nullptr;      ///< dPad x stride
    const float* rows = nullptr;     ///< the row-major input (n x d), for exact rechecks
    const float* norms = nullptr;    ///< P[i]
    const float* tileMax = nullptr;  ///< max P per tile (kBruteTile for d <= 3, else kWideTile)
    float boundScale = 0.0f;         ///< (4 d + 16) 2^-24 (1 + 2^-10): see dbscan_brute.cu
};

/// One launch of the all-pairs kernels: rows [rowBegin, rowEnd) against columns (points)
/// [colBegin, colEnd). A row batch meets its columns in ascending ranges, one launch each, in
/// stream order; colBegin is a multiple of kBruteTile. What a row has seen so far is carried
/// between its ranges in per-row state indexed by i - rowBegin (`rows` entries per k-distance
/// value), so any split gives the same result as one launch over all columns.
struct BruteRange {
    std::uint32_t rowBegin = 0, rowEnd = 0;
    std::uint32_t colBegin = 0, colEnd = 0;
};

/// The DBSCAN passes of the all-pairs kernels, for bruteRowsPerWave.
enum class BrutePass { Count, Union, Border };
/// Rows that fill the current GPU once (multiprocessors x resident blocks x rows per block)
/// with a pass's kernel for view's d.
std::uint32_t bruteRowsPerWave(const BruteView& view, BrutePass pass);
/// The same for the all-pairs k-distance kernel of list size kMax (16, 64 or 256).
std::uint32_t bruteKDistanceRowsPerWave(int kMax);

/// Core flags of the range's rows (fused distance and count, early exit); counts carries the
/// neighbours seen so far, core is final after the last column range.
void launchBruteCount(const BruteView& view, float eps2, int minPts, const BruteRange& range,
                      std::uint32_t* counts, std::uint8_t* core, cudaStream_t stream);
/// Unites the range's core rows with its core columns after them within eps (no state: unions
/// commute).
void launchBruteUnion(const BruteView& view, float eps2, const std::uint8_t* core,
                      std::uint32_t* parent, const BruteRange& range, cudaStream_t stream);
/// Nearest core point (or kNoPoint) of the range's non-core rows; best carries its dist2,
/// nearest[i] its index.
void launchBruteBorder(const BruteView& view, float eps2, const std::uint8_t* core,
                       const BruteRange& range, float* best, std::uint32_t* nearest,
                       cudaStream_t stream);
/// k-distance of the range's rows (exact canonical sums, any d): top carries each row's k
/// smallest values, top[m * rows + (i - rowBegin)]; out[i] is final after the last range.
void launchBruteKDistance(const BruteView& view, int k, int kMax, const BruteRange& range,
                          float* top, std::size_t rows, float* out, cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// Merge: union-find roots, canonical labels
// ---------------------------------------------------------------------------------------------

/// parent[i] = i.
void launchIdentity(std::uint32_t* parent, std::size_t n, cudaStream_t stream);
/// core[i] = counts[i] >= minPts: one MinPts of a sweep from counts made for the largest.
void launchCoreFromCounts(const std::uint32_t* counts, std::size_t n, int minPts,
                          std::uint8_t* core, cudaStream_t stream);
/// root[p]: the union-find root of core p, of p's nearest core (nearest may be null: star),
/// or kNoPoint; then minOrig[root] = the lowest input index of the cluster (pre-set by the
/// call). orig may be null (identity).
void launchRoots(const std::uint8_t* core, std::uint32_t* parent, const std::uint32_t* nearest,
                 const std::uint32_t* orig, std::size_t n, std::uint32_t* root,
                 std::uint32_t* minOrig, cudaStream_t stream);
/// first[minOrig[r]] = 1 for every root r (first pre-zeroed by the call).
void launchClusterHeads(const std::uint32_t* root, const std::uint32_t* minOrig, std::size_t n,
                        std::uint32_t* first, cudaStream_t stream);
/// labels[orig p] = clusterId[minOrig[root p]] or -1; isCore[orig p] = core[p];
/// count[0] = clusterId[n - 1] + first[n - 1] (clusterId: the exclusive scan of first).
void launchLabels(const std::uint8_t* core, const std::uint32_t* root, const std::uint32_t* minOrig,
                  const std::uint32_t* clusterId, const std::uint32_t* first,
                  const std::uint32_t* orig, std::size_t n, std::int32_t* labels,
                  std::uint8_t* isCore, std::uint32_t* count, cudaStream_t stream);
/// The statistics of canonical labels: counts[0..3] = core, border and noise points and the
/// largest cluster's size; sizes: clusters words of scratch (members per cluster id).
void launchDbscanStats(const std::int32_t* labels, const std::uint8_t* isCore, std::size_t n,
                       std::size_t clusters, std::uint32_t* sizes, std::uint32_t* counts,
                       cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// Overlap of two clusterings (CudaBackend::clusterOverlap)
// ---------------------------------------------------------------------------------------------

/// Scratch bytes launchOverlapPairs needs for n points.
std::size_t overlapPairsTempBytes(std::size_t n);
/// The non-empty cells of the contingency table of labels a and b (n points each), noise left
/// out: a point in cluster x of a and y of b has the key x * countB + y, others the noise key
/// countA * countB; the keys are sorted and counted run by run. Ends with *runs distinct keys in
/// ascending order in the returned buffer (keys or spare), their points in points[0, *runs);
/// the last run is the noise key's when any point is noise on either side. keys, spare and
/// points hold n each, temp overlapPairsTempBytes(n).
const std::uint64_t* launchOverlapPairs(const std::int32_t* a, const std::int32_t* b, std::size_t n,
                                        std::uint32_t countA, std::uint32_t countB,
                                        std::uint64_t* keys, std::uint64_t* spare,
                                        std::uint32_t* points, std::uint32_t* runs, void* temp,
                                        std::size_t tempBytes, cudaStream_t stream);

}  // namespace cs::kernels
