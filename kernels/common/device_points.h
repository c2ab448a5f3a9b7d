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
    double scale = 1.0;  ///< recentredCoords()'s scale: distances here are the data's times it
    std::string backend() const override { return "cuda"; }
};

/// recentredCoords() of points on ctx's device: the raw coordinates uploaded through pinned
/// staging (stage "upload"; the PointSet is read in place, no host copy), then recentreDevice
/// (stage "recentre"). The context is left unset.
DevicePoints uploadRecentred(StreamHandles& ctx, const PointSet& points, JobControl& job);

/// Re-centres and scales n x dims row-major coordinates on ctx's device in place, as
/// recentredCoords(), and returns the scale (distanceScale() of the widest extent). Waits for
/// the bounds, which the scale needs on the host.
/// @code double scale = cs::kernels::recentreDevice(ctx, dCoords.data(), n, 3); @endcode
double recentreDevice(StreamHandles& ctx, float* coords, std::size_t n, std::size_t dims);

/// recentreDevice's kernels, asynchronous on stream. launchRecentreBounds: words (3 * dims words
/// of scratch) left holding each dimension's lowest and highest value as ordered words (lo at
/// words, hi at words + dims; orderedToFloat reads them), centre (dims doubles) the centre.
/// launchApplyCentre: coords = float((coords - centre) * scale).
void launchRecentreBounds(const float* coords, std::size_t n, std::size_t dims,
                          std::uint32_t* words, double* centre, cudaStream_t stream);
void launchApplyCentre(float* coords, std::size_t n, std::size_t dims, const double* centre,
                       double scale, cudaStream_t stream);

/// The float an ordered word of launchRecentreBounds or launchPointBounds stands for (the
/// inverse of the kernels' order-preserving map, ordered_float.cuh).
float orderedToFloat(std::uint32_t ordered);

}  // namespace cs::kernels
