// SPDX-License-Identifier: MIT
#include "kernels/common/launch_pacer.h"

namespace cs::kernels {

LaunchPacer::LaunchPacer(const StreamHandles& context, cs::JobControl& job)
    : m_stream(context.stream()), m_job(job) {}

void LaunchPacer::launched() {
    m_done[m_launches % 3].record(m_stream);
    // The launch before this one: waiting for it rather than for this one keeps the GPU busy
    // while the host checks, and a Cancel waits for at most the launch running now.
    if (m_launches > 0) {
        const CudaEvent& previous = m_done[(m_launches - 1) % 3];
        previous.synchronize();
        // One launch stays queued, so the GPU ran the previous group right after the one
        // before it: the time between their ends is the previous group's.
        if (m_launches > 1) m_lastMs = elapsedMs(m_done[(m_launches - 2) % 3], previous);
    }
    ++m_launches;
    m_job.checkpoint();
}

}  // namespace cs::kernels
