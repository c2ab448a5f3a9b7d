// SPDX-License-Identifier: MIT
#pragma once

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cs {

/// Reserves n elements, asking the kernel to back them with transparent huge pages: the first
/// touch of a result for millions of points then faults 2 MiB pages, not 4 KiB ones.
template <typename T>
void reserveOnHugePages(std::vector<T>& v, std::size_t n) {
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

}  // namespace cs
