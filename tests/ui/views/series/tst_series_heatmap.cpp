// SPDX-License-Identifier: MIT
// The series heat map on the host path (Mesa under xvfb-run here and in CI): the pixel buffer
// holds seriesMatrix(), the screen shows it through the colour map, padding is background,
// the class band follows the rows, and the series view switches to it. The ROCKET feature map
// (the same matrix view with another fill) with a stand-in GL interop: registration, rewrites,
// re-registration on new storage, fallback on a device fault, release at teardown.
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QtTest>
#include <cmath>

#include "compute/backend/cpu_backend.h"
#include "compute/backend/gl_interop.h"
#include "compute/core/error.h"
#include "compute/core/series_matrix.h"
#include "compute/demo/demo_data.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_quantities.h"
#include "tests/ui/gui_test_main.h"
#include "ui/views/colour_maps.h"
#include "ui/views/series/feature_matrix_view.h"
#include "ui/views/series/series_heatmap_view.h"
#include "ui/views/series/series_view.h"

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
        // No features: the feature map is not offered.
        QVERIFY(!view.hasFeatureMatrix());
        QVERIFY(!view.setStyle(cs::ui::SeriesView::Style::FeatureMap));
        QCOMPARE(view.style(), cs::ui::SeriesView::Style::Lines);
    }

    void featureMapInteropBookkeepingWithAStandIn() {
        // A stand-in GlInterop (no CUDA here) whose "device copy" of the feature matrix is the
        // host matrix: it writes columnZScores() through GL into the buffer it was linked to, as
        // the CUDA kernel would, and counts registrations alive at once.
        struct Calls {
            int links = 0;
            int live = 0;
            int maxLive = 0;
            int writes = 0;
            int orderedWrites = 0;
            std::uint32_t buffer = 0;
            std::size_t bytes = 0;
            bool fail = false;
        };
        struct FakeMatrix : cs::DeviceResident {
            cs::FeatureMatrix host;
            std::string backend() const override { return "stand-in"; }
        };
        struct StandInLink : cs::GlBufferLink {
            Calls& calls;
            std::uint32_t id;
            std::size_t size;
            StandInLink(Calls& c, std::uint32_t i, std::size_t b) : calls(c), id(i), size(b) {
                calls.maxLive = std::max(calls.maxLive, ++calls.live);
            }
            ~StandInLink() override { --calls.live; }
            std::uint32_t glBuffer() const override { return id; }
            std::size_t bytes() const override { return size; }
            void paintCategories(const cs::DeviceResident&, const cs::CategoryPaint&) override {}
            void writePositions(const cs::DeviceResident&, double) override {}
            void writeSeriesMatrix(const cs::DeviceResident&, std::span<const std::uint32_t>,
                                   std::size_t) override {}
            void writeEdgeIndices(const cs::DeviceResident&) override {}
            void writeColumnZScores(const cs::DeviceResident& matrix,
                                    std::span<const std::uint32_t> order, std::size_t layer,
                                    std::size_t columns) override {
                if (calls.fail) throw cs::DeviceError("stand-in device fault");
                const auto& host = dynamic_cast<const FakeMatrix&>(matrix).host;
                const auto map = cs::columnZScores(host, order, layer, columns);
                if (map.size() * sizeof(float) != size)
                    throw cs::Error("stand-in: the map does not fit the buffer");
                auto* f = QOpenGLContext::currentContext()->extraFunctions();
                f->glBindBuffer(GL_COPY_WRITE_BUFFER, id);
                f->glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(size), map.data());
                f->glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
                ++calls.writes;
            }
            void writeOrderedColumnZScores(const cs::DeviceResident& matrix,
                                           std::span<const std::uint32_t> order, std::size_t layer,
                                           std::span<const std::uint32_t> columns) override {
                if (calls.fail) throw cs::DeviceError("stand-in device fault");
                const auto& host = dynamic_cast<const FakeMatrix&>(matrix).host;
                const auto map = cs::columnZScores(host, order, layer, columns);
                if (map.size() * sizeof(float) != size)
                    throw cs::Error("stand-in: the map does not fit the buffer");
                auto* f = QOpenGLContext::currentContext()->extraFunctions();
                f->glBindBuffer(GL_COPY_WRITE_BUFFER, id);
                f->glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(size), map.data());
                f->glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
                ++calls.writes;
                ++calls.orderedWrites;
            }
            void writeTestPattern(std::uint32_t) override {}
        };
        struct StandIn : cs::GlInterop {
            Calls& calls;
            explicit StandIn(Calls& c) : calls(c) {}
            std::string description() const override { return "stand-in interop"; }
            std::unique_ptr<cs::GlBufferLink> link(std::uint32_t buffer,
                                                   std::size_t bytes) override {
                ++calls.links;
                calls.buffer = buffer;
                calls.bytes = bytes;
                return std::make_unique<StandInLink>(calls, buffer, bytes);
            }
        };

        const auto series =
            std::make_shared<const cs::SeriesSet>(cs::demo::makeDemoSeries(40, 48, 3));
        const auto kernels = std::make_shared<const cs::RocketKernels>(
            cs::makeRocketKernels({.kernels = 60, .seed = 5}, series->length, series->channels));
        cs::JobControl job;
        auto features = std::make_shared<cs::RocketFeatures>(
            cs::CpuBackend(2).rocketTransform(*series, *kernels, job));
        auto device = std::make_shared<FakeMatrix>();
        device->host =
            cs::rocketFeatureMatrix(std::make_shared<const cs::RocketFeatures>(*features), kernels);
        features->device = device;
        const cs::FeatureMatrix matrix = cs::rocketFeatureMatrix(features, kernels);

        Calls calls;
        cs::releaseGlInterop();
        cs::setGlInteropFactory([&calls] { return std::make_shared<StandIn>(calls); });
        auto view = std::make_unique<cs::ui::FeatureMatrixView>();
        view->resize(420, 260);
        view->show();
        QVERIFY(QTest::qWaitForWindowExposed(view.get()));
        const auto rows = cs::heatmapRows(*series, {}, std::size_t(view->maxRows()));
        view->setMatrix(series, matrix);
        view->setRows(rows);
        const auto check = [&](std::span<const std::uint32_t> order, std::size_t layer,
                               std::size_t columns) {
            QVERIFY(QTest::qWaitFor([&] { return view->isContentDrawn(); }, 10000));
            QVERIFY2(view->problem().isEmpty(), qPrintable(view->problem()));
            QCOMPARE(view->shownColumns(), columns);
            QCOMPARE(view->readMatrixBuffer(), cs::columnZScores(matrix, order, layer, columns));
        };
        check(rows, 0, 60);
        QCOMPARE(view->matrixPath(), UploadPath::Interop);
        QCOMPARE(calls.links, 1);
        QCOMPARE(calls.writes, 1);
        QCOMPARE(calls.buffer, view->pixelBufferId());
        QCOMPARE(calls.bytes, rows.size() * 60 * sizeof(float));
        // The other feature: the same storage, the same registration, one more write.
        view->setLayer(1);
        check(rows, 1, 60);
        QCOMPARE(calls.links, 1);
        QCOMPARE(calls.writes, 2);
        // Fewer rows, then fewer columns: new storage, registered anew after the old one went.
        const std::vector<std::uint32_t> some(rows.begin(), rows.begin() + 10);
        view->setRows(some);
        check(some, 1, 60);
        QCOMPARE(calls.links, 2);
        QCOMPARE(calls.bytes, std::size_t(10 * 60 * sizeof(float)));
        view->setColumnLimit(25);
        check(some, 1, 25);
        QVERIFY(view->isColumnCapped());
        QVERIFY(view->fill()->title(view->shownColumns()).contains(QLatin1String("25 of 60")));
        QCOMPARE(calls.links, 3);
        QCOMPARE(calls.writes, 4);
        QCOMPARE(calls.maxLive, 1);
        QCOMPARE(calls.live, 1);
        QVERIFY(view->hasDeviceLink());
        // Ordered by the F statistic of the classes: the device writes the columns in that
        // order (the first 25 of them), no host upload.
        view->setOrder(cs::FeatureOrder::FStatistic);
        QCOMPARE(view->orderShown(), cs::FeatureOrder::FStatistic);
        QVERIFY(QTest::qWaitFor([&] { return view->isContentDrawn(); }, 10000));
        QCOMPARE(view->matrixPath(), UploadPath::Interop);
        QCOMPARE(calls.orderedWrites, 1);
        const std::vector<std::uint32_t> first(view->columnOrder().begin(),
                                               view->columnOrder().begin() + 25);
        const auto byF =
            cs::columnOrderByScore(cs::featureFStatistics(matrix, series->labels, 1), 60);
        QCOMPARE(first, std::vector<std::uint32_t>(byF.begin(), byF.begin() + 25));
        // Not the columns' own order: the test sees the reordering.
        QVERIFY(first !=
                std::vector<std::uint32_t>({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                            13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}));
        QCOMPARE(view->readMatrixBuffer(), cs::columnZScores(matrix, some, 1, first));
        view->setOrder(cs::FeatureOrder::Index);
        check(some, 1, 25);
        QCOMPARE(calls.writes, 6);
        // A device fault: the registration goes, the host computes and uploads from then on.
        calls.fail = true;
        view->setLayer(0);
        check(some, 0, 25);
        QCOMPARE(view->matrixPath(), UploadPath::HostUpload);
        QCOMPARE(view->interopError(), QStringLiteral("stand-in device fault"));
        QCOMPARE(calls.live, 0);
        QVERIFY(!view->hasDeviceLink());
        // Teardown releases a live registration with the context.
        calls.fail = false;
        view.reset();
        cs::releaseGlInterop();
        cs::setGlInteropFactory([&calls] { return std::make_shared<StandIn>(calls); });
        view = std::make_unique<cs::ui::FeatureMatrixView>();
        view->resize(300, 200);
        view->show();
        QVERIFY(QTest::qWaitForWindowExposed(view.get()));
        view->setMatrix(series, matrix);
        view->setRows(rows);
        check(rows, 0, 60);
        QCOMPARE(view->matrixPath(), UploadPath::Interop);
        QCOMPARE(calls.live, 1);
        view.reset();
        QCOMPARE(calls.live, 0);
        cs::releaseGlInterop();
    }
};

CS_GL_TEST_MAIN(TestSeriesHeatmap)
#include "tst_series_heatmap.moc"
