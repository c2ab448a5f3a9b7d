// SPDX-License-Identifier: MIT
#include "kernels/common/cuda_error.h"

#include <cstdio>

namespace cs::kernels {
namespace {

std::string describe(const std::string& library, int code, const std::string& codeName,
                     const std::string& message, const std::string& expression,
                     const std::string& file, int line) {
    return library + " error " + codeName + " (" + std::to_string(code) + "): " + message +
           ", in " + expression + " at " + file + ":" + std::to_string(line);
}

// cuFFT and cuSOLVER have no status-to-text function of their own.
const char* cufftMessage(cufftResult status) {
    switch (status) {
        case CUFFT_SUCCESS:
            return "success";
        case CUFFT_INVALID_PLAN:
            return "invalid plan handle";
        case CUFFT_ALLOC_FAILED:
            return "out of device memory for the plan or its work area";
        case CUFFT_INVALID_TYPE:
            return "invalid transform type";
        case CUFFT_INVALID_VALUE:
            return "invalid pointer or parameter";
        case CUFFT_INTERNAL_ERROR:
            return "internal cuFFT or driver error";
        case CUFFT_EXEC_FAILED:
            return "the transform failed to execute on the GPU";
        case CUFFT_SETUP_FAILED:
            return "the cuFFT library failed to initialise";
        case CUFFT_INVALID_SIZE:
            return "invalid transform size";
        case CUFFT_UNALIGNED_DATA:
            return "unaligned data";
        case CUFFT_INVALID_DEVICE:
            return "invalid device for this plan";
        case CUFFT_NO_WORKSPACE:
            return "no work area was given to the plan";
        case CUFFT_NOT_IMPLEMENTED:
            return "not implemented";
        case CUFFT_NOT_SUPPORTED:
            return "operation not supported for these parameters";
        case CUFFT_MISSING_DEPENDENCY:
            return "a library cuFFT needs is missing";
        case CUFFT_NVRTC_FAILURE:
            return "NVRTC failure inside cuFFT";
        case CUFFT_NVJITLINK_FAILURE:
            return "nvJitLink failure inside cuFFT";
        case CUFFT_NVSHMEM_FAILURE:
            return "NVSHMEM failure inside cuFFT";
    }
    return "unknown cuFFT status";
}

const char* cusolverMessage(cusolverStatus_t status) {
    switch (status) {
        case CUSOLVER_STATUS_SUCCESS:
            return "success";
        case CUSOLVER_STATUS_NOT_INITIALIZED:
            return "the handle was not initialised";
        case CUSOLVER_STATUS_ALLOC_FAILED:
            return "resource allocation failed";
        case CUSOLVER_STATUS_INVALID_VALUE:
            return "an unsupported value or parameter was passed";
        case CUSOLVER_STATUS_ARCH_MISMATCH:
            return "the device lacks a feature this call needs";
        case CUSOLVER_STATUS_EXECUTION_FAILED:
            return "the GPU program failed to execute";
        case CUSOLVER_STATUS_INTERNAL_ERROR:
            return "internal cuSOLVER operation failed";
        case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
            return "matrix type not supported";
        case CUSOLVER_STATUS_NOT_SUPPORTED:
            return "not supported";
        case CUSOLVER_STATUS_INVALID_WORKSPACE:
            return "invalid workspace";
        default:
            return "cuSOLVER error";
    }
}

// Out of device memory is a limit of the job that asked, not a fault of the device.
bool isOutOfMemoryStatus(const std::string& library, int code) {
    if (library == "CUDA") return code == cudaErrorMemoryAllocation;
    if (library == "cuBLAS") return code == CUBLAS_STATUS_ALLOC_FAILED;
    if (library == "cuFFT") return code == CUFFT_ALLOC_FAILED;
    if (library == "cuSOLVER") return code == CUSOLVER_STATUS_ALLOC_FAILED;
    return false;
}

}  // namespace

CudaError::CudaError(std::string library, int code, std::string codeName, std::string message,
                     std::string expression, std::string file, int line)
    : DeviceError(describe(library, code, codeName, message, expression, file, line),
                  isOutOfMemoryStatus(library, code)),
      m_library(std::move(library)),
      m_code(code),
      m_codeName(std::move(codeName)),
      m_message(std::move(message)),
      m_expression(std::move(expression)),
      m_file(std::move(file)),
      m_line(line) {}

const char* statusName(cudaError_t status) {
    return cudaGetErrorName(status);
}

const char* statusName(cublasStatus_t status) {
    return cublasGetStatusName(status);
}

const char* statusName(cufftResult status) {
    switch (status) {
        case CUFFT_SUCCESS:
            return "CUFFT_SUCCESS";
        case CUFFT_INVALID_PLAN:
            return "CUFFT_INVALID_PLAN";
        case CUFFT_ALLOC_FAILED:
            return "CUFFT_ALLOC_FAILED";
        case CUFFT_INVALID_TYPE:
            return "CUFFT_INVALID_TYPE";
        case CUFFT_INVALID_VALUE:
            return "CUFFT_INVALID_VALUE";
        case CUFFT_INTERNAL_ERROR:
            return "CUFFT_INTERNAL_ERROR";
        case CUFFT_EXEC_FAILED:
            return "CUFFT_EXEC_FAILED";
        case CUFFT_SETUP_FAILED:
            return "CUFFT_SETUP_FAILED";
        case CUFFT_INVALID_SIZE:
            return "CUFFT_INVALID_SIZE";
        case CUFFT_UNALIGNED_DATA:
            return "CUFFT_UNALIGNED_DATA";
        case CUFFT_INVALID_DEVICE:
            return "CUFFT_INVALID_DEVICE";
        case CUFFT_NO_WORKSPACE:
            return "CUFFT_NO_WORKSPACE";
        case CUFFT_NOT_IMPLEMENTED:
            return "CUFFT_NOT_IMPLEMENTED";
        case CUFFT_NOT_SUPPORTED:
            return "CUFFT_NOT_SUPPORTED";
        case CUFFT_MISSING_DEPENDENCY:
            return "CUFFT_MISSING_DEPENDENCY";
        case CUFFT_NVRTC_FAILURE:
            return "CUFFT_NVRTC_FAILURE";
        case CUFFT_NVJITLINK_FAILURE:
            return "CUFFT_NVJITLINK_FAILURE";
        case CUFFT_NVSHMEM_FAILURE:
            return "CUFFT_NVSHMEM_FAILURE";
    }
    return "CUFFT_UNKNOWN_STATUS";
}

const char* statusName(cusolverStatus_t status) {
    switch (status) {
        case CUSOLVER_STATUS_SUCCESS:
            return "CUSOLVER_STATUS_SUCCESS";
        case CUSOLVER_STATUS_NOT_INITIALIZED:
            return "CUSOLVER_STATUS_NOT_INITIALIZED";
        case CUSOLVER_STATUS_ALLOC_FAILED:
            return "CUSOLVER_STATUS_ALLOC_FAILED";
        case CUSOLVER_STATUS_INVALID_VALUE:
            return "CUSOLVER_STATUS_INVALID_VALUE";
        case CUSOLVER_STATUS_ARCH_MISMATCH:
            return "CUSOLVER_STATUS_ARCH_MISMATCH";
        case CUSOLVER_STATUS_MAPPING_ERROR:
            return "CUSOLVER_STATUS_MAPPING_ERROR";
        case CUSOLVER_STATUS_EXECUTION_FAILED:
            return "CUSOLVER_STATUS_EXECUTION_FAILED";
        case CUSOLVER_STATUS_INTERNAL_ERROR:
            return "CUSOLVER_STATUS_INTERNAL_ERROR";
        case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
            return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
        case CUSOLVER_STATUS_NOT_SUPPORTED:
            return "CUSOLVER_STATUS_NOT_SUPPORTED";
        case CUSOLVER_STATUS_ZERO_PIVOT:
            return "CUSOLVER_STATUS_ZERO_PIVOT";
        case CUSOLVER_STATUS_INVALID_LICENSE:
            return "CUSOLVER_STATUS_INVALID_LICENSE";
        case CUSOLVER_STATUS_INVALID_WORKSPACE:
            return "CUSOLVER_STATUS_INVALID_WORKSPACE";
        default:
            return "CUSOLVER_STATUS_IRS_ERROR";  // the iterative-refinement family
    }
}

namespace detail {

void throwCudaError(cudaError_t status, const char* expr, const char* file, int line) {
    // A failed call also sets the runtime's last error; clear it (non-sticky errors only) so
    // that the next CS_CUDA_CHECK_LAUNCH does not report this call again.
    (void)cudaGetLastError();
    throw CudaError("CUDA", static_cast<int>(status), statusName(status),
                    cudaGetErrorString(status), expr, file, line);
}

void throwCublasError(cublasStatus_t status, const char* expr, const char* file, int line) {
    throw CudaError("cuBLAS", static_cast<int>(status), statusName(status),
                    cublasGetStatusString(status), expr, file, line);
}

void throwCufftError(cufftResult status, const char* expr, const char* file, int line) {
    throw CudaError("cuFFT", static_cast<int>(status), statusName(status), cufftMessage(status),
                    expr, file, line);
}

void throwCusolverError(cusolverStatus_t status, const char* expr, const char* file, int line) {
    throw CudaError("cuSOLVER", static_cast<int>(status), statusName(status),
                    cusolverMessage(status), expr, file, line);
}

bool logCudaError(cudaError_t status, const char* expr, const char* file, int line) noexcept {
    (void)cudaGetLastError();
    // Objects destroyed after main() returns (a backend held by a static registry) meet a
    // runtime that is already tearing the context down, and everything with it: not worth a line.
    if (status == cudaErrorCudartUnloading) return false;
    std::fprintf(stderr, "clusterscope: CUDA error %s (%d): %s, in %s at %s:%d (ignored)\n",
                 cudaGetErrorName(status), static_cast<int>(status), cudaGetErrorString(status),
                 expr, file, line);
    return false;
}

void checkLaunch(const char* file, int line) {
    checkCuda(cudaGetLastError(), "kernel launch", file, line);
#ifdef CS_CUDA_SYNC_LAUNCHES
    checkCuda(cudaDeviceSynchronize(), "kernel execution (CS_CUDA_SYNC_LAUNCHES)", file, line);
#endif
}

}  // namespace detail
}  // namespace cs::kernels
