// SPDX-License-Identifier: MIT
#include "ui/cluster_colours.h"

#include <algorithm>
#include <thread>

namespace cs::ui {
namespace {

// Below this many points per thread, threads cost more than they save.
constexpr std::size_t kPointsPerThread = std::size_t(1) << 18;

unsigned threadsFor(std::size_t n) {
    const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    return unsigned(std::clamp<std::size_t>(n / kPointsPerThread, 1, hardware));
}

/// body(begin, end, t) over `threads` contiguous chunks of [0, n), in parallel.
template <typename Body>
void forChunks(std::size_t n, unsigned threads, Body body) {
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(body, n * t / threads, n * (t + 1) / threads, t);
    body(std::size_t(0), n / threads, 0u);
    for (auto& thread : pool)
        thread.join();
}

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
    forChunks(labels.size(), threads, [&](std::size_t begin, std::size_t end, unsigned t) {
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

std::vector<int> matchClusterSlots(std::span<const std::int32_t> prevLabels,
                                   std::span<const int> prevSlots,
                                   std::span<const std::int32_t> labels, int clusterCount) {
    return matchClusterSlots(prevLabels, prevSlots, labels, clusterSizes(labels, clusterCount));
}

std::vector<int> matchClusterSlots(std::span<const std::int32_t> prevLabels,
                                   std::span<const int> prevSlots,
                                   std::span<const std::int32_t> labels,
                                   std::span<const std::size_t> sizes) {
    const std::size_t count = sizes.size();
    std::vector<int> slotOf(count, -1);
    std::vector<bool> slotUsed;

    if (prevLabels.size() == labels.size() && !prevSlots.empty()) {
        // Each thread counts its chunk's pairs, runs of equal pairs first (points of one
        // cluster tend to be contiguous in a file); the tables are merged after.
        const unsigned threads = threadsFor(labels.size());
        std::vector<PairCounts> partial(threads);
        forChunks(labels.size(), threads, [&](std::size_t begin, std::size_t end, unsigned t) {
            PairCounts& counts = partial[t];
            std::uint64_t runKey = 0;
            std::uint64_t runLength = 0;
            for (std::size_t i = begin; i < end; ++i) {
                const std::int32_t o = prevLabels[i];
                const std::int32_t n = labels[i];
                if (o < 0 || n < 0 || std::size_t(o) >= prevSlots.size() || std::size_t(n) >= count)
                    continue;
                const std::uint64_t key =
                    (std::uint64_t(std::uint32_t(o)) << 32) | std::uint32_t(n);
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
        const PairCounts& overlap = partial[0];

        struct Pair {
            std::size_t size;
            std::int32_t oldId;
            std::int32_t newId;
        };
        std::vector<Pair> pairs;
        pairs.reserve(overlap.size());
        overlap.forEach([&](std::uint64_t key, std::uint64_t size) {
            pairs.push_back(
                {std::size_t(size), std::int32_t(key >> 32), std::int32_t(key & 0xffffffffu)});
        });
        // Largest intersection first; ties broken by ids so the result never depends on the
        // hash order.
        std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
            if (a.size != b.size) return a.size > b.size;
            if (a.newId != b.newId) return a.newId < b.newId;
            return a.oldId < b.oldId;
        });
        for (const Pair& p : pairs) {
            const int slot = prevSlots[std::size_t(p.oldId)];
            if (slot < 0 || slotOf[std::size_t(p.newId)] >= 0) continue;
            if (std::size_t(slot) >= slotUsed.size()) slotUsed.resize(std::size_t(slot) + 1, false);
            if (slotUsed[std::size_t(slot)]) continue;
            slotUsed[std::size_t(slot)] = true;
            slotOf[std::size_t(p.newId)] = slot;
        }
    }

    // The rest take the lowest free slotOf, the largest clusters first: the first palette
    // colours are the most distinct, and the big clusters are what the eye reads.
    std::vector<std::int32_t> order;
    for (std::size_t c = 0; c < count; ++c)
        if (slotOf[c] < 0) order.push_back(std::int32_t(c));
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        return sizes[std::size_t(a)] > sizes[std::size_t(b)];
    });
    std::size_t next = 0;
    for (const std::int32_t c : order) {
        while (next < slotUsed.size() && slotUsed[next])
            ++next;
        slotOf[std::size_t(c)] = int(next);
        if (next >= slotUsed.size()) slotUsed.resize(next + 1, false);
        slotUsed[next] = true;
    }
    return slotOf;
}

cs::ClusterPaint clusterPaint(std::span<const int> slotOf,
                              std::span<const std::uint32_t> slotColours, std::uint32_t noise,
                              ClusterVisibility visibility) {
    cs::ClusterPaint paint;
    paint.clusterRgba.resize(slotOf.size());
    for (std::size_t c = 0; c < slotOf.size(); ++c) {
        const int slot = slotOf[c];
        paint.clusterRgba[c] = slot >= 0 && std::size_t(slot) < slotColours.size()
                                   ? slotColours[std::size_t(slot)]
                                   : noise;
    }
    paint.noiseRgba = noise;
    paint.showCore = visibility.core;
    paint.showBorder = visibility.border;
    paint.showNoise = visibility.noise;
    return paint;
}

}  // namespace cs::ui
