// SPDX-License-Identifier: MIT
#pragma once

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "compute/core/job_control.h"

namespace cs {

/// An allocator whose resize() leaves new trivial elements uninitialised: for result buffers of
/// gigabytes that are written in full right after (a download from the GPU), where the zero fill
/// of std::allocator would be a second pass over all the memory on one thread.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <typename U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}

    template <typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;  // default-, not value-initialised
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        std::construct_at(p, std::forward<Args>(args)...);
    }
};

/// Reserves n elements, asking the kernel to back them with transparent huge pages: the first
/// touch of a result for millions of points then faults 2 MiB pages, not 4 KiB ones.
template <typename T, typename A>
void reserveOnHugePages(std::vector<T, A>& v, std::size_t n) {
    v.reserve(n);
#ifdef __linux__
    constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
    const auto first = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t begin = (first + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t end = (first + n * sizeof(T)) & ~(kHugePage - 1);
    // Advice only: where huge pages are off, nothing changes.
    if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

/// reserveOnHugePages, then resizes to n: first the pages are mapped by several threads at once
/// (the kernel zeroes each page it maps, which one thread does at a few GB/s), so that the zero
/// fill of resize() runs over mapped memory. For results of gigabytes.
template <typename T, typename A>
void resizeOnHugePages(std::vector<T, A>& v, std::size_t n) {
    reserveOnHugePages(v, n);
#ifdef __linux__
    constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE (Linux 5.14); older kernels: EINVAL
    constexpr std::size_t kPerThread = std::size_t(256) << 20;
    const std::size_t bytes = n * sizeof(T);
    const auto first = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t page = 4096, begin = (first + page - 1) & ~(page - 1);
    const std::uintptr_t end = (first + bytes) & ~(page - 1);
    const std::size_t threads =
        std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()),
                              end > begin ? (end - begin) / kPerThread : 0);
    if (threads > 1) {
        const std::uintptr_t step = ((end - begin) / threads + page - 1) & ~(page - 1);
        std::vector<std::thread> workers;
        for (std::size_t t = 0; t < threads; ++t) {
            const std::uintptr_t a = begin + t * step, b = std::min(end, a + step);
            if (a < b)
                workers.emplace_back(
                    [a, b] { (void)madvise(reinterpret_cast<void*>(a), b - a, kPopulateWrite); });
        }
        for (auto& w : workers)
            w.join();
    }
#endif
    v.resize(n);
}

/// reserveOnHugePages, then resize(n, value) in steps of about 16 MiB with a checkpoint of job
/// between them: where mapping fresh pages is slow (0.3 GB/s seen on a shared 2-core VM), the zero
/// fill of a result of hundreds of megabytes would otherwise hold a Cancel for half a second.
/// Throws cs::Cancelled (v then holds what was filled).
template <typename T, typename A>
void resizeCancellable(std::vector<T, A>& v, std::size_t n, JobControl* job, const T& value = T()) {
    reserveOnHugePages(v, n);
    const std::size_t step = std::max<std::size_t>(1, (std::size_t(16) << 20) / sizeof(T));
    while (v.size() < n) {
        if (job) job->checkpoint();
        v.resize(std::min(n, v.size() + step), value);
    }
}

}  // namespace cs
