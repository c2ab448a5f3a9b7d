// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace cs {

/// Threads worth starting for n items of cheap per-item work: one per perThread items, at most
/// one per hardware thread, at least one.
inline unsigned threadsFor(std::size_t n, std::size_t perThread = std::size_t(1) << 18) {
    const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    return unsigned(std::clamp<std::size_t>(n / std::max<std::size_t>(perThread, 1), 1, hardware));
}

/// body(begin, end, t) over `threads` contiguous chunks of [0, n), chunk 0 on the calling
/// thread, the others on threads of their own; returns when all are done. body must not throw.
/// @code cs::forChunks(n, cs::threadsFor(n), [&](std::size_t b, std::size_t e, unsigned) {...});
/// @endcode
template <typename Body>
void forChunks(std::size_t n, unsigned threads, Body body) {
    threads = std::max(threads, 1u);
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(body, n * t / threads, n * (t + 1) / threads, t);
    body(std::size_t(0), n / threads, 0u);
}

}  // namespace cs
