// SPDX-License-Identifier: MIT
#include "ui/cluster_colours.h"

#include <algorithm>
#include <unordered_map>

namespace cs::ui {

std::vector<std::size_t> clusterSizes(std::span<const std::int32_t> labels, int clusterCount) {
    std::vector<std::size_t> sizes(std::size_t(std::max(clusterCount, 0)), 0);
    for (const std::int32_t l : labels)
        if (l >= 0 && l < clusterCount) ++sizes[std::size_t(l)];
    return sizes;
}

std::vector<int> matchClusterSlots(std::span<const std::int32_t> prevLabels,
                                   std::span<const int> prevSlots,
                                   std::span<const std::int32_t> labels, int clusterCount) {
    const std::size_t count = std::size_t(std::max(clusterCount, 0));
    std::vector<int> slotOf(count, -1);
    const std::vector<std::size_t> sizes = clusterSizes(labels, clusterCount);
    std::vector<bool> slotUsed;

    if (prevLabels.size() == labels.size() && !prevSlots.empty()) {
        // Points of one cluster tend to be contiguous in a file, so counting runs of equal pairs
        // before touching the hash keeps this cheap on millions of points.
        std::unordered_map<std::uint64_t, std::size_t> overlap;
        std::uint64_t runKey = 0;
        std::size_t runLength = 0;
        auto flush = [&] {
            if (runLength) overlap[runKey] += runLength;
            runLength = 0;
        };
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const std::int32_t o = prevLabels[i];
            const std::int32_t n = labels[i];
            if (o < 0 || n < 0 || std::size_t(o) >= prevSlots.size() || std::size_t(n) >= count)
                continue;
            const std::uint64_t key = (std::uint64_t(std::uint32_t(o)) << 32) | std::uint32_t(n);
            if (runLength && key != runKey) flush();
            runKey = key;
            ++runLength;
        }
        flush();

        struct Pair {
            std::size_t size;
            std::int32_t oldId;
            std::int32_t newId;
        };
        std::vector<Pair> pairs;
        pairs.reserve(overlap.size());
        for (const auto& [key, size] : overlap)
            pairs.push_back({size, std::int32_t(key >> 32), std::int32_t(key & 0xffffffffu)});
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
