// SPDX-License-Identifier: MIT
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>

namespace cs {

/// Mean and population standard deviation of v[0..count) in double, two passes (the sums in
/// index order, so every caller gets the same values): the z-normalisation of ROCKET's and
/// k-Shape's inputs. count must be >= 1.
inline std::pair<double, double> meanAndSd(const float* v, std::size_t count) {
    double sum = 0.0;
    for (std::size_t t = 0; t < count; ++t)
        sum += double(v[t]);
    const double mean = sum / double(count);
    double squares = 0.0;
    for (std::size_t t = 0; t < count; ++t) {
        const double d = double(v[t]) - mean;
        squares += d * d;
    }
    return {mean, std::sqrt(squares / double(count))};
}

}  // namespace cs
