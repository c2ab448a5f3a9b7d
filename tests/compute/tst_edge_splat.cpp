// SPDX-License-Identifier: MIT
// The edge splat rule (compute/core/edge_splat.h), the CPU reference of the point view's CUDA
// renderer for kNN edges: hand-made cases of each part of the rule, and random graphs against
// an oracle that walks every pixel column of every edge in double and blends in order.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "compute/core/edge_splat.h"
#include "compute/core/error.h"

namespace {

constexpr std::uint32_t kSize = 64;

// World coordinates are window pixels, as in tst_point_splat: x, y in [0, 64) land at those
// window positions, z in [-1, 1].
cs::EdgeSplatView pixelView(float opacity = 1.0f) {
    cs::EdgeSplatView v;
    v.mvp[0] = 2.0f / kSize;
    v.mvp[5] = 2.0f / kSize;
    v.mvp[10] = 1.0f;
    v.mvp[12] = -1.0f;
    v.mvp[13] = -1.0f;
    v.mvp[15] = 1.0f;
    v.width = v.height = kSize;
    v.opacity = opacity;
    for (int i = 0; i < 256; ++i)
        v.map[i] = 0xFF000000u | std::uint32_t(i);  // red ramps with the length
    return v;
}

constexpr std::uint32_t kRed = 0xFF0000FFu;
constexpr std::uint32_t kBlue = 0xFFFF0000u;

struct Graph {
    std::vector<float> xyz;
    std::vector<std::uint32_t> rgba;
    std::vector<std::uint8_t> mask;
    std::vector<std::uint32_t> edges;
    std::uint32_t add(float x, float y, float z, std::uint32_t colour, std::uint8_t m = 0) {
        xyz.insert(xyz.end(), {x, y, z});
        rgba.push_back(colour);
        mask.push_back(m);
        return std::uint32_t(rgba.size() - 1);
    }
    void join(std::uint32_t a, std::uint32_t b) { edges.insert(edges.end(), {a, b}); }
    std::vector<std::uint32_t> splat(const cs::EdgeSplatView& v,
                                     std::size_t* drawn = nullptr) const {
        return cs::splatEdges(xyz, rgba, mask, edges, v, drawn);
    }
};

std::uint32_t at(const std::vector<std::uint32_t>& image, int x, int y) {
    return image[std::size_t(y) * kSize + std::size_t(x)];
}

std::size_t drawnPixels(const std::vector<std::uint32_t>& image) {
    return std::size_t(std::count_if(image.begin(), image.end(), [](auto p) { return p != 0; }));
}

int channel(std::uint32_t rgba, int c) {
    return int((rgba >> (8 * c)) & 0xFFu);
}

}  // namespace

class TestEdgeSplat : public QObject {
    Q_OBJECT

private slots:
    // A horizontal edge covers one pixel per column whose centre lies between its ends, in its
    // row, its colour going from one end's to the other's; its alpha is the opacity's byte.
    void horizontalEdgeCoversOnePixelPerColumn() {
        Graph g;
        g.join(g.add(10.5f, 20.25f, 0.0f, kRed), g.add(30.5f, 20.25f, 0.0f, kBlue));
        std::size_t drawn = 0;
        const auto image = g.splat(pixelView(0.5f), &drawn);
        QCOMPARE(drawn, std::size_t(1));
        QCOMPARE(drawnPixels(image), std::size_t(20));
        for (int x = 10; x < 30; ++x) {
            const std::uint32_t p = at(image, x, 20);
            const double t = (x + 0.5 - 10.5) / 20.0;
            QCOMPARE(channel(p, 0), int(std::lround(255 * (1 - t) + 1e-9)));  // red fades
            QCOMPARE(channel(p, 2), int(std::lround(255 * t + 1e-9)));        // blue grows
            QCOMPARE(int(p >> 24), 128);                                      // 0.5 of 255
        }
        QCOMPARE(at(image, 9, 20), 0u);
        QCOMPARE(at(image, 30, 20), 0u);
    }

    // A steep edge walks rows instead; the same edge reversed covers the same pixels.
    void steepEdgeWalksRowsAndDirectionDoesNotMatter() {
        Graph a, b;
        a.join(a.add(5.2f, 3.5f, 0.0f, kRed), a.add(9.7f, 40.5f, 0.0f, kRed));
        b.join(b.add(9.7f, 40.5f, 0.0f, kRed), b.add(5.2f, 3.5f, 0.0f, kRed));
        const auto ia = a.splat(pixelView()), ib = b.splat(pixelView());
        QCOMPARE(drawnPixels(ia), std::size_t(37));  // rows 3 .. 39
        QVERIFY(ia == ib);
        for (int y = 3; y < 40; ++y) {
            const double x = 5.2 + (y + 0.5 - 3.5) / 37.0 * 4.5;
            QVERIFY(at(ia, int(std::floor(x)), y) != 0);
        }
    }

    // Hidden ends (alpha 0 or mask 2) drop the edge whole; the length filter drops it too; a
    // dimmed end (mask 1) does not.
    void hiddenEndsAndTheFilterDropEdges() {
        Graph g;
        const auto a = g.add(2.5f, 2.5f, 0.0f, kRed), b = g.add(20.5f, 2.5f, 0.0f, kRed);
        const auto hidden = g.add(2.5f, 10.5f, 0.0f, 0x00FFFFFFu);
        const auto masked = g.add(20.5f, 10.5f, 0.0f, kRed, 2);
        const auto dimmed = g.add(20.5f, 30.5f, 0.0f, kRed, 1);
        g.join(a, b);
        g.join(a, hidden);
        g.join(b, masked);
        g.join(b, dimmed);
        std::size_t drawn = 0;
        auto image = g.splat(pixelView(), &drawn);
        QCOMPARE(drawn, std::size_t(2));
        QCOMPARE(drawnPixels(image), std::size_t(18 + 28));
        cs::EdgeSplatView v = pixelView();
        v.filter[0] = 19.0f;  // only the 28-pixel edge is long enough
        image = g.splat(v, &drawn);
        QCOMPARE(drawn, std::size_t(1));
        QCOMPARE(drawnPixels(image), std::size_t(28));
        v.filter[0] = 0.0f;
        v.filter[1] = 17.0f;
        image = g.splat(v, &drawn);
        QCOMPARE(drawn, std::size_t(0));
        QCOMPARE(drawnPixels(image), std::size_t(0));
    }

    // Coloured by length: the map's entry at the length's place in the colour range, at both
    // ends; the scale turns view units into data units.
    void lengthColoursComeFromTheMap() {
        Graph g;
        g.join(g.add(0.5f, 5.5f, 0.0f, kBlue), g.add(32.5f, 5.5f, 0.0f, kBlue));  // 32 long
        cs::EdgeSplatView v = pixelView();
        v.byLength = 1;
        v.scale = 2.0f;  // 16 data units
        v.colourRange[0] = 0.0f;
        v.colourRange[1] = 64.0f;  // a quarter of the way: entry 64
        const auto image = g.splat(v);
        QCOMPARE(drawnPixels(image), std::size_t(32));
        for (int x = 0; x < 32; ++x)
            QCOMPARE(at(image, x, 5), 0xFF000000u | 64u);
    }

    // Edges at one pixel blend in any order: one edge keeps its colour and alpha, two of the
    // same colour give 1 - (1 - a)^2, two colours their alpha-weighted mean; shuffling the edges
    // changes nothing.
    void blendingIsOrderIndependent() {
        Graph g;
        const auto a = g.add(0.5f, 7.5f, 0.0f, kRed), b = g.add(40.5f, 7.5f, 0.0f, kRed);
        const auto c = g.add(0.5f, 7.5f, 0.0f, kBlue), d = g.add(40.5f, 7.5f, 0.0f, kBlue);
        g.join(a, b);
        auto image = g.splat(pixelView(0.4f));
        QCOMPARE(at(image, 10, 7), (kRed & 0x00FFFFFFu) | (102u << 24));  // 0.4 * 255 = 102
        g.join(a, b);
        image = g.splat(pixelView(0.4f));
        const double a1 = 102.0 / 255.0, two = 1.0 - (1.0 - a1) * (1.0 - a1);
        QCOMPARE(int(at(image, 10, 7) >> 24), int(std::lround(two * 255.0)));
        QCOMPARE(at(image, 10, 7) & 0x00FFFFFFu, kRed & 0x00FFFFFFu);
        g.join(c, d);
        g.join(c, d);
        image = g.splat(pixelView(0.4f));
        QCOMPARE(channel(at(image, 10, 7), 0), 128);  // (255 + 0) / 2, rounded
        QCOMPARE(channel(at(image, 10, 7), 2), 128);
        std::mt19937 rng(1);
        for (int round = 0; round < 5; ++round) {
            Graph shuffled = g;
            std::vector<std::size_t> order(g.edges.size() / 2);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            for (std::size_t e = 0; e < order.size(); ++e) {
                shuffled.edges[2 * e] = g.edges[2 * order[e]];
                shuffled.edges[2 * e + 1] = g.edges[2 * order[e] + 1];
            }
            QVERIFY(shuffled.splat(pixelView(0.4f)) == image);
        }
    }

    // Clipping: an edge leaving the view draws its part inside; one beside the view or behind
    // the clip volume draws nothing but counts as drawn (as GL's primitives do).
    void edgesAreClippedToTheView() {
        Graph g;
        g.join(g.add(50.5f, 10.5f, 0.0f, kRed), g.add(100.5f, 10.5f, 0.0f, kRed));
        g.join(g.add(-30.0f, -30.0f, 0.0f, kRed), g.add(-10.0f, -5.0f, 0.0f, kRed));
        g.join(g.add(5.5f, 50.5f, 0.0f, kRed), g.add(5.5f, 60.5f, 5.0f, kRed));  // leaves z
        std::size_t drawn = 0;
        const auto image = g.splat(pixelView(), &drawn);
        QCOMPARE(drawn, std::size_t(3));
        std::size_t row10 = 0;
        for (int x = 0; x < int(kSize); ++x)
            row10 += at(image, x, 10) != 0;
        QCOMPARE(row10, std::size_t(64 - 50));
        // z = 1 is reached a fifth of the way from (5.5, 50.5): rows 50 and 51.
        std::size_t column5 = 0;
        for (int y = 0; y < int(kSize); ++y)
            column5 += at(image, 5, y) != 0;
        QCOMPARE(column5, std::size_t(2));
    }

    // Random graphs against an oracle that restates the rule in double: the pixels each edge
    // covers (within the clip volume), blended the same way.
    void randomGraphsMatchAnOracle() {
        std::mt19937 rng(9);
        std::uniform_real_distribution<float> coord(-8.0f, 72.0f);
        Graph g;
        for (int i = 0; i < 300; ++i)
            g.add(coord(rng), coord(rng), 0.0f, 0xFF000000u | (rng() & 0x00FFFFFFu));
        for (int e = 0; e < 600; ++e)
            g.join(rng() % 300, rng() % 300);
        const cs::EdgeSplatView v = pixelView(0.3f);
        const auto image = g.splat(v);
        // The oracle: which pixels each edge covers, by the rule's words, in double.
        std::vector<int> hits(kSize * kSize, 0);
        for (std::size_t e = 0; 2 * e < g.edges.size(); ++e) {
            const float* p = g.xyz.data() + 3 * g.edges[2 * e];
            const float* q = g.xyz.data() + 3 * g.edges[2 * e + 1];
            const double dx = q[0] - p[0], dy = q[1] - p[1];
            const bool alongX = std::abs(dx) >= std::abs(dy);
            const double major0 = alongX ? p[0] : p[1], span = alongX ? dx : dy;
            const double lo = std::min(major0, major0 + span), hi = std::max(major0, major0 + span);
            for (int c = 0; c < int(kSize); ++c) {
                if (!(c + 0.5 >= lo && c + 0.5 < hi)) continue;
                const double u = (c + 0.5 - major0) / span;
                const double other = alongX ? p[1] + u * dy : p[0] + u * dx;
                const int o = int(std::floor(other));
                if (o < 0 || o >= int(kSize)) continue;
                ++hits[alongX ? std::size_t(o) * kSize + std::size_t(c)
                              : std::size_t(c) * kSize + std::size_t(o)];
            }
        }
        std::size_t covered = 0, mismatched = 0;
        const double single = std::round(0.3 * 255.0) / 255.0;
        for (std::size_t i = 0; i < hits.size(); ++i) {
            covered += hits[i] > 0;
            const int alpha = int(image[i] >> 24);
            const int expected =
                hits[i] == 0 ? 0
                             : int(std::lround((1.0 - std::pow(1.0 - single, hits[i])) * 255.0));
            // Pixel centres exactly on a boundary may round either way in float.
            mismatched += std::abs(alpha - expected) > 1;
        }
        qInfo("%zu pixels covered, %zu unlike the oracle", covered, mismatched);
        QVERIFY(covered > 500);
        QVERIFY2(mismatched <= covered / 200, qPrintable(QString::number(mismatched)));
    }

    void badInputIsRefused() {
        Graph g;
        g.join(g.add(1, 1, 0, kRed), 7);
        QVERIFY_THROWS_EXCEPTION(cs::Error, g.splat(pixelView()));
        g.edges = {0};
        QVERIFY_THROWS_EXCEPTION(cs::Error, g.splat(pixelView()));
        g.edges.clear();
        g.mask.push_back(0);
        QVERIFY_THROWS_EXCEPTION(cs::Error, g.splat(pixelView()));
    }
};

QTEST_APPLESS_MAIN(TestEdgeSplat)
#include "tst_edge_splat.moc"
