// SPDX-License-Identifier: MIT
#pragma once

// One family of checks for every CUDA runtime, cuBLAS, cuFFT and cuSOLVER call. The throwing
// macros turn a failed status into cs::kernels::CudaError (file, line, library, code, the
// library's name for the code and its message); the NOTHROW variant is for destructors and
// only logs. Host-only header: g++ compiles it with the CUDA include path.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <string>

#include "compute/core/error.h"

namespace cs::kernels {

/// A failed CUDA, cuBLAS, cuFFT or cuSOLVER call; what() names the call, the code and where.
class CudaError : public cs::DeviceError {
public:
    /// library: "CUDA", "cuBLAS", "cuFFT" or "cuSOLVER"; codeName: e.g. "cudaErrorInvalidValue".
    CudaError(std::string library, int code, std::string codeName, std::string message,
              std::string expression, std::string file, int line);

    /// "CUDA", "cuBLAS", "cuFFT" or "cuSOLVER".
    const std::string& library() const { return m_library; }
    /// The status as an integer (cudaError_t, cublasStatus_t, cufftResult, cusolverStatus_t).
    int code() const { return m_code; }
    /// The status's enumerator name, e.g. "cudaErrorMemoryAllocation", "CUFFT_INVALID_SIZE".
    const std::string& codeName() const { return m_codeName; }
    /// The library's description of the status.
    const std::string& message() const { return m_message; }
    /// The checked expression as written in the source.
    const std::string& expression() const { return m_expression; }
    /// Source file of the check (__FILE__).
    const std::string& file() const { return m_file; }
    /// Source line of the check.
    int line() const { return m_line; }

private:
    std::string m_library;
    int m_code;
    std::string m_codeName;
    std::string m_message;
    std::string m_expression;
    std::string m_file;
    int m_line;
};

/// Enumerator name of a status: "cudaErrorInvalidValue", "CUBLAS_STATUS_NOT_INITIALIZED" ...
const char* statusName(cudaError_t status);
const char* statusName(cublasStatus_t status);
const char* statusName(cufftResult status);
const char* statusName(cusolverStatus_t status);

namespace detail {

[[noreturn]] void throwCudaError(cudaError_t status, const char* expr, const char* file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* expr, const char* file,
                                   int line);
[[noreturn]] void throwCufftError(cufftResult status, const char* expr, const char* file, int line);
[[noreturn]] void throwCusolverError(cusolverStatus_t status, const char* expr, const char* file,
                                     int line);
/// Logs a failed call to stderr (used where throwing is not allowed); returns false.
bool logCudaError(cudaError_t status, const char* expr, const char* file, int line) noexcept;
/// Checks the last launch; with CS_CUDA_SYNC_LAUNCHES also waits for the device to finish it.
void checkLaunch(const char* file, int line);

inline void checkCuda(cudaError_t status, const char* expr, const char* file, int line) {
    if (status != cudaSuccess) [[unlikely]]
        throwCudaError(status, expr, file, line);
}
inline void checkCublas(cublasStatus_t status, const char* expr, const char* file, int line) {
    if (status != CUBLAS_STATUS_SUCCESS) [[unlikely]]
        throwCublasError(status, expr, file, line);
}
inline void checkCufft(cufftResult status, const char* expr, const char* file, int line) {
    if (status != CUFFT_SUCCESS) [[unlikely]]
        throwCufftError(status, expr, file, line);
}
inline void checkCusolver(cusolverStatus_t status, const char* expr, const char* file, int line) {
    if (status != CUSOLVER_STATUS_SUCCESS) [[unlikely]]
        throwCusolverError(status, expr, file, line);
}
inline bool checkCudaNoThrow(cudaError_t status, const char* expr, const char* file,
                             int line) noexcept {
    return status == cudaSuccess || logCudaError(status, expr, file, line);
}

}  // namespace detail
}  // namespace cs::kernels

/// Throws cs::kernels::CudaError when a CUDA runtime call fails.
/// @code CS_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream)); @endcode
#define CS_CUDA_CHECK(expr) ::cs::kernels::detail::checkCuda((expr), #expr, __FILE__, __LINE__)
/// Throws cs::kernels::CudaError when a cuBLAS call fails.
#define CS_CUBLAS_CHECK(expr) ::cs::kernels::detail::checkCublas((expr), #expr, __FILE__, __LINE__)
/// Throws cs::kernels::CudaError when a cuFFT call fails.
#define CS_CUFFT_CHECK(expr) ::cs::kernels::detail::checkCufft((expr), #expr, __FILE__, __LINE__)
/// Throws cs::kernels::CudaError when a cuSOLVER call fails.
#define CS_CUSOLVER_CHECK(expr) \
    ::cs::kernels::detail::checkCusolver((expr), #expr, __FILE__, __LINE__)
/// For destructors: logs a failed CUDA runtime call to stderr, never throws; true on success.
#define CS_CUDA_CHECK_NOTHROW(expr) \
    ::cs::kernels::detail::checkCudaNoThrow((expr), #expr, __FILE__, __LINE__)
/// After every kernel launch: throws on a bad launch; with the CMake option
/// CS_CUDA_SYNC_LAUNCHES=ON it also synchronises, so that a faulting kernel is reported here.
#define CS_CUDA_CHECK_LAUNCH() ::cs::kernels::detail::checkLaunch(__FILE__, __LINE__)
