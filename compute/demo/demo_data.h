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
/// @code cs::PointSet scene = cs::demo::makeDemoPoints(1'000'000, 42); @endcode
PointSet makeDemoPoints(std::size_t n, std::uint64_t seed = 1);

/// The built-in time-series set: `classes` shape classes (sine, square, sawtooth, bump, chirp
/// ...) with random shifts, amplitude jitter and noise; univariate, equal length, labelled,
/// with a 50/50 train/test split.
SeriesSet makeDemoSeries(std::size_t n = 600, std::size_t length = 256, std::size_t classes = 5,
                         std::uint64_t seed = 1);

}  // namespace cs::demo
