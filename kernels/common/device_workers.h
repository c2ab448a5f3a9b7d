// SPDX-License-Identifier: MIT
#pragma once

// Host threads for a job spread over several devices (CudaBackend::setDevices). No CUDA header.

#include <cstddef>
#include <functional>

#include "compute/core/job_control.h"

namespace cs::kernels {

/// Runs body(w, workerJob) for every worker w < workers at once, worker 0 on the calling
/// thread with job itself (its progress, stages and iterations are the job's), the others on
/// their own threads with a JobControl that is part of job (job's cancel reaches them). Returns
/// once every worker has finished; then the other workers' stage timings are added to job as
/// "<stage> (worker w)". The first failure by worker index, a real error before a
/// cs::Cancelled, is rethrown after all have stopped. A body that waits for the others must
/// stop waiting when one of them fails (see RecallMerge in knn_gpu.cpp).
/// @code runOnDevices(2, job, [&](std::size_t w, JobControl& j) { parts[w] = run(ctx[w], j); });
/// @endcode
void runOnDevices(std::size_t workers, JobControl& job,
                  const std::function<void(std::size_t worker, JobControl& workerJob)>& body);

}  // namespace cs::kernels
