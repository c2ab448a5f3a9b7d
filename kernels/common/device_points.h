// SPDX-License-Identifier: MIT
#pragma once

// Points on the device as every point method takes them: recentredCoords() (compute/core/
// geometry.h) of a host point set, computed there bit for bit. Host-only header (g++ with the
// CUDA include path) but for the launcher, which recentre.cu implements.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "compute/core/device_resident.h"
#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "kernels/common/device_buffer.h"

namespace cs::kernels {

class StreamHandles;

/// A point set's recentredCoords() on the device (CudaBackend::keepResident): the algorithms'
/// input without an upload, and the point view's positions through GL interop.
struct DevicePoints final : cs::DeviceResident {
    std::shared_ptr<StreamHandles> context;  ///< declared first: outlives the buffer
    DeviceBuffer<float> coords;              ///< n x dims, row-major
    std::size_t n = 0;
    std::size_t dims = 0;
    std::string backend() const override { return "cuda"; }
};

/// recentredCoords() of points on ctx's device: the raw coordinates uploaded through pinned
/// staging (stage "upload"; the PointSet is read in place, no host copy), then recentreDevice
/// (stage "recentre").
DeviceBuffer<float> uploadRecentred(StreamHandles& ctx, const PointSet& points, JobControl& job);

/// Re-centres n x dims row-major coordinates on ctx's device in place, as recentredCoords().
/// @code cs::kernels::recentreDevice(ctx, dCoords.data(), n, 3); @endcode
void recentreDevice(StreamHandles& ctx, float* coords, std::size_t n, std::size_t dims);

/// recentreDevice's kernels, asynchronous on stream. words: 3 * dims words of scratch, centre:
/// dims doubles (left holding the centre).
void launchRecentre(float* coords, std::size_t n, std::size_t dims, std::uint32_t* words,
                    double* centre, cudaStream_t stream);

}  // namespace cs::kernels
