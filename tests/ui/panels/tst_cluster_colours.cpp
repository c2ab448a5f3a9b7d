// SPDX-License-Identifier: MIT
// Stable cluster colours: overlap matching across re-runs.
#include <QtTest>
#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include "ui/panels/dbscan/cluster_colours.h"
#include "ui/views/colour_maps.h"

using cs::clusterSizes;
using cs::ui::matchClusterSlots;
using Labels = std::vector<std::int32_t>;

namespace {

// The matching as first written, straight from its rule (a comparison sort of the cells,
// stable_sort of the rest, slots marked in a growing vector<bool>): the reference the fast one
// must agree with exactly.
std::vector<int> referenceSlots(std::span<const cs::ClusterOverlap> overlap,
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
        for (const cs::ClusterOverlap& o : overlap)
            if (o.a >= 0 && std::size_t(o.a) < prevSlots.size() && o.b >= 0 &&
                std::size_t(o.b) < count)
                pairs.push_back({std::size_t(o.points), o.a, o.b});
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

}  // namespace

class TestClusterColours : public QObject {
    Q_OBJECT

private slots:
    void firstRunGivesLargestClusterFirstSlot() {
        const Labels l{0, 1, 1, 1, 2, 2, -1};
        const auto s = matchClusterSlots({}, {}, l, 3);
        QCOMPARE(s, std::vector<int>({2, 0, 1}));
    }

    void persistingClustersKeepTheirSlots() {
        const Labels a{0, 0, 0, 1, 1, 1, 2, 2, -1, -1};
        const auto sa = matchClusterSlots({}, {}, a, 3);
        // Same clusters, ids renumbered (canonical order changed) and one point moved to noise.
        const Labels b{2, 2, -1, 0, 0, 0, 1, 1, -1, -1};
        const auto sb = matchClusterSlots(a, sa, b, 3);
        QCOMPARE(sb[2], sa[0]);
        QCOMPARE(sb[0], sa[1]);
        QCOMPARE(sb[1], sa[2]);
    }

    void splitKeepsColourOnTheLargerPart() {
        const Labels a{0, 0, 0, 0, 0, 0, 1, 1};
        const auto sa = matchClusterSlots({}, {}, a, 2);
        const Labels b{0, 0, 0, 0, 1, 1, 2, 2};
        const auto sb = matchClusterSlots(a, sa, b, 3);
        QCOMPARE(sb[0], sa[0]);
        QCOMPARE(sb[2], sa[1]);
        QVERIFY(sb[1] != sa[0] && sb[1] != sa[1]);
    }

    void mergeTakesTheLargerParentsColour() {
        const Labels a{0, 0, 0, 1, 1, 2, 2, 2, 2};
        const auto sa = matchClusterSlots({}, {}, a, 3);
        const Labels b{0, 0, 0, 0, 0, 1, 1, 1, 1};
        const auto sb = matchClusterSlots(a, sa, b, 2);
        QCOMPARE(sb[0], sa[0]);
        QCOMPARE(sb[1], sa[2]);
        // A new cluster later gets the freed slot, not a used one.
        const Labels c{0, 0, 0, 0, 0, 1, 1, 2, 2};
        const auto sc = matchClusterSlots(b, sb, c, 3);
        QCOMPARE(sc[0], sb[0]);
        QCOMPARE(sc[1], sb[1]);
        QCOMPARE(sc[2], sa[1]);
    }

    void slotsAreDistinct() {
        Labels a(5000), b(5000);
        for (std::size_t i = 0; i < a.size(); ++i) {
            a[i] = std::int32_t(i % 37) - 1;
            b[i] = std::int32_t((i * 7) % 53) - 1;
        }
        const auto sa = matchClusterSlots({}, {}, a, 36);
        const auto sb = matchClusterSlots(a, sa, b, 52);
        std::set<int> unique(sb.begin(), sb.end());
        QCOMPARE(unique.size(), sb.size());
    }

    // The fast matching (packed keys, radix sorted) against the reference on random inputs full
    // of ties: equal intersections, equal sizes, cells in any order, repeated and out-of-range
    // ids, slots missing (-1), shared or far above the rest, counts too wide to pack in a word.
    void matchingEqualsTheReference() {
        const std::uint64_t seed = 20240611;
        std::mt19937_64 rng(seed);
        const auto below = [&](std::uint64_t n) { return n ? rng() % n : 0; };
        for (int round = 0; round < 3000; ++round) {
            const bool big = round % 10 == 0;  // enough cells for the radix sort
            const std::size_t count = std::size_t(below(big ? 3000 : 60));
            const std::size_t prevCount = std::size_t(below(big ? 3000 : 60));
            const std::size_t cells = std::size_t(below(big ? 8000 : 150));
            // Intersections and sizes from a small range (ties), a wide one, or near 2^64.
            const int spread = int(below(6));
            const auto amount = [&]() -> std::uint64_t {
                switch (spread) {
                    case 0:
                        return 1 + below(3);
                    case 1:
                        return below(1000);
                    case 2:
                        return below(std::uint64_t(1) << 30);
                    case 3:
                        return below(std::uint64_t(1) << 40);
                    case 4:  // ties beside values too wide to pack
                        return below(8) == 0 ? rng() : 1 + below(3);
                    default:
                        return rng() >> below(3);
                }
            };
            std::vector<cs::ClusterOverlap> overlap(cells);
            for (auto& o : overlap) {
                o.a = std::int32_t(below(prevCount + 2)) - (below(20) == 0 ? 3 : 0);
                o.b = std::int32_t(below(count + 2)) - (below(20) == 0 ? 3 : 0);
                o.points = amount();
            }
            if (round % 4 == 1) {
                // As after a small parameter step: most clusters persist, one cell each (alone
                // on their slot and their new cluster), beside the random cells above.
                std::vector<std::int32_t> to(count);
                std::iota(to.begin(), to.end(), 0);
                std::shuffle(to.begin(), to.end(), rng);
                for (std::size_t a = 0; a < std::min(prevCount, count); ++a)
                    if (below(8) != 0) overlap.push_back({std::int32_t(a), to[a], amount()});
                std::shuffle(overlap.begin(), overlap.end(), rng);
            }
            if (round % 7 == 3) overlap.clear();  // a first run
            if (below(2))
                std::sort(overlap.begin(), overlap.end(), [](const auto& x, const auto& y) {
                    return x.a != y.a ? x.a < y.a : x.b < y.b;
                });
            std::vector<int> prevSlots(prevCount);
            for (std::size_t i = 0; i < prevCount; ++i)
                prevSlots[i] = int(i);
            std::shuffle(prevSlots.begin(), prevSlots.end(), rng);
            for (int& slot : prevSlots) {
                const auto r = below(30);
                if (r == 0) slot = -1;
                if (r == 1) slot = int(below(prevCount));  // shared with another cluster
                if (r == 2) slot = int(prevCount + below(5000));
            }
            std::vector<std::size_t> sizes(count);
            for (auto& size : sizes)
                size = std::size_t(amount());
            const auto fast = matchClusterSlots(overlap, prevSlots, sizes);
            const auto reference = referenceSlots(overlap, prevSlots, sizes);
            if (fast != reference) {
                std::size_t at = 0;
                while (fast[at] == reference[at])
                    ++at;
                QFAIL(qPrintable(QStringLiteral("seed %1 round %2 (%3 clusters, %4 before, %5 "
                                                "cells): cluster %6 has slot %7, expected %8")
                                     .arg(seed)
                                     .arg(round)
                                     .arg(count)
                                     .arg(prevCount)
                                     .arg(cells)
                                     .arg(at)
                                     .arg(fast[at])
                                     .arg(reference[at])));
            }
        }
    }

    // The palette's packed table (kept between calls, shared by threads) is the colours one by
    // one, whatever order the lengths come in.
    void slotColoursAreTheCategoricalPalette() {
        using cs::ui::ColourMaps;
        QVERIFY(ColourMaps::categoricalRgba(0).empty());
        QVERIFY(ColourMaps::categoricalRgba(-5).empty());
        std::vector<std::uint32_t> expected(60'000);
        for (std::size_t i = 0; i < expected.size(); ++i)
            expected[i] = ColourMaps::packRgba(ColourMaps::categorical(int(i)));
        std::vector<std::uint32_t> a, b;
        std::thread other([&] { a = ColourMaps::categoricalRgba(50'000); });
        b = ColourMaps::categoricalRgba(20'000);
        other.join();
        QVERIFY(a == std::vector<std::uint32_t>(expected.begin(), expected.begin() + 50'000));
        QVERIFY(b == std::vector<std::uint32_t>(expected.begin(), expected.begin() + 20'000));
        QVERIFY(ColourMaps::categoricalRgba(60'000) == expected);
        QCOMPARE(ColourMaps::categoricalRgba(3),
                 std::vector<std::uint32_t>(expected.begin(), expected.begin() + 3));
        // Past the entries kept (2^21), computed on each call.
        const int many = (1 << 21) + 500;
        const std::vector<std::uint32_t> all = ColourMaps::categoricalRgba(many);
        QCOMPARE(all.size(), std::size_t(many));
        QVERIFY(std::equal(expected.begin(), expected.end(), all.begin()));
        for (int i = (1 << 21) - 500; i < many; ++i)
            QCOMPARE(all[std::size_t(i)], ColourMaps::packRgba(ColourMaps::categorical(i)));
    }

    void millionsOfPointsMatchAcrossThreads() {
        // 3M points (counted on several threads), a relabelling of 100 clusters with some
        // points moved to noise: every new cluster keeps its old cluster's slot.
        const std::size_t n = 3'000'000;
        Labels prev(n), next(n);
        std::uint64_t state = 12345;
        std::vector<std::size_t> expectedSizes(100, 0);
        for (std::size_t i = 0; i < n; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const auto r = std::uint32_t(state >> 33);
            prev[i] = r % 101 == 100 ? -1 : std::int32_t(r % 101);
            next[i] = prev[i] < 0 || r % 7 == 0 ? -1 : std::int32_t((prev[i] * 37) % 100);
            if (next[i] >= 0) ++expectedSizes[std::size_t(next[i])];
        }
        QCOMPARE(clusterSizes(next, 100), expectedSizes);
        std::vector<int> prevSlots(100);
        for (int c = 0; c < 100; ++c)
            prevSlots[std::size_t(c)] = 99 - c;
        const auto slotOf = matchClusterSlots(prev, prevSlots, next, 100);
        for (int old = 0; old < 100; ++old)
            QCOMPARE(slotOf[std::size_t((old * 37) % 100)], prevSlots[std::size_t(old)]);

        // Painting, also on several threads, follows the rule point by point.
        std::vector<std::uint8_t> core(n);
        for (std::size_t i = 0; i < n; ++i)
            core[i] = std::uint8_t(i % 3 != 0);
        std::vector<std::uint32_t> slotColours(100);
        for (std::size_t c = 0; c < 100; ++c)
            slotColours[c] = 0xff000000u | std::uint32_t(c * 2654435761u >> 8);
        const cs::CategoryPaint paint =
            cs::ui::clusterPaint(slotOf, slotColours, 0x80808080u, {true, false, true});
        const auto rgba = cs::paintCategories(next, core, paint);
        QCOMPARE(rgba.size(), n);
        for (std::size_t i = 0; i < n; ++i)
            if (rgba[i] != paint.colourOf(next[i], core[i] != 0))
                QFAIL(qPrintable(QStringLiteral("point %1").arg(i)));
    }

    void noiseIsGreyAndHiddenClassesTransparent() {
        const Labels l{0, 0, -1, 1};
        const std::vector<std::uint8_t> core{1, 0, 0, 1};
        const std::vector<int> slotOf{1, 0};
        const std::vector<std::uint32_t> colours{0xff0000ffu, 0xff00ff00u};
        const std::uint32_t grey = 0x80808080u;
        auto rgba = cs::paintCategories(l, core, cs::ui::clusterPaint(slotOf, colours, grey, {}));
        QCOMPARE(rgba, std::vector<std::uint32_t>({0xff00ff00u, 0xff00ff00u, grey, 0xff0000ffu}));
        rgba = cs::paintCategories(
            l, core, cs::ui::clusterPaint(slotOf, colours, grey, {true, false, false}));
        QCOMPARE(rgba, std::vector<std::uint32_t>({0xff00ff00u, 0u, 0u, 0xff0000ffu}));
        // A label with no slot (out of range) is painted as noise; without core flags every
        // member counts as core.
        rgba = cs::paintCategories(
            Labels{5, 1}, {}, cs::ui::clusterPaint(slotOf, colours, grey, {true, false, true}));
        QCOMPARE(rgba, std::vector<std::uint32_t>({grey, 0xff0000ffu}));
    }

    // More clusters than palette colours: the run's own colours pass point by point, where the
    // partition check cannot (two clusters share a colour); any point off its colour fails.
    void screenMatchesTheRunWithRepeatedColours() {
        const Labels l{0, 1, 2, -1, 2, 0, 3, -1};
        const std::vector<int> slotOf{0, 1, 2, 3};
        const std::vector<std::uint32_t> palette{0xff0000ffu, 0xff00ff00u, 0xff0000ffu,
                                                 0xffff0000u};
        const std::uint32_t grey = 0x80808080u;
        const auto shown =
            cs::paintCategories(l, {}, cs::ui::clusterPaint(slotOf, palette, grey, {}));
        QVERIFY(cs::ui::coloursShowRun(shown, l, slotOf, palette));
        QVERIFY(!cs::ui::coloursShowLabels(shown, l));
        auto wrong = shown;
        wrong[4] = palette[1];  // a member of cluster 2 in cluster 1's colour
        QVERIFY(!cs::ui::coloursShowRun(wrong, l, slotOf, palette));
        wrong = shown;
        wrong[7] = palette[3];  // one noise point unlike the other
        QVERIFY(!cs::ui::coloursShowRun(wrong, l, slotOf, palette));
        // The colours of another clustering of the same points (a stale result) fail.
        const Labels before{0, 0, 1, -1, 1, 0, 1, -1};
        const auto stale =
            cs::paintCategories(before, {}, cs::ui::clusterPaint(slotOf, palette, grey, {}));
        QVERIFY(!cs::ui::coloursShowRun(stale, l, slotOf, palette));
        QVERIFY(!cs::ui::coloursShowRun(shown, std::span<const std::int32_t>(l).subspan(1), slotOf,
                                        palette));
    }

    // The legend's clusters: the prefix of a stable sort by size (ties by the lower id), for
    // any count, on sizes with many ties.
    void largestClustersIsTheStableSortPrefix() {
        std::mt19937 rng(7);
        for (const std::size_t clusters : {0, 1, 5, 13, 1000, 120'000}) {
            std::vector<std::size_t> sizes(clusters);
            for (auto& s : sizes)
                s = 1 + rng() % 40;
            if (clusters > 3) sizes[clusters / 2] = sizes[clusters / 3] = 1'000'000;
            std::vector<std::int32_t> order(clusters);
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
                return sizes[std::size_t(a)] > sizes[std::size_t(b)];
            });
            for (const std::size_t count :
                 {std::size_t(0), std::size_t(1), std::size_t(12), clusters, clusters + 3}) {
                const auto got = cs::ui::largestClusters(sizes, count);
                const std::size_t want = std::min(count, clusters);
                QCOMPARE(got.size(), want);
                QVERIFY2(std::equal(got.begin(), got.end(), order.begin()),
                         qPrintable(QStringLiteral("%1 of %2 clusters").arg(count).arg(clusters)));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestClusterColours)
#include "tst_cluster_colours.moc"
