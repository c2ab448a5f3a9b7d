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

class JobControl;

/// The power of two every point method multiplies re-centred coordinates by, so that squared
/// distances neither overflow nor underflow float32: 1 when the cloud's widest extent (largest
/// hi - lo over the dimensions, in double) lies in [2^-32, 2^32], which holds every cloud in
/// ordinary units, so their values do not change at all; otherwise 2^-e with the widest extent
/// in [2^(e-1), 2^e), which brings it into [0.5, 1). Within that range a squared coordinate
/// difference that is not zero is at least (2^-32 2^-24)^2 = 2^-112 and a sum of d of them at
/// most d 2^64: float holds both. Multiplying by a power of two is exact in float, so a test
/// on scaled values against a scaled eps is the same test, and a scaled distance divided by the
/// scale is the same distance, bit for bit.
double distanceScale(double widestExtent);

/// A point set's coordinates as every point method measures them.
struct RecentredCoords {
    /// float((x - centre) * scale) rounded once from double, row-major N x d, with the centre
    /// the bounding-box midpoint (computed in double, so every backend gets identical values
    /// regardless of summation order). Re-centring keeps the float distance tests precise on
    /// clouds far from the origin (georeferenced scans).
    std::vector<float> coords;
    double scale = 1.0;  ///< distanceScale(): distances here are the data's times scale
};
/// The per-coordinate range of the points, in double (lo = +inf, hi = -inf when empty).
struct CoordinateBox {
    std::vector<double> lo, hi;
};
CoordinateBox coordinateBox(const PointSet& points);
/// recentredCoords in a given box: the points' own, or one that holds them and more (a
/// distributed build's box of all ranks' points, so every rank recentres as one process does).
/// With a job, the copy checks it as it goes (its hundreds of megabytes are slow to map).
RecentredCoords recentredCoordsIn(const PointSet& points, const CoordinateBox& box,
                                  JobControl* job = nullptr);
RecentredCoords recentredCoords(const PointSet& points);

/// A distance in the data's units (eps) in the recentred frame: eps * scale, exact as float
/// unless it leaves float's range (then 0 or infinity, which no data distance can reach
/// either).
inline float toRecentred(float distance, double scale) {
    return static_cast<float>(double(distance) * scale);
}

/// Distances measured in the recentred frame back to the data's units, in place (exact).
void fromRecentred(std::vector<float>& distances, double scale);

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
