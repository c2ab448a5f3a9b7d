// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/core/point_set.h"
#include "compute/core/series_set.h"

namespace cs::demo {

/// The built-in 3-D point scene, generated from a seed (no file): shaped clusters of different
/// densities — Gaussian blobs, a ring, a spiral, a plane — plus uniform noise, with a
/// Kind::Label attribute "truth" (shape index, -1 for noise). Same n and seed, same points.
/// Shapes (categories of "truth"): "blob 1" .. "blob 4" (Gaussian, sigma 6, 3, 8, 1.5),
/// "ring" (torus, radius 28), "spiral" (Swiss-roll sheet), "plane" (tilted 60 x 40 patch), and
/// 5 % uniform noise over [-100, 100]^3; every shape is at least ~10 units from the others.
/// DBSCAN with eps = 2.5, minPts = 10 finds the seven shapes at n = 200k (plus a few tiny
/// fragments in the sparse tail of blob 3); the sheets are the sparsest parts, so scale eps
/// about as sqrt(200k / n) for other n. The scene for a smaller n is a prefix of the scene for
/// a larger n (same seed). Generated on all cores, deterministically (the same on any core
/// count). Throws cs::Error for n = 0 or n > 200 million.
/// @code cs::PointSet scene = cs::demo::makeDemoPoints(1'000'000, 42); @endcode
PointSet makeDemoPoints(std::size_t n, std::uint64_t seed = 1);

/// The built-in time-series set: `classes` shape classes (sine, square, sawtooth, bump, chirp
/// ...) with random shifts, amplitude jitter and noise; univariate, equal length, labelled,
/// with a 50/50 train/test split (isTest alternates; series 2j and 2j+1 share a class). Past 8
/// classes the shapes repeat at higher frequencies ("sine 2" ...). Throws cs::Error for n = 0,
/// length < 8, classes = 0 or > n, or more than 2^30 values.
SeriesSet makeDemoSeries(std::size_t n = 600, std::size_t length = 256, std::size_t classes = 5,
                         std::uint64_t seed = 1);

}  // namespace cs::demo
