// SPDX-License-Identifier: MIT
#pragma once

// The batch loop of the ROCKET and MiniRocket transforms, written once: series in batches, each
// batch's feature rows copied to the host while the next batch computes.

#include <algorithm>
#include <cstddef>

#include "compute/core/job_control.h"
#include "kernels/common/staged_copy.h"
#include "kernels/common/stream_handles.h"

namespace cs::kernels {

/// Series [0, n) transformed `batch` at a time: launch(first, count) queues the kernels that
/// write feature rows [first, first + count) of `device` (rowBytes each) on ctx's stream, and
/// BlockDownload copies each batch's rows to `host` behind the next batch. Stages "transform"
/// (GPU time of each batch) and "download" (the host's time in the copies); progress in
/// "transform"; a cancellation checkpoint after each batch. release() runs once the last batch
/// is queued, to give back device memory that only the transform needed.
/// @code transformInBatches(ctx, job, n, 64, cols * 4, out.data(), d.data(), launch, [] {});
/// @endcode
template <typename Launch, typename Release>
void transformInBatches(StreamHandles& ctx, JobControl& job, std::size_t n, std::size_t batch,
                        std::size_t rowBytes, void* host, const void* device, Launch&& launch,
                        Release&& release) {
    BlockDownload download(host, device, ctx.device(), ctx.stream());
    batch = std::max<std::size_t>(batch, 1);
    for (std::size_t first = 0; first < n; first += batch) {
        const std::size_t count = std::min(batch, n - first);
        ScopedGpuStage stage(ctx, job, "transform");
        launch(first, count);
        stage.markEnd();
        {
            const auto copy = job.stage("download");  // the batch before, behind this one
            download.add(first * rowBytes, count * rowBytes);
        }
        stage.finish();
        job.setProgress(double(first + count) / double(n), "transform");
        job.checkpoint();
    }
    release();
    const auto copy = job.stage("download");
    download.finish();
}

}  // namespace cs::kernels
