// SPDX-License-Identifier: MIT
#pragma once

// The distance geometry every method and backend shares (DBSCAN's eps test, the kNN graph's
// neighbour order, the views' centre): coordinates re-centred in double, and one canonical float
// squared distance.

#include <cmath>
#include <cstddef>
#include <vector>

#include "compute/core/point_set.h"

namespace cs {

/// Float32 coordinates re-centred on the bounding-box midpoint (computed in double, so every
/// backend gets identical values regardless of summation order); row-major N x d. Re-centring
/// keeps the float distance tests precise on clouds far from the origin (georeferenced scans).
std::vector<float> recentredCoords(const PointSet& points);

/// The canonical squared distance: sum over j of (a_j - b_j)^2, accumulated in float in
/// dimension order without fused multiply-add (CUDA: __fmul_rn/__fadd_rn). Every backend's
/// final eps test uses exactly this.
inline float canonicalDist2(const float* a, const float* b, std::size_t dims) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < dims; ++j) {
        const float diff = a[j] - b[j];
        sum = sum + diff * diff;  // compute/ builds with -ffp-contract=off: never an FMA
    }
    return sum;
}

/// The widest per-dimension gap |a_j - b_j| of a pair that passes canonicalDist2 <= eps2: fl(t^2)
/// <= eps2 with t = fl(a_j - b_j) gives t^2 <= eps2 (1 + 2^-23) + 2^-149 (underflow), and
/// |a_j - b_j| <= |t| (1 + 2^-23); the factors below are looser. Every grid (CPU and GPU) sizes
/// its cells and stencils from this one bound, so they propose the same candidates.
inline double canonicalReach(float eps2) {
    return std::sqrt(double(eps2) * (1.0 + 1e-6) + 0x1p-149) * (1.0 + 1e-6);
}

}  // namespace cs
