// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>

namespace cs::kernels {

/// A 1-D batched single-precision cuFFT plan of the current device, bound to one stream.
/// Layout: batch signals stored one after another (row-major batch × length):
/// R2C reads batch × n floats and writes batch × (n/2 + 1) complex values; C2R the reverse
/// (unnormalised: a round trip multiplies by n); C2C reads and writes batch × n complex values.
/// Move-only; the plan's work area comes from cuFFT itself.
/// @code
/// CufftPlan plan = CufftPlan::r2c(length, series, ctx.stream());
/// plan.execR2C(signals.data(), spectra.data());
/// @endcode
class CufftPlan {
public:
    /// The transform a plan computes.
    enum class Kind { R2C, C2R, C2C };

    /// n-point transforms of batch signals; throws CudaError (CUFFT_INVALID_SIZE ...).
    CufftPlan(Kind kind, long long n, long long batch, cudaStream_t stream);
    /// Real to complex, batch × n floats to batch × (n/2 + 1) complex values.
    static CufftPlan r2c(long long n, long long batch, cudaStream_t stream) {
        return {Kind::R2C, n, batch, stream};
    }
    /// Complex to real, batch × (n/2 + 1) complex values to batch × n floats.
    static CufftPlan c2r(long long n, long long batch, cudaStream_t stream) {
        return {Kind::C2R, n, batch, stream};
    }
    /// Complex to complex, batch × n complex values either way.
    static CufftPlan c2c(long long n, long long batch, cudaStream_t stream) {
        return {Kind::C2C, n, batch, stream};
    }
    ~CufftPlan();
    CufftPlan(CufftPlan&& other) noexcept;
    CufftPlan& operator=(CufftPlan&& other) noexcept;
    CufftPlan(const CufftPlan&) = delete;
    CufftPlan& operator=(const CufftPlan&) = delete;

    /// Forward real-to-complex transform (plan of Kind::R2C); in-place is not supported here.
    void execR2C(const float* in, cufftComplex* out) const;
    /// Inverse complex-to-real transform (Kind::C2R); cuFFT overwrites in.
    void execC2R(cufftComplex* in, float* out) const;
    /// Complex transform (Kind::C2C); direction CUFFT_FORWARD or CUFFT_INVERSE; in may be out.
    void execC2C(const cufftComplex* in, cufftComplex* out, int direction) const;
    /// Rebinds the plan to another stream.
    void setStream(cudaStream_t stream);

    /// The raw handle.
    cufftHandle get() const { return m_plan; }
    /// The transform.
    Kind kind() const { return m_kind; }
    /// Points per transform.
    long long n() const { return m_n; }
    /// Number of transforms.
    long long batch() const { return m_batch; }
    /// Bytes of work area cuFFT allocated for the plan.
    std::size_t workSize() const { return m_workSize; }

private:
    void requireKind(Kind kind, const char* what) const;

    cufftHandle m_plan = 0;
    bool m_valid = false;
    Kind m_kind = Kind::C2C;
    long long m_n = 0;
    long long m_batch = 0;
    std::size_t m_workSize = 0;
};

}  // namespace cs::kernels
