// SPDX-License-Identifier: MIT
// Host orchestration of k-Shape on the GPU: sizes, the iteration loop, the per-cluster shape
// extraction (power iteration with a cuSOLVER fallback), the batched assignment, stages and
// cancellation. Kernels in kshape_kernels.cu.
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

// Power iteration: steps between convergence checks, the convergence threshold on the squared
// change of the unit vector, and the eigen check ||M v - l v|| <= tolerance * l.
constexpr int kStepsPerCheck = 16;
constexpr double kConverged = 1e-20;
constexpr double kResidualTolerance = 1e-7;
// Cross-correlations held at once (series x centroids x FFT length floats).
constexpr std::size_t kCrossCorrelationBytes = std::size_t(512) << 20;

std::size_t fftLengthFor(std::size_t m) {
    std::size_t length = 1;
    while (length < 2 * m - 1)
        length *= 2;
    return length;
}

std::string mib(std::size_t bytes) {
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

// The power iteration's device scratch and start vector, made once per run: the start is a ramp,
// never in P's null space (the constants) and rarely orthogonal to the top eigenvector.
struct PowerScratch {
    DeviceBuffer<double> start, w, delta;
    PowerScratch(std::size_t m, cudaStream_t s) : start(m, s), w(m, s), delta(2, s) {
        std::vector<double> ramp(m);
        for (std::size_t a = 0; a < m; ++a)
            ramp[a] = double(a) + 1.0 - double(m + 1) / 2.0 + 0.25;
        start.copyFromHost(ramp);
    }
};

// The unit eigenvector of M's largest eigenvalue into v (m doubles on the device). Checks for
// cancellation where it waits for the GPU anyway: up to max(m, 256) power steps take tens of ms
// at m = 1024.
void dominantEigenvector(StreamHandles& ctx, JobControl& job, double* mMatrix, std::size_t m,
                         double* v, PowerScratch& scratch) {
    const cudaStream_t s = ctx.stream();
    const cublasHandle_t blas = ctx.cublas();
    const int mI = int(m);
    const double one = 1.0, zero = 0.0;
    DeviceBuffer<double>& w = scratch.w;
    DeviceBuffer<double>& delta = scratch.delta;
    launchKShapeNormalise(scratch.start.data(), v, m, delta.data(), s);  // v = start / |start|
    const int maxSteps = std::max(int(m), 256);
    bool converged = false;
    for (int step = 0; step < maxSteps && !converged; step += kStepsPerCheck) {
        for (int q = 0; q < kStepsPerCheck; ++q) {
            CS_CUBLAS_CHECK(cublasDgemv(blas, CUBLAS_OP_N, mI, mI, &one, mMatrix, mI, v, 1, &zero,
                                        w.data(), 1));
            launchKShapeNormalise(w.data(), v, m, delta.data(), s);
        }
        converged = delta.toHost()[0] <= kConverged;
        job.checkpoint();
    }
    // The check: l = v^T M v > 0 and M v close to l v.
    CS_CUBLAS_CHECK(
        cublasDgemv(blas, CUBLAS_OP_N, mI, mI, &one, mMatrix, mI, v, 1, &zero, w.data(), 1));
    const std::vector<double> mv = w.toHost();
    std::vector<double> vHost(m);
    CS_CUDA_CHECK(cudaMemcpyAsync(vHost.data(), v, m * sizeof(double), cudaMemcpyDeviceToHost, s));
    ctx.synchronize();
    double lambda = 0.0;
    for (std::size_t a = 0; a < m; ++a)
        lambda += vHost[a] * mv[a];
    double residual = 0.0;
    for (std::size_t a = 0; a < m; ++a)
        residual += (mv[a] - lambda * vHost[a]) * (mv[a] - lambda * vHost[a]);
    if (converged && lambda > 0.0 && std::sqrt(residual) <= kResidualTolerance * lambda) return;
    job.checkpoint();
    // Fallback: every eigenpair, the last (largest) vector.
    DeviceBuffer<double> eig(m, s);
    int lwork = 0;
    CS_CUSOLVER_CHECK(cusolverDnDsyevd_bufferSize(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                                  CUBLAS_FILL_MODE_LOWER, mI, mMatrix, mI,
                                                  eig.data(), &lwork));
    DeviceBuffer<double> work(std::size_t(std::max(lwork, 1)), s);
    DeviceBuffer<int> info(1, s);
    CS_CUSOLVER_CHECK(cusolverDnDsyevd(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                       CUBLAS_FILL_MODE_LOWER, mI, mMatrix, mI, eig.data(),
                                       work.data(), lwork, info.data()));
    if (info.toHost()[0] != 0) throw Error("k-Shape: the eigensolver did not converge");
    CS_CUDA_CHECK(
        cudaMemcpyAsync(v, mMatrix + (m - 1) * m, m * sizeof(double), cudaMemcpyDeviceToDevice, s));
}

}  // namespace

KShapeResult kshapeCuda(StreamHandles& ctx, const SeriesSet& series, const KShapeParams& params,
                        JobControl& job) {
    validateKShape(series, params);
    DeviceScope scope(ctx.device());
    job.checkpoint();
    const std::size_t n = series.n, m = series.length, k = std::size_t(params.k);
    const std::size_t length = fftLengthFor(m), bins = length / 2 + 1;
    const std::size_t bytes = n * m * 4 + n * bins * 8 + 2 * m * m * 8 + n * m * 12 +
                              kCrossCorrelationBytes * 3 + (std::size_t(64) << 20);
    const std::size_t free = ctx.freeMemory();
    if (bytes > free)
        throw Error("k-Shape on " + std::to_string(n) + " series of length " + std::to_string(m) +
                    " needs about " + mib(bytes) + " of GPU memory, but only " + mib(free) +
                    " are free; use fewer series or the CPU backend");
    // Every iteration allocates its per-cluster scratch: keep it mapped between syncs.
    keepPoolWarm(ctx.device(), bytes);
    const cudaStream_t s = ctx.stream();
    const cublasHandle_t blas = ctx.cublas();

    std::vector<float> input;
    {
        const auto stage = job.stage("normalise");
        input = kshapeInput(series, params.channel);
    }
    // The set-up runs for a few hundred ms at 100000 series of 1024 (host normalisation, the
    // upload, cuFFT's first plans): a checkpoint after each step.
    job.checkpoint();
    DeviceBuffer<float> x(n * m, s);
    DeviceBuffer<double> seriesNorms(n, s);
    DeviceBuffer<cufftComplex> seriesSpectra(n * bins, s);
    {
        ScopedGpuStage stage(ctx, job, "upload");
        x.copyFromHost(input);
    }
    job.checkpoint();
    // Series per assignment batch: their cross-correlations with every centroid fit the budget.
    const std::size_t batch = std::clamp<std::size_t>(
        kCrossCorrelationBytes / std::max<std::size_t>(k * length * sizeof(float), 1), 1, n);
    {
        ScopedGpuStage stage(ctx, job, "spectra");
        launchKShapeNorms(x.data(), n, m, seriesNorms.data(), s);
        DeviceBuffer<float> padded(batch * length, s);
        for (std::size_t first = 0; first < n; first += batch) {
            const std::size_t count = std::min(batch, n - first);
            launchKShapePad(x.data() + first * m, count, m, length, padded.data(), s);
            ctx.fftPlan(CufftPlan::Kind::R2C, (long long)length, (long long)count)
                .execR2C(padded.data(), seriesSpectra.data() + first * bins);
            job.checkpoint();  // planning is on the host
        }
    }

    KShapeResult result;
    result.length = m;
    result.k = params.k;
    result.labels.resize(n);
    Random rng(params.seed);
    for (std::size_t i = 0; i < n; ++i)
        result.labels[i] = std::int32_t(rng.below(k));
    result.centroids.assign(k * m, 0.0f);
    result.distances.assign(n, 0.0f);
    result.shifts.assign(n, 0);
    std::vector<bool> zeroCentroid(k, true);

    DeviceBuffer<float> centroids(k * m, s);
    centroids.zero();
    DeviceBuffer<double> centroidNorms(k, s);
    DeviceBuffer<cufftComplex> centroidSpectra(k * bins, s);
    DeviceBuffer<float> centroidPadded(k * length, s);
    DeviceBuffer<std::int32_t> labels(n, s), shifts(n, s), members(n, s);
    DeviceBuffer<float> distances(n, s);
    shifts.zero();
    DeviceBuffer<float> raw(n * m, s);
    DeviceBuffer<double> z(n * m, s), shape(m * m, s), scratch(m + 1, s), v(m, s), signSums(2, s);
    PowerScratch power(m, s);
    DeviceBuffer<cufftComplex> cross(batch * k * bins, s);
    DeviceBuffer<float> cc(batch * k * length, s);

    for (int it = 0; it < params.maxIterations; ++it) {
        job.checkpoint();
        job.setProgress(
            double(it) / params.maxIterations,
            "iteration " + std::to_string(it + 1) + " of " + std::to_string(params.maxIterations));
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
            for (std::size_t j = 0; j < k; ++j) {
                const std::size_t count = start[j + 1] - start[j];
                if (count == 0) {
                    CS_CUDA_CHECK(
                        cudaMemsetAsync(centroids.data() + j * m, 0, m * sizeof(float), s));
                    zeroCentroid[j] = true;
                    continue;
                }
                launchKShapeAlign(x.data(), m, members.data() + start[j], count, shifts.data(),
                                  !zeroCentroid[j], raw.data(), z.data(), s);
                const double one = 1.0, zero = 0.0;
                // S = Z Z^T with Z column-major m x count.
                CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, int(m), int(m),
                                            int(count), &one, z.data(), int(m), z.data(), int(m),
                                            &zero, shape.data(), int(m)));
                launchKShapeCentre(shape.data(), m, scratch.data(), s);
                dominantEigenvector(ctx, job, shape.data(), m, v.data(), power);
                signSums.zero();
                launchKShapeSignSums(raw.data(), count, m, v.data(), signSums.data(), s);
                const std::vector<double> sums = signSums.toHost();
                launchKShapeCentroid(v.data(), m, sums[0] >= sums[1] ? -1.0 : 1.0,
                                     centroids.data() + j * m, s);
                zeroCentroid[j] = false;
                // signSums.toHost() has waited for the stream: a cancel costs one cluster.
                job.checkpoint();
            }
        }
        {
            ScopedGpuStage stage(ctx, job, "assign");
            launchKShapeNorms(centroids.data(), k, m, centroidNorms.data(), s);
            launchKShapePad(centroids.data(), k, m, length, centroidPadded.data(), s);
            ctx.fftPlan(CufftPlan::Kind::R2C, (long long)length, (long long)k)
                .execR2C(centroidPadded.data(), centroidSpectra.data());
            for (std::size_t first = 0; first < n; first += batch) {
                const std::size_t count = std::min(batch, n - first);
                launchKShapeCrossSpectra(seriesSpectra.data() + first * bins,
                                         centroidSpectra.data(), count, k, bins, cross.data(), s);
                ctx.fftPlan(CufftPlan::Kind::C2R, (long long)length, (long long)(count * k))
                    .execC2R(cross.data(), cc.data());
                launchKShapeAssign(cc.data(), first, count, k, m, length, seriesNorms.data(),
                                   centroidNorms.data(), labels.data(), distances.data(),
                                   shifts.data(), s);
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
        if (result.labels == previous) {
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
