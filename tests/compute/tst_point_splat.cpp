// SPDX-License-Identifier: MIT
// The point splat rule (compute/core/point_splat.h), the CPU reference of the point view's CUDA
// renderer: hand-made cases of each part of the rule, and random clouds against a brute-force
// oracle that works pixel by pixel (every point tested against every pixel, in double).
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/point_splat.h"

namespace {

constexpr std::uint32_t kSize = 64;

// World coordinates are window pixels: x, y in [0, 64) land at those window positions
// (powers of two throughout, so every step is exact), z in [-1, 1] at depth z / 2 + 1/2.
cs::PointSplatView pixelView(float diameter, float shading = 0.0f) {
    cs::PointSplatView v;
    v.mvp[0] = 2.0f / kSize;
    v.mvp[5] = 2.0f / kSize;
    v.mvp[10] = 1.0f;
    v.mvp[12] = -1.0f;
    v.mvp[13] = -1.0f;
    v.mvp[15] = 1.0f;
    v.width = v.height = kSize;
    v.diameter = diameter;
    v.shading = shading;
    v.background[0] = 1.0f;
    v.background[1] = 0.5f;
    v.background[2] = 0.0f;
    return v;
}

constexpr std::uint32_t kRed = 0xFF0000FFu;
constexpr std::uint32_t kGreen = 0xFF00FF00u;
constexpr std::uint32_t kBlue = 0xFFFF0000u;

struct Cloud {
    std::vector<float> xyz;
    std::vector<std::uint32_t> rgba;
    std::vector<std::uint8_t> mask;
    void add(float x, float y, float z, std::uint32_t colour, std::uint8_t m = 0) {
        xyz.insert(xyz.end(), {x, y, z});
        rgba.push_back(colour);
        mask.push_back(m);
    }
    std::vector<cs::SplatPixel> splat(const cs::PointSplatView& v) const {
        return cs::splatPoints(xyz, rgba, mask, v);
    }
};

std::uint32_t colourAt(const std::vector<cs::SplatPixel>& image, int x, int y) {
    return std::uint32_t(image[std::size_t(y) * kSize + std::size_t(x)]);
}

std::size_t drawnPixels(const std::vector<cs::SplatPixel>& image) {
    std::size_t drawn = 0;
    for (cs::SplatPixel p : image)
        drawn += p != cs::kEmptySplatPixel;
    return drawn;
}

// The rule written the other way round: each pixel looks at every point, in double.
std::vector<cs::SplatPixel> bruteForce(const Cloud& c, const cs::PointSplatView& v) {
    const double r = 0.5 * v.diameter;
    std::vector<cs::SplatPixel> image(std::size_t(v.width) * v.height, cs::kEmptySplatPixel);
    for (std::uint32_t py = 0; py < v.height; ++py)
        for (std::uint32_t px = 0; px < v.width; ++px) {
            double bestDepth = std::numeric_limits<double>::infinity();
            std::size_t best = 0;
            double bestD2 = 0;
            bool dimmed = false;
            for (std::size_t i = 0; i < c.rgba.size(); ++i) {
                const std::uint32_t alpha = c.rgba[i] >> 24;
                if (alpha == 0 || c.mask[i] == 2) continue;
                const bool far = alpha < 255 || c.mask[i] == 1;
                const double x = c.xyz[3 * i], y = c.xyz[3 * i + 1];
                const double z = far ? 1.0 : c.xyz[3 * i + 2];
                const double cx = x * 2.0 / kSize - 1.0, cy = y * 2.0 / kSize - 1.0;
                if (!(std::abs(cx) <= 1.0 && std::abs(cy) <= 1.0 && std::abs(z) <= 1.0)) continue;
                const double dx = px + 0.5 - x, dy = py + 0.5 - y;
                const double d2 = dx * dx + dy * dy;
                const double depth = z * 0.5 + 0.5;
                if (d2 <= r * r && depth <= bestDepth) {  // <=: the later point wins a tie
                    bestDepth = depth;
                    best = i;
                    bestD2 = d2;
                    dimmed = c.mask[i] == 1;
                }
            }
            if (std::isinf(bestDepth)) continue;
            std::uint32_t colour = 0xFF000000u;
            const double rim = 1.0 - v.shading * std::pow(bestD2 / (r * r), 2.0);
            for (int ch = 0; ch < 3; ++ch) {
                double value = ((c.rgba[best] >> (8 * ch)) & 0xFFu) / 255.0;
                if (dimmed) value += 0.8 * (v.background[ch] - value);
                colour |= std::uint32_t(std::lround(std::clamp(value * rim, 0.0, 1.0) * 255.0))
                          << (8 * ch);
            }
            const float depth = float(bestDepth);
            image[std::size_t(py) * v.width + px] =
                (cs::SplatPixel(std::bit_cast<std::uint32_t>(depth)) << 32) | colour;
        }
    return image;
}

}  // namespace

class TestPointSplat : public QObject {
    Q_OBJECT

private slots:
    void coverageFollowsTheDiameter_data() {
        QTest::addColumn<float>("x");
        QTest::addColumn<float>("diameter");
        QTest::addColumn<int>("pixels");
        // At a pixel's centre: 1 pixel up to a diameter below 2, then the 4 neighbours at
        // distance 1, then the 4 diagonals at 1.41.
        QTest::newRow("centre, 1") << 10.5f << 1.0f << 1;
        QTest::newRow("centre, 1.5") << 10.5f << 1.5f << 1;
        QTest::newRow("centre, 2") << 10.5f << 2.0f << 5;
        QTest::newRow("centre, 3") << 10.5f << 3.0f << 9;
        // At a pixel's corner: its 4 pixels' centres lie 0.71 away.
        QTest::newRow("corner, 1") << 10.0f << 1.0f << 0;
        QTest::newRow("corner, 1.5") << 10.0f << 1.5f << 4;
    }
    void coverageFollowsTheDiameter() {
        QFETCH(float, x);
        QFETCH(float, diameter);
        QFETCH(int, pixels);
        Cloud c;
        c.add(x, x + 10.0f, 0.0f, kRed);
        const auto image = c.splat(pixelView(diameter));
        QCOMPARE(drawnPixels(image), std::size_t(pixels));
        if (pixels > 0 && x == 10.5f) QCOMPARE(colourAt(image, 10, 20), kRed);
        if (pixels == 4) QCOMPARE(colourAt(image, 9, 19), kRed);
    }

    void rowsStartAtTheBottom() {
        Cloud c;
        c.add(3.5f, 60.5f, 0.0f, kGreen);
        const auto image = c.splat(pixelView(1.0f));
        QCOMPARE(colourAt(image, 3, 60), kGreen);
        QCOMPARE(drawnPixels(image), std::size_t(1));
        // Depth 0.5 in the high word.
        QCOMPARE(std::uint32_t(image[60 * kSize + 3] >> 32), std::bit_cast<std::uint32_t>(0.5f));
    }

    void nearerWinsInAnyOrder() {
        for (bool nearFirst : {true, false}) {
            Cloud c;
            if (nearFirst) c.add(5.5f, 5.5f, -0.5f, kRed);
            c.add(5.5f, 5.5f, 0.5f, kGreen);
            if (!nearFirst) c.add(5.5f, 5.5f, -0.5f, kRed);
            QCOMPARE(colourAt(c.splat(pixelView(1.0f)), 5, 5), kRed);
        }
    }

    void equalDepthLastDrawnWins() {
        Cloud c;
        c.add(5.5f, 5.5f, 0.25f, kRed);
        c.add(5.5f, 5.5f, 0.25f, kGreen);
        c.add(5.5f, 5.5f, 0.25f, kBlue);
        QCOMPARE(colourAt(c.splat(pixelView(1.0f)), 5, 5), kBlue);
        // The first pass alone names the point (picking reads it).
        const auto keys = cs::splatKeys(c.xyz, c.rgba, c.mask, pixelView(1.0f));
        QCOMPARE(cs::splatKeyIndex(keys[5 * kSize + 5]), std::uint32_t(2));
        QCOMPARE(keys[5 * kSize + 6], cs::kEmptySplatPixel);
    }

    void translucentAndDimmedGoBehind() {
        // Nearer than the opaque point, yet behind it: noise never hides a cluster.
        Cloud c;
        c.add(5.5f, 5.5f, -0.9f, 0x80FFFFFFu);  // alpha 128
        c.add(5.5f, 5.5f, -0.9f, kBlue, 1);     // dimmed
        c.add(5.5f, 5.5f, 0.9f, kRed);
        QCOMPARE(colourAt(c.splat(pixelView(1.0f)), 5, 5), kRed);
        // Alone, a translucent point shows opaque, at the far plane.
        Cloud alone;
        alone.add(5.5f, 5.5f, -0.9f, 0xFE112233u);  // alpha 254 is below points.vert's 0.999
        const auto image = alone.splat(pixelView(1.0f));
        QCOMPARE(colourAt(image, 5, 5), 0xFF112233u);
        QCOMPARE(std::uint32_t(image[5 * kSize + 5] >> 32), std::bit_cast<std::uint32_t>(1.0f));
    }

    void dimmedColourFadesTowardTheBackground() {
        Cloud c;
        c.add(5.5f, 5.5f, 0.0f, 0xFF0000FFu, 1);  // red, background (255, 128, 0)
        // mix(c, bg, 0.8): red 255, green 0.8 * 127.5 = 102, blue 0.
        QCOMPARE(colourAt(c.splat(pixelView(1.0f)), 5, 5), 0xFF0066FFu);
    }

    void hiddenAndOutsideAreNotDrawn() {
        Cloud c;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        c.add(5.5f, 5.5f, 0.0f, 0x00FFFFFFu);  // alpha 0
        c.add(6.5f, 5.5f, 0.0f, kRed, 2);      // mask: hidden
        c.add(-0.5f, 5.5f, 0.0f, kRed);        // left of the view
        c.add(5.5f, 64.5f, 0.0f, kRed);        // above it
        c.add(7.5f, 5.5f, -1.5f, kRed);        // before the near plane
        c.add(8.5f, 5.5f, 1.5f, kRed);         // beyond the far plane
        c.add(nan, 5.5f, 0.0f, kRed);
        c.add(9.5f, 5.5f, nan, kRed);
        QCOMPARE(drawnPixels(c.splat(pixelView(1.0f))), std::size_t(0));
        // A point on the view's edge is drawn, and its splat clipped to the image.
        Cloud edge;
        edge.add(0.0f, 0.0f, 0.0f, kRed);
        const auto image = edge.splat(pixelView(3.0f));
        QCOMPARE(drawnPixels(image), std::size_t(1));
        QCOMPARE(colourAt(image, 0, 0), kRed);
    }

    void sizesMustAgree() {
        Cloud c;
        c.add(1.5f, 1.5f, 0.0f, kRed);
        c.mask.push_back(0);
        QVERIFY_THROWS_EXCEPTION(cs::Error, c.splat(pixelView(1.0f)));
        c.mask.clear();  // no mask: every point shown
        QCOMPARE(drawnPixels(c.splat(pixelView(1.0f))), std::size_t(1));
        c.xyz.pop_back();
        QVERIFY_THROWS_EXCEPTION(cs::Error, c.splat(pixelView(1.0f)));
    }

    void randomCloudsMatchBruteForce_data() {
        QTest::addColumn<float>("diameter");
        QTest::addColumn<float>("shading");
        QTest::newRow("1") << 1.0f << 0.0f;
        QTest::newRow("1.5") << 1.5f << 0.0f;
        QTest::newRow("2") << 2.0f << 0.0f;
        QTest::newRow("3.25, rim shading") << 3.25f << 0.3f;
        QTest::newRow("8, rim shading") << 8.0f << 0.15f;
    }
    void randomCloudsMatchBruteForce() {
        QFETCH(float, diameter);
        QFETCH(float, shading);
        // Positions on an eighth of a pixel (every distance exact, ties on the rim included),
        // depths on a coarse grid (equal depths common), some points outside the view, every
        // kind of colour and mask.
        std::mt19937 rng(1234);
        std::uniform_int_distribution<int> grid(-32, 8 * 68);
        std::uniform_int_distribution<int> depth(-12, 12);
        std::uniform_int_distribution<int> kind(0, 19);
        std::uniform_int_distribution<std::uint32_t> rgb(0, 0xFFFFFF);
        Cloud c;
        for (int i = 0; i < 3000; ++i) {
            const int k = kind(rng);
            const std::uint32_t alpha = k == 0 ? 0u : (k == 1 ? 128u : 255u);
            c.add(float(grid(rng)) / 8.0f, float(grid(rng)) / 8.0f, float(depth(rng)) / 10.0f,
                  (alpha << 24) | rgb(rng), std::uint8_t(k == 2 ? 1 : (k == 3 ? 2 : 0)));
        }
        const cs::PointSplatView v = pixelView(diameter, shading);
        const auto got = c.splat(v);
        const auto want = bruteForce(c, v);
        QVERIFY(drawnPixels(want) > kSize * kSize / 4);
        std::size_t colourOffByOne = 0;
        for (std::size_t p = 0; p < want.size(); ++p) {
            // Which point shows and at what depth: exactly.
            QVERIFY2(got[p] >> 32 == want[p] >> 32,
                     qPrintable(QStringLiteral("pixel %1, %2: depth bits %3, brute force %4")
                                    .arg(p % kSize)
                                    .arg(p / kSize)
                                    .arg(got[p] >> 32, 0, 16)
                                    .arg(want[p] >> 32, 0, 16)));
            // Its colour: exactly without shading; with it, float against double may round a
            // channel the other way.
            if (std::uint32_t(got[p]) == std::uint32_t(want[p])) continue;
            QVERIFY2(shading > 0.0f, qPrintable(QStringLiteral("pixel %1: colour %2, want %3")
                                                    .arg(p)
                                                    .arg(std::uint32_t(got[p]), 0, 16)
                                                    .arg(std::uint32_t(want[p]), 0, 16)));
            for (int ch = 0; ch < 4; ++ch) {
                const int a = int((got[p] >> (8 * ch)) & 0xFF),
                          b = int((want[p] >> (8 * ch)) & 0xFF);
                QVERIFY(std::abs(a - b) <= 1);
            }
            ++colourOffByOne;
        }
        QVERIFY(colourOffByOne < want.size() / 100);
    }
};

QTEST_APPLESS_MAIN(TestPointSplat)
#include "tst_point_splat.moc"
