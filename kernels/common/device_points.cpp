// SPDX-License-Identifier: MIT
#include "kernels/common/device_points.h"

#include "kernels/common/staged_copy.h"
#include "kernels/common/stream_handles.h"

namespace cs::kernels {

DeviceBuffer<float> uploadRecentred(StreamHandles& ctx, const PointSet& points, JobControl& job) {
    const cudaStream_t s = ctx.stream();
    DeviceBuffer<float> coords(points.coords.size(), s);
    {
        ScopedGpuStage stage(ctx, job, "upload");
        copyToDeviceStaged(coords.data(), points.coords.data(), coords.bytes(), ctx.device(), s);
        stage.finish();
    }
    {
        ScopedGpuStage stage(ctx, job, "recentre");
        recentreDevice(ctx, coords.data(), points.n, points.dims);
        stage.finish();
    }
    return coords;
}

void recentreDevice(StreamHandles& ctx, float* coords, std::size_t n, std::size_t dims) {
    if (n == 0 || dims == 0) return;
    const cudaStream_t s = ctx.stream();
    DeviceBuffer<std::uint32_t> words(3 * dims, s);
    DeviceBuffer<double> centre(dims, s);
    launchRecentre(coords, n, dims, words.data(), centre.data(), s);
}

}  // namespace cs::kernels
