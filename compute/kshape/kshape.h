// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/series_set.h"

namespace cs {

class JobControl;

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
//    (kshape-python's rule), then z-normalised; an empty cluster's centroid is zeros, and so is
//    the centroid of a cluster whose aligned members are all constant (M = 0: no direction is
//    preferred, so there is no shape); (2) every series goes to the centroid of smallest SBD
//    (ties: the lower cluster);
//  - it stops when no label changed in an iteration, or after maxIterations.
// Multivariate k-Shape (all C channels of a set together), as kshape-python's _kshape runs it
// on an n x m x C array, with C = 1 the definition above exactly:
//  - input: every channel of every series z-normalised on its own over the series' true length
//    (as above), zero after its end: a series is C x m (channel-major), kshapeInput(set,
//    std::nullopt); kshape-python takes its array as given, so it was fed these values when
//    its labels were compared with ours (tst_kshape: identical on BasicMotions);
//  - SBD(x, y) = 1 - max_w NCC_w(x, y) with ONE shift w for all channels: NCC_w is the sum over
//    channels of the channels' cross-correlations at w, divided by the norms of the whole C x m
//    series, ||x||_F ||y||_F (0 when either is 0); ties as above. This is the assignment's
//    distance, and the result's shift and distance of every series;
//  - the shape of a cluster is found channel by channel, each channel as a univariate k-Shape
//    would (step (1) above on that channel alone): a member's channel d is aligned to the
//    centroid's channel d by the univariate SBD of the two (its own shift, not the shared one;
//    not aligned while that centroid channel is all zeros), and the centroid's channel d is the
//    shape of those aligned channels, zero when they are all constant. kshape-python does so
//    (`_extract_shape` per channel on x[:, :, d]); an empty cluster's centroid is zeros in every
//    channel, as above.
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
//
// The shape without M (both backends; kshapeShapeSolverFor): the aligned members z-normalised are
// the rows of Y (count x m), and every row has mean zero, so S = Y^T Y maps the constants to zero
// and P S P = S. Its dominant eigenvector is therefore reachable three ways, all exact up to
// rounding: from S itself (m x m), from the Gram Y Y^T (count x count: v = Y^T u / ||Y^T u|| for
// its dominant u; the two share their non-zero eigenvalues), or by power iteration that never
// forms either (S v = Y^T (Y v): two products with Y, O(count m) memory). A long series takes
// the last, so memory grows with n m, never with m^2.

/// How the shape of a cluster of `count` members of length m is computed.
enum class KShapeShapeSolver {
    Length,  ///< M = P S P (m x m) formed and solved densely: short series, as before
    Gram,    ///< the Gram Y Y^T (count x count) formed and solved densely; v = Y^T u normalised
    Power,   ///< power iteration on S v = Y^T (Y v), never forming S (rule below)
};

/// Largest side of a matrix the shape step forms on its main path (8 MiB of doubles).
inline constexpr std::size_t kKShapeDenseSide = 1024;
/// Largest side formed when the power iteration fails its check: the smaller of count and m
/// (S or the Gram) is then solved densely; beyond it the iteration goes on to
/// kKShapePowerCapSteps and its vector is kept (below).
inline constexpr std::size_t kKShapeFallbackSide = 4096;
/// Power steps between two convergence checks (and cancellation checkpoints).
inline constexpr int kKShapePowerCheckEvery = 16;
/// Settled: ||v_new - v_old||^2 at most this at a check.
inline constexpr double kKShapePowerSettled = 1e-20;
/// Passed: settled, l = v^T S v > 0 and ||S v - l v|| <= this * l.
inline constexpr double kKShapePowerResidual = 1e-7;
/// Power steps on the matrix-free path before the fallback.
inline constexpr int kKShapePowerSteps = 2048;
/// Power steps in all when the fallback does not fit: the vector is then kept whatever the
/// check says. A power iteration only crawls when the top eigenvalues nearly tie, and then its
/// vector already scores nearly the top value of v^T S v, the quantity the shape maximises
/// (the Rayleigh quotient never decreases along the iteration).
inline constexpr int kKShapePowerCapSteps = 8192;

/// Length when m <= kKShapeDenseSide (the results of short series stay what they were), else
/// Gram when count <= kKShapeDenseSide, else Power. The CPU solves Length and Gram with Eigen;
/// the GPU forms the same matrix and runs the power iteration on it (cuSOLVER when that fails).
/// @code if (cs::kshapeShapeSolverFor(40, 20000) == cs::KShapeShapeSolver::Gram) { ... } @endcode
KShapeShapeSolver kshapeShapeSolverFor(std::size_t count, std::size_t m);

/// The power iteration's start (side doubles, not normalised): a ramp, never constant (P's null
/// space) and rarely orthogonal to the top eigenvector.
std::vector<double> kshapePowerStart(std::size_t side);

/// The descriptor's channel value (the word "all") for all channels together.
inline constexpr std::int64_t kKShapeAllChannels = -1;

/// k-Shape parameters.
struct KShapeParams {
    int k = 3;                ///< clusters (1 .. n)
    int maxIterations = 100;  ///< iterations at most (>= 1)
    std::uint64_t seed = 1;   ///< the initial random labels
    /// The one channel clustered; empty: all channels together (multivariate k-Shape above),
    /// which on a univariate set is channel 0.
    std::optional<std::size_t> channel;
};

/// Channels per series of the clustering: the set's when params.channel is empty, else 1.
std::size_t kshapeChannelCount(const SeriesSet& series, const KShapeParams& params);

/// k-Shape's output for N series of length m.
struct KShapeResult {
    std::vector<std::int32_t> labels;  ///< cluster per series, 0 .. k-1
    /// k x channels x m, each channel z-normalised (zeros for an empty cluster)
    std::vector<float> centroids;
    std::vector<float> distances;      ///< SBD of every series to its own centroid
    std::vector<std::int32_t> shifts;  ///< the best shift of every series against it
    ///< (sbdDirect(centroid, series)'s: the series shifted by it is aligned to the centroid)
    std::size_t length = 0;    ///< m
    std::size_t channels = 1;  ///< channels per centroid (kshapeChannelCount)
    int k = 0;
    int iterations = 0;      ///< iterations run
    bool converged = false;  ///< stopped because no label changed
    /// Labels and centroids as the backend left them in device memory (the CUDA backend); null
    /// on the CPU. Not part of the result's value.
    std::shared_ptr<const DeviceResident> device;

    /// Centroid c, channels x m.
    std::span<const float> centroid(int c) const {
        return {centroids.data() + std::size_t(c) * channels * length, channels * length};
    }
};

/// Series per cluster by the final labels, and how many of the k clusters have none.
struct KShapeClusterSizes {
    std::vector<std::size_t> sizes;  ///< k entries
    std::size_t empty = 0;           ///< clusters of size 0
};
/// @code auto [sizes, empty] = cs::kshapeClusterSizes(result); @endcode
KShapeClusterSizes kshapeClusterSizes(const KShapeResult& result);

/// Longest series k-Shape takes: 2^29 samples, so that the FFT length (about 2 m) and every
/// shift fit the 32-bit sizes of FFTW, cuFFT and cuBLAS. Memory runs out long before on most
/// machines (README: k-Shape's memory).
inline constexpr std::size_t kKShapeMaxLength = std::size_t(1) << 29;

/// Throws cs::Error when k < 1, maxIterations < 1, or the set cannot be clustered with them
/// (fewer than k series, length < 2 or above kKShapeMaxLength, channel out of range, no
/// series, no channels).
void validateKShape(const SeriesSet& series, const KShapeParams& params);

/// The clustered series as described above: n x m floats for one channel, n x C x m for all
/// (channel empty). With a job, a cancel stops it between blocks of rows (it takes hundreds of
/// ms at Times-C's sizes).
std::vector<float> kshapeInput(const SeriesSet& series, std::optional<std::size_t> channel,
                               JobControl* job = nullptr);

/// SBD of x and y (equal sizes, `channels` x m each, channel-major) by the definition above,
/// computed directly in double (O(C m^2)); the oracle of the FFT versions. shift receives the
/// best (shared) shift when not null. Throws cs::Error when the sizes differ or do not split
/// into `channels`.
double sbdDirect(std::span<const float> x, std::span<const float> y, int* shift = nullptr,
                 std::size_t channels = 1);

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
