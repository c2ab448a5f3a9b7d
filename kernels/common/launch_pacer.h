// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include "compute/core/job_control.h"
#include "kernels/common/cuda_event.h"
#include "kernels/common/stream_handles.h"

namespace cs::kernels {

/// Paces a long run of launches on a job's stream so that a Cancel lands within about one
/// launch: after each launch the host waits until the GPU has finished the one before it and
/// checks for cancellation. One launch stays queued, so the GPU never idles between them.
/// @code
/// LaunchPacer pacer(ctx, job);
/// for (std::size_t b = 0; b < n; b += step) {
///     launchFoo(b, std::min(n, b + step), ctx.stream());
///     pacer.launched();
/// }
/// @endcode
class LaunchPacer {
public:
    LaunchPacer(const StreamHandles& context, cs::JobControl& job);
    LaunchPacer(const LaunchPacer&) = delete;
    LaunchPacer& operator=(const LaunchPacer&) = delete;

    /// Call after queuing one launch (or a group of them): waits for the previous group, then
    /// throws cs::Cancelled when the job was cancelled.
    void launched();
    /// GPU milliseconds of the last group known to have finished (the one launched() waited
    /// for), or a negative value while none is known.
    double lastMs() const { return m_lastMs; }

private:
    cudaStream_t m_stream;
    cs::JobControl& m_job;
    CudaEvent m_done[3];  // ends of the last three groups: a group's time is between two ends
    std::size_t m_launches = 0;
    double m_lastMs = -1.0;
};

/// Runs launch(begin, end) over [0, count) in steps of `step`, paced by a LaunchPacer.
template <typename Launch>
void forPacedBatches(const StreamHandles& context, cs::JobControl& job, std::size_t count,
                     std::size_t step, Launch&& launch) {
    LaunchPacer pacer(context, job);
    step = std::max<std::size_t>(step, 1);
    for (std::size_t begin = 0; begin < count; begin += step) {
        launch(begin, std::min(count, begin + step));
        pacer.launched();
    }
}

}  // namespace cs::kernels
