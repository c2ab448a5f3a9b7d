// SPDX-License-Identifier: MIT
#include "ui/panels/dbscan/cluster_colours.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace cs::ui {

std::vector<int> matchClusterSlots(std::span<const std::int32_t> prevLabels,
                                   std::span<const int> prevSlots,
                                   std::span<const std::int32_t> labels, int clusterCount) {
    const std::vector<ClusterOverlap> overlap =
        prevLabels.size() == labels.size()
            ? clusterOverlap(prevLabels, int(prevSlots.size()), labels, clusterCount)
            : std::vector<ClusterOverlap>();
    return matchClusterSlots(overlap, prevSlots, clusterSizes(labels, clusterCount));
}

std::vector<int> matchClusterSlots(std::span<const ClusterOverlap> overlap,
                                   std::span<const int> prevSlots,
                                   std::span<const std::size_t> sizes) {
    const std::size_t count = sizes.size();
    std::vector<int> slotOf(count, -1);
    std::vector<bool> slotUsed;

    if (!overlap.empty() && !prevSlots.empty()) {
        struct Pair {
            std::size_t size;
            std::int32_t oldId;
            std::int32_t newId;
        };
        std::vector<Pair> pairs;
        pairs.reserve(overlap.size());
        for (const ClusterOverlap& o : overlap)
            if (o.a >= 0 && std::size_t(o.a) < prevSlots.size() && o.b >= 0 &&
                std::size_t(o.b) < count)
                pairs.push_back({std::size_t(o.points), o.a, o.b});
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

cs::CategoryPaint clusterPaint(std::span<const int> slotOf,
                               std::span<const std::uint32_t> slotColours, std::uint32_t noise,
                               ClusterVisibility visibility) {
    cs::CategoryPaint paint;
    paint.categoryRgba.resize(slotOf.size());
    for (std::size_t c = 0; c < slotOf.size(); ++c) {
        const int slot = slotOf[c];
        paint.categoryRgba[c] = slot >= 0 && std::size_t(slot) < slotColours.size()
                                    ? slotColours[std::size_t(slot)]
                                    : noise;
    }
    paint.noneRgba = noise;
    paint.showPrimary = visibility.core;
    paint.showSecondary = visibility.border;
    paint.showNone = visibility.noise;
    return paint;
}

bool coloursShowLabels(std::span<const std::uint32_t> colours,
                       std::span<const std::int32_t> labels) {
    if (colours.size() != labels.size()) return false;
    // Label -> colour through a table over the label range (noise at 0), colour -> label
    // through a map over the few colours in use.
    std::int32_t top = -1;
    for (const std::int32_t l : labels) {
        if (l < -1) return false;
        top = std::max(top, l);
    }
    std::vector<std::uint32_t> colourOf(std::size_t(top + 2));
    std::vector<bool> seen(colourOf.size(), false);
    std::unordered_map<std::uint32_t, std::int32_t> labelOf;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto slot = std::size_t(labels[i] + 1);
        if (seen[slot]) {
            if (colourOf[slot] != colours[i]) return false;
            continue;
        }
        seen[slot] = true;
        colourOf[slot] = colours[i];
        if (!labelOf.emplace(colours[i], labels[i]).second) return false;
    }
    return true;
}

bool coloursShowRun(std::span<const std::uint32_t> colours, std::span<const std::int32_t> labels,
                    std::span<const int> slotOf, std::span<const std::uint32_t> slotColours) {
    if (colours.size() != labels.size()) return false;
    std::optional<std::uint32_t> noise;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::int32_t l = labels[i];
        const int slot = l >= 0 && std::size_t(l) < slotOf.size() ? slotOf[std::size_t(l)] : -1;
        if (slot >= 0 && std::size_t(slot) < slotColours.size()) {
            if (colours[i] != slotColours[std::size_t(slot)]) return false;
        } else if (noise.value_or(colours[i]) != colours[i]) {
            return false;
        } else {
            noise = colours[i];
        }
    }
    return true;
}

}  // namespace cs::ui
