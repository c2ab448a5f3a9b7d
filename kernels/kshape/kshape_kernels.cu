// SPDX-License-Identifier: MIT
// The k-Shape kernels (Times-C's stages): norms, padding for cuFFT, the element-wise cross
// spectra (summed over channels), the NCC maximum per (series, centroid) and the assignment,
// each channel's own shift onto its centroid's channel (multivariate), the alignment of a
// cluster's members, the centring P S P, the power iteration's start and normalisation, the sign
// rule and the z-normalised centroid. Conventions as compute/kshape/kshape.h.
#include <cfloat>

#include "compute/kshape/kshape.h"
#include "kernels/common/cuda_error.h"
#include "kernels/kshape/kshape_launch.h"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t work) {
    return unsigned((work + kThreads - 1) / kThreads);
}

// Sum of value over the block (kThreads threads), returned to every thread.
__device__ double blockSum(double value, double* scratch) {
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0) scratch[warp] = value;
    __syncthreads();
    double total = 0.0;
    for (int w = 0; w < kThreads / 32; ++w)
        total += scratch[w];
    return total;
}

__global__ void normsKernel(const float* x, std::size_t m, double* norms) {
    __shared__ double scratch[kThreads / 32];
    const float* row = x + std::size_t(blockIdx.x) * m;
    double sum = 0.0;
    for (std::size_t t = threadIdx.x; t < m; t += kThreads)
        sum += double(row[t]) * double(row[t]);
    sum = blockSum(sum, scratch);
    if (threadIdx.x == 0) norms[blockIdx.x] = sqrt(sum);
}

__global__ void padKernel(const float* x, std::size_t rows, std::size_t m, std::size_t length,
                          float* out) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= rows * length) return;
    const std::size_t r = e / length, t = e % length;
    out[e] = t < m ? x[r * m + t] : 0.0f;
}

// Series i and centroid j have `channels` spectra each, adjacent: the sum over channels of
// c_d * conj(s_d) is the spectrum of their summed cross-correlations (kshape.h, multivariate).
__global__ void crossSpectraKernel(const cufftComplex* series, const cufftComplex* centroids,
                                   std::size_t n, std::size_t k, std::size_t channels,
                                   std::size_t bins, cufftComplex* out) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= n * k * bins) return;
    const std::size_t f = e % bins, pair = e / bins;
    const std::size_t i = pair / k, j = pair % k;
    float re = 0.0f, im = 0.0f;
    for (std::size_t d = 0; d < channels; ++d) {
        const cufftComplex c = centroids[(j * channels + d) * bins + f];
        const cufftComplex s = series[(i * channels + d) * bins + f];
        re += c.x * s.x + c.y * s.y;  // c * conj(s)
        im += c.y * s.x - c.x * s.y;
    }
    out[e] = make_cuComplex(re, im);
}

// Channel d of series `local` against channel d of its own centroid (labels[local]): their
// cross spectrum alone, row local channels + d of out.
__global__ void channelCrossSpectraKernel(const cufftComplex* series, const cufftComplex* centroids,
                                          const std::int32_t* labels, std::size_t count,
                                          std::size_t channels, std::size_t bins,
                                          cufftComplex* out) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= count * channels * bins) return;
    const std::size_t f = e % bins, row = e / bins;
    const std::size_t local = row / channels, d = row % channels;
    const std::size_t centroidRow = std::size_t(labels[local]) * channels + d;
    const cufftComplex c = centroids[centroidRow * bins + f], s = series[row * bins + f];
    out[e] = make_cuComplex(c.x * s.x + c.y * s.y, c.y * s.x - c.x * s.y);
}

// The largest NCC of one circular cross-correlation r (fftLength floats, unnormalised) over the
// 2m - 1 shifts, the first on ties (shifts from -(m - 1) up), by the whole block; den = length
// times the two norms (0: every NCC is 0). Every thread returns the maximum and its index p
// (shift p - (m - 1)). The final barrier lets the caller call again at once with the same
// shared arrays.
__device__ void blockBestShift(const float* r, std::size_t m, std::size_t length, double den,
                               double* bestValue, int* bestIndex, double& value, int& index) {
    const int shiftsCount = int(2 * m - 1);
    double mine = -INFINITY;
    int at = shiftsCount;
    for (int p = threadIdx.x; p < shiftsCount; p += kThreads) {
        const long lag = long(p) - long(m - 1);
        const double v = den > 0.0 ? double(r[lag >= 0 ? lag : long(length) + lag]) / den : 0.0;
        if (v > mine) {  // p grows per thread: the first maximum stays
            mine = v;
            at = p;
        }
    }
    bestValue[threadIdx.x] = mine;
    bestIndex[threadIdx.x] = at;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            const double ov = bestValue[threadIdx.x + half];
            const int oi = bestIndex[threadIdx.x + half];
            if (ov > bestValue[threadIdx.x] ||
                (ov == bestValue[threadIdx.x] && oi < bestIndex[threadIdx.x])) {
                bestValue[threadIdx.x] = ov;
                bestIndex[threadIdx.x] = oi;
            }
        }
        __syncthreads();
    }
    value = bestValue[0];
    index = bestIndex[0];
    __syncthreads();
}

// One block per series: for every centroid the largest NCC over the 2m - 1 shifts, then the
// centroid of smallest SBD.
__global__ void assignKernel(const float* cc, std::size_t first, std::size_t k, std::size_t m,
                             std::size_t length, const double* seriesNorms,
                             const double* centroidNorms, std::int32_t* labels, float* distances,
                             std::int32_t* shifts) {
    __shared__ double bestValue[kThreads];
    __shared__ int bestIndex[kThreads];
    const std::size_t local = blockIdx.x, i = first + local;
    double bestDist = INFINITY;
    int bestLabel = 0, bestShift = 0;
    for (std::size_t j = 0; j < k; ++j) {
        const double den = seriesNorms[i] * centroidNorms[j] * double(length);
        double value = 0.0;
        int index = 0;
        blockBestShift(cc + (local * k + j) * length, m, length, den, bestValue, bestIndex, value,
                       index);
        const double dist = 1.0 - value;
        if (dist < bestDist) {  // strictly: the lower centroid on ties
            bestDist = dist;
            bestLabel = int(j);
            bestShift = index - int(m - 1);
        }
    }
    if (threadIdx.x == 0) {
        labels[i] = bestLabel;
        distances[i] = float(bestDist);
        shifts[i] = bestShift;
    }
}

// One block per channel row of the batch (series first + row / channels, channel
// row % channels): its own best shift onto its centroid's channel, from cc (rows of fftLength).
__global__ void channelShiftsKernel(const float* cc, std::size_t first, std::size_t channels,
                                    std::size_t m, std::size_t length, const double* rowNorms,
                                    const double* centroidRowNorms, const std::int32_t* labels,
                                    std::int32_t* channelShifts) {
    __shared__ double bestValue[kThreads];
    __shared__ int bestIndex[kThreads];
    const std::size_t row = blockIdx.x;
    const std::size_t i = first + row / channels, d = row % channels;
    const std::size_t seriesRow = i * channels + d;
    const std::size_t centroidRow = std::size_t(labels[i]) * channels + d;
    const double den = rowNorms[seriesRow] * centroidRowNorms[centroidRow] * double(length);
    double value = 0.0;
    int index = 0;
    blockBestShift(cc + row * length, m, length, den, bestValue, bestIndex, value, index);
    if (threadIdx.x == 0) channelShifts[seriesRow] = index - int(m - 1);
}

// The aligned row of channel `channel` of `member` (shifted by `shift`) into rawRow, and that
// row z-normalised into zRow, by the whole block; *varying = 1 when the row is not constant.
__device__ void alignRow(const float* x, std::size_t m, std::size_t channels, std::size_t channel,
                         std::size_t member, long shift, float* rawRow, double* zRow,
                         unsigned* varying, double* scratch) {
    const float* src = x + (member * channels + channel) * m;
    double sum = 0.0;
    for (std::size_t t = threadIdx.x; t < m; t += kThreads) {
        const long from = long(t) - shift;
        const float v = from >= 0 && from < long(m) ? src[from] : 0.0f;
        rawRow[t] = v;
        sum += double(v);
    }
    const double mean = blockSum(sum, scratch) / double(m);
    __syncthreads();
    double squares = 0.0;
    for (std::size_t t = threadIdx.x; t < m; t += kThreads) {
        const double d = double(rawRow[t]) - mean;
        squares += d * d;
    }
    const double sd = sqrt(blockSum(squares, scratch) / double(m));
    for (std::size_t t = threadIdx.x; t < m; t += kThreads)
        zRow[t] = sd > 0.0 ? (double(rawRow[t]) - mean) / sd : 0.0;
    if (threadIdx.x == 0 && sd > 0.0) *varying = 1u;  // every writer writes the same
}

// One block per member: its aligned row into row r of raw and column r of z.
__global__ void alignKernel(const float* x, std::size_t m, std::size_t channels,
                            std::size_t channel, const std::int32_t* members,
                            const std::int32_t* shifts, bool align, float* raw, double* z,
                            unsigned* varying) {
    __shared__ double scratch[kThreads / 32];
    const std::size_t r = blockIdx.x, member = std::size_t(members[r]);
    const long shift = align ? long(shifts[member * channels + channel]) : 0;
    alignRow(x, m, channels, channel, member, shift, raw + r * m, z + r * m, varying, scratch);
}

// One block per position r of members (every cluster's, in cluster order): the member's
// cluster by a binary search of starts, then alignKernel's row, aligned when align[cluster].
__global__ void alignClustersKernel(const float* x, std::size_t m, std::size_t channels,
                                    std::size_t channel, const std::int32_t* members,
                                    const std::int32_t* starts, std::size_t k,
                                    const std::int32_t* shifts, const std::uint8_t* align,
                                    float* raw, double* z, unsigned* varying) {
    __shared__ double scratch[kThreads / 32];
    const std::size_t r = blockIdx.x, member = std::size_t(members[r]);
    std::size_t lo = 0, hi = k;  // the last cluster whose start is <= r (empty ones skipped)
    while (hi - lo > 1) {
        const std::size_t mid = (lo + hi) / 2;
        if (std::size_t(starts[mid]) <= r)
            lo = mid;
        else
            hi = mid;
    }
    const long shift = align[lo] ? long(shifts[member * channels + channel]) : 0;
    alignRow(x, m, channels, channel, member, shift, raw + r * m, z + r * m, varying + lo, scratch);
}

// As kshapePowerStart, in the same double operations.
__global__ void rampKernel(double* out, std::size_t side) {
    const std::size_t a = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (a < side) out[a] = double(a) + 1.0 - double(side + 1) / 2.0 + 0.25;
}

__global__ void rowMeansKernel(const double* s, std::size_t m, double* means) {
    __shared__ double scratch[kThreads / 32];
    double sum = 0.0;
    for (std::size_t b = threadIdx.x; b < m; b += kThreads)
        sum += s[std::size_t(blockIdx.x) * m + b];
    sum = blockSum(sum, scratch);
    if (threadIdx.x == 0) means[blockIdx.x] = sum / double(m);
}

__global__ void totalMeanKernel(const double* means, std::size_t m, double* total) {
    __shared__ double scratch[kThreads / 32];
    double sum = 0.0;
    for (std::size_t a = threadIdx.x; a < m; a += kThreads)
        sum += means[a];
    sum = blockSum(sum, scratch);
    if (threadIdx.x == 0) *total = sum / double(m);
}

// s is symmetric, so its column means are its row means: (P s P)_ab = s_ab - r_a - r_b + t.
__global__ void centreKernel(double* s, std::size_t m, const double* means, const double* total) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= m * m) return;
    const std::size_t a = e / m, b = e % m;
    s[e] = s[e] - means[a] - means[b] + *total;
}

// One normalised power step's second half, by the whole block: v = w / ||w|| (norm set to ||w||);
// returns ||v_new - v_old||^2.
__device__ double normaliseStep(const double* w, double* v, std::size_t m, double* scratch,
                                double& norm) {
    double sum = 0.0;
    for (std::size_t a = threadIdx.x; a < m; a += kThreads)
        sum += w[a] * w[a];
    norm = sqrt(blockSum(sum, scratch));
    __syncthreads();
    double change = 0.0;
    for (std::size_t a = threadIdx.x; a < m; a += kThreads) {
        const double next = norm > 0.0 ? w[a] / norm : 0.0;
        change += (next - v[a]) * (next - v[a]);
        v[a] = next;
    }
    return blockSum(change, scratch);
}

__global__ void normaliseKernel(const double* w, double* v, std::size_t m, double* delta) {
    __shared__ double scratch[kThreads / 32];
    double norm = 0.0;
    const double change = normaliseStep(w, v, m, scratch, norm);
    if (threadIdx.x == 0) {
        delta[0] = change;
        delta[1] = norm;
    }
}

__global__ void signSumsKernel(const float* raw, std::size_t m, const double* c, double* sums) {
    __shared__ double scratch[kThreads / 32];
    const float* a = raw + std::size_t(blockIdx.x) * m;
    double minus = 0.0, plus = 0.0;
    for (std::size_t t = threadIdx.x; t < m; t += kThreads) {
        const double d1 = double(a[t]) - c[t], d2 = double(a[t]) + c[t];
        minus += d1 * d1;
        plus += d2 * d2;
    }
    minus = blockSum(minus, scratch);
    __syncthreads();
    plus = blockSum(plus, scratch);
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], sqrt(minus));
        atomicAdd(&sums[1], sqrt(plus));
    }
}

// out (m floats) = sign * c z-normalised (population sd; zeros when constant), by the whole block.
__device__ void writeCentroid(const double* c, std::size_t m, double sign, float* out,
                              double* scratch) {
    double sum = 0.0;
    for (std::size_t t = threadIdx.x; t < m; t += kThreads)
        sum += sign * c[t];
    const double mean = blockSum(sum, scratch) / double(m);
    __syncthreads();
    double squares = 0.0;
    for (std::size_t t = threadIdx.x; t < m; t += kThreads) {
        const double d = sign * c[t] - mean;
        squares += d * d;
    }
    const double sd = sqrt(blockSum(squares, scratch) / double(m));
    for (std::size_t t = threadIdx.x; t < m; t += kThreads)
        out[t] = sd > 0.0 ? float((sign * c[t] - mean) / sd) : 0.0f;
}

__global__ void centroidKernel(const double* c, std::size_t m, double sign, float* out) {
    __shared__ double scratch[kThreads / 32];
    writeCentroid(c, m, sign, out, scratch);
}

// Members staged in shared memory at a time while M forms.
constexpr std::size_t kTileMembers = 8;

std::size_t smallShapeSharedBytes(std::size_t m) {
    return (m * m + 3 * m + kTileMembers * m) * sizeof(double);
}

// The Length path of the shape step (kshape.h) for cluster blockIdx.x, whole in one block with
// M in shared memory: M = P Z Z^T P from its aligned members (z, raw: rows starts[j] on), the
// power iteration of kshape_gpu.cpp's powerIterate (the same steps, checks and tolerances), the
// sign rule and the z-normalised centroid. status: 0 no shape (no member varies), 1 done,
// 2 the check failed and the centroid is left for the host's dense solver.
__global__ void smallShapesKernel(const float* raw, const double* z, std::size_t m,
                                  const std::int32_t* starts, std::size_t channels,
                                  std::size_t channel, const unsigned* varying, int powerSteps,
                                  float* centroids, std::int32_t* status) {
    extern __shared__ double shared[];
    __shared__ double scratch[kThreads / 32];
    const std::size_t j = blockIdx.x;
    const std::size_t begin = std::size_t(starts[j]), count = std::size_t(starts[j + 1]) - begin;
    float* centroid = centroids + (j * channels + channel) * m;
    if (count == 0 || varying[j] == 0) {
        for (std::size_t t = threadIdx.x; t < m; t += kThreads)
            centroid[t] = 0.0f;
        if (threadIdx.x == 0) status[j] = 0;
        return;
    }
    double* M = shared;
    double* v = M + m * m;
    double* w = v + m;
    double* rowMeans = w + m;
    double* tile = rowMeans + m;
    const std::size_t entries = m * m;
    for (std::size_t e = threadIdx.x; e < entries; e += kThreads)
        M[e] = 0.0;
    // M = Z Z^T, kTileMembers members at a time (each thread owns its entries).
    const double* Z = z + begin * m;
    for (std::size_t first = 0; first < count; first += kTileMembers) {
        const std::size_t rows = count - first < kTileMembers ? count - first : kTileMembers;
        __syncthreads();
        for (std::size_t e = threadIdx.x; e < rows * m; e += kThreads)
            tile[e] = Z[first * m + e];
        __syncthreads();
        for (std::size_t e = threadIdx.x; e < entries; e += kThreads) {
            const std::size_t a = e / m, b = e % m;
            double acc = M[e];
            for (std::size_t i = 0; i < rows; ++i)
                acc += tile[i * m + a] * tile[i * m + b];
            M[e] = acc;
        }
    }
    __syncthreads();
    // P M P: M is symmetric, so its column means are its row means (centreKernel).
    for (std::size_t a = threadIdx.x; a < m; a += kThreads) {
        double sum = 0.0;
        for (std::size_t b = 0; b < m; ++b)
            sum += M[a * m + b];
        rowMeans[a] = sum / double(m);
    }
    __syncthreads();
    double meansSum = 0.0;
    for (std::size_t a = threadIdx.x; a < m; a += kThreads)
        meansSum += rowMeans[a];
    const double total = blockSum(meansSum, scratch) / double(m);
    for (std::size_t e = threadIdx.x; e < entries; e += kThreads)
        M[e] = M[e] - rowMeans[e / m] - rowMeans[e % m] + total;
    // The start: the ramp of kshapePowerStart, normalised.
    for (std::size_t a = threadIdx.x; a < m; a += kThreads)
        w[a] = double(a) + 1.0 - double(m + 1) / 2.0 + 0.25;
    __syncthreads();
    // v = w / ||w||; returns ||v_new - v_old||^2.
    const auto normalise = [&]() {
        double norm = 0.0;
        const double change = normaliseStep(w, v, m, scratch, norm);
        __syncthreads();
        return change;
    };
    // w = M v, reading M by columns (symmetric): neighbouring threads, neighbouring banks.
    const auto apply = [&]() {
        for (std::size_t a = threadIdx.x; a < m; a += kThreads) {
            double acc = 0.0;
            for (std::size_t b = 0; b < m; ++b)
                acc += M[b * m + a] * v[b];
            w[a] = acc;
        }
        __syncthreads();
    };
    for (std::size_t a = threadIdx.x; a < m; a += kThreads)
        v[a] = 0.0;
    normalise();
    bool settled = false;
    for (int step = 0; step < powerSteps && !settled; step += kKShapePowerCheckEvery) {
        double delta = 0.0;
        for (int q = 0; q < kKShapePowerCheckEvery; ++q) {
            apply();
            delta = normalise();
        }
        settled = delta <= kKShapePowerSettled;
    }
    // The check: l = v^T M v > 0 and ||M v - l v|| <= tolerance * l.
    apply();
    double dot = 0.0;
    for (std::size_t a = threadIdx.x; a < m; a += kThreads)
        dot += v[a] * w[a];
    const double lambda = blockSum(dot, scratch);
    __syncthreads();
    double residual = 0.0;
    for (std::size_t a = threadIdx.x; a < m; a += kThreads) {
        const double r = w[a] - lambda * v[a];
        residual += r * r;
    }
    residual = sqrt(blockSum(residual, scratch));
    __syncthreads();
    if (!(settled && lambda > 0.0 && residual <= kKShapePowerResidual * lambda)) {
        if (threadIdx.x == 0) status[j] = 2;
        return;
    }
    // The sign rule (signSumsKernel): a warp per member, the sums in member order per warp.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    double minus = 0.0, plus = 0.0;
    for (std::size_t r = warp; r < count; r += kThreads / 32) {
        const float* row = raw + (begin + r) * m;
        double d1s = 0.0, d2s = 0.0;
        for (std::size_t t = lane; t < m; t += 32) {
            const double d1 = double(row[t]) - v[t], d2 = double(row[t]) + v[t];
            d1s += d1 * d1;
            d2s += d2 * d2;
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            d1s += __shfl_xor_sync(0xffffffffu, d1s, offset);
            d2s += __shfl_xor_sync(0xffffffffu, d2s, offset);
        }
        minus += sqrt(d1s);
        plus += sqrt(d2s);
    }
    if (lane != 0) minus = plus = 0.0;
    minus = blockSum(minus, scratch);
    __syncthreads();
    plus = blockSum(plus, scratch);
    __syncthreads();
    writeCentroid(v, m, minus >= plus ? -1.0 : 1.0, centroid, scratch);
    if (threadIdx.x == 0) status[j] = 1;
}

}  // namespace

void launchKShapeNorms(const float* x, std::size_t rows, std::size_t m, double* norms,
                       cudaStream_t stream) {
    if (rows == 0) return;
    normsKernel<<<unsigned(rows), kThreads, 0, stream>>>(x, m, norms);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapePad(const float* x, std::size_t rows, std::size_t m, std::size_t fftLength,
                     float* out, cudaStream_t stream) {
    if (rows == 0) return;
    padKernel<<<blocksFor(rows * fftLength), kThreads, 0, stream>>>(x, rows, m, fftLength, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeCrossSpectra(const cufftComplex* series, const cufftComplex* centroids,
                              std::size_t n, std::size_t k, std::size_t channels, std::size_t bins,
                              cufftComplex* out, cudaStream_t stream) {
    if (n == 0 || k == 0) return;
    crossSpectraKernel<<<blocksFor(n * k * bins), kThreads, 0, stream>>>(series, centroids, n, k,
                                                                         channels, bins, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeChannelCrossSpectra(const cufftComplex* series, const cufftComplex* centroids,
                                     const std::int32_t* labels, std::size_t count,
                                     std::size_t channels, std::size_t bins, cufftComplex* out,
                                     cudaStream_t stream) {
    if (count == 0) return;
    channelCrossSpectraKernel<<<blocksFor(count * channels * bins), kThreads, 0, stream>>>(
        series, centroids, labels, count, channels, bins, out);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeChannelShifts(const float* cc, std::size_t first, std::size_t count,
                               std::size_t channels, std::size_t m, std::size_t fftLength,
                               const double* rowNorms, const double* centroidRowNorms,
                               const std::int32_t* labels, std::int32_t* channelShifts,
                               cudaStream_t stream) {
    if (count == 0) return;
    channelShiftsKernel<<<unsigned(count * channels), kThreads, 0, stream>>>(
        cc, first, channels, m, fftLength, rowNorms, centroidRowNorms, labels, channelShifts);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeAssign(const float* cc, std::size_t first, std::size_t count, std::size_t k,
                        std::size_t m, std::size_t fftLength, const double* seriesNorms,
                        const double* centroidNorms, std::int32_t* labels, float* distances,
                        std::int32_t* shifts, cudaStream_t stream) {
    if (count == 0) return;
    assignKernel<<<unsigned(count), kThreads, 0, stream>>>(
        cc, first, k, m, fftLength, seriesNorms, centroidNorms, labels, distances, shifts);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeAlign(const float* x, std::size_t m, std::size_t channels, std::size_t channel,
                       const std::int32_t* members, std::size_t count, const std::int32_t* shifts,
                       bool align, float* raw, double* z, unsigned* varying, cudaStream_t stream) {
    if (count == 0) return;
    alignKernel<<<unsigned(count), kThreads, 0, stream>>>(x, m, channels, channel, members, shifts,
                                                          align, raw, z, varying);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeAlignClusters(const float* x, std::size_t m, std::size_t channels,
                               std::size_t channel, const std::int32_t* members, std::size_t n,
                               const std::int32_t* starts, std::size_t k,
                               const std::int32_t* shifts, const std::uint8_t* align, float* raw,
                               double* z, unsigned* varying, cudaStream_t stream) {
    if (n == 0) return;
    alignClustersKernel<<<unsigned(n), kThreads, 0, stream>>>(
        x, m, channels, channel, members, starts, k, shifts, align, raw, z, varying);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeSmallShapes(const float* raw, const double* z, std::size_t m,
                             const std::int32_t* starts, std::size_t k, std::size_t channels,
                             std::size_t channel, const unsigned* varying, int powerSteps,
                             float* centroids, std::int32_t* status, cudaStream_t stream) {
    if (k == 0) return;
    const std::size_t bytes = smallShapeSharedBytes(m);
    CS_CUDA_CHECK(cudaFuncSetAttribute(smallShapesKernel,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    smallShapesKernel<<<unsigned(k), kThreads, bytes, stream>>>(
        raw, z, m, starts, channels, channel, varying, powerSteps, centroids, status);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeRamp(double* out, std::size_t side, cudaStream_t stream) {
    if (side == 0) return;
    rampKernel<<<blocksFor(side), kThreads, 0, stream>>>(out, side);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeCentre(double* s, std::size_t m, double* scratch, cudaStream_t stream) {
    if (m == 0) return;
    rowMeansKernel<<<unsigned(m), kThreads, 0, stream>>>(s, m, scratch);
    CS_CUDA_CHECK_LAUNCH();
    totalMeanKernel<<<1, kThreads, 0, stream>>>(scratch, m, scratch + m);
    CS_CUDA_CHECK_LAUNCH();
    centreKernel<<<blocksFor(m * m), kThreads, 0, stream>>>(s, m, scratch, scratch + m);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeNormalise(const double* w, double* v, std::size_t m, double* delta,
                           cudaStream_t stream) {
    normaliseKernel<<<1, kThreads, 0, stream>>>(w, v, m, delta);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeSignSums(const float* raw, std::size_t count, std::size_t m, const double* c,
                          double* sums, cudaStream_t stream) {
    if (count == 0) return;
    signSumsKernel<<<unsigned(count), kThreads, 0, stream>>>(raw, m, c, sums);
    CS_CUDA_CHECK_LAUNCH();
}

void launchKShapeCentroid(const double* c, std::size_t m, double sign, float* out,
                          cudaStream_t stream) {
    centroidKernel<<<1, kThreads, 0, stream>>>(c, m, sign, out);
    CS_CUDA_CHECK_LAUNCH();
}

}  // namespace cs::kernels
