// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/series_set.h"

namespace cs {

// k-Shape (Paparrizos & Gravano, SIGMOD 2015) as Times-C runs it on the GPU, and as the
// reference implementation kshape-python's KShapeClusteringCPU does (centroid_init "zero"):
//  - input: one channel of every series, z-normalised over its true length (mean and population
//    standard deviation in double; a constant series becomes zeros), zero after its end, length
//    m = the set's length (kshapeInput());
//  - SBD(x, y) = 1 - max_w NCC_w(x, y): NCC_w is the cross-correlation of x and y at shift w in
//    [-(m - 1), m - 1] divided by ||x|| ||y|| (0 when either norm is 0); the best shift is the
//    first (smallest w) of the maximum; y aligned to x is y shifted by w, zero-filled
//    (shift > 0 moves y later in time);
//  - start: labels drawn by cs::Random(seed).below(k) for every series in order; centroids zero;
//  - each iteration: (1) every cluster's shape: its members (in index order) aligned to the
//    current centroid by SBD (not aligned while the centroid is all zeros), each aligned member
//    z-normalised (a constant one becomes zeros), S = sum of a a^T, M = P S P with
//    P = I - 11^T / m; the centroid c is M's unit eigenvector of the largest eigenvalue, negated
//    when sum ||a - c|| >= sum ||a + c|| over the aligned (not z-normalised) members
//    (kshape-python's rule), then z-normalised; an empty cluster's centroid is zeros; (2) every
//    series goes to the centroid of smallest SBD (ties: the lower cluster);
//  - it stops when no label changed in an iteration, or after maxIterations.
// Empty clusters are kept, not removed or re-seeded: a k far above the set's natural count
// leaves some clusters without members, with zero centroids (at convergence; without it, a
// cluster emptied by the last assignment still shows the centroid of its former members). A
// zero centroid's SBD to every series is 1, so a series joins it again only when no centroid
// correlates positively with it at any shift. This is kshape-python's rule before April 2023
// (`_extract_shape` returned zeros for an empty cluster); since then, KShapeClusteringCPU
// included, it takes a random series drawn with NumPy's global generator, which is not
// reproduced here. The results say how many clusters are empty (kshapeClusterSizes: the CLI's
// `empty_clusters`, the panel's statistics), since `converged` alone reads as success.
// Backends agree within float rounding (FFT and eigen solver orders differ): the same labels
// except where two SBDs are within rounding of each other, centroids within a stated tolerance.

/// k-Shape parameters.
struct KShapeParams {
    int k = 3;                ///< clusters (1 .. n)
    int maxIterations = 100;  ///< iterations at most (>= 1)
    std::uint64_t seed = 1;   ///< the initial random labels
    std::size_t channel = 0;  ///< the channel clustered (multivariate sets)
};

/// k-Shape's output for N series of length m.
struct KShapeResult {
    std::vector<std::int32_t> labels;  ///< cluster per series, 0 .. k-1
    std::vector<float> centroids;      ///< k x m, z-normalised (zeros for an empty cluster)
    std::vector<float> distances;      ///< SBD of every series to its own centroid
    std::vector<std::int32_t> shifts;  ///< the best shift of every series against it
    ///< (sbdDirect(centroid, series)'s: the series shifted by it is aligned to the centroid)
    std::size_t length = 0;  ///< m
    int k = 0;
    int iterations = 0;      ///< iterations run
    bool converged = false;  ///< stopped because no label changed
    /// Labels and centroids as the backend left them in device memory (the CUDA backend); null
    /// on the CPU. Not part of the result's value.
    std::shared_ptr<const DeviceResident> device;

    std::span<const float> centroid(int c) const {
        return {centroids.data() + std::size_t(c) * length, length};
    }
};

/// Series per cluster by the final labels, and how many of the k clusters have none.
struct KShapeClusterSizes {
    std::vector<std::size_t> sizes;  ///< k entries
    std::size_t empty = 0;           ///< clusters of size 0
};
/// @code auto [sizes, empty] = cs::kshapeClusterSizes(result); @endcode
KShapeClusterSizes kshapeClusterSizes(const KShapeResult& result);

/// Throws cs::Error when k < 1, maxIterations < 1, or the set cannot be clustered with them
/// (fewer than k series, length < 2, channel out of range, no series).
void validateKShape(const SeriesSet& series, const KShapeParams& params);

/// The clustered series: n x m floats as described above.
std::vector<float> kshapeInput(const SeriesSet& series, std::size_t channel);

/// SBD of x and y (equal lengths) by the definition above, computed directly in double (O(m^2));
/// the oracle of the FFT versions. shift receives the best shift when not null.
double sbdDirect(std::span<const float> x, std::span<const float> y, int* shift = nullptr);

/// y shifted by `shift` (> 0: later), zero-filled.
std::vector<float> shiftZeroFilled(std::span<const float> y, int shift);

/// v z-normalised in place over its whole length (mean and population standard deviation in
/// double); a constant v becomes zeros. (Added for the backends and tests.)
void zNormaliseInPlace(std::span<float> v);

/// The FFT size the CPU backend pads series of length m to: the smallest 2^a 3^b 5^c 7^d
/// >= 2m - 1. (Added.)
std::size_t kshapeFftSize(std::size_t m);

/// Agreement of a clustering with ground truth (labels < 0 are left out): Rand index, adjusted
/// Rand index, normalised mutual information (arithmetic mean of the entropies, as
/// scikit-learn's default).
struct ClusterAgreement {
    double randIndex = 0.0;
    double adjustedRandIndex = 0.0;
    double normalizedMutualInformation = 0.0;
    std::size_t compared = 0;  ///< series with a truth label
};
ClusterAgreement clusterAgreement(std::span<const std::int32_t> labels,
                                  std::span<const std::int32_t> truth);

}  // namespace cs
