// SPDX-License-Identifier: MIT
#pragma once

// What a run needs in memory, said before it starts and again if it runs out: every method
// estimates its host memory from the data's shape and its parameters (AlgorithmDescriptor::
// memory), so that a run that cannot fit is refused up front and a std::bad_alloc becomes a
// sentence naming what was being allocated, how much, and what to change.

#include <cstddef>
#include <new>
#include <string>
#include <string_view>

#include "compute/core/error.h"
#include "compute/core/job_control.h"

namespace cs {

/// A method's memory need for one run on the CPU backend (host memory), about.
struct MemoryNeed {
    double bytes = 0.0;  ///< 0: not estimated
    std::string what;    ///< what dominates it: "the n x n Gram matrix (doubles)"
    std::string advice;  ///< what to change: "use fewer series or fewer kernels"
};

/// Physical memory the system could give a process now (Linux MemAvailable), and in all
/// (MemTotal plus SwapTotal), each at most what the process's address-space limit (ulimit -v)
/// still allows; 0 when unknown.
std::size_t availableMemoryBytes();
std::size_t totalMemoryBytes();

/// "640 KB", "12.3 GB" (decimal units, as the estimates are rough anyway).
std::string formatBytes(double bytes);

/// "k-Shape ran out of memory (stage "shapes"): it needs about 12.8 GB for the aligned
/// members of each cluster (doubles), 9.1 GB are available; use fewer or shorter series".
std::string outOfMemoryMessage(std::string_view method, const MemoryNeed& need,
                               std::string_view stage);

/// Throws cs::Error (the message above, worded as a refusal) when need.bytes exceeds the
/// system's memory in all: such a run could only end in std::bad_alloc or the OOM killer.
void checkMemoryFits(std::string_view method, const MemoryNeed& need);

/// Runs body; a std::bad_alloc out of it becomes cs::Error(outOfMemoryMessage(...)) with the
/// job's last stage, so that no front end ever shows a bare "std::bad_alloc".
template <class Body>
auto explainingOutOfMemory(std::string_view method, const MemoryNeed& need, const JobControl& job,
                           Body&& body) -> decltype(body()) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        throw Error(outOfMemoryMessage(method, need, job.lastStage()));
    }
}

}  // namespace cs
