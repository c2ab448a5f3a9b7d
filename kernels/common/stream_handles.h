// SPDX-License-Identifier: MIT
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "compute/core/job_control.h"
#include "kernels/common/cublas_handle.h"
#include "kernels/common/cuda_event.h"
#include "kernels/common/cuda_stream.h"
#include "kernels/common/cufft_plan.h"
#include "kernels/common/cusolver_dn_handle.h"

namespace cs::kernels {

/// What one GPU job runs with: a device, its own non-blocking stream, and the cuBLAS and
/// cuSOLVER handles and (cached, per size) cuFFT plans bound to that stream. Not thread-safe: one
/// job (one host thread) at a time; calls from a worker thread first make the device current
/// (DeviceScope).
/// @code
/// StreamHandles ctx(0);
/// DeviceBuffer<float> d(n, ctx.stream());
/// { ScopedGpuStage s(ctx, job, "distances"); launchFoo(d.data(), n, ctx.stream()); }
/// job.checkpoint();
/// @endcode
class StreamHandles {
public:
    /// Makes device current on the calling thread and creates the stream and handles there;
    /// throws CudaError.
    explicit StreamHandles(int device = 0);
    StreamHandles(const StreamHandles&) = delete;
    StreamHandles& operator=(const StreamHandles&) = delete;

    /// The CUDA device ordinal.
    int device() const { return m_device; }
    /// The job's stream (non-blocking, never the legacy default stream).
    cudaStream_t stream() const { return m_stream.get(); }
    /// cuBLAS handle bound to stream().
    cublasHandle_t cublas() const { return m_cublas.get(); }
    /// Dense cuSOLVER handle bound to stream().
    cusolverDnHandle_t cusolver() const { return m_cusolver.get(); }
    /// A cuFFT plan bound to stream() for batch n-point transforms, made on first use and kept:
    /// iterative algorithms (k-Shape) ask for the same sizes every iteration, and planning is
    /// far slower than executing. Throws CudaError.
    const CufftPlan& fftPlan(CufftPlan::Kind kind, long long n, long long batch);
    /// Frees the cached cuFFT plans (and their work areas).
    void releaseFftPlans() { m_fftPlans.clear(); }
    /// Bytes free on the device now (cudaMemGetInfo, a driver query: milliseconds on some
    /// systems, 8 ms reported on H200s with driver 580); size batches from this.
    std::size_t freeMemory() const;
    /// For refusing a job with a clear message before it starts: the bytes free when `bytes` more
    /// do not fit, else nothing. A request under an eighth of the device is taken to fit without
    /// asking the driver, so a live re-run does not wait for the query; one that does not fit
    /// after all fails on allocation with an out-of-memory DeviceError.
    std::optional<std::size_t> shortOfMemory(std::size_t bytes) const;
    /// Bytes on the device (asked once).
    std::size_t totalMemory() const;
    /// Blocks until everything queued on stream() has finished.
    void synchronize() const { m_stream.synchronize(); }
    /// Makes device() current on the calling thread (cudaSetDevice).
    void makeCurrent() const;

private:
    int m_device;
    CudaStream m_stream;  // declared before the handles: destroyed after them
    CublasHandle m_cublas;
    CusolverDnHandle m_cusolver;
    std::map<std::tuple<CufftPlan::Kind, long long, long long>, CufftPlan> m_fftPlans;
    mutable std::atomic<std::size_t> m_totalMemory{0};  // 0 until asked
};

/// Times the enclosing scope on the GPU: records a CUDA event on the context's stream at
/// construction and at the end, waits for the end event and adds the stage to the
/// JobControl's timings. Waiting makes the stage boundary a synchronisation point, which is
/// where a job checks for cancellation anyway. Nothing is recorded when the scope is left
/// by an exception.
/// @code { ScopedGpuStage s(ctx, job, "fft"); plan.execR2C(in, out); } @endcode
class ScopedGpuStage {
public:
    ScopedGpuStage(const StreamHandles& context, cs::JobControl& job, std::string name);
    /// Calls finish() unless it was called; never throws.
    ~ScopedGpuStage();
    ScopedGpuStage(const ScopedGpuStage&) = delete;
    ScopedGpuStage& operator=(const ScopedGpuStage&) = delete;

    /// Ends the stage now (unless markEnd() did), waits for it, records its timing and returns
    /// the milliseconds; throws CudaError.
    double finish();
    /// Marks the stage's end in stream order now, without waiting: the host can do other work
    /// (a download of an earlier batch) before finish() waits.
    void markEnd();

private:
    const StreamHandles& m_context;
    cs::JobControl& m_job;
    std::string m_name;
    CudaEvent m_start;
    CudaEvent m_stop;
    int m_uncaught;
    bool m_finished = false;
    bool m_ended = false;
};

}  // namespace cs::kernels
