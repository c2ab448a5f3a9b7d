// SPDX-License-Identifier: MIT
#include "ui/panels/dbscan/cluster_colours.h"

#include <algorithm>
#include <bit>
#include <mutex>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <vector>

namespace cs::ui {

namespace {

/// The matching's working memory, kept between calls: the GUI matches after every run (on a
/// thread started for it while a CUDA run's labels download), and fresh pages for ~100,000 cells
/// (page faults, zeroing) cost as much as the sorting itself.
struct Scratch {
    std::vector<std::uint64_t> keys;
    std::vector<std::uint64_t> spare;
    std::vector<std::size_t> counts;
    std::vector<std::uint8_t> slotUsed;  ///< 1 where a slot is taken
    std::vector<std::uint8_t> onSlot;    ///< cells giving each slot (0, 1, or 2 for more)
    std::vector<std::uint8_t> onNew;     ///< cells taking each new cluster (0, 1, 2 for more)

    /// Gives back what an unusually large input left (over 32 MiB of keys or of slots).
    void trim() {
        constexpr std::size_t kKeep = std::size_t(1) << 22;
        if (keys.capacity() + spare.capacity() > kKeep) {
            keys = {};
            spare = {};
        }
        if (slotUsed.capacity() > 8 * kKeep) slotUsed = {};
        if (onSlot.capacity() > 8 * kKeep) onSlot = {};
        if (onNew.capacity() > 8 * kKeep) onNew = {};
    }
};

/// A cell between a previous cluster that has a slot entry and a new cluster.
bool validCell(const ClusterOverlap& o, std::size_t prevCount, std::size_t count) {
    return o.a >= 0 && std::size_t(o.a) < prevCount && o.b >= 0 && std::size_t(o.b) < count;
}

/// Sorts s.keys ascending, keys below 2^bits. A comparison sort of ~100,000 cells took
/// milliseconds; an LSD radix sort by 11-bit digits (histograms in L1) makes a few linear passes,
/// skipping the digits every key shares.
void sortKeys(Scratch& s, unsigned bits) {
    constexpr unsigned kDigit = 11;
    constexpr std::size_t kBuckets = std::size_t(1) << kDigit;
    std::vector<std::uint64_t>& keys = s.keys;
    if (keys.size() < 512) {
        std::sort(keys.begin(), keys.end());
        return;
    }
    const unsigned passes = (bits + kDigit - 1) / kDigit;
    s.counts.assign(std::size_t(passes) * kBuckets, 0);
    for (const std::uint64_t k : keys)
        for (unsigned p = 0; p < passes; ++p)
            ++s.counts[p * kBuckets + ((k >> (p * kDigit)) & (kBuckets - 1))];
    s.spare.resize(keys.size());
    for (unsigned p = 0; p < passes; ++p) {
        std::size_t* const c = s.counts.data() + p * kBuckets;
        const unsigned shift = p * kDigit;
        if (c[(keys[0] >> shift) & (kBuckets - 1)] == keys.size()) continue;
        std::size_t sum = 0;
        for (std::size_t b = 0; b < kBuckets; ++b) {
            const std::size_t inBucket = c[b];
            c[b] = sum;
            sum += inBucket;
        }
        for (const std::uint64_t k : keys)
            s.spare[c[(k >> shift) & (kBuckets - 1)]++] = k;
        keys.swap(s.spare);
    }
}

/// The clusters without a slot take the lowest free ones, the largest clusters first (ties by
/// id): the first palette colours are the most distinct, and the big clusters are what the eye
/// reads. s.slotUsed: at least sizes.size() entries.
void assignFreeSlots(std::vector<int>& slotOf, std::span<const std::size_t> sizes, Scratch& s) {
    const std::size_t count = sizes.size();
    std::size_t most = 0;
    for (std::size_t c = 0; c < count; ++c)
        if (slotOf[c] < 0) most = std::max(most, sizes[c]);
    const unsigned idBits = unsigned(std::bit_width(count - 1));
    const unsigned bits = unsigned(std::bit_width(most)) + idBits;
    const std::uint64_t idMask = (std::uint64_t(1) << idBits) - 1;
    std::size_t next = 0;
    const auto give = [&](std::size_t c) {
        while (s.slotUsed[next])
            ++next;
        slotOf[c] = int(next);
        s.slotUsed[next] = 1;
    };
    if (bits < 64) {
        // (most - size, id): largest first, then by id, as a stable sort by size.
        s.keys.clear();
        for (std::size_t c = 0; c < count; ++c)
            if (slotOf[c] < 0) s.keys.push_back((std::uint64_t(most - sizes[c]) << idBits) | c);
        sortKeys(s, bits);
        for (const std::uint64_t k : s.keys)
            give(std::size_t(k & idMask));
    } else {
        std::vector<std::size_t> order;
        for (std::size_t c = 0; c < count; ++c)
            if (slotOf[c] < 0) order.push_back(c);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
        for (const std::size_t c : order)
            give(c);
    }
}

}  // namespace

std::vector<std::int32_t> largestClusters(std::span<const std::size_t> sizes, std::size_t count) {
    std::vector<std::int32_t> ids(sizes.size());
    std::iota(ids.begin(), ids.end(), 0);
    const auto before = [&](std::int32_t a, std::int32_t b) {
        const std::size_t sa = sizes[std::size_t(a)], sb = sizes[std::size_t(b)];
        return sa != sb ? sa > sb : a < b;
    };
    count = std::min(count, ids.size());
    std::partial_sort(ids.begin(), ids.begin() + std::ptrdiff_t(count), ids.end(), before);
    ids.resize(count);
    return ids;
}

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
    if (count == 0) return slotOf;
    // The kept memory, or fresh memory while another matching holds it.
    static std::mutex keptInUse;
    static Scratch kept;
    const std::unique_lock lock(keptInUse, std::try_to_lock);
    Scratch fresh;
    Scratch& s = lock.owns_lock() ? kept : fresh;
    // An unmatched cluster takes a slot below count (fewer than count are taken before it); a
    // matched one keeps the previous run's, which may lie above.
    std::size_t slotEnd = count;

    if (!overlap.empty() && !prevSlots.empty()) {
        for (const int slot : prevSlots)
            if (slot >= 0) slotEnd = std::max(slotEnd, std::size_t(slot) + 1);
        s.slotUsed.assign(slotEnd, 0);
        // A cell whose old cluster has no slot never gives one: such cells are left out. Of the
        // others, a cell alone on its slot and alone on its new cluster takes the slot in any
        // order; only the rest are sorted. When a parameter moves a little nearly every cluster
        // persists, one cell each, and the sort shrinks to the few that split or merge.
        const auto slotOfCell = [&](const ClusterOverlap& o) {
            return validCell(o, prevSlots.size(), count) ? prevSlots[std::size_t(o.a)] : -1;
        };
        s.onSlot.assign(slotEnd, 0);
        s.onNew.assign(count, 0);
        std::uint64_t most = 0;
        for (const ClusterOverlap& o : overlap) {
            const int slot = slotOfCell(o);
            if (slot < 0) continue;
            std::uint8_t& bySlot = s.onSlot[std::size_t(slot)];
            std::uint8_t& byNew = s.onNew[std::size_t(o.b)];
            bySlot += bySlot < 2;
            byNew += byNew < 2;
            most = std::max(most, o.points);
        }
        const auto alone = [&](const ClusterOverlap& o, int slot) {
            if (s.onSlot[std::size_t(slot)] != 1 || s.onNew[std::size_t(o.b)] != 1) return false;
            s.slotUsed[std::size_t(slot)] = 1;
            slotOf[std::size_t(o.b)] = slot;
            return true;
        };
        const auto take = [&](std::size_t oldId, std::size_t newId) {
            const int slot = prevSlots[oldId];
            if (slotOf[newId] >= 0 || s.slotUsed[std::size_t(slot)]) return;
            s.slotUsed[std::size_t(slot)] = 1;
            slotOf[newId] = slot;
        };
        // Largest intersection first; ties broken by ids so the result never depends on the
        // hash order: one key per cell, (most - points, new id, old id) packed high to low.
        const unsigned oldBits = unsigned(std::bit_width(prevSlots.size() - 1));
        const unsigned newBits = unsigned(std::bit_width(count - 1));
        const unsigned bits = unsigned(std::bit_width(most)) + newBits + oldBits;
        if (bits < 64) {
            s.keys.clear();
            for (const ClusterOverlap& o : overlap) {
                const int slot = slotOfCell(o);
                if (slot >= 0 && !alone(o, slot))
                    s.keys.push_back(((most - o.points) << (newBits + oldBits)) |
                                     (std::uint64_t(o.b) << oldBits) | std::uint64_t(o.a));
            }
            sortKeys(s, bits);
            const std::uint64_t oldMask = (std::uint64_t(1) << oldBits) - 1;
            const std::uint64_t newMask = (std::uint64_t(1) << newBits) - 1;
            for (const std::uint64_t k : s.keys)
                take(std::size_t(k & oldMask), std::size_t((k >> oldBits) & newMask));
        } else {
            // Intersections and ids too wide to pack into 63 bits: a comparison sort.
            struct Pair {
                std::uint64_t size;
                std::int32_t oldId;
                std::int32_t newId;
            };
            std::vector<Pair> pairs;
            for (const ClusterOverlap& o : overlap) {
                const int slot = slotOfCell(o);
                if (slot >= 0 && !alone(o, slot)) pairs.push_back({o.points, o.a, o.b});
            }
            std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
                if (a.size != b.size) return a.size > b.size;
                if (a.newId != b.newId) return a.newId < b.newId;
                return a.oldId < b.oldId;
            });
            for (const Pair& p : pairs)
                take(std::size_t(p.oldId), std::size_t(p.newId));
        }
    } else {
        s.slotUsed.assign(slotEnd, 0);
    }
    assignFreeSlots(slotOf, sizes, s);
    s.trim();
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
