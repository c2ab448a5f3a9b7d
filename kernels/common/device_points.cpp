// SPDX-License-Identifier: MIT
#include "kernels/common/device_points.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "compute/core/geometry.h"
#include "kernels/common/staged_copy.h"
#include "kernels/common/stream_handles.h"

namespace cs::kernels {

DevicePoints uploadRecentred(StreamHandles& ctx, const PointSet& points, JobControl& job) {
    const cudaStream_t s = ctx.stream();
    DevicePoints out;
    out.n = points.n;
    out.dims = points.dims;
    out.coords = DeviceBuffer<float>(points.coords.size(), s);
    {
        ScopedGpuStage stage(ctx, job, "upload");
        copyToDeviceStaged(out.coords.data(), points.coords.data(), out.coords.bytes(),
                           ctx.device(), s);
        stage.finish();
    }
    {
        ScopedGpuStage stage(ctx, job, "recentre");
        out.scale = recentreDevice(ctx, out.coords.data(), points.n, points.dims);
        stage.finish();
    }
    return out;
}

double recentreDevice(StreamHandles& ctx, float* coords, std::size_t n, std::size_t dims) {
    if (n == 0 || dims == 0) return 1.0;
    const cudaStream_t s = ctx.stream();
    DeviceBuffer<std::uint32_t> words(3 * dims, s);
    DeviceBuffer<double> centre(dims, s);
    launchRecentreBounds(coords, n, dims, words.data(), centre.data(), s);
    // The widest extent as recentredCoords() takes it: hi - lo in double per dimension (a
    // dimension without a number gives -inf, which max passes over).
    const std::vector<std::uint32_t> bounds = words.toHost();
    double widest = 0.0;
    for (std::size_t j = 0; j < dims; ++j)
        widest = std::max(
            widest, double(orderedToFloat(bounds[dims + j])) - double(orderedToFloat(bounds[j])));
    const double scale = distanceScale(widest);
    launchApplyCentre(coords, n, dims, centre.data(), scale, s);
    return scale;
}

float orderedToFloat(std::uint32_t ordered) {
    return std::bit_cast<float>((ordered & 0x80000000u) ? (ordered & 0x7FFFFFFFu) : ~ordered);
}

}  // namespace cs::kernels
