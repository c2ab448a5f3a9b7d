// SPDX-License-Identifier: MIT
// CUDA–GL interop in the point view: a CUDA kernel writes the colour buffer that GL draws.
// Label gpu; a GUI suite (xvfb-run here and in CI, where it skips for want of a CUDA device; on
// the GPU machine it runs under Xvfb with the NVIDIA GL driver, see DEVICE.md). Set
// CS_TEST_OUTPUT to a folder to keep the screenshots.
#include <cuda_runtime_api.h>

#include <QDir>
#include <QSignalSpy>
#include <QtTest>
#include <random>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/backend/gl_interop.h"
#include "compute/core/edge_splat.h"
#include "compute/core/job_control.h"
#include "compute/core/point_quantities.h"
#include "compute/core/point_splat.h"
#include "compute/core/series_matrix.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_quantities.h"
#include "compute/demo/demo_data.h"
#include "compute/knn/knn_quantities.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_quantities.h"
#include "kernels/cuda_backend.h"
#include "tests/ui/gui_test_main.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/shell/main_window.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/feature_matrix_view.h"
#include "ui/views/series/series_heatmap_view.h"
#include "ui/views/series/series_view.h"

using cs::ui::ColourMaps;
using cs::ui::PointCloudView;
using UploadPath = PointCloudView::UploadPath;

namespace {

// A k x k grid of points in the plane, far enough apart that big sprites do not overlap.
std::shared_ptr<const cs::PointSet> gridPoints(int k) {
    std::vector<float> coords;
    for (int y = 0; y < k; ++y)
        for (int x = 0; x < k; ++x)
            coords.insert(coords.end(), {float(x), float(y), 0.0f});
    return std::make_shared<const cs::PointSet>(cs::PointSet::fromCoords(3, std::move(coords)));
}

std::vector<std::uint32_t> expectedPattern(std::uint32_t seed, std::size_t n) {
    std::vector<std::uint32_t> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = cs::interopTestPattern(seed, i);
    return out;
}

std::size_t firstDifference(const std::vector<std::uint32_t>& a,
                            const std::vector<std::uint32_t>& b) {
    if (a.size() != b.size()) return 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return i;
    return a.size();
}

std::size_t deviceMemoryUsed() {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) return 0;
    return total - free;
}

void saveScreenshot(const QImage& image, const QString& name) {
    const QString dir = qEnvironmentVariable("CS_TEST_OUTPUT");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QVERIFY(image.save(QDir(dir).filePath(name)));
}

}  // namespace

class TestGlInterop : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<cs::Backend> m_cuda;

    std::unique_ptr<PointCloudView> makeView(std::shared_ptr<const cs::PointSet> points,
                                             QSize size = QSize(400, 400)) {
        auto view = std::make_unique<PointCloudView>();
        view->resize(size);
        view->show();
        if (!QTest::qWaitForWindowExposed(view.get())) return nullptr;
        view->setPointSet(std::move(points));
        if (!waitDrawn(*view)) return nullptr;
        return view;
    }
    static bool waitDrawn(PointCloudView& view) {
        return QTest::qWaitFor([&] { return view.isContentDrawn(); }, 20000);
    }
    std::shared_ptr<const cs::DbscanResult> clusterOnGpu(const cs::PointSet& points,
                                                         cs::DbscanParams params) {
        cs::JobControl job;
        return std::make_shared<const cs::DbscanResult>(m_cuda->dbscan(points, params, job));
    }
    static cs::CategoryPaint paintFor(const cs::DbscanResult& r, bool core, bool border,
                                      bool noise) {
        cs::CategoryPaint paint;
        for (int c = 0; c < r.clusterCount; ++c)
            paint.categoryRgba.push_back(ColourMaps::packRgba(ColourMaps::categorical(c)));
        paint.noneRgba = ColourMaps::packRgba(QColor(128, 128, 128, ColourMaps::kBehindAlpha));
        paint.showPrimary = core;
        paint.showSecondary = border;
        paint.showNone = noise;
        return paint;
    }
    // Colours the view by r on the device and checks the GL buffer against the host rule.
    void checkDevicePaint(PointCloudView& view, std::shared_ptr<const cs::DbscanResult> r,
                          const cs::CategoryPaint& paint) {
        QVERIFY(view.setCategories(cs::dbscanCategories(r), paint, {}));
        QVERIFY(waitDrawn(view));
        QVERIFY2(view.interopError().isEmpty(), qPrintable(view.interopError()));
        QCOMPARE(view.colourPath(), UploadPath::Interop);
        QVERIFY(view.colours().empty());  // nothing was painted on the host
        const auto gl = view.readColourBuffer();
        const auto host = cs::paintCategories(r->labels, r->isCore, paint);
        QCOMPARE(firstDifference(gl, host), host.size());
    }

private slots:
    void initTestCase() {
        // As the app does: the backend and the interop from the plugin (libclusterscope-cuda.so).
        cs::app::registerBuiltinBackends();
        cs::app::installGlInterop();
        m_cuda = cs::backendRegistry().create("cuda");
    }
    void cleanupTestCase() {
        m_cuda.reset();
        cs::releaseGlInterop();
    }

    void patternWrittenByCudaIsWhatGlDraws() {
        // Big sprites on a 6 x 6 grid: each point's pixel shows its word of the pattern.
        const int k = 6;
        // A view large beside its overlays (the legend with its colour bar and histogram, the
        // help line), the grid small in its middle, clear of them.
        auto view = makeView(gridPoints(k), QSize(800, 800));
        QVERIFY(view);
        view->orbit(-view->camera().yaw(), -view->camera().pitch());
        view->fitToData();
        view->zoom(2.5f);
        view->setPointSize(14);
        QVERIFY(waitDrawn(*view));
        QVERIFY2(!view->glInfo().renderer.isEmpty(), "no GL renderer");
        qInfo("GL_RENDERER: %s", qPrintable(view->glInfo().renderer));

        std::string whyNot;
        auto interop = cs::glInterop(&whyNot);
        QVERIFY2(interop, whyNot.c_str());
        const std::uint32_t seed = 20261129u;
        view->makeCurrent();
        try {
            auto link = interop->link(view->colourBufferId(), std::size_t(k * k) * 4);
            link->writeTestPattern(seed);
        } catch (const std::exception& e) {
            view->doneCurrent();
            QFAIL(e.what());
        }
        view->doneCurrent();
        const auto expected = expectedPattern(seed, std::size_t(k * k));
        QCOMPARE(firstDifference(view->readColourBuffer(), expected), expected.size());

        view->update();
        QTest::qWait(100);
        const QImage image = view->grabFramebuffer();
        saveScreenshot(image, QStringLiteral("interop_pattern.png"));
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const auto p = view->pointSet()->point(i);
            const QPoint pixel = view->project(QVector3D(p[0], p[1], p[2])).toPoint();
            const QColor want = ColourMaps::toColor(expected[i]);
            const QColor got = image.pixelColor(pixel);
            QVERIFY2(std::abs(got.red() - want.red()) <= 8 &&
                         std::abs(got.green() - want.green()) <= 8 &&
                         std::abs(got.blue() - want.blue()) <= 8,
                     qPrintable(QStringLiteral("point %1: %2 on screen, %3 written")
                                    .arg(i)
                                    .arg(got.name(), want.name())));
        }
    }

    void largeBufferPatternRoundTrip() {
        // 1M points: the whole buffer, not a prefix, comes back as written.
        auto view =
            makeView(std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(1'000'000, 3)));
        QVERIFY(view);
        auto interop = cs::glInterop();
        QVERIFY(interop);
        view->makeCurrent();
        auto link = interop->link(view->colourBufferId(), view->pointCount() * 4);
        link->writeTestPattern(7);
        link.reset();
        view->doneCurrent();
        const auto expected = expectedPattern(7, view->pointCount());
        QCOMPARE(firstDifference(view->readColourBuffer(), expected), expected.size());
    }

    void dbscanColoursPaintedOnDeviceEqualHost() {
        auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(200'000, 11));
        auto view = makeView(points);
        QVERIFY(view);
        const auto r = clusterOnGpu(*points, {.eps = 0.6f, .minPts = 10});
        QVERIFY(r->device);
        QVERIFY(r->clusterCount > 1);
        QVERIFY(r->stats.noisePoints > 0);
        checkDevicePaint(*view, r, paintFor(*r, true, true, true));
        checkDevicePaint(*view, r, paintFor(*r, true, false, false));
        checkDevicePaint(*view, r, paintFor(*r, false, true, true));
        // Forcing the host path gives the same buffer, uploaded.
        view->setInteropAllowed(false);
        QVERIFY(view->setCategories(cs::dbscanCategories(r), paintFor(*r, true, true, true), {}));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->colourPath(), UploadPath::HostUpload);
        const auto host = cs::paintCategories(r->labels, r->isCore, paintFor(*r, true, true, true));
        QCOMPARE(firstDifference(view->readColourBuffer(), host), host.size());
        view->setInteropAllowed(true);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->colourPath(), UploadPath::Interop);
        QCOMPARE(firstDifference(view->readColourBuffer(), host), host.size());
        saveScreenshot(view->grabFramebuffer(), QStringLiteral("interop_dbscan.png"));
        // A clustering of other points is refused, and the colours stay.
        const auto other = clusterOnGpu(*gridPoints(4), {.eps = 1.5f, .minPts = 2});
        QVERIFY(!view->setCategories(cs::dbscanCategories(other),
                                     paintFor(*other, true, true, true), {}));
        QCOMPARE(firstDifference(view->readColourBuffer(), host), host.size());
    }

    void knnEdgesWrittenByCuda() {
        auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(150'000, 12));
        auto view = makeView(points);
        QVERIFY(view);
        cs::JobControl job;
        const auto graph = std::make_shared<const cs::KnnGraph>(
            m_cuda->knnGraph(*points, {.k = 8, .trees = 2, .targetRecall = 0.0}, job));
        QVERIFY(graph->device);
        const std::vector<std::uint32_t> host = cs::edgeIndexPairs(cs::knnEdges(graph));
        QCOMPARE(host.size(), points->n * 8 * 2);
        QVERIFY(view->setEdges(cs::knnEdges(graph)));
        QVERIFY(waitDrawn(*view));
        QVERIFY2(view->interopError().isEmpty(), qPrintable(view->interopError()));
        QCOMPARE(view->edgePath(), UploadPath::Interop);
        QCOMPARE(view->edgeCount(), points->n * 8);
        QCOMPARE(firstDifference(view->readEdgeBuffer(), host), host.size());
        saveScreenshot(view->grabFramebuffer(), QStringLiteral("interop_knn.png"));
        // The host path uploads the same buffer.
        view->setInteropAllowed(false);
        QVERIFY(view->setEdges(cs::knnEdges(graph)));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgePath(), UploadPath::HostUpload);
        QCOMPARE(firstDifference(view->readEdgeBuffer(), host), host.size());
        view->setInteropAllowed(true);
        // A graph of other points is refused and the edges stay.
        cs::JobControl other;
        const auto small = std::make_shared<const cs::KnnGraph>(
            m_cuda->knnGraph(*gridPoints(4), {.k = 4, .trees = 1}, other));
        QVERIFY(!view->setEdges(cs::knnEdges(small)));
        QCOMPARE(firstDifference(view->readEdgeBuffer(), host), host.size());
        // Other points clear the edges.
        view->setPointSet(gridPoints(4));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgeCount(), std::size_t(0));
    }

    // Draws the next frame with renderer at point size `size`; false when it was not drawn.
    static bool drawWith(PointCloudView& view, PointCloudView::PointRenderer renderer, float size) {
        QSignalSpy frames(&view, &QOpenGLWidget::frameSwapped);
        view.setPointRenderer(renderer);
        view.setPointSize(size);
        view.update();
        if (!QTest::qWaitFor([&] { return frames.count() > 0; }, 20000)) {
            qWarning("no frame was drawn");
            return false;
        }
        const bool splatted = renderer == PointCloudView::PointRenderer::Splats;
        if (view.lastFrameSplatted() != splatted)
            qWarning("the frame was %s (interop: %s)",
                     view.lastFrameSplatted() ? "splatted" : "GL's",
                     qPrintable(view.interopError()));
        return view.lastFrameSplatted() == splatted;
    }
    // A clustered demo cloud, coloured by a clustering computed and painted on the device
    // (noise translucent, drawn behind), in a view of size.
    std::unique_ptr<PointCloudView> clusteredView(std::size_t n, QSize size) {
        auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(n, 21));
        auto view = makeView(points, size);
        if (!view) return nullptr;
        const auto r = clusterOnGpu(*points, {.eps = 0.6f, .minPts = 10});
        if (!r->device || r->stats.noisePoints == 0 ||
            !view->setCategories(cs::dbscanCategories(r), paintFor(*r, true, true, true), {}) ||
            !waitDrawn(*view))
            return nullptr;
        return view;
    }

    void splatIsTheCpuReferenceBitForBit() {
        // Every part of the rule on the device: clusters over translucent noise, a mask that
        // dims and hides points, points outside the view (zoomed in), flat and rim-shaded.
        auto view = clusteredView(300'000, QSize(640, 480));
        QVERIFY(view);
        std::vector<std::uint8_t> mask(view->pointCount(), 0);
        std::mt19937 rng(3);
        for (auto& m : mask) {
            const auto k = rng() % 10;
            m = k == 0 ? 1 : (k == 1 ? 2 : 0);
        }
        QVERIFY(view->setPointMask(mask));
        view->zoom(0.35f);  // closer: many points beside the view, some behind the camera
        for (float size : {1.5f, 5.0f}) {
            QVERIFY(drawWith(*view, PointCloudView::PointRenderer::Splats, size));
            const cs::PointSplatView v = view->lastSplatView();
            QCOMPARE(v.diameter, size);
            QVERIFY(v.width > 0 && v.height > 0);
            const auto image = view->readSplatImage();
            const auto reference =
                cs::splatPoints(view->readPositionBuffer(), view->readColourBuffer(), mask, v);
            QCOMPARE(image.size(), reference.size());
            std::size_t drawn = 0;
            for (std::size_t p = 0; p < image.size(); ++p) {
                drawn += reference[p] != cs::kEmptySplatPixel;
                if (image[p] != reference[p])
                    QFAIL(qPrintable(QStringLiteral("size %1, pixel (%2, %3): %4 splatted, the CPU "
                                                    "reference %5")
                                         .arg(size)
                                         .arg(p % v.width)
                                         .arg(p / v.width)
                                         .arg(image[p], 16, 16, QLatin1Char('0'))
                                         .arg(reference[p], 16, 16, QLatin1Char('0'))));
            }
            qInfo("size %.1f: %zu of %zu pixels drawn, all as the CPU reference draws them",
                  double(size), drawn, image.size());
            QVERIFY2(drawn > image.size() / 50, "too few pixels drawn to tell anything");
            saveScreenshot(view->grabFramebuffer(),
                           QStringLiteral("splat_%1.png").arg(int(size * 10)));
        }
    }

    void pickReadsTheSplatKeys() {
        // The pick of splatted points: the first pass alone, bit for bit the CPU's, and picks
        // at a grid of cursor positions that agree with GL's pick pass.
        auto view = clusteredView(400'000, QSize(640, 480));
        QVERIFY(view);
        QVERIFY(drawWith(*view, PointCloudView::PointRenderer::Splats, 3.0f));
        const cs::PointSplatView v = view->lastSplatView();
        std::vector<cs::SplatPixel> keys;
        {
            auto interop = cs::glInterop();
            QVERIFY(interop);
            view->makeCurrent();
            try {
                // Links of the view's own buffers beside the view's (the driver allows two).
                auto positions = interop->link(view->positionBufferId(), view->pointCount() * 12);
                auto colours = interop->link(view->colourBufferId(), view->pointCount() * 4);
                keys = interop->splatKeys(
                    {positions.get(), colours.get(), nullptr, view->pointCount()}, v);
            } catch (const std::exception& e) {
                view->doneCurrent();
                QFAIL(e.what());
            }
            view->doneCurrent();
        }
        const auto reference =
            cs::splatKeys(view->readPositionBuffer(), view->readColourBuffer(), {}, v);
        QCOMPARE(keys.size(), reference.size());
        QVERIFY(keys == reference);

        std::size_t picks = 0, hits = 0, same = 0;
        for (int y = 40; y < 440; y += 20)
            for (int x = 40; x < 600; x += 20) {
                view->setPointRenderer(PointCloudView::PointRenderer::Splats);
                const auto splatted = view->pickPoint(QPointF(x, y));
                QVERIFY(view->lastPickSplatted());
                view->setPointRenderer(PointCloudView::PointRenderer::GlPoints);
                const auto gl = view->pickPoint(QPointF(x, y));
                QVERIFY(!view->lastPickSplatted());
                ++picks;
                hits += bool(gl);
                same += splatted == gl;
            }
        qInfo("%zu picks, %zu on a point, %zu the same by splats and by GL", picks, hits, same);
        QVERIFY(hits > picks / 4);
        QVERIFY(double(same) >= 0.95 * double(picks));
    }

    void splatsLookLikeGlPoints() {
        // The same frame drawn by GL and splatted: the same pixels, bar GL's rounding (vertex
        // positions snapped to subpixels, depths to 24 bits).
        auto view = clusteredView(400'000, QSize(640, 480));
        QVERIFY(view);
        const QColor background = view->backgroundColour();
        for (float size : {1.5f, 4.0f}) {
            QVERIFY(drawWith(*view, PointCloudView::PointRenderer::GlPoints, size));
            const QImage gl = view->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
            QVERIFY(drawWith(*view, PointCloudView::PointRenderer::Splats, size));
            const QImage splat = view->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
            QVERIFY(view->lastFrameSplatted());
            QCOMPARE(gl.size(), splat.size());
            std::size_t drawn = 0, same = 0;
            for (int y = 0; y < gl.height(); ++y)
                for (int x = 0; x < gl.width(); ++x) {
                    const QColor a = gl.pixelColor(x, y), b = splat.pixelColor(x, y);
                    if (a == background && b == background) continue;
                    ++drawn;
                    same += std::abs(a.red() - b.red()) <= 2 &&
                            std::abs(a.green() - b.green()) <= 2 &&
                            std::abs(a.blue() - b.blue()) <= 2;
                }
            const double agreement = double(same) / double(std::max<std::size_t>(drawn, 1));
            qInfo("size %.1f: %zu pixels drawn, %.4f the same in both", double(size), drawn,
                  agreement);
            saveScreenshot(gl, QStringLiteral("splat_vs_gl_%1_gl.png").arg(int(size * 10)));
            saveScreenshot(splat, QStringLiteral("splat_vs_gl_%1_splat.png").arg(int(size * 10)));
            QVERIFY(drawn > std::size_t(gl.width() * gl.height() / 10));
            // 0.9988 and 0.9989 on the H200 (NVIDIA 580).
            QVERIFY2(agreement >= 0.99, qPrintable(QString::number(agreement)));
        }
    }

    // A clustered demo cloud with its kNN graph made on the device, edges written through
    // interop, a mask that dims and hides points.
    std::unique_ptr<PointCloudView> graphView(std::size_t n, QSize size,
                                              std::vector<std::uint8_t>& mask) {
        auto view = clusteredView(n, size);
        if (!view) return nullptr;
        cs::JobControl job;
        const auto graph = std::make_shared<const cs::KnnGraph>(
            m_cuda->knnGraph(*view->pointSet(), {.k = 6, .trees = 2, .targetRecall = 0.0}, job));
        if (!view->setEdges(cs::knnEdges(graph)) || !waitDrawn(*view)) return nullptr;
        mask.assign(view->pointCount(), 0);
        std::mt19937 rng(4);
        for (auto& m : mask) {
            const auto k = rng() % 20;
            m = k == 0 ? 1 : (k == 1 ? 2 : 0);
        }
        if (!view->setPointMask(mask) || !waitDrawn(*view)) return nullptr;
        view->setEdgeCounting(true);
        view->setEdgeOpacity(0.35f);
        return view;
    }

    void edgeSplatIsTheCpuReferenceBitForBit() {
        // Every part of the edge rule on the device: the points' colours (translucent noise,
        // dimmed and hidden ends), colours by length with a length filter, edges leaving the
        // view (zoomed in); the count of edges drawn as the reference counts them.
        std::vector<std::uint8_t> mask;
        auto view = graphView(200'000, QSize(640, 480), mask);
        QVERIFY(view);
        for (const bool byLength : {false, true}) {
            view->setEdgeColouring(byLength ? PointCloudView::EdgeColouring::Length
                                            : PointCloudView::EdgeColouring::Points);
            const auto bounds = view->edgeLengthBounds();
            if (byLength) view->setEdgeLengthFilter(bounds[0], 0.6 * bounds[1]);
            if (byLength) view->zoom(0.4f);
            QVERIFY(drawWith(*view, PointCloudView::PointRenderer::Splats, 2.0f));
            QVERIFY(view->lastFrameEdgesSplatted());
            const cs::EdgeSplatView v = view->lastEdgeSplatView();
            QVERIFY(v.width > 0 && v.height > 0);
            const auto image = view->readEdgeSplatImage();
            std::size_t drawn = 0;
            const auto reference =
                cs::splatEdges(view->readPositionBuffer(), view->readColourBuffer(), mask,
                               view->readEdgeBuffer(), v, &drawn);
            QCOMPARE(image.size(), reference.size());
            std::size_t covered = 0;
            for (std::size_t p = 0; p < image.size(); ++p) {
                covered += reference[p] != 0;
                if (image[p] != reference[p])
                    QFAIL(qPrintable(QStringLiteral("by length %1, pixel (%2, %3): %4 splatted, "
                                                    "the CPU reference %5")
                                         .arg(byLength)
                                         .arg(p % v.width)
                                         .arg(p / v.width)
                                         .arg(image[p], 8, 16, QLatin1Char('0'))
                                         .arg(reference[p], 8, 16, QLatin1Char('0'))));
            }
            QCOMPARE(view->drawnEdgeCount(), qint64(drawn));
            qInfo(
                "by length %d: %zu of %zu edges drawn, %zu pixels covered, all as the CPU "
                "reference draws them",
                int(byLength), drawn, view->edgeCount(), covered);
            QVERIFY2(covered > image.size() / 50, "too few pixels covered to tell anything");
            saveScreenshot(view->grabFramebuffer(),
                           QStringLiteral("edge_splat_%1.png").arg(byLength ? "length" : "points"));
        }
    }

    void edgeSplatsLookLikeGlLines() {
        // The same frame with GL's lines and with splatted edges, over the points so that all
        // of them show: the same pixels, bar the blending of overlapping edges (in order for
        // GL, order-independent for splats) and GL's rounding; the same count of edges drawn.
        std::vector<std::uint8_t> mask;
        auto view = graphView(200'000, QSize(640, 480), mask);
        QVERIFY(view);
        view->setEdgesOverPoints(true);
        view->setEdgeOpacity(0.8f);
        QVERIFY(drawWith(*view, PointCloudView::PointRenderer::GlPoints, 1.5f));
        QVERIFY(!view->lastFrameEdgesSplatted());
        const qint64 glEdges = view->drawnEdgeCount();
        const QImage gl = view->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
        QVERIFY(drawWith(*view, PointCloudView::PointRenderer::Splats, 1.5f));
        QVERIFY(view->lastFrameEdgesSplatted());
        QCOMPARE(view->drawnEdgeCount(), glEdges);
        const QImage splat = view->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
        const QColor background = view->backgroundColour();
        std::size_t drawn = 0, close = 0;
        for (int y = 0; y < gl.height(); ++y)
            for (int x = 0; x < gl.width(); ++x) {
                const QColor a = gl.pixelColor(x, y), b = splat.pixelColor(x, y);
                if (a == background && b == background) continue;
                ++drawn;
                close += std::abs(a.red() - b.red()) <= 24 &&
                         std::abs(a.green() - b.green()) <= 24 &&
                         std::abs(a.blue() - b.blue()) <= 24;
            }
        const double agreement = double(close) / double(std::max<std::size_t>(drawn, 1));
        qInfo("%lld edges, %zu pixels drawn, %.4f within 24 of GL's", glEdges, drawn, agreement);
        saveScreenshot(gl, QStringLiteral("edge_splat_vs_gl_gl.png"));
        saveScreenshot(splat, QStringLiteral("edge_splat_vs_gl_splat.png"));
        QVERIFY(drawn > std::size_t(gl.width() * gl.height() / 10));
        QVERIFY2(agreement >= 0.8, qPrintable(QString::number(agreement)));
    }

    void longEdgesAreLeftToGl() {
        // Edges that would cover more pixels than a splat should write (random pairs across a
        // big view: some 2 million edges of hundreds of pixels) are drawn by GL's lines.
        const std::size_t n = 1'000'000;
        auto points = gridPoints(1000);
        auto view = makeView(points, QSize(900, 900));
        QVERIFY(view);
        auto targets = std::make_shared<std::vector<std::int32_t>>(2 * n);
        std::mt19937 rng(8);
        for (auto& t : *targets)
            t = std::int32_t(rng() % n);
        cs::PointEdges edges;
        edges.n = n;
        edges.k = 2;
        edges.targets = *targets;
        edges.owner = targets;
        QVERIFY(view->setEdges(std::move(edges)));
        view->setEdgeCounting(true);
        QVERIFY(drawWith(*view, PointCloudView::PointRenderer::Splats, 1.0f));
        QVERIFY(!view->lastFrameEdgesSplatted());
        QVERIFY(view->drawnEdgeCount() > 0);
        QVERIFY(view->interopError().isEmpty());
    }

    void positionsWrittenFromTheComputeCopy() {
        // 5-D points far from the origin: the view draws the first three columns of the
        // backend's recentred device copy, bit for bit what the host would upload.
        std::vector<float> coords(50'000 * 5);
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> u(-50.0f, 50.0f);
        for (std::size_t i = 0; i < coords.size(); ++i)
            coords[i] = u(rng) + (i % 5 == 0 ? 350'000.0f : 0.0f);
        auto points =
            std::make_shared<const cs::PointSet>(cs::PointSet::fromCoords(5, std::move(coords)));
        auto view = makeView(points);
        QVERIFY(view);
        QCOMPARE(view->positionPath(), UploadPath::HostUpload);
        const auto uploaded = view->readPositionBuffer();
        cs::JobControl job;
        const auto copy = m_cuda->keepResident(points, job);
        QVERIFY(copy);
        view->setDevicePositions(copy);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->positionPath(), UploadPath::Interop);
        const auto written = view->readPositionBuffer();
        const std::vector<float> recentred = cs::recentredCoords(*points).coords;
        QCOMPARE(written.size(), points->n * 3);
        for (std::size_t i = 0; i < points->n; ++i)
            for (std::size_t j = 0; j < 3; ++j)
                if (written[i * 3 + j] != recentred[i * 5 + j])
                    QFAIL(qPrintable(QStringLiteral("point %1, column %2: %3 written, %4 expected")
                                         .arg(i)
                                         .arg(j)
                                         .arg(written[i * 3 + j])
                                         .arg(recentred[i * 5 + j])));
        QVERIFY(written == uploaded);  // the host path's upload holds the same values

        // Waiting for the copy: nothing drawn, then every point where it belongs.
        auto grid = gridPoints(5);
        view->setPointSet(grid);
        QVERIFY(view->setColourBy(QStringLiteral("uniform")));
        view->orbit(-view->camera().yaw(), -view->camera().pitch());
        view->fitToData();
        view->zoom(1.8f);
        view->setPointSize(12);
        view->expectDevicePositions(60'000);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), std::size_t(0));
        view->setDevicePositions(m_cuda->keepResident(grid, job));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), grid->n);
        QCOMPARE(view->positionPath(), UploadPath::Interop);
        const QImage image = view->grabFramebuffer();
        saveScreenshot(image, QStringLiteral("interop_positions.png"));
        for (std::size_t i = 0; i < grid->n; ++i) {
            const auto p = grid->point(i);
            const QColor got =
                image.pixelColor(view->project(QVector3D(p[0], p[1], p[2])).toPoint());
            const QColor want = view->uniformColour();
            QVERIFY2(std::abs(got.red() - want.red()) <= 10 &&
                         std::abs(got.green() - want.green()) <= 10 &&
                         std::abs(got.blue() - want.blue()) <= 10,
                     qPrintable(QStringLiteral("point %1: %2").arg(i).arg(got.name())));
        }
    }

    void seriesHeatmapWrittenByCuda() {
        // 2,000 series of up to 300 samples, some shorter: the pixel buffer a CUDA kernel
        // z-normalises into equals the host's matrix, padding included.
        cs::SeriesSet set = cs::demo::makeDemoSeries(2000, 300, 5);
        for (std::size_t i = 0; i < set.n; ++i)
            set.lengths[i] = std::uint32_t(set.length - i % 57);
        auto series = std::make_shared<const cs::SeriesSet>(std::move(set));
        cs::ui::SeriesHeatmapView view;
        view.resize(700, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto rows = cs::heatmapRows(*series, {}, std::size_t(view.maxRows()));
        view.setRows(series, rows, 0);
        cs::JobControl job;
        const auto copy = m_cuda->keepSeriesResident(series, job);
        QVERIFY(copy);
        view.setDeviceSeries(series, copy);
        QVERIFY(QTest::qWaitFor([&] { return view.isContentDrawn(); }, 20000));
        QVERIFY2(view.problem().isEmpty(), qPrintable(view.problem()));
        QCOMPARE(view.matrixPath(), cs::ui::UploadPath::Interop);
        const cs::SeriesMatrix host = cs::seriesMatrix(*series, rows, 0);
        auto compare = [&](const std::vector<float>& gl, float tolerance) {
            QCOMPARE(gl.size(), host.values.size());
            std::size_t padding = 0;
            for (std::size_t k = 0; k < gl.size(); ++k) {
                const float want = host.values[k];
                if (std::isnan(want)) {
                    ++padding;
                    QVERIFY2(std::isnan(gl[k]), qPrintable(QString::number(k)));
                } else if (!(std::abs(gl[k] - want) <=
                             tolerance * std::max(1.0f, std::abs(want)))) {
                    QFAIL(qPrintable(QStringLiteral("cell %1: %2 on the GPU, %3 on the host")
                                         .arg(k)
                                         .arg(gl[k])
                                         .arg(want)));
                }
            }
            QVERIFY(padding > 0);
        };
        // Sums in another order: equal to a few float ulps.
        compare(view.readMatrixBuffer(), 1e-5f);
        saveScreenshot(view.grabFramebuffer(), QStringLiteral("interop_heatmap.png"));
        view.setInteropAllowed(false);
        QVERIFY(QTest::qWaitFor([&] { return view.isContentDrawn(); }, 20000));
        QCOMPARE(view.matrixPath(), cs::ui::UploadPath::HostUpload);
        compare(view.readMatrixBuffer(), 0.0f);
    }

    void rocketFeatureMapWrittenByCuda() {
        // ROCKET features left on the device by the CUDA backend: the feature map a kernel
        // writes into the pixel buffer equals columnZScores, for both layers (PPV, MAX).
        auto series = std::make_shared<const cs::SeriesSet>(cs::demo::makeDemoSeries(600, 200, 9));
        auto kernels = std::make_shared<const cs::RocketKernels>(
            cs::makeRocketKernels({.kernels = 3'000, .seed = 4}, series->length, series->channels));
        cs::JobControl job;
        auto features = std::make_shared<const cs::RocketFeatures>(
            m_cuda->rocketTransform(*series, *kernels, job));
        QVERIFY(features->device);
        const cs::FeatureMatrix matrix = cs::rocketFeatureMatrix(features, kernels);
        cs::ui::FeatureMatrixView view;
        view.resize(800, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setMatrix(series, matrix);
        const auto rows = cs::heatmapRows(*series, {}, std::size_t(view.maxRows()));
        view.setRows(rows);
        for (const std::size_t layer : {std::size_t(0), std::size_t(1)}) {
            view.setInteropAllowed(true);
            view.setLayer(layer);
            QVERIFY(QTest::qWaitFor([&] { return view.isContentDrawn(); }, 20000));
            QCOMPARE(view.matrixPath(), cs::ui::UploadPath::Interop);
            const std::vector<float> host =
                cs::columnZScores(matrix, rows, layer, view.shownColumns());
            const std::vector<float> gl = view.readMatrixBuffer();
            QCOMPARE(gl.size(), host.size());
            for (std::size_t k = 0; k < gl.size(); ++k)
                if (!(std::abs(gl[k] - host[k]) <= 1e-5f * std::max(1.0f, std::abs(host[k]))))
                    QFAIL(qPrintable(QStringLiteral("cell %1: %2 on the GPU, %3 on the host")
                                         .arg(k)
                                         .arg(gl[k])
                                         .arg(host[k])));
            saveScreenshot(view.grabFramebuffer(),
                           QStringLiteral("interop_rocket_%1.png")
                               .arg(QString::fromStdString(matrix.layerNames[layer]).toLower()));
            view.setInteropAllowed(false);
            QVERIFY(QTest::qWaitFor([&] { return view.isContentDrawn(); }, 20000));
            QCOMPARE(view.matrixPath(), cs::ui::UploadPath::HostUpload);
            QCOMPARE(view.readMatrixBuffer(), host);
        }
        // Ordered by the F statistic of the classes: the kernel writes the columns in that order.
        view.setInteropAllowed(true);
        view.setOrder(cs::FeatureOrder::FStatistic);
        QCOMPARE(view.orderShown(), cs::FeatureOrder::FStatistic);
        QVERIFY(QTest::qWaitFor([&] { return view.isContentDrawn(); }, 20000));
        QCOMPARE(view.matrixPath(), cs::ui::UploadPath::Interop);
        const std::vector<std::uint32_t> columns(
            view.columnOrder().begin(),
            view.columnOrder().begin() + std::ptrdiff_t(view.shownColumns()));
        const std::vector<float> host = cs::columnZScores(matrix, rows, 1, columns);
        const std::vector<float> gl = view.readMatrixBuffer();
        QCOMPARE(gl.size(), host.size());
        for (std::size_t k = 0; k < gl.size(); ++k)
            if (!(std::abs(gl[k] - host[k]) <= 1e-5f * std::max(1.0f, std::abs(host[k]))))
                QFAIL(qPrintable(QStringLiteral("ordered cell %1: %2 on the GPU, %3 on the host")
                                     .arg(k)
                                     .arg(gl[k])
                                     .arg(host[k])));
    }

    void mainWindowKeepsInteropThroughViewSwitchesAndReloads() {
        // The application as a user drives it: CUDA DBSCAN from the panel, colours painted
        // through interop, then other views, other data, and back.
        auto window = std::make_unique<cs::ui::MainWindow>();
        window->resize(1200, 800);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        auto settled = [&] { return QTest::qWaitFor([&] { return window->isSettled(); }, 60000); };
        PointCloudView& view = *window->pointView();
        // The interop result must equal the host path's on the same clustering.
        auto checkBothPaths = [&](const char* when) {
            QVERIFY2(settled(), when);
            QVERIFY2(view.colourPath() == UploadPath::Interop, when);
            const auto interop = view.readColourBuffer();
            view.setInteropAllowed(false);
            QVERIFY2(settled(), when);
            QVERIFY2(view.colourPath() == UploadPath::HostUpload, when);
            const auto host = view.readColourBuffer();
            view.setInteropAllowed(true);
            QVERIFY2(settled(), when);
            QVERIFY2(!interop.empty() && interop == host, when);
        };

        window->openDemoPoints(300'000);
        QVERIFY(settled());
        // The positions come from the compute backend's copy of the points.
        QCOMPARE(view.positionPath(), UploadPath::Interop);
        cs::ui::DbscanPanel& panel = *window->dbscanPanel();
        panel.setEps(0.8);
        panel.run();
        QVERIFY(settled());
        QCOMPARE(window->jobRunner()->backendName(), QStringLiteral("cuda"));
        QVERIFY(panel.lastRun() && panel.lastRun()->result.device);
        checkBothPaths("first run");
        // Another eps: painted again on the device, matched to the first run's colours.
        panel.setEps(0.9);
        QVERIFY(settled());
        checkBothPaths("second run");

        window->setCurrentView(cs::ui::MainWindow::View::Series);
        window->openDemoSeries();
        QVERIFY(settled());
        // The series heat map draws from the device copy of the series once it has come (the
        // copy is made on the worker after the load; until then the host uploads).
        window->seriesView()->setStyle(cs::ui::SeriesView::Style::Heatmap);
        cs::ui::SeriesHeatmapView& heatmap = *window->seriesView()->heatmapView();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return heatmap.isContentDrawn() &&
                       heatmap.matrixPath() == cs::ui::UploadPath::Interop;
            },
            20000));
        QVERIFY(!heatmap.readMatrixBuffer().empty());
        window->setCurrentView(cs::ui::MainWindow::View::Points);
        view.update();
        checkBothPaths("after the series view");

        window->openDemoPoints(120'000);  // reload: another size, the buffers are re-registered
        QVERIFY(settled());
        QCOMPARE(view.positionPath(), UploadPath::Interop);
        QCOMPARE(view.readPositionBuffer(), cs::recentredCoords(*view.pointSet()).coords);
        panel.setEps(0.8);
        panel.run();
        checkBothPaths("after a reload");
        window->close();
        window.reset();  // contexts and registrations go; the runner's results with them
        QCOMPARE(cudaGetLastError(), cudaSuccess);
    }

    void reloadReparentAndCloseKeepInteropSound() {
        const std::size_t before = deviceMemoryUsed();
        for (int round = 0; round < 12; ++round) {
            // Reload: another size re-registers the reallocated buffer.
            auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(
                std::size_t(50'000 + 7'919 * round), std::uint64_t(round)));
            auto view = makeView(points);
            QVERIFY(view);
            const auto r = clusterOnGpu(*points, {.eps = 0.6f, .minPts = 8});
            checkDevicePaint(*view, r, paintFor(*r, true, true, true));
            if (round % 3 == 1) {
                // A new top level destroys the GL context (the registration goes first) and
                // makes a new one: the view repaints from the same device data.
                QWidget host;
                host.resize(420, 420);
                view->setParent(&host);
                host.show();
                QVERIFY(QTest::qWaitForWindowExposed(&host));
                view->show();
                QVERIFY(waitDrawn(*view));
                QCOMPARE(view->colourPath(), UploadPath::Interop);
                const auto want =
                    cs::paintCategories(r->labels, r->isCore, paintFor(*r, true, true, true));
                QCOMPARE(firstDifference(view->readColourBuffer(), want), want.size());
                view->setParent(nullptr);
            }
            if (round % 3 == 2) {
                // New data in the same view: the old clustering no longer applies.
                view->setPointSet(std::make_shared<const cs::PointSet>(
                    cs::demo::makeDemoPoints(1'000, std::uint64_t(round))));
                QVERIFY(waitDrawn(*view));
                QCOMPARE(view->colourPath(), UploadPath::HostUpload);
            }
            view->close();
            // The view, its context and its registration go while the clustering lives on.
        }
        QTest::qWait(50);
        cudaDeviceSynchronize();
        const std::size_t after = deviceMemoryUsed();
        // Twelve rounds of views, registrations and clusterings leave no device memory behind
        // beyond allocator slack.
        QVERIFY2(after <= before + (64u << 20),
                 qPrintable(QStringLiteral("device memory grew by %1 MiB")
                                .arg(double(after - before) / (1 << 20), 0, 'f', 1)));
        QCOMPARE(cudaGetLastError(), cudaSuccess);
    }
};

namespace {

// Checked before any test function runs. No CUDA device is a skip everywhere (CI has none);
// no GL is a skip, or a failure under CS_REQUIRE_GL=1.
int cudaAndGlCheck() {
    const cs::kernels::CudaProbe probe = cs::kernels::probeCudaDevice();
    if (probe.device < 0) {
        std::printf("SKIP   : TestGlInterop::initTestCase() no CUDA device: %s\n",
                    probe.reason.c_str());
        std::fflush(stdout);
        return 77;
    }
    return cs::test::glSuiteCheck("TestGlInterop");
}

}  // namespace

CS_GUI_TEST_MAIN_CHECKED(TestGlInterop, cudaAndGlCheck())
#include "tst_gl_interop.moc"
