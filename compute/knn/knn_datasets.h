// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compute/core/point_set.h"

namespace cs {

// Deterministic point sets for kNN-graph benchmarks and tests: the same arguments give the same
// float32 points on every platform (randomness from cs::Random, maths in double).

/// The benchmark distributions of `clusterscope-cli bench knn --dist`.
enum class KnnDistribution {
    Blobs,    ///< makeBlobPoints (compute/dbscan/dbscan_datasets.h): 50 Gaussian blobs + 5 % noise
    Uniform,  ///< makeUniformPoints (compute/dbscan/dbscan_datasets.h)
    Embed,    ///< makeEmbedPoints: low-dimensional blobs embedded in d dimensions
};
/// "blobs", "uniform", "embed" and back; parse throws cs::Error on other text.
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

/// The point set of `dist`.
/// @code auto pts = cs::makeKnnDataset(cs::KnnDistribution::Embed, 100'000, 128, 1); @endcode
PointSet makeKnnDataset(KnnDistribution dist, std::size_t n, std::size_t dims, std::uint64_t seed);

}  // namespace cs
