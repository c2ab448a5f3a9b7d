// SPDX-License-Identifier: MIT
#pragma once

// Launchers of the k-Shape kernels (kshape_kernels.cu). Asynchronous on `stream`; each checks
// its launch. Matrices are row-major unless said otherwise.

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <cstdint>

namespace cs::kernels {

/// norms[r] = the Euclidean norm (double) of row r of rows x m floats.
void launchKShapeNorms(const float* x, std::size_t rows, std::size_t m, double* norms,
                       cudaStream_t stream);
/// out (rows x fftLength) = each row of x (rows x m) followed by zeros.
void launchKShapePad(const float* x, std::size_t rows, std::size_t m, std::size_t fftLength,
                     float* out, cudaStream_t stream);
/// out[(i k + j) bins + f] = the sum over channels d of centroid j's spectrum of channel d at f
/// times the conjugate of series i's of channel d (spectra rows (i channels + d), bins apart),
/// for series [0, n) and centroids [0, k): the spectra of their cross-correlations summed over
/// the channels.
void launchKShapeCrossSpectra(const cufftComplex* series, const cufftComplex* centroids,
                              std::size_t n, std::size_t k, std::size_t channels, std::size_t bins,
                              cufftComplex* out, cudaStream_t stream);
/// out[(r channels + d) bins + f] = the spectrum of channel d of centroid labels[r] times the
/// conjugate of series r's, for series [0, count) (series and labels start at the batch's
/// first): each channel's cross-correlation with its own centroid's channel.
void launchKShapeChannelCrossSpectra(const cufftComplex* series, const cufftComplex* centroids,
                                     const std::int32_t* labels, std::size_t count,
                                     std::size_t channels, std::size_t bins, cufftComplex* out,
                                     cudaStream_t stream);
/// For series [first, first + count): channelShifts[i channels + d] = the best (first) shift of
/// channel d of series i onto channel d of its centroid labels[i], from cc (row
/// (i - first) channels + d of fftLength: launchKShapeChannelCrossSpectra's inverse
/// transforms); the NCC's norms are rowNorms[i channels + d] and
/// centroidRowNorms[labels[i] channels + d].
void launchKShapeChannelShifts(const float* cc, std::size_t first, std::size_t count,
                               std::size_t channels, std::size_t m, std::size_t fftLength,
                               const double* rowNorms, const double* centroidRowNorms,
                               const std::int32_t* labels, std::int32_t* channelShifts,
                               cudaStream_t stream);
/// For series [first, first + count): from the circular cross-correlations cc ((i - first) k + j
/// rows of fftLength, unnormalised inverse transforms), the NCC at every shift of every centroid,
/// the best (first) shift per centroid, and the centroid of smallest SBD (ties: the lower):
/// labels, distances (SBD) and shifts of those series.
void launchKShapeAssign(const float* cc, std::size_t first, std::size_t count, std::size_t k,
                        std::size_t m, std::size_t fftLength, const double* seriesNorms,
                        const double* centroidNorms, std::int32_t* labels, float* distances,
                        std::int32_t* shifts, cudaStream_t stream);
/// For the members (indices into x, n x channels x m), channel `channel`: raw (members x m
/// floats) = that channel of the member shifted by shifts[member channels + channel]
/// (zero-filled; not shifted when align is false), z (column-major m x members doubles) = that
/// row z-normalised (a constant row becomes zeros); *varying = 1 when some row is not constant
/// (else left as it is).
void launchKShapeAlign(const float* x, std::size_t m, std::size_t channels, std::size_t channel,
                       const std::int32_t* members, std::size_t count, const std::int32_t* shifts,
                       bool align, float* raw, double* z, unsigned* varying, cudaStream_t stream);
/// launchKShapeAlign for every cluster at once: members (n, every cluster's in cluster order,
/// cluster j's from starts[j] up to starts[j + 1]; k + 1 starts) into rows of raw and columns of
/// z at their positions; a member is shifted when align[its cluster] != 0, and varying[j] = 1
/// when a row of cluster j is not constant.
void launchKShapeAlignClusters(const float* x, std::size_t m, std::size_t channels,
                               std::size_t channel, const std::int32_t* members, std::size_t n,
                               const std::int32_t* starts, std::size_t k,
                               const std::int32_t* shifts, const std::uint8_t* align, float* raw,
                               double* z, unsigned* varying, cudaStream_t stream);
/// Largest series length of launchKShapeSmallShapes: M (m x m doubles) in one block's shared
/// memory (an H100/H200 block has 227 KiB).
inline constexpr std::size_t kKShapeSmallShapeSide = 160;
/// The whole shape step of channel `channel` of every cluster j < k (kshape.h's Length path), a
/// block each, after launchKShapeAlignClusters: centroid row j channels + channel of centroids
/// (m floats each); powerSteps as the host's power iteration. status[j]: 0 no member varies (the
/// centroid is zeros), 1 done, 2 the iteration failed its check (the centroid is untouched: the
/// host solves that cluster densely).
void launchKShapeSmallShapes(const float* raw, const double* z, std::size_t m,
                             const std::int32_t* starts, std::size_t k, std::size_t channels,
                             std::size_t channel, const unsigned* varying, int powerSteps,
                             float* centroids, std::int32_t* status, cudaStream_t stream);
/// out (side doubles) = kshapePowerStart(side): the power iteration's start, not normalised.
void launchKShapeRamp(double* out, std::size_t side, cudaStream_t stream);
/// s (m x m, symmetric) becomes P s P with P = I - 11^T / m; scratch: m + 1 doubles.
void launchKShapeCentre(double* s, std::size_t m, double* scratch, cudaStream_t stream);
/// One normalised power step's second half: v = w / ||w||; delta[0] = ||v_new - v_old||^2 and
/// delta[1] = ||w|| (one block; m up to any size).
void launchKShapeNormalise(const double* w, double* v, std::size_t m, double* delta,
                           cudaStream_t stream);
/// sums[0] += sum over members of ||raw_r - c||, sums[1] += ... ||raw_r + c|| (c: m doubles).
void launchKShapeSignSums(const float* raw, std::size_t count, std::size_t m, const double* c,
                          double* sums, cudaStream_t stream);
/// out (m floats) = z-normalised sign * c (population sd; zeros when constant).
void launchKShapeCentroid(const double* c, std::size_t m, double sign, float* out,
                          cudaStream_t stream);

}  // namespace cs::kernels
