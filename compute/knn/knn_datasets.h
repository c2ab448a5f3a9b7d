// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compute/core/point_set.h"
#include "compute/core/sparse_set.h"

namespace cs {

// Deterministic point sets for kNN-graph benchmarks and tests: the same arguments give the same
// float32 points on every platform (randomness from cs::Random, maths in double).

/// The benchmark distributions of `clusterscope-cli bench knn --dist`.
enum class KnnDistribution {
    Blobs,    ///< makeBlobPoints (compute/dbscan/dbscan_datasets.h): 50 Gaussian blobs + 5 % noise
    Uniform,  ///< makeUniformPoints (compute/dbscan/dbscan_datasets.h)
    Embed,    ///< makeEmbedPoints: low-dimensional blobs embedded in d dimensions
    Sparse,   ///< makeSparseKnnRows: near-duplicate sparse rows (PointSet::sparse)
};
/// "blobs", "uniform", "embed", "sparse" and back; parse throws cs::Error on other text.
std::string_view toString(KnnDistribution dist);
KnnDistribution parseKnnDistribution(std::string_view text);

/// Intrinsic dimension of makeEmbedPoints.
inline constexpr std::size_t kKnnEmbedIntrinsicDims = 6;

/// PyRKNN's "Embed" kind of data: points with a low intrinsic dimension in a high-dimensional
/// space. 20 Gaussian blobs (sd 1) with centres uniform in [-10, 10]^6, mapped to d dimensions by
/// a fixed random linear map A (d x 6, standard normal entries / sqrt(6); no rotation is
/// imposed), plus uniform noise in [-0.1, 0.1) in every coordinate, so the d - 6 directions off
/// the embedded subspace hold noise only. Drawn from cs::Random(seed): first A row by row, then
/// the centres, then per point the blob, 6 normals and d noise values.
PointSet makeEmbedPoints(std::size_t n, std::size_t dims, std::uint64_t seed);

/// Entries per row of makeSparseKnnRows' prototypes.
inline constexpr std::size_t kKnnSparseRowEntries = 40;

/// Sparse rows with a neighbourhood structure, as near-duplicate documents have: n / 20
/// prototypes of kKnnSparseRowEntries distinct columns (uniform over the `dims` columns, values
/// 0.5 + |N(0, 1)|), and each row a copy of a random prototype that keeps each entry with
/// probability 0.9, scales it by 1 + 0.2 N(0, 1), and adds 4 random columns of value U(0, 0.5)
/// (a column already there keeps its value). So a row's nearest rows are mostly its
/// prototype's other copies. Drawn from cs::Random(seed); needs dims >= 2 *
/// kKnnSparseRowEntries. The rows are valid CSR (SparseSet::validate).
SparseSet makeSparseKnnRows(std::size_t n, std::size_t dims, std::uint64_t seed);

/// The point set of `dist` (for Sparse: the rows in PointSet::sparse, their 3-D principal
/// components as the coordinates, as a sparse file opens).
/// @code auto pts = cs::makeKnnDataset(cs::KnnDistribution::Embed, 100'000, 128, 1); @endcode
PointSet makeKnnDataset(KnnDistribution dist, std::size_t n, std::size_t dims, std::uint64_t seed);

}  // namespace cs
