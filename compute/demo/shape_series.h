// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/core/series_set.h"

namespace cs::demo {

// Deterministic labelled series for the series methods' benchmarks and tests (ROCKET, k-Shape):
// the same arguments give the same float32 values on every platform (randomness from
// cs::Random, maths in double).

/// Classes of makeShapeSeries.
inline constexpr std::size_t kShapeSeriesClasses = 4;

/// n labelled series of `length` samples and `channels` channels, four classes of noisy shapes
/// (class i % 4 for series i): 0 a sine of 2 to 4 periods, 1 a square wave of as many, 2 a
/// Gaussian bump at a random place, 3 a random walk. Each series has a random phase or place,
/// amplitude in [0.5, 2), offset in [-1, 1), each channel its own phase shift, plus Gaussian
/// noise (sd 0.3). Drawn from cs::Random(seed) series after series. Names "sine", "square",
/// "bump", "walk"; source "generated:shapes".
/// @code cs::SeriesSet s = cs::demo::makeShapeSeries(200, 150, 1, 1); @endcode
SeriesSet makeShapeSeries(std::size_t n, std::size_t length, std::size_t channels,
                          std::uint64_t seed);

}  // namespace cs::demo
