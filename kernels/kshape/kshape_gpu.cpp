// SPDX-License-Identifier: MIT
// Host orchestration of k-Shape on the GPU: sizes, the iteration loop, the per-cluster shape
// extraction (kshapeShapeSolverFor's path: power iteration on M or the Gram, or matrix-free on
// the members, with cuSOLVER fallbacks), the batched assignment, stages and cancellation.
// Kernels in kshape_kernels.cu.
#include "kernels/kshape/kshape_gpu.h"

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/random.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/stream_handles.h"
#include "kernels/kshape/kshape_launch.h"

namespace cs::kernels {
namespace {

// Cross-correlations held at once (series x centroids x FFT length floats).
constexpr std::size_t kCrossCorrelationBytes = std::size_t(512) << 20;
// Work queued between two host waits in the shape step (cancellation checks): device memory
// read by the power iteration (about 10 ms on an H200), flops of the Gram (some 20 ms).
constexpr std::size_t kBytesPerWait = std::size_t(32) << 30;
constexpr double kGramFlopsPerWait = 1e12;

std::size_t fftLengthFor(std::size_t m) {
    std::size_t length = 1;
    while (length < 2 * m - 1)
        length *= 2;
    return length;
}

// The power iteration of compute/kshape/kshape.h on w = A v (apply(v, w), side doubles) from the
// unit vector v, for up to `steps` more steps (counted in `done`); true when it passes the
// check, computed on the device (v may be as long as a series). stepBytes: the device memory
// one step reads. Checks for cancellation where it waits for the GPU anyway.
template <class Apply>
bool powerIterate(StreamHandles& ctx, JobControl& job, const Apply& apply, std::size_t side,
                  std::size_t stepBytes, double* v, double* w, DeviceBuffer<double>& delta,
                  int steps, int& done) {
    const cudaStream_t s = ctx.stream();
    const cublasHandle_t blas = ctx.cublas();
    // Steps between two waits: all of a check's steps, unless they read more than
    // kBytesPerWait (matrix-free on many long members), so that a cancel still lands in time.
    const int waitEvery = int(std::clamp<std::size_t>(
        kBytesPerWait / std::max<std::size_t>(stepBytes, 1), 1, kKShapePowerCheckEvery));
    bool settled = false;
    for (int step = 0; step < steps && !settled; step += kKShapePowerCheckEvery) {
        for (int q = 0; q < kKShapePowerCheckEvery; ++q) {
            apply(v, w);
            launchKShapeNormalise(w, v, side, delta.data(), s);
            if ((q + 1) % waitEvery == 0 && q + 1 < kKShapePowerCheckEvery) {
                ctx.synchronize();
                job.checkpoint();
            }
        }
        done += kKShapePowerCheckEvery;
        settled = delta.toHost()[0] <= kKShapePowerSettled;
        job.checkpoint();
    }
    // The check: l = v^T A v > 0 and ||A v - l v|| <= tolerance * l (w becomes A v - l v).
    apply(v, w);
    const int sideI = int(side);
    double lambda = 0.0, residual = 0.0;
    CS_CUBLAS_CHECK(cublasDdot(blas, sideI, v, 1, w, 1, &lambda));
    const double minusLambda = -lambda;
    CS_CUBLAS_CHECK(cublasDaxpy(blas, sideI, &minusLambda, v, 1, w, 1));
    CS_CUBLAS_CHECK(cublasDnrm2(blas, sideI, w, 1, &residual));
    return settled && lambda > 0.0 && residual <= kKShapePowerResidual * lambda;
}

// The unit eigenvector of the largest eigenvalue of the symmetric side x side matrix a (lower
// triangle read, then overwritten) into out (side doubles), by cuSOLVER: every eigenpair, the
// last (largest) vector.
void solveTop(StreamHandles& ctx, double* a, std::size_t side, double* out) {
    const cudaStream_t s = ctx.stream();
    const int sideI = int(side);
    DeviceBuffer<double> eig(side, s);
    int lwork = 0;
    CS_CUSOLVER_CHECK(cusolverDnDsyevd_bufferSize(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                                  CUBLAS_FILL_MODE_LOWER, sideI, a, sideI,
                                                  eig.data(), &lwork));
    DeviceBuffer<double> work(std::size_t(std::max(lwork, 1)), s);
    DeviceBuffer<int> info(1, s);
    CS_CUSOLVER_CHECK(cusolverDnDsyevd(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                       CUBLAS_FILL_MODE_LOWER, sideI, a, sideI, eig.data(),
                                       work.data(), lwork, info.data()));
    if (info.toHost()[0] != 0) throw Error("k-Shape: the eigensolver did not converge");
    CS_CUDA_CHECK(cudaMemcpyAsync(out, a + (side - 1) * side, side * sizeof(double),
                                  cudaMemcpyDeviceToDevice, s));
}

// Dense matrices of the shape step: side^2 doubles and syevd's workspace (LAPACK's
// 1 + 6 side + 2 side^2 doubles), with the eigenvalues.
std::size_t denseBytes(std::size_t side) {
    return (3 * side * side + 8 * side + 1) * sizeof(double);
}

// The device scratch of the shape step, made once per run.
struct ShapeScratch {
    std::size_t denseSide;                 // the Length or Gram matrix's largest side
    DeviceBuffer<double> dense;            // denseSide^2: M (Length) or the Gram
    DeviceBuffer<double> centre;           // m + 1: launchKShapeCentre's
    DeviceBuffer<double> v, w;             // m: the shape, and A v
    DeviceBuffer<double> t, u;             // n: Z^T v; min(n, kKShapeDenseSide): the Gram's u
    DeviceBuffer<double> delta, signSums;  // 2 each
    DeviceBuffer<unsigned> varying;        // 1: some aligned member is not constant
    ShapeScratch(std::size_t n, std::size_t m, cudaStream_t s)
        : denseSide(m <= kKShapeDenseSide ? m : std::min(n, kKShapeDenseSide)),
          dense(denseSide * denseSide, s),
          centre(m + 1, s),
          v(m, s),
          w(m, s),
          t(n, s),
          u(std::min(n, kKShapeDenseSide), s),
          delta(2, s),
          signSums(2, s),
          varying(1, s) {}
};

// The unit vector of the largest eigenvalue of S = Z Z^T into scratch.v (m doubles), for the
// count members z-normalised in z (column-major m x count), by kshapeShapeSolverFor's path
// (kshape.h): Length and Gram form their matrix (at most kKShapeDenseSide square) and power
// iterate on it, as Times-C does, with cuSOLVER on the same matrix when the check fails; Power
// never forms a matrix: S v = Z (Z^T v), two gemv over the members, so memory stays O(count m);
// when it fails, cuSOLVER on the smaller side up to kKShapeFallbackSide, else more steps and
// the vector is kept, as on the CPU.
void dominantEigenvector(StreamHandles& ctx, JobControl& job, const double* z, std::size_t count,
                         std::size_t m, ShapeScratch& scratch) {
    const cudaStream_t s = ctx.stream();
    const cublasHandle_t blas = ctx.cublas();
    const int mI = int(m), countI = int(count);
    const double one = 1.0, zero = 0.0;
    double* v = scratch.v.data();
    double* w = scratch.w.data();
    double* d = scratch.dense.data();
    // A unit ramp (kshapePowerStart) into `into`, side doubles, using `tmp`.
    auto start = [&](double* into, double* tmp, std::size_t side) {
        launchKShapeRamp(tmp, side, s);
        launchKShapeNormalise(tmp, into, side, scratch.delta.data(), s);
    };
    const auto fullApply = [&](const double* x, double* y) {  // M, m x m in full
        CS_CUBLAS_CHECK(cublasDgemv(blas, CUBLAS_OP_N, mI, mI, &one, d, mI, x, 1, &zero, y, 1));
    };
    const auto lowerApply = [&](const double* x, double* y) {  // the Gram's lower triangle
        CS_CUBLAS_CHECK(
            cublasDsymv(blas, CUBLAS_FILL_MODE_LOWER, countI, &one, d, countI, x, 1, &zero, y, 1));
    };
    // into (count x count, lower triangle) = Z^T Z, summed over slices of the samples so that
    // the host can look for a cancel between them (a long series makes one product seconds).
    auto gram = [&](double* into) {
        const std::size_t slice = std::clamp<std::size_t>(
            std::size_t(kGramFlopsPerWait / (double(count) * double(count))), 1, m);
        for (std::size_t first = 0; first < m; first += slice) {
            const double beta = first == 0 ? 0.0 : 1.0;
            CS_CUBLAS_CHECK(cublasDsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, countI,
                                        int(std::min(slice, m - first)), &one, z + first, mI, &beta,
                                        into, countI));
            if (first + slice < m) {
                ctx.synchronize();
                job.checkpoint();
            }
        }
    };
    // v = Z u / ||Z u|| (u: count doubles): S's vector from the Gram's.
    auto fromGram = [&](const double* u) {
        CS_CUBLAS_CHECK(cublasDgemv(blas, CUBLAS_OP_N, mI, countI, &one, z, mI, u, 1, &zero, w, 1));
        launchKShapeNormalise(w, v, m, scratch.delta.data(), s);
    };
    int done = 0;
    switch (kshapeShapeSolverFor(count, m)) {
        case KShapeShapeSolver::Length: {
            // M = P Z Z^T P in full (the centring reads whole rows), as before.
            CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, mI, mI, countI, &one, z, mI,
                                        z, mI, &zero, d, mI));
            launchKShapeCentre(d, m, scratch.centre.data(), s);
            start(v, w, m);
            if (!powerIterate(ctx, job, fullApply, m, m * m * sizeof(double), v, w, scratch.delta,
                              std::max(int(m), 256), done)) {
                job.checkpoint();
                solveTop(ctx, d, m, v);
            }
            return;
        }
        case KShapeShapeSolver::Gram: {
            gram(d);  // the lower triangle: all that symv and syevd read
            double* u = scratch.u.data();
            start(u, scratch.t.data(), count);
            if (!powerIterate(ctx, job, lowerApply, count, count * count * sizeof(double), u,
                              scratch.t.data(), scratch.delta, std::max(int(count), 256), done)) {
                job.checkpoint();
                solveTop(ctx, d, count, u);
            }
            fromGram(u);
            return;
        }
        case KShapeShapeSolver::Power: {
            double* t = scratch.t.data();
            const auto apply = [&](const double* x, double* y) {
                CS_CUBLAS_CHECK(
                    cublasDgemv(blas, CUBLAS_OP_T, mI, countI, &one, z, mI, x, 1, &zero, t, 1));
                CS_CUBLAS_CHECK(
                    cublasDgemv(blas, CUBLAS_OP_N, mI, countI, &one, z, mI, t, 1, &zero, y, 1));
            };
            start(v, w, m);
            const std::size_t stepBytes = 2 * count * m * sizeof(double);
            if (powerIterate(ctx, job, apply, m, stepBytes, v, w, scratch.delta, kKShapePowerSteps,
                             done))
                return;
            job.checkpoint();
            const std::size_t side = std::min(count, m);
            if (side > kKShapeFallbackSide) {
                // Too large to solve densely: more steps, then the vector is kept (kshape.h).
                powerIterate(ctx, job, apply, m, stepBytes, v, w, scratch.delta,
                             kKShapePowerCapSteps - done, done);
                return;
            }
            DeviceBuffer<double> a(side * side, s);
            if (m <= count) {
                CS_CUBLAS_CHECK(cublasDsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, mI, countI,
                                            &one, z, mI, &zero, a.data(), mI));
                solveTop(ctx, a.data(), m, v);
            } else {
                gram(a.data());
                solveTop(ctx, a.data(), count, t);
                fromGram(t);
            }
            return;
        }
    }
}

}  // namespace

KShapeResult kshapeCuda(StreamHandles& ctx, const SeriesSet& series, const KShapeParams& params,
                        JobControl& job) {
    validateKShape(series, params);
    DeviceScope scope(ctx.device());
    job.checkpoint();
    const std::size_t n = series.n, m = series.length, k = std::size_t(params.k);
    // Channels per series (kshape.h, multivariate): rows of x, of the series' spectra and of the
    // centroids are (series or cluster, channel) pairs, one series' or cluster's adjacent.
    const std::size_t channels = kshapeChannelCount(series, params), rows = n * channels;
    const bool multichannel = channels > 1;
    const std::size_t length = fftLengthFor(m), bins = length / 2 + 1;
    // Series per assignment batch: their cross-correlations with every centroid, and with
    // their own centroid channel by channel, fit the budget.
    const std::size_t perSeries = std::max(k, channels);
    const std::size_t batch = std::clamp<std::size_t>(
        kCrossCorrelationBytes / std::max<std::size_t>(perSeries * length * sizeof(float), 1), 1,
        n);
    // The memory of the run by part: every term grows with n m or with a batch, never with m^2
    // (the shape step's matrices are at most kKShapeDenseSide square, kKShapeFallbackSide when
    // the power iteration fails its check on clusters longer and larger than kKShapeDenseSide).
    // x, spectra, norms (whole and per channel), labels, shifts, members, distances and the
    // channels' own shifts.
    const std::size_t seriesBytes = rows * (m * 4 + bins * 8 + 8 + 4) + n * (8 + 4 * 4);
    const std::size_t membersBytes = n * m * (4 + 8) + n * 8;  // raw, z, Z^T v: one channel
    // Cross spectra and correlations of one batch, cuFFT's work area (about the cross spectra),
    // the centroids, their spectra, padding and norms, the series' padding while their spectra
    // form.
    const std::size_t assignBytes = batch * perSeries * (2 * bins * 8 + length * 4) +
                                    k * channels * (m * 4 + bins * 8 + length * 4 + 8) + k * 8 +
                                    batch * length * 4;
    const std::size_t denseSide = m <= kKShapeDenseSide ? m : std::min(n, kKShapeDenseSide);
    const std::size_t fallbackSide =
        m > kKShapeDenseSide && n > kKShapeDenseSide ? std::min({n, m, kKShapeFallbackSide}) : 0;
    const std::size_t shapeBytes =
        denseBytes(denseSide) + denseBytes(fallbackSide) + (4 * m + 2 * n + 16) * sizeof(double);
    const std::size_t bytes =
        seriesBytes + membersBytes + assignBytes + shapeBytes + (std::size_t(64) << 20);
    if (const auto free = ctx.shortOfMemory(bytes))
        throw Error("k-Shape on " + std::to_string(n) + " series of length " + std::to_string(m) +
                    " with k = " + std::to_string(k) + " needs about " + mebibytes(bytes) +
                    " of GPU memory (the series and their spectra " + mebibytes(seriesBytes) +
                    ", the members aligned " + mebibytes(membersBytes) + ", the assignment " +
                    mebibytes(assignBytes) + ", the shapes " + mebibytes(shapeBytes) +
                    "), but only " + mebibytes(*free) +
                    " are free; use fewer or shorter series, a smaller k, or the CPU " + "backend");
    // Every iteration allocates its per-cluster scratch: keep it mapped between syncs.
    keepPoolWarm(ctx.device(), bytes);
    const cudaStream_t s = ctx.stream();

    std::vector<float> input;
    {
        const auto stage = job.stage("normalise");
        input = kshapeInput(series, params.channel, &job);
    }
    // The set-up runs for a few hundred ms at 100000 series of 1024 (host normalisation, the
    // upload, cuFFT's first plans): a checkpoint after each step.
    job.checkpoint();
    DeviceBuffer<float> x(rows * m, s);
    // ||x_i|| over all channels (the SBD's), and per channel (the channels' own alignment).
    DeviceBuffer<double> seriesNorms(n, s), rowNorms(multichannel ? rows : 0, s);
    DeviceBuffer<cufftComplex> seriesSpectra(rows * bins, s);
    {
        ScopedGpuStage stage(ctx, job, "upload");
        x.copyFromHost(input);
    }
    job.checkpoint();
    {
        ScopedGpuStage stage(ctx, job, "spectra");
        launchKShapeNorms(x.data(), n, channels * m, seriesNorms.data(), s);
        if (multichannel) launchKShapeNorms(x.data(), rows, m, rowNorms.data(), s);
        DeviceBuffer<float> padded(batch * length, s);
        for (std::size_t first = 0; first < rows; first += batch) {
            const std::size_t count = std::min(batch, rows - first);
            launchKShapePad(x.data() + first * m, count, m, length, padded.data(), s);
            ctx.fftPlan(CufftPlan::Kind::R2C, (long long)length, (long long)count)
                .execR2C(padded.data(), seriesSpectra.data() + first * bins);
            job.checkpoint();  // planning is on the host
        }
    }

    KShapeResult result;
    result.length = m;
    result.channels = channels;
    result.k = params.k;
    result.labels.resize(n);
    Random rng(params.seed);
    for (std::size_t i = 0; i < n; ++i)
        result.labels[i] = std::int32_t(rng.below(k));
    result.centroids.assign(k * channels * m, 0.0f);
    result.distances.assign(n, 0.0f);
    result.shifts.assign(n, 0);
    // Per centroid channel: all zeros (the members' channel is then not aligned)?
    std::vector<bool> zeroCentroid(k * channels, true);

    const std::size_t centroidRows = k * channels;
    DeviceBuffer<float> centroids(centroidRows * m, s);
    centroids.zero();
    DeviceBuffer<double> centroidNorms(k, s), centroidRowNorms(multichannel ? centroidRows : 0, s);
    DeviceBuffer<cufftComplex> centroidSpectra(centroidRows * bins, s);
    DeviceBuffer<float> centroidPadded(centroidRows * length, s);
    DeviceBuffer<std::int32_t> labels(n, s), shifts(n, s), members(n, s);
    // Each series channel's own shift onto its centroid's channel: the shape step's alignment
    // (kshape.h, multivariate); with one channel it is the series' shift itself.
    DeviceBuffer<std::int32_t> channelShifts(multichannel ? rows : 0, s);
    const std::int32_t* alignShifts = multichannel ? channelShifts.data() : shifts.data();
    DeviceBuffer<float> distances(n, s);
    shifts.zero();
    DeviceBuffer<float> raw(n * m, s);
    DeviceBuffer<double> z(n * m, s);
    ShapeScratch shape(n, m, s);
    // The batched shape step's (m <= kKShapeSmallShapeSide): per channel d, entries d k + j.
    struct {
        DeviceBuffer<std::int32_t> starts, status;
        DeviceBuffer<std::uint8_t> align;
        DeviceBuffer<unsigned> varying;
    } small{DeviceBuffer<std::int32_t>(k + 1, s), DeviceBuffer<std::int32_t>(centroidRows, s),
            DeviceBuffer<std::uint8_t>(centroidRows, s), DeviceBuffer<unsigned>(centroidRows, s)};
    DeviceBuffer<cufftComplex> cross(batch * perSeries * bins, s);
    DeviceBuffer<float> cc(batch * perSeries * length, s);

    for (int it = 0; it < params.maxIterations; ++it) {
        job.checkpoint();
        const std::vector<std::int32_t> previous = result.labels;
        {
            ScopedGpuStage stage(ctx, job, "shapes");
            // Members of each cluster, in index order.
            std::vector<std::int32_t> order;
            std::vector<std::size_t> start(k + 1, 0);
            for (std::int32_t label : result.labels)
                ++start[std::size_t(label) + 1];
            for (std::size_t j = 0; j < k; ++j)
                start[j + 1] += start[j];
            order.resize(n);
            std::vector<std::size_t> fill(start.begin(), start.end() - 1);
            for (std::size_t i = 0; i < n; ++i)
                order[fill[std::size_t(result.labels[i])]++] = std::int32_t(i);
            members.copyFromHost(order);
            // The shape of channel d of cluster j by one call per step, the host waiting on the
            // stream for its checks (kshape.h's three paths).
            const auto solveOne = [&](std::size_t j, std::size_t d) {
                const std::size_t jd = j * channels + d, count = start[j + 1] - start[j];
                float* centroid = centroids.data() + jd * m;
                if (count == 0) {
                    CS_CUDA_CHECK(cudaMemsetAsync(centroid, 0, m * sizeof(float), s));
                    zeroCentroid[jd] = true;
                    return;
                }
                shape.varying.zero();
                launchKShapeAlign(x.data(), m, channels, d, members.data() + start[j], count,
                                  alignShifts, !zeroCentroid[jd], raw.data(), z.data(),
                                  shape.varying.data(), s);
                if (shape.varying.toHost()[0] == 0) {
                    // Every aligned member constant: M = 0, no shape (kshape.h).
                    CS_CUDA_CHECK(cudaMemsetAsync(centroid, 0, m * sizeof(float), s));
                    zeroCentroid[jd] = true;
                    return;
                }
                dominantEigenvector(ctx, job, z.data(), count, m, shape);
                shape.signSums.zero();
                launchKShapeSignSums(raw.data(), count, m, shape.v.data(), shape.signSums.data(),
                                     s);
                const std::vector<double> sums = shape.signSums.toHost();
                launchKShapeCentroid(shape.v.data(), m, sums[0] >= sums[1] ? -1.0 : 1.0, centroid,
                                     s);
                zeroCentroid[jd] = false;
                // signSums.toHost() has waited for the stream: a cancel costs one channel.
                job.checkpoint();
            };
            if (m <= kKShapeSmallShapeSide) {
                // Short series: every cluster's shape at once, a block each (Times-C's batched
                // centroid stage), one wait per iteration instead of several per cluster.
                std::vector<std::int32_t> starts(start.begin(), start.end());
                small.starts.copyFromHost(starts);
                std::vector<std::uint8_t> align(centroidRows);
                for (std::size_t jd = 0; jd < centroidRows; ++jd)
                    align[(jd % channels) * k + jd / channels] = !zeroCentroid[jd];
                small.align.copyFromHost(align);
                small.varying.zero();
                for (std::size_t d = 0; d < channels; ++d) {
                    launchKShapeAlignClusters(x.data(), m, channels, d, members.data(), n,
                                              small.starts.data(), k, alignShifts,
                                              small.align.data() + d * k, raw.data(), z.data(),
                                              small.varying.data() + d * k, s);
                    launchKShapeSmallShapes(raw.data(), z.data(), m, small.starts.data(), k,
                                            channels, d, small.varying.data() + d * k,
                                            std::max(int(m), 256), centroids.data(),
                                            small.status.data() + d * k, s);
                }
                const std::vector<std::int32_t> status = small.status.toHost();
                job.checkpoint();
                for (std::size_t d = 0; d < channels; ++d)
                    for (std::size_t j = 0; j < k; ++j) {
                        const std::int32_t done = status[d * k + j];
                        if (done == 2)
                            solveOne(j, d);  // the check failed: cuSOLVER, as below
                        else
                            zeroCentroid[j * channels + d] = done == 0;
                    }
            } else {
                // Channel by channel (kshape.h, multivariate): each is a univariate shape of
                // the members' channel, aligned by its own shifts.
                for (std::size_t jd = 0; jd < centroidRows; ++jd)
                    solveOne(jd / channels, jd % channels);
            }
        }
        {
            ScopedGpuStage stage(ctx, job, "assign");
            launchKShapeNorms(centroids.data(), k, channels * m, centroidNorms.data(), s);
            if (multichannel)
                launchKShapeNorms(centroids.data(), centroidRows, m, centroidRowNorms.data(), s);
            launchKShapePad(centroids.data(), centroidRows, m, length, centroidPadded.data(), s);
            ctx.fftPlan(CufftPlan::Kind::R2C, (long long)length, (long long)centroidRows)
                .execR2C(centroidPadded.data(), centroidSpectra.data());
            for (std::size_t first = 0; first < n; first += batch) {
                const std::size_t count = std::min(batch, n - first);
                launchKShapeCrossSpectra(seriesSpectra.data() + first * channels * bins,
                                         centroidSpectra.data(), count, k, channels, bins,
                                         cross.data(), s);
                ctx.fftPlan(CufftPlan::Kind::C2R, (long long)length, (long long)(count * k))
                    .execC2R(cross.data(), cc.data());
                launchKShapeAssign(cc.data(), first, count, k, m, length, seriesNorms.data(),
                                   centroidNorms.data(), labels.data(), distances.data(),
                                   shifts.data(), s);
                if (multichannel) {
                    // Each channel against its new centroid's channel, for the next shapes
                    // (the labels of this batch are on the stream already).
                    launchKShapeChannelCrossSpectra(seriesSpectra.data() + first * channels * bins,
                                                    centroidSpectra.data(), labels.data() + first,
                                                    count, channels, bins, cross.data(), s);
                    ctx.fftPlan(CufftPlan::Kind::C2R, (long long)length,
                                (long long)(count * channels))
                        .execC2R(cross.data(), cc.data());
                    launchKShapeChannelShifts(cc.data(), first, count, channels, m, length,
                                              rowNorms.data(), centroidRowNorms.data(),
                                              labels.data(), channelShifts.data(), s);
                }
                // Many series make many batches of k FFTs each: wait and look between them.
                if (first + count < n) {
                    ctx.synchronize();
                    job.checkpoint();
                }
            }
            labels.copyToHost(result.labels);
            ctx.synchronize();
        }
        result.iterations = it + 1;
        std::int64_t moved = 0;
        for (std::size_t i = 0; i < result.labels.size(); ++i)
            moved += result.labels[i] != previous[i];
        job.setIteration({.current = it + 1,
                          .max = params.maxIterations,
                          .changes = moved,
                          .changesUnit = "series moved"},
                         double(it + 1) / params.maxIterations);
        if (moved == 0) {
            result.converged = true;
            break;
        }
    }
    centroids.copyToHost(result.centroids);
    distances.copyToHost(result.distances);
    shifts.copyToHost(result.shifts);
    ctx.synchronize();
    job.setProgress(1.0, "done");
    return result;
}

}  // namespace cs::kernels
