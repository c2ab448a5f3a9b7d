// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compute/core/point_set.h"
#include "compute/core/random.h"

namespace cs {

// Deterministic point sets for DBSCAN tests and benchmarks: the same arguments give the same
// float32 points on every platform and compiler (randomness from cs::Random).

/// The benchmark distributions of `clusterscope-cli bench dbscan --dist`.
enum class DbscanDistribution {
    Uniform,       ///< makeUniformPoints
    Blobs,         ///< makeBlobPoints
    Dense,         ///< makeDenseBall
    SeedSpreader,  ///< makeSeedSpreaderPoints
};
/// "uniform", "blobs", "dense", "seed-spreader" and back; parse throws cs::Error on other text.
std::string_view toString(DbscanDistribution dist);
DbscanDistribution parseDbscanDistribution(std::string_view text);

/// N points uniform in the cube [0, L)^d with L = (N V_d / m)^(1/d), V_d = pi^(d/2) /
/// Gamma(d/2 + 1) the volume of the unit d-ball: a point away from the faces then has on
/// average m other points within distance 1 (m + 1 with itself), so eps = 1 is the natural
/// scale.
/// Points near the faces have fewer; in high d (>~ 10) the faces dominate and the formula is
/// only nominal (L < 1 there).
PointSet makeUniformPoints(std::size_t n, std::size_t dims, std::uint64_t seed,
                           double meanNeighbours = 20.0);

/// The peers' benchmark case: 50 Gaussian blobs (sd 2 per coordinate) with centres uniform in
/// [-100, 100]^d, each point in a blob drawn uniformly at random; the first 5 % of the points
/// (floor(0.05 N)) are uniform noise in [-110, 110]^d. Meant for eps = 1, minPts = 10.
PointSet makeBlobPoints(std::size_t n, std::size_t dims, std::uint64_t seed);

/// N points uniform in the d-ball of radius 2 eps around the origin: everything is within
/// 4 eps, most cells are dense (the grid's all-core shortcut), and brute force is the worst case.
PointSet makeDenseBall(std::size_t n, std::size_t dims, float eps, std::uint64_t seed);

/// Gan & Tao's "seed spreader" (SIGMOD 2015, "DBSCAN Revisited", section 7; the same
/// generator as ParGeo's simden): a seed starts at a uniform point of [0, domain]^d; each point
/// is uniform in the ball of radius `vicinity` around the seed; after `resetEvery` points the
/// seed moves `shift` (default 50 d) in a uniformly random direction; before each point the
/// seed restarts at a uniform point with probability `restarts` / (N (1 - noise)), so about
/// `restarts` + 1 random walks ("clusters"); the last noise N points are uniform in the domain.
struct SeedSpreaderParams {
    double domain = 1e5;           ///< coordinates in [0, domain]^d (walks may step a bit out)
    std::size_t resetEvery = 100;  ///< points per seed position (c_reset)
    double vicinity = 100.0;       ///< ball radius around the seed (r_vicinity)
    double shift = 0.0;            ///< seed step length; 0: 50 d, as in the paper
    double restarts = 10.0;        ///< expected number of restarts over the clustered points
    double noise = 1e-4;           ///< fraction of uniform noise points (rho_noise)
};
/// Points from the seed spreader; Gan & Tao's experiments use eps = 5000, minPts = 100 on it
/// (dbscanDatasetDefaults).
PointSet makeSeedSpreaderPoints(std::size_t n, std::size_t dims, std::uint64_t seed,
                                const SeedSpreaderParams& params = {});

/// eps and minPts that give each distribution meaningful structure.
struct DbscanDatasetDefaults {
    float eps = 1.0f;  ///< neighbourhood radius
    int minPts = 10;   ///< core threshold
};
/// uniform/blobs/dense: eps 1, minPts 10; seed-spreader: eps 5000, minPts 100.
DbscanDatasetDefaults dbscanDatasetDefaults(DbscanDistribution dist);

/// The point set of `dist` (dense uses eps for its radius).
/// @code auto pts = cs::makeDbscanDataset(cs::DbscanDistribution::Blobs, 100'000, 3, 1.0f, 1);
/// @endcode
PointSet makeDbscanDataset(DbscanDistribution dist, std::size_t n, std::size_t dims, float eps,
                           std::uint64_t seed);

/// The sizes of the seed paper's (CUDA DBSCAN) measurements: 23,040 and
/// 60,032 3-D points. The paper used its own data, which we do not have; benchmarks at these
/// sizes use makeBlobPoints(n, 3, seed) with eps 1, minPts 10 instead.
inline constexpr std::array<std::size_t, 2> kDbscanPaperSizes = {23'040, 60'032};
/// kDbscanPaperSizes, for callers that prefer a function.
inline constexpr std::array<std::size_t, 2> paperSizes() {
    return kDbscanPaperSizes;
}

}  // namespace cs
