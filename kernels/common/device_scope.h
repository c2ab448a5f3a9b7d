// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

namespace cs::kernels {

/// Makes a device current for the enclosing scope and restores the previous one on exit.
/// The current device is per host thread: a worker thread that runs a job sets it this way.
/// @code { DeviceScope scope(ctx.device()); CS_CUDA_CHECK(cudaMemGetInfo(&free, &total)); }
/// @endcode
class DeviceScope {
public:
    /// Throws CudaError when the device cannot be made current.
    explicit DeviceScope(int device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int m_previous = -1;
    int m_device = -1;
};

}  // namespace cs::kernels
