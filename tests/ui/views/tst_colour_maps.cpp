// SPDX-License-Identifier: MIT
// Scalar colour maps: their colours at known points (matplotlib's viridis and magma, Moreland's
// cool-warm, the categorical bands), the robust percentile range and its syntax, and the
// legend's histogram, counted and drawn.
#include <QImage>
#include <QPainter>
#include <QtTest>
#include <cmath>
#include <random>

#include "ui/views/colour_maps.h"
#include "ui/views/legend.h"
#include "ui/views/points/point_colouring.h"

using cs::ui::ColourMaps;
using cs::ui::Legend;
using cs::ui::PointColouring;
using cs::ui::ScalarStyle;
using Map = ColourMaps::Map;

namespace {

bool near(const QColor& a, const QColor& b, int tolerance) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

}  // namespace

class TestColourMaps : public QObject {
    Q_OBJECT

private slots:
    void valuesAtKnownPoints_data() {
        QTest::addColumn<int>("map");
        QTest::addColumn<double>("t");
        QTest::addColumn<QColor>("expected");
        // matplotlib's tables at 0, 0.5 and 1.
        QTest::newRow("viridis 0") << int(Map::Viridis) << 0.0 << QColor(0x44, 0x01, 0x54);
        QTest::newRow("viridis 0.5") << int(Map::Viridis) << 0.5 << QColor(0x21, 0x91, 0x8c);
        QTest::newRow("viridis 1") << int(Map::Viridis) << 1.0 << QColor(0xfd, 0xe7, 0x25);
        QTest::newRow("magma 0") << int(Map::Magma) << 0.0 << QColor(0x00, 0x00, 0x04);
        QTest::newRow("magma 0.5") << int(Map::Magma) << 0.5 << QColor(0xb7, 0x37, 0x79);
        QTest::newRow("magma 1") << int(Map::Magma) << 1.0 << QColor(0xfc, 0xfd, 0xbf);
        // Cool-warm: blue, grey-white, red.
        QTest::newRow("diverging 0") << int(Map::Diverging) << 0.0 << QColor(59, 76, 192);
        QTest::newRow("diverging 0.5") << int(Map::Diverging) << 0.5 << QColor(221, 221, 221);
        QTest::newRow("diverging 1") << int(Map::Diverging) << 1.0 << QColor(180, 4, 38);
        // Ten bands of the categorical palette.
        QTest::newRow("categorical 0")
            << int(Map::Categorical) << 0.0 << ColourMaps::categorical(0);
        QTest::newRow("categorical 0.09")
            << int(Map::Categorical) << 0.09 << ColourMaps::categorical(0);
        QTest::newRow("categorical 0.55")
            << int(Map::Categorical) << 0.55 << ColourMaps::categorical(5);
        QTest::newRow("categorical 1")
            << int(Map::Categorical) << 1.0 << ColourMaps::categorical(9);
    }

    void valuesAtKnownPoints() {
        QFETCH(int, map);
        QFETCH(double, t);
        QFETCH(QColor, expected);
        const QColor c = ColourMaps::colour(Map(map), t);
        // The polynomial fits stay within a few levels of the tables.
        QVERIFY2(near(c, expected, 6), qPrintable(c.name() + " vs " + expected.name()));
        // The packed table agrees (the nearest of its 256 entries).
        const QColor packed = ColourMaps::toColor(ColourMaps::rgba(Map(map), float(t)));
        QVERIFY2(near(packed, c, 3), qPrintable(packed.name() + " vs " + c.name()));
        // Out of range clamps; NaN is noise.
        QCOMPARE(ColourMaps::colour(Map(map), -1.0), ColourMaps::colour(Map(map), 0.0));
        QCOMPARE(ColourMaps::colour(Map(map), 2.0), ColourMaps::colour(Map(map), 1.0));
        QCOMPARE(ColourMaps::colour(Map(map), std::nan("")), ColourMaps::noiseColour());
        QCOMPARE(ColourMaps::rgba(Map::Viridis, 0.3f), ColourMaps::viridisRgba(0.3f));
    }

    void names() {
        QCOMPARE(ColourMaps::mapNames(),
                 QStringList({"viridis", "magma", "diverging", "categorical"}));
        for (Map m : ColourMaps::kMaps)
            QCOMPARE(ColourMaps::mapFromName(ColourMaps::mapName(m).toUpper()), m);
        QVERIFY(!ColourMaps::mapFromName(QStringLiteral("jet")));
    }

    void percentilesAsNumpy() {
        // numpy.percentile(v, p) with its default (linear) rule, NaN and inf left out.
        const std::vector<float> v = {7, 1, NAN, 3, 9, INFINITY, 5};
        QCOMPARE(ScalarStyle::percentile(v, 0), 1.0);
        QCOMPARE(ScalarStyle::percentile(v, 100), 9.0);
        QCOMPARE(ScalarStyle::percentile(v, 50), 5.0);
        QCOMPARE(ScalarStyle::percentile(v, 2), 1.16);  // rank 0.08 of 1 3 5 7 9
        QVERIFY(std::abs(ScalarStyle::percentile(v, 98) - 8.84) < 1e-12);
        QCOMPARE(ScalarStyle::percentile(v, 62.5), 6.0);
        QVERIFY(std::isnan(ScalarStyle::percentile(std::vector<float>{NAN}, 50)));
        // A large set: against a full sort.
        std::mt19937 rng(11);
        std::lognormal_distribution<float> d(0.0f, 2.0f);
        std::vector<float> big(100'001);
        for (float& x : big)
            x = d(rng);
        std::vector<float> sorted = big;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(ScalarStyle::percentile(big, 2), double(sorted[2000]));
        QCOMPARE(ScalarStyle::percentile(big, 98), double(sorted[98000]));
    }

    void robustRangeIgnoresOutliers() {
        // 1000 values in [0, 1) and two outliers: the default range is the bulk's, the
        // outliers take the end colours and are counted outside.
        std::vector<float> v(1000);
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = float(i) / 1000.0f;
        v.push_back(-500.0f);
        v.push_back(1e6f);
        const PointColouring c =
            PointColouring::fromScalars(v, v.size(), 1, 0, QStringLiteral("v"), 0);
        QVERIFY(c.legend.minimum > 0.0 && c.legend.minimum < 0.03);
        QVERIFY(c.legend.maximum > 0.97 && c.legend.maximum < 1.0);
        QCOMPARE(c.legend.map, Map::Viridis);
        QCOMPARE(c.rgba[1000], ColourMaps::rgba(Map::Viridis, 0.0f));
        QCOMPARE(c.rgba[1001], ColourMaps::rgba(Map::Viridis, 1.0f));
        QCOMPARE(c.rgba[500],
                 ColourMaps::rgba(Map::Viridis, float((0.5 - c.legend.minimum) /
                                                      (c.legend.maximum - c.legend.minimum))));
        // The full range squeezes the bulk into the map's first colours.
        ScalarStyle full;
        QVERIFY(full.parseRange(QStringLiteral("p0:p100"), nullptr));
        const PointColouring f =
            PointColouring::fromScalars(v, v.size(), 1, 0, QStringLiteral("v"), 0, full);
        QCOMPARE(f.legend.minimum, -500.0);
        QCOMPARE(f.legend.maximum, 1e6);
        QCOMPARE(f.rgba[0], f.rgba[999]);
        QVERIFY(f.legend.rangeNote.isEmpty());
        // Values given by hand.
        ScalarStyle fixed;
        fixed.map = Map::Diverging;
        QVERIFY(fixed.parseRange(QStringLiteral("0.25:0.75"), nullptr));
        const PointColouring h =
            PointColouring::fromScalars(v, v.size(), 1, 0, QStringLiteral("v"), 0, fixed);
        QCOMPARE(h.legend.minimum, 0.25);
        QCOMPARE(h.legend.maximum, 0.75);
        QCOMPARE(h.rgba[500], ColourMaps::rgba(Map::Diverging, 0.5f));
        QCOMPARE(h.legend.below, std::size_t(251));  // 0.000 .. 0.249 and -500
        QCOMPARE(h.legend.above, std::size_t(250));  // 0.751 .. 0.999 and 1e6
    }

    void rangeSyntax_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("roundTrip");
        QTest::newRow("percentiles") << "p5:p95" << true << "p5:p95";
        QTest::newRow("upper-case") << "P1:P99.5" << true << "p1:p99.5";
        QTest::newRow("values") << "-1.5:2e3" << true << "-1.5:2000";
        QTest::newRow("mixed") << "p5:10" << false << "";
        QTest::newRow("reversed") << "p90:p10" << false << "";
        QTest::newRow("over 100") << "p0:p101" << false << "";
        QTest::newRow("equal values") << "2:2" << false << "";
        QTest::newRow("text") << "low:high" << false << "";
        QTest::newRow("one end") << "p5" << false << "";
    }

    void rangeSyntax() {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(QString, roundTrip);
        ScalarStyle s;
        QString error;
        QCOMPARE(s.parseRange(text, &error), ok);
        if (ok) {
            QVERIFY(error.isEmpty());
            QCOMPARE(s.rangeText(), roundTrip);
        } else {
            QVERIFY2(error.contains(text) && error.contains(QLatin1String("pLOW:pHIGH")),
                     qPrintable(error));
            QCOMPARE(s, ScalarStyle{});  // unchanged
        }
    }

    void legendHistogram() {
        // 80 values at the low end, 20 at the high end: two bars, four to one.
        std::vector<float> v(100, 0.0f);
        for (std::size_t i = 80; i < 100; ++i)
            v[i] = 1.0f;
        ScalarStyle full;
        QVERIFY(full.parseRange(QStringLiteral("p0:p100"), nullptr));
        PointColouring c =
            PointColouring::fromScalars(v, v.size(), 1, 0, QStringLiteral("v"), 0, full);
        QCOMPARE(c.legend.histogram.size(), std::size_t(ScalarStyle::kHistogramBins));
        QCOMPARE(c.legend.histogram.front(), std::size_t(80));
        QCOMPARE(c.legend.histogram.back(), std::size_t(20));
        std::size_t sum = 0;
        for (std::size_t n : c.legend.histogram)
            sum += n;
        QCOMPARE(sum, std::size_t(100));

        // Drawn: ink beside the bar at the bottom (long) and the top (short), none between.
        const auto draw = [](const Legend& legend) {
            QImage image(300, 300, QImage::Format_ARGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            QPalette palette;
            palette.setColor(QPalette::Window, Qt::white);
            palette.setColor(QPalette::WindowText, Qt::black);
            legend.paint(painter, QPoint(299, 0), palette);
            return image;
        };
        const QImage image = draw(c.legend);
        QImage scratch(1, 1, QImage::Format_ARGB32);
        const QSize size = c.legend.sizeHint(QPainter(&scratch));
        // The histogram column: 10 pixels of padding in, then the 14-pixel bar and a gap of 4.
        const int left = 299 - size.width() + 10 + 14 - 1 + 4;
        const auto inkInRow = [&](const QImage& im, int y) {
            int ink = 0;
            for (int x = left; x < left + 36; ++x)
                ink += qGray(im.pixel(x, y)) < 200;
            return ink;
        };
        int top = -1, bottom = -1;
        // Inside the box's border.
        for (int y = 2; y < size.height() - 2; ++y)
            if (inkInRow(image, y) > 0) {
                if (top < 0) top = y;
                bottom = y;
            }
        QVERIFY(top >= 0);
        const int low = inkInRow(image, bottom - 1), high = inkInRow(image, top + 1);
        QVERIFY2(low > 30 && high >= 7 && high <= 11,
                 qPrintable(QStringLiteral("%1 %2").arg(low).arg(high)));
        QCOMPARE(inkInRow(image, (top + bottom) / 2), 0);
    }
};

QTEST_MAIN(TestColourMaps)
#include "tst_colour_maps.moc"
