// SPDX-License-Identifier: MIT
// The series heat map on the host path (Mesa under xvfb-run here and in CI): the pixel buffer
// holds seriesMatrix(), the screen shows it through the colour map, padding is background,
// the class band follows the rows, and the series view switches to it.
#include <QtTest>
#include <cmath>

#include "compute/core/series_matrix.h"
#include "compute/demo/demo_data.h"
#include "tests/ui/gui_test_main.h"
#include "ui/colour_maps.h"
#include "ui/series_heatmap_view.h"
#include "ui/series_view.h"

using cs::ui::ColourMaps;
using cs::ui::SeriesHeatmapView;
using cs::ui::UploadPath;

namespace {

bool near(const QColor& a, const QColor& b, int tolerance = 6) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

std::shared_ptr<const cs::SeriesSet> smallSet() {
    auto s = std::make_shared<cs::SeriesSet>();
    s->n = 3;
    s->channels = 1;
    s->length = 4;
    s->values = {0,  1, 2, 3,  //
                 3,  2, 1, 0,  //
                 -1, 1, 0, 0};
    s->lengths = {4, 4, 2};
    s->labels = {1, 0, 1};
    s->classNames = {"down", "up"};
    return s;
}

}  // namespace

class TestSeriesHeatmap : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { CS_SKIP_WITHOUT_GL(); }

    void hostPathShowsTheMatrix() {
        const auto series = smallSet();
        SeriesHeatmapView view;
        view.resize(420, 260);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto rows = cs::heatmapRows(*series, {}, std::size_t(view.maxRows()));
        QCOMPARE(rows, std::vector<std::uint32_t>({1, 0, 2}));
        view.setRows(series, rows, 0);
        QVERIFY(QTest::qWaitFor([&] { return view.isContentDrawn(); }, 10000));
        QVERIFY2(view.problem().isEmpty(), qPrintable(view.problem()));
        QCOMPARE(view.matrixPath(), UploadPath::HostUpload);

        const cs::SeriesMatrix m = cs::seriesMatrix(*series, rows, 0);
        const auto buffer = view.readMatrixBuffer();
        QCOMPARE(buffer.size(), m.values.size());
        for (std::size_t k = 0; k < buffer.size(); ++k)
            QVERIFY(std::isnan(m.values[k]) ? std::isnan(buffer[k]) : buffer[k] == m.values[k]);

        const QImage image = view.grabFramebuffer();
        const QColor background = view.palette().color(QPalette::Base);
        for (std::size_t r = 0; r < m.rows; ++r) {
            for (std::size_t t = 0; t < m.cols; ++t) {
                const float v = m.values[r * m.cols + t];
                const QColor want =
                    std::isnan(v)
                        ? background
                        : ColourMaps::toColor(ColourMaps::viridisRgba(std::clamp(
                              (v + SeriesHeatmapView::kRange) / (2 * SeriesHeatmapView::kRange),
                              0.0f, 1.0f)));
                const QColor got = image.pixelColor(view.cellCentre(r, t).toPoint());
                QVERIFY2(near(got, want), qPrintable(QStringLiteral("row %1, t %2: %3, want %4")
                                                         .arg(r)
                                                         .arg(t)
                                                         .arg(got.name(), want.name())));
            }
            // The class band beside each row.
            const QPointF cell = view.cellCentre(r, 0);
            const QColor band =
                image.pixelColor(QPoint(int(view.plotRect().left()) - 8, int(cell.y())));
            QVERIFY(near(band, ColourMaps::categorical(series->labels[rows[r]]), 3));
        }
        // The read-out under the pointer: the series' own index, its class, t and z.
        QCOMPARE(view.describe(view.cellCentre(0, 3)),
                 QStringLiteral("series 1 · class down · t = 3 · z = %1")
                     .arg(double(m.values[3]), 0, 'f', 2));
        QCOMPARE(view.describe(view.cellCentre(2, 3)),
                 QStringLiteral("series 2 · class up · t = 3 · past the end"));
        QVERIFY(view.describe(QPointF(2, 2)).isEmpty());
    }

    void seriesViewSwitchesToTheHeatmap() {
        auto series = std::make_shared<const cs::SeriesSet>(cs::demo::makeDemoSeries(120, 64, 3));
        cs::ui::SeriesView view;
        view.resize(700, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setSeriesSet(series, QStringLiteral("demo"));
        QCOMPARE(view.heatmapView()->isVisible(), false);
        view.setStyle(cs::ui::SeriesView::Style::Heatmap);
        QVERIFY(view.heatmapView()->isVisible());
        QCOMPARE(view.heatmapView()->rowCount(), series->n);
        QVERIFY(view.note().contains(QLatin1String("heat map")));
        QVERIFY(QTest::qWaitFor([&] { return view.heatmapView()->isContentDrawn(); }, 10000));
        QCOMPARE(view.heatmapView()->matrixPath(), UploadPath::HostUpload);
        if (const QString dir = qEnvironmentVariable("CS_TEST_OUTPUT"); !dir.isEmpty())
            QVERIFY(view.grab().save(dir + QStringLiteral("/series_heatmap.png")));
        // The split filter reaches the heat map too.
        if (!series->isTest.empty()) {
            view.setSplit(cs::ui::SeriesView::Split::Test);
            std::size_t tests = 0;
            for (auto t : series->isTest)
                tests += t;
            QCOMPARE(view.heatmapView()->rowCount(), tests);
        }
        view.setStyle(cs::ui::SeriesView::Style::Lines);
        QVERIFY(!view.heatmapView()->isVisible());
    }
};

CS_GUI_TEST_MAIN(TestSeriesHeatmap)
#include "tst_series_heatmap.moc"
