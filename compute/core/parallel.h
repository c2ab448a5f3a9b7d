// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "compute/core/job_control.h"

namespace cs {

/// Threads worth starting for n items of cheap per-item work: one per perThread items, at most
/// one per hardware thread, at least one.
inline unsigned threadsFor(std::size_t n, std::size_t perThread = std::size_t(1) << 18) {
    const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    return unsigned(std::clamp<std::size_t>(n / std::max<std::size_t>(perThread, 1), 1, hardware));
}

/// Workers for a requested thread count: `threads` when positive, else one per hardware thread.
inline unsigned workersFor(int threads) {
    return threads > 0 ? unsigned(threads) : std::max(1u, std::thread::hardware_concurrency());
}

/// [begin, end) of chunk c when n items are cut into `chunks` contiguous, near-equal chunks.
inline std::pair<std::size_t, std::size_t> chunkRange(std::size_t n, std::size_t chunks,
                                                      std::size_t c) {
    return {n * c / chunks, n * (c + 1) / chunks};
}

/// How parallelFor runs; the defaults use every hardware thread and report nothing.
struct ParallelOptions {
    /// Workers, the calling thread included; 0: one per hardware thread.
    unsigned threads = 0;
    /// Called on the calling thread with the fraction of chunks done, after each of its chunks.
    std::function<void(double fraction)> progress;
};

/// body(chunk, worker) for every chunk of [0, chunks), handed out one at a time to up to
/// options.threads workers (worker 0 is the calling thread; worker < threads indexes per-worker
/// scratch). Between chunks every worker looks at job->isCancelled(); a long body should call
/// job->checkpoint() itself. The first exception a body throws (cs::Cancelled, std::bad_alloc
/// ...) stops the others taking chunks and is rethrown here once every worker has joined; a
/// cancel seen between chunks surfaces as cs::Cancelled the same way. So nothing half-done and
/// no thread still writing ever escapes. Results must not depend on which worker ran a chunk.
/// @code
/// cs::parallelFor(blocks, &job, {.threads = 4}, [&](std::size_t b, unsigned worker) {...});
/// @endcode
template <class Body>
void parallelFor(std::size_t chunks, JobControl* job, const ParallelOptions& options, Body&& body) {
    if (job) job->checkpoint();
    if (chunks == 0) return;
    std::atomic<std::size_t> next{0}, done{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto worker = [&](unsigned id) {
        while (!stop.load(std::memory_order_relaxed)) {
            if (job && job->isCancelled()) break;
            const std::size_t chunk = next.fetch_add(1, std::memory_order_relaxed);
            if (chunk >= chunks) break;
            try {
                body(chunk, id);
            } catch (...) {
                std::lock_guard lock(errorMutex);
                if (!error) error = std::current_exception();
                stop.store(true, std::memory_order_relaxed);
                break;
            }
            const std::size_t finished = done.fetch_add(1, std::memory_order_relaxed) + 1;
            // The progress callback runs on the job's thread only (JobControl's contract); an
            // exception from it counts as the body's.
            if (id == 0 && options.progress) {
                try {
                    options.progress(double(finished) / double(chunks));
                } catch (...) {
                    std::lock_guard lock(errorMutex);
                    if (!error) error = std::current_exception();
                    stop.store(true, std::memory_order_relaxed);
                    break;
                }
            }
        }
    };
    {
        const auto workers =
            std::min<std::size_t>(options.threads > 0 ? options.threads : workersFor(0), chunks);
        std::vector<std::jthread> pool;
        pool.reserve(workers - 1);
        try {
            for (std::size_t t = 1; t < workers; ++t)
                pool.emplace_back(worker, unsigned(t));
        } catch (...) {
            // No thread to be had: the ones started and this one finish the work.
        }
        worker(0u);
    }
    if (error) std::rethrow_exception(error);
    if (job) job->checkpoint();
}

/// parallelFor over `chunks` contiguous ranges of [0, n): body(begin, end, worker). Fixed chunk
/// boundaries (chunkRange) for work whose rounding depends on them (blocked matrix products).
/// @code cs::parallelRanges(n, cs::threadsFor(n), nullptr, [&](auto b, auto e, unsigned) {...});
/// @endcode
template <class Body>
void parallelRanges(std::size_t n, std::size_t chunks, JobControl* job, Body&& body,
                    unsigned threads = 0) {
    chunks = std::max<std::size_t>(chunks, 1);
    parallelFor(chunks, job, {.threads = threads ? threads : unsigned(chunks)},
                [&](std::size_t c, unsigned worker) {
                    const auto [begin, end] = chunkRange(n, chunks, c);
                    if (end > begin) body(begin, end, worker);
                });
}

}  // namespace cs
