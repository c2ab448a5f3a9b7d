// SPDX-License-Identifier: MIT
#include "kernels/common/cufft_plan.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/common/cuda_error.h"

namespace cs::kernels {
namespace {

void destroy(cufftHandle plan) noexcept {
    const cufftResult status = cufftDestroy(plan);
    if (status != CUFFT_SUCCESS)
        std::fprintf(stderr, "clusterscope: cufftDestroy failed: %s (ignored)\n",
                     statusName(status));
}

cufftType typeOf(CufftPlan::Kind kind) {
    switch (kind) {
        case CufftPlan::Kind::R2C:
            return CUFFT_R2C;
        case CufftPlan::Kind::C2R:
            return CUFFT_C2R;
        case CufftPlan::Kind::C2C:
            return CUFFT_C2C;
    }
    return CUFFT_C2C;
}

}  // namespace

CufftPlan::CufftPlan(Kind kind, long long n, long long batch, cudaStream_t stream)
    : m_kind(kind), m_n(n), m_batch(batch) {
    CS_CUFFT_CHECK(cufftCreate(&m_plan));
    m_valid = true;
    try {
        // Basic layout (no embeds): signals are contiguous, one after another.
        long long dims[1] = {n};
        CS_CUFFT_CHECK(cufftMakePlanMany64(m_plan, 1, dims, nullptr, 1, 0, nullptr, 1, 0,
                                           typeOf(kind), batch, &m_workSize));
        setStream(stream);
    } catch (...) {
        destroy(m_plan);
        m_valid = false;
        throw;
    }
}

CufftPlan::~CufftPlan() {
    if (m_valid) destroy(m_plan);
}

CufftPlan::CufftPlan(CufftPlan&& other) noexcept
    : m_plan(other.m_plan),
      m_valid(std::exchange(other.m_valid, false)),
      m_kind(other.m_kind),
      m_n(other.m_n),
      m_batch(other.m_batch),
      m_workSize(other.m_workSize) {}

CufftPlan& CufftPlan::operator=(CufftPlan&& other) noexcept {
    if (this != &other) {
        if (m_valid) destroy(m_plan);
        m_plan = other.m_plan;
        m_valid = std::exchange(other.m_valid, false);
        m_kind = other.m_kind;
        m_n = other.m_n;
        m_batch = other.m_batch;
        m_workSize = other.m_workSize;
    }
    return *this;
}

void CufftPlan::requireKind(Kind kind, const char* what) const {
    if (!m_valid) throw std::logic_error(std::string("CufftPlan::") + what + " on an empty plan");
    if (m_kind != kind)
        throw std::logic_error(std::string("CufftPlan::") + what + " on a plan of another kind");
}

void CufftPlan::execR2C(const float* in, cufftComplex* out) const {
    requireKind(Kind::R2C, "execR2C");
    // cuFFT takes non-const input but leaves an out-of-place R2C input untouched.
    CS_CUFFT_CHECK(cufftExecR2C(m_plan, const_cast<float*>(in), out));
}

void CufftPlan::execC2R(cufftComplex* in, float* out) const {
    requireKind(Kind::C2R, "execC2R");
    CS_CUFFT_CHECK(cufftExecC2R(m_plan, in, out));
}

void CufftPlan::execC2C(const cufftComplex* in, cufftComplex* out, int direction) const {
    requireKind(Kind::C2C, "execC2C");
    CS_CUFFT_CHECK(cufftExecC2C(m_plan, const_cast<cufftComplex*>(in), out, direction));
}

void CufftPlan::setStream(cudaStream_t stream) {
    CS_CUFFT_CHECK(cufftSetStream(m_plan, stream));
}

}  // namespace cs::kernels
