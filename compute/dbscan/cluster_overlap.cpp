// SPDX-License-Identifier: MIT
#include "compute/dbscan/cluster_overlap.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "compute/core/parallel.h"

namespace cs {
namespace {

/// Points per (old, new) label pair, by open addressing with linear probing: a clustering has a
/// few thousand distinct pairs, so the table stays in cache, where a node-based hash map would
/// miss on every point.
class PairCounts {
public:
    void add(std::uint64_t key, std::uint64_t count) {
        if (2 * (m_used + 1) > m_keys.size()) grow();
        std::size_t i = home(key);
        while (m_keys[i] != kEmpty && m_keys[i] != key)
            i = (i + 1) & (m_keys.size() - 1);
        if (m_keys[i] == kEmpty) {
            m_keys[i] = key;
            ++m_used;
        }
        m_counts[i] += count;
    }
    template <typename Fn>
    void forEach(Fn fn) const {
        for (std::size_t i = 0; i < m_keys.size(); ++i)
            if (m_keys[i] != kEmpty) fn(m_keys[i], m_counts[i]);
    }
    std::size_t size() const { return m_used; }

private:
    static constexpr std::uint64_t kEmpty = ~std::uint64_t(0);  // labels are below 2^31
    std::size_t home(std::uint64_t key) const {
        return std::size_t((key * 0x9E3779B97F4A7C15ull) >> (64 - m_bits));
    }
    void grow() {
        std::vector<std::uint64_t> keys = std::move(m_keys);
        std::vector<std::uint64_t> counts = std::move(m_counts);
        m_bits = keys.empty() ? 10 : m_bits + 1;
        m_keys.assign(std::size_t(1) << m_bits, kEmpty);
        m_counts.assign(m_keys.size(), 0);
        m_used = 0;
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] != kEmpty) add(keys[i], counts[i]);
    }

    std::vector<std::uint64_t> m_keys;
    std::vector<std::uint64_t> m_counts;
    std::size_t m_used = 0;
    unsigned m_bits = 0;
};

}  // namespace

std::vector<std::size_t> clusterSizes(std::span<const std::int32_t> labels, int clusterCount) {
    const std::size_t count = std::size_t(std::max(clusterCount, 0));
    // Per-thread counts when they are small beside the labels.
    const unsigned threads = count <= labels.size() / 64 ? threadsFor(labels.size()) : 1;
    std::vector<std::vector<std::size_t>> partial(threads, std::vector<std::size_t>(count, 0));
    parallelRanges(labels.size(), threads, nullptr,
                   [&](std::size_t begin, std::size_t end, unsigned t) {
                       std::vector<std::size_t>& sizes = partial[t];
                       for (std::size_t i = begin; i < end; ++i) {
                           const std::int32_t l = labels[i];
                           if (l >= 0 && std::size_t(l) < count) ++sizes[std::size_t(l)];
                       }
                   });
    for (unsigned t = 1; t < threads; ++t)
        for (std::size_t c = 0; c < count; ++c)
            partial[0][c] += partial[t][c];
    return std::move(partial[0]);
}

std::vector<ClusterOverlap> clusterOverlap(std::span<const std::int32_t> a, int countA,
                                           std::span<const std::int32_t> b, int countB) {
    if (a.size() != b.size())
        throw std::invalid_argument("clusterOverlap: clusterings of " + std::to_string(a.size()) +
                                    " and " + std::to_string(b.size()) + " points");
    const std::size_t na = std::size_t(std::max(countA, 0));
    const std::size_t nb = std::size_t(std::max(countB, 0));
    // Each thread counts its chunk's pairs, runs of equal pairs first (points of one cluster
    // tend to be contiguous in a file); the tables are merged after.
    const unsigned threads = threadsFor(a.size());
    std::vector<PairCounts> partial(threads);
    parallelRanges(a.size(), threads, nullptr, [&](std::size_t begin, std::size_t end, unsigned t) {
        PairCounts& counts = partial[t];
        std::uint64_t runKey = 0;
        std::uint64_t runLength = 0;
        for (std::size_t i = begin; i < end; ++i) {
            const std::int32_t x = a[i];
            const std::int32_t y = b[i];
            if (x < 0 || y < 0 || std::size_t(x) >= na || std::size_t(y) >= nb) continue;
            const std::uint64_t key = (std::uint64_t(std::uint32_t(x)) << 32) | std::uint32_t(y);
            if (runLength && key != runKey) {
                counts.add(runKey, runLength);
                runLength = 0;
            }
            runKey = key;
            ++runLength;
        }
        if (runLength) counts.add(runKey, runLength);
    });
    for (unsigned t = 1; t < threads; ++t)
        partial[t].forEach([&](std::uint64_t key, std::uint64_t n) { partial[0].add(key, n); });
    std::vector<ClusterOverlap> out;
    out.reserve(partial[0].size());
    partial[0].forEach([&](std::uint64_t key, std::uint64_t n) {
        out.push_back({std::int32_t(key >> 32), std::int32_t(key & 0xffffffffu), n});
    });
    std::sort(out.begin(), out.end(), [](const ClusterOverlap& x, const ClusterOverlap& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    return out;
}

}  // namespace cs
