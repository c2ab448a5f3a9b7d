// SPDX-License-Identifier: MIT
// Stable cluster colours: overlap matching across re-runs.
#include <QtTest>
#include <set>

#include "ui/panels/dbscan/cluster_colours.h"

using cs::clusterSizes;
using cs::ui::matchClusterSlots;
using Labels = std::vector<std::int32_t>;

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
};

QTEST_APPLESS_MAIN(TestClusterColours)
#include "tst_cluster_colours.moc"
