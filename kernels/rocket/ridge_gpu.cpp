// SPDX-License-Identifier: MIT
// The GPU ridge classifier: fitRidgeClassifier's steps (compute/rocket/ridge.cpp explains the
// maths) with cuBLAS and cuSOLVER on column-major double matrices. The small per-alpha results
// (n x classes, and the covariance path's hat diagonal) come back to the host, where the errors
// and accuracies are summed.
#include "kernels/rocket/ridge_gpu.h"

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/stream_handles.h"
#include "kernels/rocket/ridge_launch.h"

namespace cs::kernels {
namespace {

std::int32_t argmaxRow(const std::vector<double>& m, std::size_t rows, std::size_t r, int classes) {
    std::int32_t best = 0;
    for (int k = 1; k < classes; ++k)
        if (m[r + std::size_t(k) * rows] > m[r + std::size_t(best) * rows]) best = k;
    return best;
}

// The covariance path's batches of X V rows take at least this much device memory.
constexpr std::size_t kBatchBytes = std::size_t(128) << 20;

// What both paths work on: the standardised training rows on the device, the targets on the
// host (nt x classes, column-major).
struct Training {
    std::size_t nt = 0, p = 0;
    DeviceBuffer<double> z;  // nt x p, column-major
    std::vector<double> y, yc;
    std::vector<std::int32_t> labels;  // per training row
};

// p x classes column-major weights into the model's row-major ones.
void storeWeights(RidgeModel& model, const std::vector<double>& w) {
    const std::size_t p = model.features, c = std::size_t(model.classes);
    model.weights.resize(p * c);
    for (std::size_t j = 0; j < p; ++j)
        for (std::size_t k = 0; k < c; ++k)
            model.weights[j * c + k] = w[j + k * p];
}

// The device memory the covariance path takes besides the eigensolver's workspace and its
// batch of X V rows.
std::size_t covarianceFixedBytes(std::size_t nt, std::size_t p, std::size_t c, std::size_t a) {
    return (nt * p + p * p + 3 * p + 2 * p * c + p * a + 2 * p * c * a + nt * c + nt * a +
            nt * c * a) *
           sizeof(double);
}

// The Gram path of compute/rocket/ridge.h.
void fitGram(StreamHandles& ctx, Training& t, const std::vector<double>& alphas, RidgeModel& model,
             JobControl& job) {
    const cudaStream_t s = ctx.stream();
    const cublasHandle_t blas = ctx.cublas();
    const std::size_t nt = t.nt, p = t.p, m = nt - 1;  // the complement of the constant vector
    const std::size_t c = std::size_t(model.classes);
    const int classes = model.classes;
    const int ntI = int(nt), mI = int(m), pI = int(p), cI = classes;

    DeviceBuffer<double> gram(nt * nt, s);
    {
        ScopedGpuStage stage(ctx, job, "gram");
        const double one = 1.0, zero = 0.0;
        CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, ntI, ntI, pI, &one, t.z.data(),
                                    ntI, t.z.data(), ntI, &zero, gram.data(), ntI));
    }
    job.checkpoint();

    // Q (nt x m): the eigenvectors of H K H on H's last m columns, mapped back through H.
    DeviceBuffer<double> q(nt * std::max<std::size_t>(m, 1), s),
        eig(std::max<std::size_t>(m, 1), s);
    DeviceBuffer<double> v(nt, s);
    {
        ScopedGpuStage stage(ctx, job, "eigen");
        std::vector<double> hv(nt, 1.0 / std::sqrt(double(nt)));
        hv[0] -= 1.0;
        double norm2 = 0.0;
        for (double e : hv)
            norm2 += e * e;
        const double beta = 2.0 / norm2;
        v.copyFromHost(hv);
        DeviceBuffer<double> kv(nt, s);
        const double one = 1.0, zero = 0.0;
        CS_CUBLAS_CHECK(cublasDgemv(blas, CUBLAS_OP_N, ntI, ntI, &one, gram.data(), ntI, v.data(),
                                    1, &zero, kv.data(), 1));
        double vkv = 0.0;
        CS_CUBLAS_CHECK(cublasDdot(blas, ntI, v.data(), 1, kv.data(), 1, &vkv));
        const double minusBeta = -beta, last = beta * beta * vkv;
        CS_CUBLAS_CHECK(
            cublasDger(blas, ntI, ntI, &minusBeta, v.data(), 1, kv.data(), 1, gram.data(), ntI));
        CS_CUBLAS_CHECK(
            cublasDger(blas, ntI, ntI, &minusBeta, kv.data(), 1, v.data(), 1, gram.data(), ntI));
        CS_CUBLAS_CHECK(
            cublasDger(blas, ntI, ntI, &last, v.data(), 1, v.data(), 1, gram.data(), ntI));
        if (m > 0) {
            double* inner = gram.data() + 1 + nt;  // H K H without its first row and column
            int lwork = 0;
            CS_CUSOLVER_CHECK(cusolverDnDsyevd_bufferSize(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                                          CUBLAS_FILL_MODE_LOWER, mI, inner, ntI,
                                                          eig.data(), &lwork));
            DeviceBuffer<double> work(std::size_t(std::max(lwork, 1)), s);
            DeviceBuffer<int> info(1, s);
            CS_CUSOLVER_CHECK(cusolverDnDsyevd(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                               CUBLAS_FILL_MODE_LOWER, mI, inner, ntI, eig.data(),
                                               work.data(), lwork, info.data()));
            if (info.toHost()[0] != 0)
                throw Error("the ridge classifier's eigendecomposition did not converge");
            // Padded eigenvectors: columns 1.. of the matrix, first row zero; then Q = P - beta
            // v (P^T v)^T.
            CS_CUDA_CHECK(cudaMemcpyAsync(q.data(), gram.data() + nt, nt * m * sizeof(double),
                                          cudaMemcpyDeviceToDevice, s));
            CS_CUDA_CHECK(
                cudaMemset2DAsync(q.data(), nt * sizeof(double), 0, sizeof(double), m, s));
            DeviceBuffer<double> t(m, s);
            CS_CUBLAS_CHECK(cublasDgemv(blas, CUBLAS_OP_T, ntI, mI, &one, q.data(), ntI, v.data(),
                                        1, &zero, t.data(), 1));
            CS_CUBLAS_CHECK(
                cublasDger(blas, ntI, mI, &minusBeta, v.data(), 1, t.data(), 1, q.data(), ntI));
        }
        stage.finish();
    }
    gram.reset();
    job.checkpoint();

    // Exact leave-one-out per alpha: C = Q diag(w) Q^T Yc, residual = C / (Q∘Q w).
    DeviceBuffer<double> ycDev(nt * c, s), qtY(std::max<std::size_t>(m, 1) * c, s);
    DeviceBuffer<double> q2(nt * std::max<std::size_t>(m, 1), s);
    DeviceBuffer<double> w(std::max<std::size_t>(m, 1), s),
        shrunk(std::max<std::size_t>(m, 1) * c, s);
    DeviceBuffer<double> dual(nt * c, s), diag(nt, s);
    ycDev.copyFromHost(t.yc);
    const double one = 1.0, zero = 0.0;
    auto looFor = [&](double alpha, std::vector<double>& cHost, std::vector<double>& dHost) {
        if (m == 0) {
            dual.zero();
            diag.zero();
        } else {
            launchRidgeShrink(eig.data(), m, alpha, qtY.data(), classes, w.data(), shrunk.data(),
                              s);
            CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, ntI, cI, mI, &one, q.data(),
                                        ntI, shrunk.data(), mI, &zero, dual.data(), ntI));
            CS_CUBLAS_CHECK(cublasDgemv(blas, CUBLAS_OP_N, ntI, mI, &one, q2.data(), ntI, w.data(),
                                        1, &zero, diag.data(), 1));
        }
        cHost = dual.toHost();
        dHost = diag.toHost();
    };
    {
        ScopedGpuStage stage(ctx, job, "alpha");
        if (m > 0) {
            CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, mI, cI, ntI, &one, q.data(),
                                        ntI, ycDev.data(), ntI, &zero, qtY.data(), mI));
            launchRidgeSquare(q.data(), nt * m, q2.data(), s);
        }
        double bestError = std::numeric_limits<double>::infinity();
        std::size_t best = 0;
        std::vector<double> bestResidual, cHost, dHost;
        for (std::size_t a = 0; a < alphas.size(); ++a) {
            looFor(alphas[a], cHost, dHost);
            std::vector<double> residual(nt * c);
            double sum = 0.0;
            for (std::size_t k = 0; k < c; ++k)
                for (std::size_t r = 0; r < nt; ++r) {
                    const double e = cHost[r + k * nt] / dHost[r];
                    residual[r + k * nt] = e;
                    sum += e * e;
                }
            const double err = sum / double(nt * c);
            model.looError.push_back(err);
            if (err < bestError) {  // the first listed on ties, as on the host
                bestError = err;
                best = a;
                bestResidual = std::move(residual);
            }
        }
        model.alpha = alphas[best];
        std::vector<double> loo(nt * c);
        for (std::size_t e = 0; e < nt * c; ++e)
            loo[e] = t.y[e] - bestResidual[e];
        std::size_t correct = 0;
        for (std::size_t r = 0; r < nt; ++r)
            correct += argmaxRow(loo, nt, r, classes) == t.labels[r];
        model.looAccuracy = double(correct) / double(nt);
    }
    job.checkpoint();
    {
        ScopedGpuStage stage(ctx, job, "weights");
        std::vector<double> cHost, dHost;
        looFor(model.alpha, cHost, dHost);
        DeviceBuffer<double> weights(p * c, s);
        CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, pI, cI, ntI, &one, t.z.data(),
                                    ntI, dual.data(), ntI, &zero, weights.data(), pI));
        storeWeights(model, weights.toHost());
    }
}

// The covariance path's device memory, sized before anything else is allocated.
struct CovarianceSpace {
    DeviceBuffer<double> cov;  // p x p: X^T X, then its eigenvectors V
    DeviceBuffer<double> eig;  // p
    int lwork = 0;             // syevd's workspace, in doubles
    std::size_t batch = 0;     // rows of X V at a time
};

// The covariance path of compute/rocket/ridge.h.
void fitCovariance(StreamHandles& ctx, Training& t, const std::vector<double>& alphas,
                   CovarianceSpace& space, RidgeModel& model, JobControl& job) {
    const cudaStream_t s = ctx.stream();
    const cublasHandle_t blas = ctx.cublas();
    const std::size_t nt = t.nt, p = t.p, c = std::size_t(model.classes), na = alphas.size();
    const int ntI = int(nt), pI = int(p), cI = model.classes, aI = int(na);
    const double one = 1.0, zero = 0.0;
    DeviceBuffer<double>& cov = space.cov;  // becomes V
    DeviceBuffer<double>& eig = space.eig;
    const std::size_t batch = space.batch;

    DeviceBuffer<double> ycDev(nt * c, s), xty(p * c, s);
    ycDev.copyFromHost(t.yc);
    {
        ScopedGpuStage stage(ctx, job, "covariance");
        // The lower triangle, which is all syevd reads.
        CS_CUBLAS_CHECK(cublasDsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, pI, ntI, &one,
                                    t.z.data(), ntI, &zero, cov.data(), pI));
        CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, pI, cI, ntI, &one, t.z.data(),
                                    ntI, ycDev.data(), ntI, &zero, xty.data(), pI));
    }
    job.checkpoint();

    {
        ScopedGpuStage stage(ctx, job, "eigen");
        DeviceBuffer<double> work(std::size_t(std::max(space.lwork, 1)), s);
        DeviceBuffer<int> info(1, s);
        CS_CUSOLVER_CHECK(cusolverDnDsyevd(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                           CUBLAS_FILL_MODE_LOWER, pI, cov.data(), pI, eig.data(),
                                           work.data(), space.lwork, info.data()));
        if (info.toHost()[0] != 0)
            throw Error("the ridge classifier's eigendecomposition did not converge");
        stage.finish();
    }
    job.checkpoint();
    const double* v = cov.data();

    // Every alpha side by side: the shrink factors 1 / (s^2 + alpha) (p x alphas) and the
    // weights (p x classes alphas), so that the fit and the hat diagonal of all alphas take one
    // product each.
    DeviceBuffer<double> weights(p * c * na, s);
    std::size_t best = 0;
    {
        ScopedGpuStage stage(ctx, job, "alpha");
        DeviceBuffer<double> vty(p * c, s), shrink(p * na, s), shrunk(p * c * na, s);
        CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, pI, cI, pI, &one, v, pI,
                                    xty.data(), pI, &zero, vty.data(), pI));
        for (std::size_t a = 0; a < na; ++a)
            launchRidgeShrink(eig.data(), p, alphas[a], vty.data(), cI, shrink.data() + a * p,
                              shrunk.data() + a * p * c, s);
        CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, pI, cI * aI, pI, &one, v, pI,
                                    shrunk.data(), pI, &zero, weights.data(), pI));
        DeviceBuffer<double> fit(nt * c * na, s), hat(nt * na, s);
        CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, ntI, cI * aI, pI, &one,
                                    t.z.data(), ntI, weights.data(), pI, &zero, fit.data(), ntI));
        {
            DeviceBuffer<double> xv(batch * p, s);
            for (std::size_t r0 = 0; r0 < nt; r0 += batch) {
                if (r0 > 0) {  // a cancel is seen between batches
                    ctx.synchronize();
                    job.checkpoint();
                }
                const std::size_t len = std::min(batch, nt - r0);
                const int lenI = int(len);
                CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, lenI, pI, pI, &one,
                                            t.z.data() + r0, ntI, v, pI, &zero, xv.data(), lenI));
                launchRidgeSquare(xv.data(), len * p, xv.data(), s);
                CS_CUBLAS_CHECK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, lenI, aI, pI, &one,
                                            xv.data(), lenI, shrink.data(), pI, &zero,
                                            hat.data() + r0, ntI));
            }
        }
        const std::vector<double> fitHost = fit.toHost(), hatHost = hat.toHost();
        const double keep = 1.0 - 1.0 / double(nt);  // 1 - the intercept's hat
        double bestError = std::numeric_limits<double>::infinity();
        std::vector<std::size_t> hits(na, 0);
        std::vector<double> loo(c);
        for (std::size_t a = 0; a < na; ++a) {
            double sum = 0.0;
            for (std::size_t r = 0; r < nt; ++r) {
                const double d = keep - hatHost[r + a * nt];
                std::int32_t predicted = 0;
                for (std::size_t k = 0; k < c; ++k) {
                    const double e = (t.yc[r + k * nt] - fitHost[r + (a * c + k) * nt]) / d;
                    sum += e * e;
                    loo[k] = t.y[r + k * nt] - e;
                    if (loo[k] > loo[std::size_t(predicted)]) predicted = std::int32_t(k);
                }
                hits[a] += predicted == t.labels[r];
            }
            const double err = sum / double(nt * c);
            model.looError.push_back(err);
            if (err < bestError) {  // the first listed on ties, as on the host
                bestError = err;
                best = a;
            }
        }
        model.alpha = alphas[best];
        model.looAccuracy = double(hits[best]) / double(nt);
    }
    job.checkpoint();
    {
        ScopedGpuStage stage(ctx, job, "weights");
        std::vector<double> w(p * c);
        weights.copyToHost(w, best * p * c);
        ctx.synchronize();
        storeWeights(model, w);
    }
}

}  // namespace

RidgeModel ridgeFitCuda(StreamHandles& ctx, const float* features, std::size_t n, std::size_t p,
                        std::span<const std::int32_t> labels, int classes,
                        const RidgeParams& params, JobControl& job,
                        std::span<const float> hostFeatures) {
    const std::vector<std::size_t> trainRows =
        validateRidgeShape(hostFeatures.size(), n, p, labels, classes, params);
    const std::vector<double> alphas = ridgeAlphas(params);
    const std::size_t nt = trainRows.size();
    const std::size_t c = std::size_t(classes);
    const bool gram = ridgeSolverFor(nt, p, params.solver) == RidgeSolver::Gram;
    DeviceScope scope(ctx.device());
    const cudaStream_t s = ctx.stream();
    const std::size_t free = ctx.freeMemory();
    const std::size_t margin = std::size_t(64) << 20;
    auto tooLarge = [&](std::size_t bytes) {
        return Error("the ridge classifier on " + std::to_string(nt) + " rows of " +
                     std::to_string(p) + " features needs about " + mebibytes(bytes) +
                     " of GPU memory, but only " + mebibytes(free) + " are free");
    };
    std::size_t bytes = 0;
    CovarianceSpace space;
    if (gram) {
        bytes = (nt * p + 3 * nt * nt + p * c + 4 * nt * c + 2 * p) * sizeof(double) + margin;
    } else {
        // X V (as large as X) is never held whole: it is squared and summed a batch of rows at
        // a time, in as much memory as the eigensolver's workspace took (at least kBatchBytes).
        const std::size_t fixed = covarianceFixedBytes(nt, p, c, alphas.size()) + margin;
        if (fixed + p * p * sizeof(double) > free) throw tooLarge(fixed + p * p * sizeof(double));
        space.cov = DeviceBuffer<double>(p * p, s);
        space.eig = DeviceBuffer<double>(p, s);
        CS_CUSOLVER_CHECK(cusolverDnDsyevd_bufferSize(
            ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, int(p),
            space.cov.data(), int(p), space.eig.data(), &space.lwork));
        const std::size_t work = std::size_t(std::max(space.lwork, 1)) * sizeof(double);
        const std::size_t row = p * sizeof(double);
        const std::size_t fewest = std::min<std::size_t>(nt, 1024);  // or the GEMMs crawl
        const std::size_t room = free > fixed ? free - fixed : 0;
        space.batch = std::clamp(std::min(std::max(work, kBatchBytes), room) / row, fewest, nt);
        bytes = fixed + std::max(work, space.batch * row);
    }
    if (bytes > free) throw tooLarge(bytes);
    keepPoolWarm(ctx.device(), bytes);  // repeated runs (the live panel) reuse the mapping

    RidgeModel model;
    model.features = p;
    model.classes = classes;
    model.alphas = alphas;

    // Targets +1 / -1, centred; nt x classes column-major.
    Training t;
    t.nt = nt;
    t.p = p;
    t.y.assign(nt * c, -1.0);
    t.yc.resize(nt * c);
    t.labels.resize(nt);
    std::vector<double> yMean(c, 0.0);
    for (std::size_t r = 0; r < nt; ++r) {
        t.labels[r] = labels[trainRows[r]];
        t.y[r + std::size_t(t.labels[r]) * nt] = 1.0;
    }
    for (std::size_t k = 0; k < c; ++k) {
        for (std::size_t r = 0; r < nt; ++r)
            yMean[k] += t.y[r + k * nt];
        yMean[k] /= double(nt);
        for (std::size_t r = 0; r < nt; ++r)
            t.yc[r + k * nt] = t.y[r + k * nt] - yMean[k];
    }

    DeviceBuffer<double> mean(p, s), scale(p, s);
    t.z = DeviceBuffer<double>(nt * p, s);
    {
        ScopedGpuStage stage(ctx, job, "standardise");
        std::vector<std::uint32_t> rows32(trainRows.begin(), trainRows.end());
        DeviceBuffer<std::uint32_t> rows(nt, s);
        rows.copyFromHost(rows32);
        launchRidgeColumnStats(features, p, rows.data(), nt, mean.data(), scale.data(), s);
        launchRidgeStandardise(features, p, rows.data(), nt, mean.data(), scale.data(), t.z.data(),
                               s);
        model.mean = mean.toHost();
        model.scale = scale.toHost();
    }
    // A non-finite feature makes its column's mean non-finite: name the first one as the CPU's
    // check does, looking at those columns only.
    std::vector<std::size_t> nonFinite;
    for (std::size_t j = 0; j < p; ++j)
        if (!std::isfinite(model.mean[j])) nonFinite.push_back(j);
    if (!nonFinite.empty()) {
        checkFiniteFeatures(hostFeatures, p, trainRows, nonFinite);
        throw Error("the ridge classifier got non-finite features");
    }
    job.checkpoint();

    if (gram)
        fitGram(ctx, t, alphas, model, job);
    else
        fitCovariance(ctx, t, alphas, space, model, job);
    model.intercept = yMean;
    return model;
}

}  // namespace cs::kernels
