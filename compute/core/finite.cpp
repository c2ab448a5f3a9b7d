// SPDX-License-Identifier: MIT
#include "compute/core/finite.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "compute/core/parallel.h"

namespace cs {
namespace {

constexpr std::size_t kBlock = 4096;                      // values tested without a branch
constexpr std::size_t kPerThread = std::size_t(1) << 22;  // values worth a thread of their own

// Whether values[0, n) are all finite: a float is not exactly when its exponent bits are all set.
bool blockFinite(const float* values, std::size_t n) {
    std::uint32_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, values + i, sizeof bits);
        bad |= std::uint32_t((bits & 0x7f800000u) == 0x7f800000u);
    }
    return bad == 0;
}

// The first non-finite value in blocks [first, last) of values, or values.size().
std::size_t firstInBlocks(std::span<const float> values, std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) {
        const std::size_t begin = b * kBlock, end = std::min(values.size(), begin + kBlock);
        if (blockFinite(values.data() + begin, end - begin)) continue;
        for (std::size_t i = begin; i < end; ++i)
            if (!std::isfinite(values[i])) return i;
    }
    return values.size();
}

}  // namespace

std::size_t firstNonFinite(std::span<const float> values) {
    const std::size_t blocks = (values.size() + kBlock - 1) / kBlock;
    const std::size_t chunks =
        std::clamp<std::size_t>(values.size() / kPerThread, 1, std::max(workersFor(0), 1u));
    if (chunks == 1) return firstInBlocks(values, 0, blocks);
    // Each chunk finds its own first; the earliest chunk's answer is the first of all.
    std::vector<std::size_t> firsts(chunks, values.size());
    parallelFor(chunks, nullptr, {.threads = unsigned(chunks)}, [&](std::size_t c, unsigned) {
        const auto [first, last] = chunkRange(blocks, chunks, c);
        firsts[c] = firstInBlocks(values, first, last);
    });
    return *std::min_element(firsts.begin(), firsts.end());
}

}  // namespace cs
