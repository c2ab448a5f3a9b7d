// SPDX-License-Identifier: MIT
// Smoke test of the kernels/ groundwork on a real device, each piece against a CPU
// computation: buffers, a custom kernel, cuBLAS, cuFFT, cuSOLVER, events, errors, the backend.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/dbscan/dbscan_datasets.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/cuda_event.h"
#include "kernels/common/cufft_plan.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/pinned_buffer.h"
#include "kernels/common/staged_copy.h"
#include "kernels/common/stream_handles.h"
#include "kernels/cuda_backend.h"
#include "tests/common/gpu_test.h"
#include "tests/gpu/saxpy_kernel.h"

using cs::kernels::CudaError;
using cs::kernels::DeviceBuffer;
using cs::kernels::StreamHandles;
using cs::kernels::test::launchSaxpy;

namespace {

constexpr std::uint32_t kSeed = 20240611;

std::vector<float> randomFloats(std::size_t n, std::uint32_t seed, float lo = -1.0f,
                                float hi = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v)
        x = dist(rng);
    return v;
}

// Created in main() once a device is known to be there, destroyed before main() returns (not
// at static destruction, when the CUDA runtime may already be unloading).
std::unique_ptr<StreamHandles> g_context;

StreamHandles& context() {
    return *g_context;
}

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string seedText() {
    return "(seed " + std::to_string(kSeed) + ")";
}

}  // namespace

CS_TEST(jobContextOwnsStreamAndHandles) {
    StreamHandles& ctx = context();
    CS_CHECK(ctx.stream() != nullptr);
    unsigned flags = 0;
    CS_CUDA_CHECK(cudaStreamGetFlags(ctx.stream(), &flags));
    CS_CHECK_EQ(flags, static_cast<unsigned>(cudaStreamNonBlocking));
    cudaStream_t bound = nullptr;
    CS_CUBLAS_CHECK(cublasGetStream(ctx.cublas(), &bound));
    CS_CHECK(bound == ctx.stream());
    bound = nullptr;
    CS_CUSOLVER_CHECK(cusolverDnGetStream(ctx.cusolver(), &bound));
    CS_CHECK(bound == ctx.stream());
    CS_CHECK(ctx.freeMemory() > 0);
    CS_CHECK(ctx.freeMemory() <= ctx.totalMemory());
    // A small request fits without asking the driver; one past the device is short, and says
    // what is free.
    CS_CHECK(!ctx.shortOfMemory(std::size_t(1) << 20).has_value());
    const auto shortBy = ctx.shortOfMemory(ctx.totalMemory() + 1);
    CS_CHECK(shortBy.has_value() && *shortBy > 0 && *shortBy <= ctx.totalMemory());
    cs::test::info("free " + std::to_string(ctx.freeMemory() >> 20) + " MiB of " +
                   std::to_string(ctx.totalMemory() >> 20) + " MiB; memory pools " +
                   (cs::kernels::memoryPoolsSupported() ? "yes" : "no"));
}

CS_TEST(deviceBufferRoundTrip) {
    StreamHandles& ctx = context();
    const std::vector<float> host = randomFloats((1 << 20) + 7, kSeed);
    DeviceBuffer<float> d(host.size(), ctx.stream());
    CS_CHECK_EQ(d.size(), host.size());
    CS_CHECK_EQ(d.bytes(), host.size() * sizeof(float));
    d.copyFromHost(host);
    CS_CHECK(d.toHost() == host);

    // Partial copies at an offset, device-to-device copies, zero().
    const std::vector<float> patch = {1.0f, 2.0f, 3.0f};
    d.copyFromHost(patch, 10);
    DeviceBuffer<float> copy(d.size(), ctx.stream());
    copy.copyFromDevice(d);
    std::vector<float> back(3);
    copy.copyToHost(back, 10);
    ctx.synchronize();
    CS_CHECK(back == patch);
    CS_CHECK_THROWS(d.copyFromHost(patch, d.size() - 1), std::out_of_range);
    d.zero();
    const auto zeros = d.toHost();
    CS_CHECK(std::all_of(zeros.begin(), zeros.end(), [](float x) { return x == 0.0f; }));

    // Moves transfer ownership and leave the source empty.
    float* const pointer = d.data();
    DeviceBuffer<float> moved(std::move(d));
    CS_CHECK(moved.data() == pointer);
    CS_CHECK(d.empty() && d.data() == nullptr);  // NOLINT(bugprone-use-after-move)
    DeviceBuffer<float> assigned;
    assigned = std::move(moved);
    CS_CHECK(assigned.data() == pointer && moved.empty());  // NOLINT(bugprone-use-after-move)
    DeviceBuffer<float> empty(0, ctx.stream());
    CS_CHECK(empty.empty() && empty.data() == nullptr && empty.toHost().empty());
}

CS_TEST(pinnedBufferAsyncRoundTrip) {
    StreamHandles& ctx = context();
    const std::size_t n = 1 << 18;
    cs::kernels::PinnedBuffer<int> in(n);
    cs::kernels::PinnedBuffer<int> out(n);
    for (std::size_t i = 0; i < n; ++i)
        in[i] = static_cast<int>(i * 7 - 3);
    DeviceBuffer<int> d(n, ctx.stream());
    d.copyFromHost(in.span());
    d.copyToHost(out.span());
    ctx.synchronize();
    CS_CHECK(std::equal(in.span().begin(), in.span().end(), out.span().begin()));
}

CS_TEST(saxpyKernelMatchesCpu) {
    StreamHandles& ctx = context();
    const std::size_t n = (1 << 20) + 3;  // not a multiple of the block size
    const float a = 2.5f;
    const std::vector<float> x = randomFloats(n, kSeed);
    std::vector<float> y = randomFloats(n, kSeed + 1);
    DeviceBuffer<float> dx(n, ctx.stream());
    DeviceBuffer<float> dy(n, ctx.stream());
    dx.copyFromHost(x);
    dy.copyFromHost(y);
    launchSaxpy(a, dx.data(), dy.data(), n, ctx.stream());
    const std::vector<float> gpu = dy.toHost();
    for (std::size_t i = 0; i < n; ++i)
        y[i] = a * x[i] + y[i];
    float worst = 0.0f;
    for (std::size_t i = 0; i < n; ++i)
        worst = std::max(worst, std::abs(gpu[i] - y[i]));
    CS_CHECK_MSG(worst <= 1e-6f, "max |gpu - cpu| = " + std::to_string(worst) + " " + seedText());
}

// Blocks of uneven sizes (one of several staging chunks, one of a few floats) are each written
// by launches on the compute stream, held back by a host function that sleeps first, and
// downloaded behind the next: every value arrives, at its place, after all the work on its
// block (a copy that did not wait for it would see zeros).
CS_TEST(blockDownloadCopiesEachBlockAfterItsWork) {
    StreamHandles& ctx = context();
    const std::vector<std::size_t> blocks = {(std::size_t(5) << 20) + 3, 7, std::size_t(1) << 20,
                                             (std::size_t(3) << 20) + 1};
    std::size_t n = 0;
    for (const std::size_t b : blocks)
        n += b;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = float(1 + i % 7);
    DeviceBuffer<float> dx(n, ctx.stream()), dy(n, ctx.stream());
    dx.copyFromHost(x);
    dy.zero();
    std::vector<float> host(n, -1.0f);
    constexpr int kLaunches = 64;  // 1 x + y, exact in floats: y ends at 64 x
    cs::kernels::BlockDownload download(host.data(), dy.data(), ctx.device(), ctx.stream());
    std::size_t first = 0;
    auto sleepAWhile = [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
    for (const std::size_t b : blocks) {
        CS_CUDA_CHECK(cudaLaunchHostFunc(ctx.stream(), sleepAWhile, nullptr));
        for (int l = 0; l < kLaunches; ++l)
            launchSaxpy(1.0f, dx.data() + first, dy.data() + first, b, ctx.stream());
        download.add(first * sizeof(float), b * sizeof(float));
        first += b;
    }
    download.finish();
    std::size_t wrong = 0, firstWrong = n;
    for (std::size_t i = 0; i < n; ++i)
        if (host[i] != float(kLaunches) * x[i]) {
            ++wrong;
            firstWrong = std::min(firstWrong, i);
        }
    CS_CHECK_MSG(wrong == 0, std::to_string(wrong) + " of " + std::to_string(n) +
                                 " values wrong, the first at " + std::to_string(firstWrong));
}

CS_TEST(cublasSgemmMatchesCpu) {
    StreamHandles& ctx = context();
    // Odd sizes, row-major A (m×k), B (k×n), C (m×n).
    const int m = 67, n = 45, k = 129;
    const std::vector<float> a = randomFloats(std::size_t(m) * k, kSeed);
    const std::vector<float> b = randomFloats(std::size_t(k) * n, kSeed + 1);
    DeviceBuffer<float> da(a.size(), ctx.stream());
    DeviceBuffer<float> db(b.size(), ctx.stream());
    DeviceBuffer<float> dc(std::size_t(m) * n, ctx.stream());
    da.copyFromHost(a);
    db.copyFromHost(b);
    // cuBLAS is column-major: row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
    const float one = 1.0f, zero = 0.0f;
    CS_CUBLAS_CHECK(cublasSgemm(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, db.data(), n,
                                da.data(), k, &zero, dc.data(), n));
    const std::vector<float> c = dc.toHost();
    double worst = 0.0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0.0;
            for (int p = 0; p < k; ++p)
                sum += double(a[i * k + p]) * b[p * n + j];
            worst = std::max(worst, std::abs(sum - c[i * n + j]));
        }
    CS_CHECK_MSG(worst <= 5e-4, "max |gpu - cpu| = " + std::to_string(worst) + " " + seedText());
}

CS_TEST(cufftR2cMatchesNaiveDft) {
    StreamHandles& ctx = context();
    const int n = 256, batch = 3;
    const int bins = n / 2 + 1;
    std::vector<float> signal(std::size_t(n) * batch);
    const std::vector<float> noise = randomFloats(signal.size(), kSeed, -0.1f, 0.1f);
    const double twoPi = 2.0 * std::numbers::pi;
    for (int s = 0; s < batch; ++s)
        for (int t = 0; t < n; ++t)
            signal[s * n + t] =
                float(std::cos(twoPi * 3 * t / n) + 0.5 * std::sin(twoPi * (7 + s) * t / n) +
                      0.2 * s + noise[s * n + t]);
    DeviceBuffer<float> din(signal.size(), ctx.stream());
    DeviceBuffer<cufftComplex> dout(std::size_t(bins) * batch, ctx.stream());
    din.copyFromHost(signal);
    // Through the context's plan cache: the same size gives the same plan, bound to its stream.
    const auto& plan = ctx.fftPlan(cs::kernels::CufftPlan::Kind::R2C, n, batch);
    CS_CHECK(&plan == &ctx.fftPlan(cs::kernels::CufftPlan::Kind::R2C, n, batch));
    CS_CHECK(&plan != &ctx.fftPlan(cs::kernels::CufftPlan::Kind::R2C, n, batch + 1));
    plan.execR2C(din.data(), dout.data());
    const std::vector<cufftComplex> spectrum = dout.toHost();

    double worst = 0.0;
    for (int s = 0; s < batch; ++s)
        for (int f = 0; f < bins; ++f) {
            std::complex<double> sum = 0.0;
            for (int t = 0; t < n; ++t)
                sum += double(signal[s * n + t]) * std::polar(1.0, -twoPi * f * t / n);
            const cufftComplex g = spectrum[s * bins + f];
            worst = std::max(worst, std::abs(sum - std::complex<double>(g.x, g.y)));
        }
    CS_CHECK_MSG(worst <= 2e-3, "max |gpu - dft| = " + std::to_string(worst) + " " + seedText());

    // The inverse (C2R) brings the signal back, times n; it overwrites its input.
    DeviceBuffer<float> back(signal.size(), ctx.stream());
    auto inverse = cs::kernels::CufftPlan::c2r(n, batch, ctx.stream());
    inverse.execC2R(dout.data(), back.data());
    const std::vector<float> roundTrip = back.toHost();
    double worstBack = 0.0;
    for (std::size_t i = 0; i < signal.size(); ++i)
        worstBack = std::max(worstBack, std::abs(roundTrip[i] / double(n) - signal[i]));
    CS_CHECK_MSG(worstBack <= 1e-4, "round trip error " + std::to_string(worstBack));
}

CS_TEST(cufftC2cMatchesNaiveDft) {
    StreamHandles& ctx = context();
    const int n = 100, batch = 2;  // not a power of two
    const std::vector<float> re = randomFloats(std::size_t(n) * batch, kSeed);
    const std::vector<float> im = randomFloats(std::size_t(n) * batch, kSeed + 1);
    std::vector<cufftComplex> input(re.size());
    for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = {re[i], im[i]};
    DeviceBuffer<cufftComplex> d(input.size(), ctx.stream());
    d.copyFromHost(input);
    auto plan = cs::kernels::CufftPlan::c2c(n, batch, ctx.stream());
    plan.execC2C(d.data(), d.data(), CUFFT_FORWARD);  // in place
    const std::vector<cufftComplex> out = d.toHost();
    const double twoPi = 2.0 * std::numbers::pi;
    double worst = 0.0;
    for (int s = 0; s < batch; ++s)
        for (int f = 0; f < n; ++f) {
            std::complex<double> sum = 0.0;
            for (int t = 0; t < n; ++t)
                sum += std::complex<double>(re[s * n + t], im[s * n + t]) *
                       std::polar(1.0, -twoPi * f * t / n);
            const cufftComplex g = out[s * n + f];
            worst = std::max(worst, std::abs(sum - std::complex<double>(g.x, g.y)));
        }
    CS_CHECK_MSG(worst <= 1e-3, "max |gpu - dft| = " + std::to_string(worst) + " " + seedText());
}

CS_TEST(cusolverSyevdFindsKnownEigenvalues) {
    StreamHandles& ctx = context();
    // A = Q·diag(λ)·Qᵀ with Q a Householder reflection, so the eigenvalues are exactly λ.
    const int n = 24;
    std::vector<double> lambda(n);
    for (int i = 0; i < n; ++i)
        lambda[i] = i - 5.5;
    const std::vector<float> v = randomFloats(n, kSeed, 0.1f, 1.0f);
    double vv = 0.0;
    for (float x : v)
        vv += double(x) * x;
    std::vector<double> q(std::size_t(n) * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            q[i * n + j] = (i == j ? 1.0 : 0.0) - 2.0 * v[i] * v[j] / vv;
    std::vector<float> a(std::size_t(n) * n);  // symmetric: row- and column-major alike
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0.0;
            for (int p = 0; p < n; ++p)
                sum += q[i * n + p] * lambda[p] * q[j * n + p];
            a[i * n + j] = float(sum);
        }

    DeviceBuffer<float> da(a.size(), ctx.stream());
    DeviceBuffer<float> dw(n, ctx.stream());
    DeviceBuffer<int> dinfo(1, ctx.stream());
    da.copyFromHost(a);
    int lwork = 0;
    CS_CUSOLVER_CHECK(cusolverDnSsyevd_bufferSize(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                                  CUBLAS_FILL_MODE_LOWER, n, da.data(), n,
                                                  dw.data(), &lwork));
    DeviceBuffer<float> work(std::size_t(lwork), ctx.stream());
    CS_CUSOLVER_CHECK(cusolverDnSsyevd(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                       CUBLAS_FILL_MODE_LOWER, n, da.data(), n, dw.data(),
                                       work.data(), lwork, dinfo.data()));
    CS_CHECK_EQ(dinfo.toHost()[0], 0);
    const std::vector<float> w = dw.toHost();
    const std::vector<float> vectors = da.toHost();  // column-major eigenvectors
    for (int i = 0; i < n; ++i)
        CS_CHECK_NEAR(w[i], lambda[i], 5e-4);  // ascending, like λ
    // Each column x satisfies A·x = w·x.
    double worst = 0.0;
    for (int c = 0; c < n; ++c)
        for (int i = 0; i < n; ++i) {
            double ax = 0.0;
            for (int j = 0; j < n; ++j)
                ax += double(a[i * n + j]) * vectors[c * n + j];
            worst = std::max(worst, std::abs(ax - double(w[c]) * vectors[c * n + i]));
        }
    CS_CHECK_MSG(worst <= 5e-4, "max residual " + std::to_string(worst) + " " + seedText());
}

CS_TEST(cudaEventsTimeWork) {
    StreamHandles& ctx = context();
    const std::size_t n = std::size_t(1) << 24;
    DeviceBuffer<float> x(n, ctx.stream());
    DeviceBuffer<float> y(n, ctx.stream());
    x.zero();
    y.zero();
    cs::kernels::CudaEvent start;
    cs::kernels::CudaEvent stop;
    start.record(ctx.stream());
    for (int i = 0; i < 10; ++i)
        launchSaxpy(1.0f, x.data(), y.data(), n, ctx.stream());
    stop.record(ctx.stream());
    const float ms = cs::kernels::elapsedMs(start, stop);
    CS_CHECK_MSG(ms > 0.0f, "elapsed " + std::to_string(ms) + " ms");
    CS_CHECK(stop.isDone());

    cs::JobControl job;
    {
        cs::kernels::ScopedGpuStage stage(ctx, job, "saxpy x10");
        for (int i = 0; i < 10; ++i)
            launchSaxpy(1.0f, x.data(), y.data(), n, ctx.stream());
    }
    const auto timings = job.timings();
    CS_CHECK_EQ(timings.size(), std::size_t(1));
    CS_CHECK_EQ(timings[0].name, std::string("saxpy x10"));
    CS_CHECK(timings[0].milliseconds > 0.0);
    cs::test::info("10 saxpy of 16M floats: " + std::to_string(ms) + " ms (events), " +
                   std::to_string(timings[0].milliseconds) + " ms (stage)");
}

CS_TEST(cudaErrorCarriesCodeAndLocation) {
    int line = 0;
    try {
        line = __LINE__ + 1;
        CS_CUDA_CHECK(cudaSetDevice(9999));
        CS_FAIL("cudaSetDevice(9999) did not throw");
    } catch (const CudaError& e) {
        CS_CHECK_EQ(e.code(), int(cudaErrorInvalidDevice));
        CS_CHECK_EQ(e.library(), std::string("CUDA"));
        CS_CHECK_EQ(e.codeName(), std::string("cudaErrorInvalidDevice"));
        CS_CHECK(endsWith(e.file(), "tst_cuda_smoke.cpp"));
        CS_CHECK_EQ(e.line(), line);
        CS_CHECK(std::string(e.what()).find("cudaErrorInvalidDevice") != std::string::npos);
        CS_CHECK(std::string(e.what()).find("cudaSetDevice(9999)") != std::string::npos);
        cs::test::info(e.what());
    }
    CS_CHECK_EQ(cudaGetLastError(), cudaSuccess);  // the failed call does not linger

    // An invalid copy direction.
    DeviceBuffer<float> a(4, context().stream());
    DeviceBuffer<float> b(4, context().stream());
    try {
        CS_CUDA_CHECK(cudaMemcpy(a.data(), b.data(), 4, static_cast<cudaMemcpyKind>(42)));
        CS_FAIL("cudaMemcpy with direction 42 did not throw");
    } catch (const CudaError& e) {
        CS_CHECK_EQ(e.code(), int(cudaErrorInvalidMemcpyDirection));
    }

    // A bad launch configuration, caught by CS_CUDA_CHECK_LAUNCH in the launcher (CUDA 13
    // reports cudaErrorInvalidValue for a 4096-thread block, older runtimes
    // cudaErrorInvalidConfiguration).
    try {
        launchSaxpy(1.0f, a.data(), b.data(), a.size(), context().stream(), 4096);
        CS_FAIL("a 4096-thread block did not throw");
    } catch (const CudaError& e) {
        CS_CHECK(e.code() == int(cudaErrorInvalidValue) ||
                 e.code() == int(cudaErrorInvalidConfiguration));
        CS_CHECK_EQ(e.expression(), std::string("kernel launch"));
        CS_CHECK(endsWith(e.file(), "saxpy_kernel.cu"));
    }
    CS_CHECK_EQ(cudaGetLastError(), cudaSuccess);

    // The no-throw variant logs and reports.
    CS_CHECK(!CS_CUDA_CHECK_NOTHROW(cudaSetDevice(9999)));
    CS_CHECK(CS_CUDA_CHECK_NOTHROW(cudaSetDevice(0)));
}

CS_TEST(libraryErrorsHaveReadableNames) {
    StreamHandles& ctx = context();
    const float one = 1.0f;
    try {
        CS_CUBLAS_CHECK(cublasSgemm(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, -1, 1, 1, &one, nullptr,
                                    1, nullptr, 1, &one, nullptr, 1));
        CS_FAIL("SGEMM with m = -1 did not throw");
    } catch (const CudaError& e) {
        CS_CHECK_EQ(e.library(), std::string("cuBLAS"));
        CS_CHECK_EQ(e.codeName(), std::string("CUBLAS_STATUS_INVALID_VALUE"));
    }
    try {
        auto plan = cs::kernels::CufftPlan::r2c(0, 1, ctx.stream());
        CS_FAIL("a 0-point FFT plan did not throw");
    } catch (const CudaError& e) {
        CS_CHECK_EQ(e.library(), std::string("cuFFT"));
        CS_CHECK_MSG(e.codeName().rfind("CUFFT_INVALID", 0) == 0, e.codeName());
        cs::test::info(e.what());
    }
    try {
        int lwork = 0;
        CS_CUSOLVER_CHECK(cusolverDnSsyevd_bufferSize(ctx.cusolver(), CUSOLVER_EIG_MODE_VECTOR,
                                                      CUBLAS_FILL_MODE_LOWER, -1, nullptr, 1,
                                                      nullptr, &lwork));
        CS_FAIL("syevd with n = -1 did not throw");
    } catch (const CudaError& e) {
        CS_CHECK_EQ(e.library(), std::string("cuSOLVER"));
        CS_CHECK_EQ(e.codeName(), std::string("CUSOLVER_STATUS_INVALID_VALUE"));
    }
}

CS_TEST(oversizedAllocationThrows) {
    StreamHandles& ctx = context();
    const std::size_t tooMuch = ctx.totalMemory() + (std::size_t(1) << 30);
    try {
        DeviceBuffer<std::byte> huge(tooMuch, ctx.stream());
        CS_FAIL("allocating " + std::to_string(tooMuch) + " bytes did not throw");
    } catch (const CudaError& e) {
        CS_CHECK_EQ(e.code(), int(cudaErrorMemoryAllocation));
        cs::test::info(e.what());
    }
    try {
        DeviceBuffer<double> overflow(std::numeric_limits<std::size_t>::max() / 4, ctx.stream());
        CS_FAIL("a size that overflows did not throw");
    } catch (const CudaError& e) {
        CS_CHECK_EQ(e.code(), int(cudaErrorMemoryAllocation));
    }
    CS_CHECK_EQ(cudaGetLastError(), cudaSuccess);
    // The device is still usable.
    DeviceBuffer<float> small(1024, ctx.stream());
    small.zero();
    CS_CHECK_EQ(small.toHost()[1023], 0.0f);
}

// Running out of device memory in one job is that job's limit, not a fault of the device: the
// error is not isDeviceFault() (the GUI keeps the GPU and runs only that job on the CPU), and the
// same backend runs the next job, right, once the memory is back.
CS_TEST(outOfMemoryLeavesTheBackendUsable) {
    StreamHandles& ctx = context();
    auto backend = cs::kernels::createCudaBackend();
    const cs::PointSet big = cs::makeBlobPoints(20'000'000, 3, 7);
    const cs::DbscanParams p{.eps = 1.0f, .minPts = 10};
    std::vector<DeviceBuffer<std::byte>> hog;  // nearly all the free memory, on another stream
    for (std::size_t chunk = std::size_t(1) << 30; chunk >= (std::size_t(1) << 20); chunk /= 2) {
        for (;;) {
            std::size_t free = 0, total = 0;
            CS_CHECK_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
            if (free < chunk + (std::size_t(32) << 20)) break;
            try {
                hog.emplace_back(chunk, ctx.stream());
            } catch (const CudaError&) {
                break;
            }
        }
    }
    ctx.synchronize();
    bool refused = false;
    try {
        cs::JobControl job;
        (void)backend->dbscan(big, p, job);
    } catch (const std::exception& e) {
        refused = true;
        cs::test::info(std::string("with the memory taken: ") + e.what());
        CS_CHECK_MSG(!cs::isDeviceFault(e), std::string("a device fault: ") + e.what());
    }
    CS_CHECK_MSG(refused, "DBSCAN of 20M points ran in the memory left over");
    hog.clear();
    ctx.synchronize();
    CS_CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, ctx.device()) == cudaSuccess)
        (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
    // The same backend, the next jobs: the big one runs, and a small one matches the CPU.
    cs::JobControl job;
    const cs::DbscanResult again = backend->dbscan(big, p, job);
    CS_CHECK_EQ(again.labels.size(), big.n);
    const cs::PointSet small = cs::makeBlobPoints(50'000, 3, 8);
    cs::JobControl job2, job3;
    const cs::DbscanResult gpu = backend->dbscan(small, p, job2);
    const cs::DbscanResult cpu = cs::CpuBackend().dbscan(small, p, job3);
    CS_CHECK(gpu.labels == cpu.labels);
}

CS_TEST(backendInfoSummary) {
    auto backend = cs::kernels::createCudaBackend();
    CS_CHECK_EQ(backend->name(), std::string("cuda"));
    const cs::BackendInfo info = backend->info();
    const std::string summary = info.summary();
    CS_CHECK_MSG(summary.rfind("CUDA · ", 0) == 0, summary);
    CS_CHECK(!info.device.empty());
    CS_CHECK(info.memoryTotal > 0 && info.memoryFree <= info.memoryTotal);
    CS_CHECK_MSG(info.versions.find("cuBLAS") != std::string::npos, info.versions);
    cs::test::info(summary);
    cs::test::info(info.versions);
}

int main(int argc, char** argv) {
    cs::test::skipWithoutCudaDevice("tst_cuda_smoke");
    g_context = std::make_unique<StreamHandles>(cs::kernels::probeCudaDevice().device);
    const int rc = cs::test::runTests("tst_cuda_smoke", argc, argv);
    g_context.reset();
    return rc;
}
