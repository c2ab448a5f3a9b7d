// SPDX-License-Identifier: MIT
// PointCloudView: what reaches the framebuffer (grabFramebuffer), colouring, camera math and
// key handling. Runs under xvfb-run (Mesa llvmpipe here, the NVIDIA driver on the GPU machine).
#include <QLabel>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QPaintEvent>
#include <QSignalSpy>
#include <QtTest>
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <span>

#include "compute/backend/gl_interop.h"
#include "compute/core/error.h"
#include "compute/core/point_quantities.h"
#include "compute/core/point_set.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_quantities.h"
#include "compute/knn/knn_graph.h"
#include "compute/knn/knn_quantities.h"
#include "tests/ui/gui_test_main.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/orbit_camera.h"
#include "ui/views/points/point_cloud_view.h"

using cs::PointAttribute;
using cs::PointSet;
using cs::ui::ColourMaps;
using cs::ui::Legend;
using cs::ui::OrbitCamera;
using cs::ui::PointCloudView;

namespace {

std::shared_ptr<const PointSet> makePoints(std::size_t dims, std::vector<float> coords) {
    return std::make_shared<const PointSet>(PointSet::fromCoords(dims, std::move(coords)));
}

bool near(const QColor& a, const QColor& b, int tolerance = 8) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

QString describe(const QColor& c) {
    return c.name();
}

QColor mix(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t),
                            float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

// A kNN graph written by hand: row i holds point i's neighbours (nearest first).
std::shared_ptr<cs::KnnGraph> makeGraph(std::size_t n, int k, std::vector<std::int32_t> indices,
                                        std::vector<float> distances = {}) {
    auto g = std::make_shared<cs::KnnGraph>();
    g->n = n;
    g->k = k;
    g->indices = std::move(indices);
    g->distances =
        distances.empty() ? std::vector<float>(g->indices.size(), 1.0f) : std::move(distances);
    g->treesBuilt = 1;
    g->recallByTree = {1.0};
    return g;
}

}  // namespace

class TestPointView : public QObject {
    Q_OBJECT

private:
    // A shown, exposed view of a fixed size with points, drawn at least once.
    std::unique_ptr<PointCloudView> makeView(std::shared_ptr<const PointSet> points,
                                             QSize size = QSize(240, 200)) {
        auto view = std::make_unique<PointCloudView>();
        view->resize(size);
        view->show();
        if (!QTest::qWaitForWindowExposed(view.get())) return nullptr;
        view->setPointSet(std::move(points));
        return view;
    }
    static bool waitDrawn(PointCloudView& view) {
        return QTest::qWaitFor([&] { return view.isContentDrawn(); }, 10000);
    }

private slots:

    void centrePointLightsCentrePixel() {
        auto view = makeView(makePoints(3, {1.0f, 2.0f, 3.0f}));
        QVERIFY(view);
        QVERIFY(view->setColourBy(QStringLiteral("uniform")));
        view->setPointSize(9);
        view->orbit(40, 10);
        view->fitToData();
        QVERIFY(waitDrawn(*view));
        QVERIFY2(view->glError().isEmpty(), qPrintable(view->glError()));
        QCOMPARE(view->uploadedPointCount(), std::size_t(1));

        const QImage image = view->grabFramebuffer();
        const QPoint centre(image.width() / 2, image.height() / 2);
        const QColor bg = view->backgroundColour();
        const QColor lit = image.pixelColor(centre);
        QVERIFY2(!near(lit, bg, 2), qPrintable("centre pixel is background: " + describe(lit)));
        QVERIFY2(near(lit, view->uniformColour(), 10),
                 qPrintable(describe(lit) + " vs uniform " + describe(view->uniformColour())));
        // Away from the point (and from the overlays in the corners) only background.
        for (QPoint p : {QPoint(image.width() / 4, image.height() / 2),
                         QPoint(image.width() * 3 / 4, image.height() / 2),
                         QPoint(image.width() / 2, image.height() / 4)})
            QVERIFY2(near(image.pixelColor(p), bg, 2), qPrintable(describe(image.pixelColor(p))));
        // The projection the tests rely on agrees with the image.
        const QPointF projected = view->project(QVector3D(1, 2, 3));
        QVERIFY(std::abs(projected.x() - image.width() / 2.0) < 1.0);
        QVERIFY(std::abs(projected.y() - image.height() / 2.0) < 1.0);
    }

    void labelAttributeGivesPaletteColours() {
        PointSet set = PointSet::fromCoords(3, {-1, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0});
        PointAttribute truth;
        truth.name = "truth";
        truth.kind = PointAttribute::Kind::Label;
        truth.labels = {0, 1, 1, -1};
        truth.categories = {"left", "right"};
        set.attributes.push_back(truth);
        auto points = std::make_shared<const PointSet>(std::move(set));
        auto view = makeView(points, QSize(320, 240));
        QVERIFY(view);
        // A label attribute is what a fresh set is coloured by.
        QCOMPARE(view->colourBy(), QStringLiteral("attr:truth"));
        view->setPointSize(11);
        QVERIFY(waitDrawn(*view));

        const QImage image = view->grabFramebuffer();
        const QColor expected[] = {ColourMaps::categorical(0), ColourMaps::categorical(1),
                                   ColourMaps::categorical(1), view->noiseColour()};
        for (std::size_t i = 0; i < 4; ++i) {
            const QPointF p = view->project(QVector3D(points->point(i)[0], points->point(i)[1], 0));
            const QColor got = image.pixelColor(p.toPoint());
            QVERIFY2(near(got, expected[i]),
                     qPrintable(QStringLiteral("point %1: %2, expected %3")
                                    .arg(i)
                                    .arg(describe(got), describe(expected[i]))));
        }
        const Legend& legend = view->legend();
        QCOMPARE(legend.kind, Legend::Kind::Categories);
        QCOMPARE(legend.title, QStringLiteral("truth · given labels, not a clustering"));
        QCOMPARE(int(legend.entries.size()), 3);
        QCOMPARE(legend.entries[0].name, QStringLiteral("left"));
        QCOMPARE(legend.entries[0].count, std::size_t(1));
        QCOMPARE(legend.entries[1].name, QStringLiteral("right"));
        QCOMPARE(legend.entries[1].count, std::size_t(2));
        QCOMPARE(legend.entries[2].name, QStringLiteral("noise"));
        // The legend overlay is drawn in the top-right corner.
        int overlay = 0;
        for (int y = 10; y < 60; ++y)
            for (int x = image.width() - 60; x < image.width() - 12; ++x)
                overlay += !near(image.pixelColor(x, y), view->backgroundColour(), 3);
        QVERIFY2(overlay > 100, qPrintable(QString::number(overlay)));
    }

    void noiseIsDrawnBehindClusters() {
        // Seen along -z: the noise point at z = 1 is in front of the cluster point at z = -1.
        PointSet set = PointSet::fromCoords(3, {0, 0, 1, 0, 0, -1, 0.5f, 0.5f, 0, -0.5f, -0.5f, 0});
        PointAttribute truth;
        truth.name = "truth";
        truth.kind = PointAttribute::Kind::Label;
        truth.labels = {-1, 0, 0, 0};
        set.attributes.push_back(truth);
        auto view = makeView(std::make_shared<const PointSet>(std::move(set)));
        QVERIFY(view);
        view->orbit(-view->camera().yaw(), -view->camera().pitch());
        view->setPointSize(9);
        QVERIFY(waitDrawn(*view));
        QImage image = view->grabFramebuffer();
        const QPoint centre = view->project(QVector3D(0, 0, 0)).toPoint();
        QVERIFY2(near(image.pixelColor(centre), ColourMaps::categorical(0)),
                 qPrintable(describe(image.pixelColor(centre))));
        // With opaque colours the nearer point wins, as depth says.
        const std::uint32_t front = ColourMaps::packRgba(200, 30, 30);
        const std::uint32_t back = ColourMaps::packRgba(30, 30, 200);
        QVERIFY(view->setColours(std::vector<std::uint32_t>{front, back, back, back}));
        QVERIFY(waitDrawn(*view));
        image = view->grabFramebuffer();
        QVERIFY2(near(image.pixelColor(centre), ColourMaps::toColor(front)),
                 qPrintable(describe(image.pixelColor(centre))));
    }

    void scalarAttributeGivesColourBar() {
        PointSet set = PointSet::fromCoords(2, {0, 0, 1, 0, 2, 0});
        PointAttribute intensity;
        intensity.name = "intensity";
        intensity.scalars = {10.0f, 20.0f, 30.0f};
        set.attributes.push_back(intensity);
        auto view = makeView(std::make_shared<const PointSet>(std::move(set)));
        QVERIFY(view);
        QCOMPARE(view->colourBy(), QStringLiteral("attr:intensity"));
        QCOMPARE(view->legend().kind, Legend::Kind::ColourBar);
        // The robust range by default: the 2nd to the 98th percentile (numpy's linear rule).
        QVERIFY(qFuzzyCompare(view->legend().minimum, 10.4));
        QVERIFY(qFuzzyCompare(view->legend().maximum, 29.6));
        QCOMPARE(view->legend().below, std::size_t(1));
        QCOMPARE(view->legend().above, std::size_t(1));
        QCOMPARE(view->legend().rangeNote, QStringLiteral("2–98th percentile"));
        QCOMPARE(view->colours()[0], ColourMaps::viridisRgba(0.0f));
        QCOMPARE(view->colours()[2], ColourMaps::viridisRgba(1.0f));
        // Another map and the full range recolour the scalar on screen.
        cs::ui::ScalarStyle style;
        style.map = ColourMaps::Map::Magma;
        QVERIFY(style.parseRange(QStringLiteral("p0:p100"), nullptr));
        view->setScalarStyle(style);
        QCOMPARE(view->legend().minimum, 10.0);
        QCOMPARE(view->legend().maximum, 30.0);
        QCOMPARE(view->legend().map, ColourMaps::Map::Magma);
        QCOMPARE(view->colours()[1], ColourMaps::rgba(ColourMaps::Map::Magma, 0.5f));
        view->setScalarStyle({});
        // Every coordinate and attribute is offered.
        QStringList ids;
        for (const auto& o : view->colourOptions())
            ids << o.id;
        QCOMPARE(ids, QStringList({"uniform", "dim:0", "dim:1", "attr:intensity"}));
        QVERIFY(!view->setColourBy(QStringLiteral("attr:nope")));
        QVERIFY(view->setColourBy(QStringLiteral("dim:0")));
        QCOMPARE(view->legend().title, QStringLiteral("x"));
        QVERIFY(waitDrawn(*view));
    }

    void clusterColoursUploadedFromHost() {
        // The host path, as with the CPU backend: a 3 x 2 grid, two clusters and a noise point.
        auto points = makePoints(3, {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0});
        auto view = makeView(points, QSize(320, 240));
        QVERIFY(view);
        view->orbit(-view->camera().yaw(), -view->camera().pitch());
        view->fitToData();
        view->setPointSize(12);
        auto r = std::make_shared<cs::DbscanResult>();
        r->labels = {0, 0, 1, -1, 0, 1};
        r->isCore = {1, 0, 1, 0, 1, 1};
        r->clusterCount = 2;
        r->stats.noisePoints = 1;
        cs::CategoryPaint paint;
        paint.categoryRgba = {ColourMaps::packRgba(200, 40, 40), ColourMaps::packRgba(40, 40, 200)};
        paint.noneRgba = ColourMaps::packRgba(view->noiseColour());
        QVERIFY(view->setCategories(cs::dbscanCategories(r), paint, {}));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->colourPath(), PointCloudView::UploadPath::HostUpload);
        const auto want = cs::paintCategories(r->labels, r->isCore, paint);
        QCOMPARE(view->readColourBuffer(), want);
        QImage image = view->grabFramebuffer();
        auto pixelOf = [&](std::size_t i) {
            const auto p = points->point(i);
            return image.pixelColor(view->project(QVector3D(p[0], p[1], p[2])).toPoint());
        };
        for (std::size_t i : {0, 1, 2, 4, 5})
            QVERIFY2(near(pixelOf(i), ColourMaps::toColor(want[i])),
                     qPrintable(QStringLiteral("point %1: %2").arg(i).arg(describe(pixelOf(i)))));
        QVERIFY(!near(pixelOf(3), view->backgroundColour(), 2));

        // Border points and noise hidden: only the core points are drawn.
        paint.showSecondary = false;
        paint.showNone = false;
        QVERIFY(view->setCategories(cs::dbscanCategories(r), paint, {}));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->readColourBuffer(), cs::paintCategories(r->labels, r->isCore, paint));
        image = view->grabFramebuffer();
        QVERIFY(near(pixelOf(1), view->backgroundColour(), 2));
        QVERIFY(near(pixelOf(3), view->backgroundColour(), 2));
        QVERIFY(near(pixelOf(0), ColourMaps::toColor(paint.categoryRgba[0])));

        // A clustering of other points is refused; the colours stay.
        auto wrong = std::make_shared<cs::DbscanResult>(*r);
        wrong->labels.pop_back();
        QVERIFY(!view->setCategories(cs::dbscanCategories(wrong), paint, {}));
        QCOMPARE(view->readColourBuffer(), cs::paintCategories(r->labels, r->isCore, paint));
    }

    void levelOfDetailWhileTheCameraMoves() {
        // A 20 x 15 grid, a colour of its own per point: while the camera moves, only the
        // budget's points of the fixed random permutation are drawn, each in its own colour;
        // once it stops, every point, the sample's in the same colours.
        constexpr int kColumns = 20, kRows = 15;
        std::vector<float> coords;
        for (int r = 0; r < kRows; ++r)
            for (int c = 0; c < kColumns; ++c)
                coords.insert(coords.end(), {float(c), float(r)});
        auto points = makePoints(2, coords);
        const std::size_t n = points->n;
        auto view = makeView(points, QSize(400, 320));
        QVERIFY(view);
        view->orbit(-view->camera().yaw(), -view->camera().pitch());
        view->fitToData();
        view->zoom(1.8f);  // clear of the overlay's lines at the bottom
        view->setPointSize(5);
        std::vector<std::uint32_t> rgba(n);
        for (std::size_t i = 0; i < n; ++i)
            rgba[i] = ColourMaps::packRgba(60 + int(i * 37 % 190), 60 + int(i * 91 % 190),
                                           60 + int(i * 53 % 190));
        QVERIFY(view->setColours(rgba));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->lastDrawnPointCount(), n);

        // A swap that waits for the vertical blank would hold up the GUI thread, results too.
        QCOMPARE(PointCloudView::defaultSurfaceFormat().swapInterval(), 0);
        // The renderer picks the default: a smaller sample where the CPU draws every point.
        QCOMPARE(view->lodBudget(), view->isSoftwareRenderer() ? PointCloudView::kSoftwareLodBudget
                                                               : PointCloudView::kLodBudget);
        constexpr std::size_t kBudget = 60;
        view->setLevelOfDetail(kBudget, 1500);
        view->orbit(0.5f, 0.0f);
        QVERIFY(view->isCameraMoving());
        const QImage moving = view->grabFramebuffer();
        QCOMPARE(view->lastDrawnPointCount(), kBudget);
        std::vector<std::uint32_t> sample = view->lodOrder();
        QCOMPARE(sample.size(), kBudget);
        std::sort(sample.begin(), sample.end());
        QVERIFY(std::adjacent_find(sample.begin(), sample.end()) == sample.end());
        QVERIFY(sample.back() < n);
        // A sample of the whole grid, not its first rows.
        QVERIFY(sample.back() > n / 2 && sample.front() < n / 2);
        const auto inSample = [&](std::size_t i) {
            return std::binary_search(sample.begin(), sample.end(), std::uint32_t(i));
        };
        const auto pixelOf = [&](const QImage& image, std::size_t i) {
            const auto p = points->point(i);
            return image.pixelColor(view->project(QVector3D(p[0], p[1], 0.0f)).toPoint());
        };
        for (std::size_t i = 0; i < n; ++i) {
            const QColor want =
                inSample(i) ? ColourMaps::toColor(rgba[i]) : view->backgroundColour();
            QVERIFY2(near(pixelOf(moving, i), want, 10),
                     qPrintable(QStringLiteral("moving, point %1 (%2 the sample): %3, not %4")
                                    .arg(i)
                                    .arg(inSample(i) ? "in" : "not in")
                                    .arg(describe(pixelOf(moving, i)), describe(want))));
        }

        QTRY_VERIFY_WITH_TIMEOUT(!view->isCameraMoving(), 5000);
        const QImage still = view->grabFramebuffer();
        QCOMPARE(view->lastDrawnPointCount(), n);
        for (std::size_t i = 0; i < n; ++i) {
            QVERIFY2(near(pixelOf(still, i), ColourMaps::toColor(rgba[i]), 10),
                     qPrintable(QStringLiteral("still, point %1").arg(i)));
            if (inSample(i)) QVERIFY(near(pixelOf(still, i), pixelOf(moving, i), 2));
        }
        // The same sample the next time, and none at or under the budget.
        view->orbit(0.5f, 0.0f);
        view->grabFramebuffer();
        QCOMPARE(view->lodOrder().size(), kBudget);
        view->setLevelOfDetail(n, 1500);
        view->orbit(0.5f, 0.0f);
        view->grabFramebuffer();
        QCOMPARE(view->lastDrawnPointCount(), n);
    }

    void deviceClustersFallBackToHostWithoutInterop() {
        // Device data, but no interop on this machine: painted on the host, and the view says
        // why interop is not used.
        struct FakeDeviceData : cs::DeviceResident {
            std::string backend() const override { return "fake"; }
        };
        cs::setGlInteropFactory([]() -> std::shared_ptr<cs::GlInterop> {
            throw cs::BackendUnavailable("no interop in this test");
        });
        auto points = makePoints(2, {0, 0, 1, 0, 2, 0});
        auto view = makeView(points);
        QVERIFY(view);
        auto r = std::make_shared<cs::DbscanResult>();
        r->labels = {0, -1, 0};
        r->isCore = {1, 0, 0};
        r->clusterCount = 1;
        r->stats.noisePoints = 1;
        r->device = std::make_shared<FakeDeviceData>();
        cs::CategoryPaint paint;
        paint.categoryRgba = {ColourMaps::packRgba(10, 200, 10)};
        paint.noneRgba = 0x80808080u;
        QVERIFY(view->mayPaintOnDevice());
        QVERIFY(view->setCategories(cs::dbscanCategories(r), paint, {}));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->colourPath(), PointCloudView::UploadPath::HostUpload);
        QCOMPARE(view->interopError(), QStringLiteral("no interop in this test"));
        QVERIFY(!view->mayPaintOnDevice());
        QCOMPARE(view->readColourBuffer(), cs::paintCategories(r->labels, r->isCore, paint));
        cs::releaseGlInterop();
    }

    void interopBookkeepingWithAStandInDevice() {
        // A stand-in GlInterop (no CUDA here): the view registers its colour buffer once, asks
        // it to paint, keeps no host copy; a device fault turns interop off and the host paints.
        struct Calls {
            int links = 0;
            int paints = 0;
            int edgeWrites = 0;
            std::uint32_t buffer = 0;
            std::size_t bytes = 0;
            bool fail = false;
        };
        // The stand-in's "device copy" of a kNN graph: the edge indices it writes, through GL,
        // into the buffer it was linked to, as the CUDA kernel would.
        struct FakeGraphData : cs::DeviceResident {
            std::vector<std::uint32_t> edges;
            std::string backend() const override { return "stand-in"; }
        };
        struct StandInLink : cs::GlBufferLink {
            Calls& calls;
            std::uint32_t id;
            std::size_t size;
            StandInLink(Calls& c, std::uint32_t i, std::size_t b) : calls(c), id(i), size(b) {}
            std::uint32_t glBuffer() const override { return id; }
            std::size_t bytes() const override { return size; }
            void paintCategories(const cs::DeviceResident&, const cs::CategoryPaint&) override {
                if (calls.fail) throw cs::DeviceError("stand-in device fault");
                ++calls.paints;
            }
            void writePositions(const cs::DeviceResident&, double) override {}
            void writeSeriesMatrix(const cs::DeviceResident&, std::span<const std::uint32_t>,
                                   std::size_t) override {}
            void writeColumnZScores(const cs::DeviceResident&, std::span<const std::uint32_t>,
                                    std::size_t, std::size_t) override {}
            void writeEdgeIndices(const cs::DeviceResident& graph) override {
                if (calls.fail) throw cs::DeviceError("stand-in device fault");
                const auto& edges = dynamic_cast<const FakeGraphData&>(graph).edges;
                if (edges.size() * sizeof(std::uint32_t) != size)
                    throw cs::Error("stand-in: the graph does not fit the buffer");
                auto* f = QOpenGLContext::currentContext()->extraFunctions();
                f->glBindBuffer(GL_COPY_WRITE_BUFFER, id);
                f->glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(size), edges.data());
                f->glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
                ++calls.edgeWrites;
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
        struct FakeDeviceData : cs::DeviceResident {
            std::string backend() const override { return "stand-in"; }
        };
        Calls calls;
        cs::setGlInteropFactory([&calls] { return std::make_shared<StandIn>(calls); });
        auto view = makeView(makePoints(2, {0, 0, 1, 0, 2, 0}));
        QVERIFY(view);
        auto r = std::make_shared<cs::DbscanResult>();
        r->labels = {0, -1, 0};
        r->isCore = {1, 0, 1};
        r->clusterCount = 1;
        r->device = std::make_shared<FakeDeviceData>();
        cs::CategoryPaint paint;
        paint.categoryRgba = {ColourMaps::packRgba(10, 200, 10)};
        for (int run = 0; run < 2; ++run) {
            QVERIFY(view->setCategories(cs::dbscanCategories(r), paint, {}));
            QVERIFY(waitDrawn(*view));
            QCOMPARE(view->colourPath(), PointCloudView::UploadPath::Interop);
        }
        QCOMPARE(calls.links, 1);  // registered once, painted twice
        QCOMPARE(calls.paints, 2);
        QCOMPARE(calls.buffer, view->colourBufferId());
        QCOMPARE(calls.bytes, std::size_t(3 * 4));
        QVERIFY(view->colours().empty());

        // kNN edges of a device graph: the element buffer is linked once and written by the
        // device for each graph of the same size; a different size is a new buffer, a new link.
        auto graph = makeGraph(3, 1, {2, 0, 1}, {2.0f, 1.0f, 1.0f});
        auto graphData = std::make_shared<FakeGraphData>();
        graphData->edges = cs::edgeIndexPairs(cs::knnEdges(graph));
        graph->device = graphData;
        QVERIFY(view->setEdges(cs::knnEdges(graph)));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgePath(), PointCloudView::UploadPath::Interop);
        QCOMPARE(calls.links, 2);
        QCOMPARE(calls.edgeWrites, 1);
        QCOMPARE(calls.buffer, view->edgeBufferId());
        QCOMPARE(calls.bytes, std::size_t(2 * 3 * 1 * 4));
        QCOMPARE(view->edgeCount(), std::size_t(3));
        QCOMPARE(view->readEdgeBuffer(), std::vector<std::uint32_t>({0, 2, 1, 0, 2, 1}));
        auto other = makeGraph(3, 1, {1, 2, 0});
        auto otherData = std::make_shared<FakeGraphData>();
        otherData->edges = cs::edgeIndexPairs(cs::knnEdges(other));
        other->device = otherData;
        QVERIFY(view->setEdges(cs::knnEdges(other)));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(calls.links, 2);  // same size: the registration is reused
        QCOMPARE(calls.edgeWrites, 2);
        QCOMPARE(view->readEdgeBuffer(), cs::edgeIndexPairs(cs::knnEdges(other)));
        auto wider = makeGraph(3, 2, {1, 2, 0, 2, 0, 1});
        auto widerData = std::make_shared<FakeGraphData>();
        widerData->edges = cs::edgeIndexPairs(cs::knnEdges(wider));
        wider->device = widerData;
        QVERIFY(view->setEdges(cs::knnEdges(wider)));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(calls.links, 3);  // a larger buffer: registered anew
        QCOMPARE(calls.bytes, std::size_t(2 * 3 * 2 * 4));
        QCOMPARE(calls.edgeWrites, 3);
        QCOMPARE(view->readEdgeBuffer(), cs::edgeIndexPairs(cs::knnEdges(wider)));

        calls.fail = true;
        QVERIFY(view->setCategories(cs::dbscanCategories(r), paint, {}));
        QVERIFY(view->setEdges(cs::knnEdges(graph)));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->colourPath(), PointCloudView::UploadPath::HostUpload);
        QCOMPARE(view->interopError(), QStringLiteral("stand-in device fault"));
        QVERIFY(!view->mayPaintOnDevice());
        QCOMPARE(view->readColourBuffer(), cs::paintCategories(r->labels, r->isCore, paint));
        // The edges fall back to the host upload too, from the graph's host indices.
        QCOMPARE(view->edgePath(), PointCloudView::UploadPath::HostUpload);
        QCOMPARE(calls.edgeWrites, 3);
        QCOMPARE(view->readEdgeBuffer(), cs::edgeIndexPairs(cs::knnEdges(graph)));
        view.reset();
        cs::releaseGlInterop();
    }

    void knnEdgesDrawnInThePointColours() {
        // Three points far apart, drawn tiny: whatever colours the midpoint of 0-1 or of 2-0 is
        // the edge, not a point.
        auto points = makePoints(2, {-1.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.9f});
        auto view = makeView(points, QSize(320, 240));
        QVERIFY(view);
        view->setPointSize(1);
        const QColor bg = view->backgroundColour();
        const std::uint32_t red = ColourMaps::packRgba(220, 20, 30);
        const std::uint32_t blue = ColourMaps::packRgba(20, 40, 220);
        QVERIFY(view->setColours(std::vector<std::uint32_t>{red, red, blue}));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgeCount(), std::size_t(0));
        QVERIFY(view->readEdgeBuffer().empty());
        // No edges yet: the midpoints are background.
        auto pixelNear = [&](const QImage& image, QVector3D at, const QColor& want,
                             int tolerance = 10) {
            // Lines are one pixel wide: look in the 3 x 3 block around the projected point.
            const QPoint p = view->project(at).toPoint();
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (near(image.pixelColor(p + QPoint(dx, dy)), want, tolerance)) return true;
            return false;
        };
        auto allBackground = [&](const QImage& image, QVector3D at) {
            const QPoint p = view->project(at).toPoint();
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (!near(image.pixelColor(p + QPoint(dx, dy)), bg, 2)) return false;
            return true;
        };
        const QVector3D mid01(0.0f, 0.0f, 0.0f);
        const QVector3D mid20(-0.5f, 0.45f, 0.0f);
        QVERIFY(allBackground(view->grabFramebuffer(), mid01));

        // 0 <-> 1 and 2 -> 0, uploaded from the host (no device data).
        auto graph = makeGraph(3, 1, {1, 0, 0}, {2.0f, 2.0f, 1.35f});
        QVERIFY(view->setEdges(cs::knnEdges(graph)));
        view->setEdgeOpacity(1.0f);
        // By length is the default; this test is about the points' colours.
        QCOMPARE(view->edgeColouring(), PointCloudView::EdgeColouring::Length);
        view->setEdgeColouring(PointCloudView::EdgeColouring::Points);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgePath(), PointCloudView::UploadPath::HostUpload);
        QCOMPARE(view->edgeCount(), std::size_t(3));
        QCOMPARE(view->readEdgeBuffer(), cs::edgeIndexPairs(cs::knnEdges(graph)));
        QCOMPARE(view->readEdgeBuffer(), std::vector<std::uint32_t>({0, 1, 1, 0, 2, 0}));
        QImage image = view->grabFramebuffer();
        QVERIFY2(pixelNear(image, mid01, ColourMaps::toColor(red)),
                 qPrintable(describe(image.pixelColor(view->project(mid01).toPoint()))));
        // An edge between a red and a blue point blends from one to the other.
        QVERIFY(pixelNear(image, mid20,
                          mix(ColourMaps::toColor(red), ColourMaps::toColor(blue), 0.5), 24));
        // Off the edges: background.
        QVERIFY(allBackground(image, QVector3D(0.6f, 0.6f, 0.0f)));

        // Half opacity: half way to the background. Mutual neighbours (0 and 1) draw their edge
        // twice, so it shows at 1 - 0.5², a one-way edge (2 -> 0) at 0.5.
        view->setEdgeOpacity(0.5f);
        QCOMPARE(view->edgeOpacity(), 0.5f);
        QVERIFY(waitDrawn(*view));
        image = view->grabFramebuffer();
        QVERIFY2(pixelNear(image, mid01, mix(bg, ColourMaps::toColor(red), 0.75)),
                 qPrintable(describe(image.pixelColor(view->project(mid01).toPoint()))));
        QVERIFY(pixelNear(
            image, mid20,
            mix(bg, mix(ColourMaps::toColor(red), ColourMaps::toColor(blue), 0.5), 0.5), 24));
        QVERIFY(!pixelNear(image, mid01, ColourMaps::toColor(red)));

        // Hidden edges, then shown again.
        view->setEdgesVisible(false);
        QVERIFY(waitDrawn(*view));
        QVERIFY(allBackground(view->grabFramebuffer(), mid01));
        view->setEdgesVisible(true);
        view->setEdgeOpacity(1.0f);
        QVERIFY(waitDrawn(*view));
        QVERIFY(pixelNear(view->grabFramebuffer(), mid01, ColourMaps::toColor(red)));

        // A hidden point (alpha 0) hides its edges whole; the others stay.
        QVERIFY(view->setColours(std::vector<std::uint32_t>{red, red & 0x00ffffffu, blue}));
        QVERIFY(waitDrawn(*view));
        image = view->grabFramebuffer();
        QVERIFY(allBackground(image, mid01));
        QVERIFY(allBackground(image, QVector3D(0.5f, 0.0f, 0.0f)));
        QVERIFY(pixelNear(image, mid20,
                          mix(ColourMaps::toColor(red), ColourMaps::toColor(blue), 0.5), 24));
        // A de-emphasised point (noise) fades its edges: neither the full colour nor nothing.
        QVERIFY(view->setColours(std::vector<std::uint32_t>{
            red, (red & 0x00ffffffu) | (ColourMaps::kBehindAlpha << 24), blue}));
        QVERIFY(waitDrawn(*view));
        image = view->grabFramebuffer();
        QVERIFY(!pixelNear(image, mid01, ColourMaps::toColor(red), 6));
        QVERIFY(!allBackground(image, mid01));

        // Colour by the k-th neighbour distance, offered while a graph is on screen.
        const auto hasOption = [&] {
            for (const auto& o : view->colourOptions())
                if (o.id == PointCloudView::edgeValueColourId()) return true;
            return false;
        };
        QVERIFY(hasOption());
        QVERIFY(view->setColourBy(PointCloudView::edgeValueColourId()));
        QCOMPARE(view->legend().kind, Legend::Kind::ColourBar);
        // Last-edge distances 2, 2, 1.35: the 2nd percentile lies just above 1.35.
        QVERIFY(std::abs(view->legend().minimum - (1.35 + 0.04 * 0.65)) < 1e-6);
        QCOMPARE(view->legend().maximum, 2.0);
        QCOMPARE(view->colours()[2], ColourMaps::viridisRgba(0.0f));
        QCOMPARE(view->colours()[0], ColourMaps::viridisRgba(1.0f));

        // A graph of other points is refused; the edges stay.
        QVERIFY(!view->setEdges(cs::knnEdges(makeGraph(2, 1, {1, 0}))));
        QVERIFY(view->edges().owner == graph);
        QCOMPARE(view->readEdgeBuffer(), cs::edgeIndexPairs(cs::knnEdges(graph)));

        // New points clear the edges (and the colour option with them).
        QSignalSpy optionsChanged(view.get(), &PointCloudView::colourOptionsChanged);
        view->setPointSet(makePoints(2, {-1.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.9f}));
        QVERIFY(!view->edges());
        QVERIFY(!hasOption());
        QVERIFY(optionsChanged.count() >= 1);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgeCount(), std::size_t(0));
        QVERIFY(view->readEdgeBuffer().empty());
        QVERIFY(view->setColourBy(QStringLiteral("uniform")));
        QVERIFY(waitDrawn(*view));
        QVERIFY(allBackground(view->grabFramebuffer(), mid01));
        // nullptr clears too.
        QVERIFY(view->setEdges(cs::knnEdges(graph)));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgeCount(), std::size_t(3));
        QVERIFY(view->setEdges(cs::knnEdges(nullptr)));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->edgeCount(), std::size_t(0));
        QVERIFY(allBackground(view->grabFramebuffer(), mid01));
    }

    // Past kEdgeLengthSample edges the legend reads an even sample: its counts outside the
    // range are scaled to every edge and say "about".
    void edgeLegendOfALargeGraphIsScaled() {
        const std::size_t n = 50'000;
        const int k = 3;
        std::vector<float> coords;
        for (std::size_t i = 0; i < n; ++i) {
            coords.push_back(float(std::sqrt(double(i)) * 100.0));  // gaps shrink along the line
            coords.push_back(0.0f);
        }
        auto points = makePoints(2, coords);
        auto view = makeView(points, QSize(200, 100));
        QVERIFY(view);
        std::vector<std::int32_t> targets;
        for (std::size_t i = 0; i < n; ++i)
            for (int c = 1; c <= k; ++c)
                targets.push_back(std::int32_t((i + std::size_t(c)) % n));
        QVERIFY(targets.size() >= 2 * cs::kEdgeLengthSample);
        QVERIFY(view->setEdges(cs::knnEdges(makeGraph(n, k, targets))));
        const Legend& legend = view->edgeLegend();
        QVERIFY(legend.estimated);
        std::size_t below = 0, above = 0;
        for (std::size_t e = 0; e < targets.size(); ++e) {
            const double length =
                std::abs(double(coords[2 * (e / k)]) - double(coords[2 * std::size_t(targets[e])]));
            below += length < legend.minimum;
            above += length > legend.maximum;
        }
        QVERIFY(below > 1000 && above > 1000);
        QVERIFY2(std::abs(double(legend.below) - double(below)) < 0.1 * double(below),
                 qPrintable(QStringLiteral("%1 below, %2 counted").arg(legend.below).arg(below)));
        QVERIFY2(std::abs(double(legend.above) - double(above)) < 0.1 * double(above),
                 qPrintable(QStringLiteral("%1 above, %2 counted").arg(legend.above).arg(above)));
        QVERIFY(legend.notes().join(QLatin1Char(' ')).contains(QStringLiteral("about")));
    }

    // New content is painted as soon as the handler that set it returns: before events posted
    // after it (a panel's relayouts), even right after a frame, when Qt defers a repaint().
    void newContentPaintsBeforeLaterEvents() {
        auto view = makeView(makePoints(2, {0, 0, 1, 0, 2, 0, 5, 0}), QSize(200, 100));
        QVERIFY(view);
        QVERIFY(waitDrawn(*view));
        for (int i = 0; i < 6; ++i) {
            view->setEdgesVisible(i % 2 == 1);
            QVERIFY(!view->isContentDrawn());
            bool drawnFirst = false;
            QMetaObject::invokeMethod(
                view.get(), [&] { drawnFirst = view->isContentDrawn(); }, Qt::QueuedConnection);
            QVERIFY(waitDrawn(*view));
            QVERIFY2(drawnFirst, qPrintable(QStringLiteral("change %1").arg(i)));
        }
    }

    // A new frame of the view, with an overlay on it changing (as its legends do), repaints
    // nothing beneath the view: the parent's background under it is not painted again for
    // composition to cover.
    void newFramePaintsNothingBeneath() {
        QWidget parent;
        parent.setAutoFillBackground(true);
        parent.resize(300, 200);
        auto* view = new PointCloudView(&parent);
        view->setGeometry(20, 20, 240, 160);
        auto* overlay = new QLabel(QStringLiteral("legend 0"), view);
        overlay->setGeometry(10, 10, 120, 30);
        parent.show();
        QVERIFY(QTest::qWaitForWindowExposed(&parent));
        view->setPointSet(makePoints(2, {0, 0, 1, 0, 2, 0, 5, 0}));
        QVERIFY(waitDrawn(*view));
        QTest::qWait(50);
        struct PaintCount : QObject {
            QRegion painted;
            bool eventFilter(QObject*, QEvent* e) override {
                if (e->type() == QEvent::Paint) painted += static_cast<QPaintEvent*>(e)->region();
                return false;
            }
        } beneath;
        parent.installEventFilter(&beneath);
        for (int i = 1; i <= 3; ++i) {
            overlay->setText(QStringLiteral("legend %1").arg(i));
            view->setEdgesVisible(i % 2 == 0);
            QVERIFY(waitDrawn(*view));
        }
        QTest::qWait(50);
        parent.removeEventFilter(&beneath);
        const QRect under = (beneath.painted & view->geometry()).boundingRect();
        QVERIFY2(under.isEmpty(),
                 qPrintable(QStringLiteral("the parent painted %1x%2 under the view")
                                .arg(under.width())
                                .arg(under.height())));
    }

    // Lengths measured where the edges were made (the kNN panel's worker) are the ones read.
    void edgeLengthsMeasuredElsewhereAreUsed() {
        auto points = makePoints(2, {0, 0, 1, 0, 2, 0, 5, 0});
        auto view = makeView(points, QSize(200, 100));
        QVERIFY(view);
        cs::PointEdges edges = cs::knnEdges(makeGraph(4, 1, {1, 2, 3, 2}));
        QVERIFY(view->setEdges(edges));
        QCOMPARE(view->edgeLengthBounds(), (std::array<double, 2>{1.0, 3.0}));
        edges.lengthSample = std::make_shared<const std::vector<float>>(std::vector<float>{2, 7});
        QVERIFY(view->setEdges(edges));
        QCOMPARE(view->edgeLengthBounds(), (std::array<double, 2>{2.0, 7.0}));
    }

    void knnEdgesByLengthFilteredAndOver() {
        // Points on the x axis, each joined to its right neighbour: gaps 1, 1, 3, 3 (edges
        // 0-1, 1-2 short, 2-3, 3-4 long), the last point back to its left one (length 3).
        auto points = makePoints(2, {0, 0, 1, 0, 2, 0, 5, 0, 8, 0});
        auto view = makeView(points, QSize(400, 200));
        QVERIFY(view);
        if (!view->edgeLengthStyleSupported()) QSKIP("no geometry shaders on this GL");
        view->setPointSize(1);
        QVERIFY(view->setColourBy(QStringLiteral("uniform")));
        auto graph = makeGraph(5, 1, {1, 2, 3, 4, 3});
        QVERIFY(view->setEdges(cs::knnEdges(graph)));
        view->setEdgeOpacity(1.0f);
        view->setEdgeMap(ColourMaps::Map::Magma);
        QCOMPARE(view->edgeLengthBounds(), (std::array<double, 2>{1.0, 3.0}));
        // The colour range is the lengths' 2nd to 98th percentile (1, 1, 3, 3, 3).
        QCOMPARE(view->edgeColourRange(), (std::array<double, 2>{1.0, 3.0}));
        // The edge legend: a magma bar with the lengths' histogram.
        QCOMPARE(view->edgeLegend().kind, Legend::Kind::ColourBar);
        QCOMPARE(view->edgeLegend().map, ColourMaps::Map::Magma);
        std::size_t binned = view->edgeLegend().below + view->edgeLegend().above;
        for (std::size_t c : view->edgeLegend().histogram)
            binned += c;
        QCOMPARE(binned, std::size_t(5));
        view->setEdgeCounting(true);
        view->setViewPreset(PointCloudView::ViewPreset::Front);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->drawnEdgeCount(), qint64(5));
        const auto colourAt = [&](const QImage& image, QVector3D at) {
            return image.pixelColor(view->project(at).toPoint() + QPoint(0, 0));
        };
        const auto near3 = [&](const QImage& image, QVector3D at, const QColor& want, int tol) {
            const QPoint p = view->project(at).toPoint();
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (near(image.pixelColor(p + QPoint(dx, dy)), want, tol)) return true;
            return false;
        };
        QImage image = view->grabFramebuffer();
        const QColor shortColour = ColourMaps::colour(ColourMaps::Map::Magma, 0.0);
        const QColor longColour = ColourMaps::colour(ColourMaps::Map::Magma, 1.0);
        QVERIFY2(near3(image, QVector3D(0.5f, 0, 0), shortColour, 12),
                 qPrintable(describe(colourAt(image, QVector3D(0.5f, 0, 0)))));
        QVERIFY2(near3(image, QVector3D(3.5f, 0, 0), longColour, 12),
                 qPrintable(describe(colourAt(image, QVector3D(3.5f, 0, 0))) + " vs " +
                            describe(longColour)));

        // The length filter: edges of 2 to 4 only.
        view->setEdgeLengthFilter(2.0, 4.0);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->drawnEdgeCount(), qint64(3));
        image = view->grabFramebuffer();
        const QColor bg = view->backgroundColour();
        QVERIFY(near3(image, QVector3D(0.5f, 0, 0), bg, 2));
        QVERIFY(near3(image, QVector3D(3.5f, 0, 0), longColour, 12));
        view->setEdgeLengthFilter(0.0, 1.5);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->drawnEdgeCount(), qint64(2));
        view->setEdgeLengthFilter(0.0, std::numeric_limits<double>::infinity());
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->drawnEdgeCount(), qint64(5));

        // Under the points by default: a big point on an edge covers it; over, the edge shows.
        QVERIFY(view->setColours(std::vector<std::uint32_t>(5, ColourMaps::packRgba(20, 160, 40))));
        view->setPointSize(24);
        QVERIFY(waitDrawn(*view));
        // Point 3's centre, where the edges 2-3 and 3-4 meet (sprites are shaded toward the rim).
        const QVector3D onPoint(5.0f, 0.0f, 0.0f);
        QVERIFY2(near(colourAt(view->grabFramebuffer(), onPoint), QColor(20, 160, 40), 10),
                 qPrintable(describe(colourAt(view->grabFramebuffer(), onPoint))));
        view->setEdgesOverPoints(true);
        QVERIFY(waitDrawn(*view));
        QVERIFY2(near3(view->grabFramebuffer(), onPoint, longColour, 12),
                 qPrintable(describe(colourAt(view->grabFramebuffer(), onPoint))));
        // In the points' colours, over them, the edge takes their green.
        view->setEdgeColouring(PointCloudView::EdgeColouring::Points);
        QVERIFY(waitDrawn(*view));
        QVERIFY(near3(view->grabFramebuffer(), QVector3D(3.5f, 0, 0), QColor(20, 160, 40), 6));
    }

    void suggestedEdgeOpacityFollowsDensity() {
        const QSize view(900, 500);
        const float few = PointCloudView::suggestedEdgeOpacity(100, view);
        const float scan = PointCloudView::suggestedEdgeOpacity(1'300'000, view);
        const float huge = PointCloudView::suggestedEdgeOpacity(100'000'000, view);
        QCOMPARE(few, 0.8f);
        QVERIFY2(scan > 0.15f && scan < 0.3f, qPrintable(QString::number(scan)));
        QCOMPARE(huge, 0.06f);
        // A bigger view holds more edges at the same opacity.
        QVERIFY(PointCloudView::suggestedEdgeOpacity(1'300'000, view * 2) > scan);
    }

    void georeferencedPointsKeepTheirPrecision() {
        // Northing-like coordinates, 0.25 and 0.5 apart (float32's spacing there is 0.25): drawn
        // from raw coordinates, the projection's float arithmetic is off by about that much and
        // the four points land anywhere; drawn recentred, each lands where it belongs.
        auto points = makePoints(3, {4000000.00f, 4000000.00f, 120.0f,  //
                                     4000000.25f, 4000000.00f, 120.0f,  //
                                     4000000.00f, 4000000.50f, 120.0f,  //
                                     4000000.25f, 4000000.50f, 120.0f});
        auto view = makeView(points, QSize(300, 300));
        QVERIFY(view);
        QVERIFY(view->setColourBy(QStringLiteral("uniform")));
        view->orbit(25.0f - view->camera().yaw(), 15.0f - view->camera().pitch());
        view->fitToData();
        view->zoom(1.5f);
        view->setPointSize(6);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->positionPath(), PointCloudView::UploadPath::HostUpload);
        // What GL holds: the first three columns minus the box midpoint, as recentredCoords().
        const std::array<double, 3> centre{4000000.125, 4000000.25, 120.0};
        QCOMPARE(view->viewCentre(), centre);
        const auto gl = view->readPositionBuffer();
        QCOMPARE(gl.size(), std::size_t(12));
        for (std::size_t i = 0; i < 4; ++i)
            for (std::size_t j = 0; j < 3; ++j)
                QCOMPARE(gl[i * 3 + j], float(double(points->point(i)[j]) - centre[j]));
        const QImage image = view->grabFramebuffer();
        std::set<std::pair<int, int>> pixels;
        for (std::size_t i = 0; i < 4; ++i) {
            const auto p = points->point(i);
            const QPoint px = view->project(QVector3D(p[0], p[1], p[2])).toPoint();
            pixels.insert({px.x(), px.y()});
            QVERIFY2(near(image.pixelColor(px), view->uniformColour(), 10),
                     qPrintable(QStringLiteral("point %1 at %2,%3: %4")
                                    .arg(i)
                                    .arg(px.x())
                                    .arg(px.y())
                                    .arg(describe(image.pixelColor(px)))));
        }
        QCOMPARE(pixels.size(), std::size_t(4));
    }

    void cloudsAtAnyScaleAreDrawn() {
        // The same cloud in units of 1, 1e30 and 1e-30: the view draws it at the algorithms'
        // power-of-two scale, so each point lands on the same pixel (the camera's float
        // matrices overflowed at 1e30 and underflowed at 1e-30, leaving the view empty).
        const std::vector<float> unit{0, 0, 0, 1, 0, 0, 0, 2, 0, 1, 2, 1, 0.5f, 1, 0.5f};
        std::vector<QPoint> where;
        for (double scale : {1.0, 1e30, 1e-30}) {
            std::vector<float> c(unit.size());
            for (std::size_t i = 0; i < c.size(); ++i)
                c[i] = float(double(unit[i]) * scale);
            auto points = makePoints(3, c);
            auto view = makeView(points, QSize(300, 300));
            QVERIFY(view);
            QVERIFY(view->setColourBy(QStringLiteral("uniform")));
            view->setPointSize(6);
            QVERIFY(waitDrawn(*view));
            int exponent = 0;
            QCOMPARE(std::frexp(view->viewScale(), &exponent), 0.5);  // a power of two
            const QImage image = view->grabFramebuffer();
            for (std::size_t i = 0; i < points->n; ++i) {
                const auto p = points->point(i);
                const QPoint px = view->project(QVector3D(p[0], p[1], p[2])).toPoint();
                QVERIFY2(near(image.pixelColor(px), view->uniformColour(), 10),
                         qPrintable(QStringLiteral("scale %1, point %2 at %3,%4: %5")
                                        .arg(scale)
                                        .arg(i)
                                        .arg(px.x())
                                        .arg(px.y())
                                        .arg(describe(image.pixelColor(px)))));
                if (scale == 1.0)
                    where.push_back(px);
                else
                    QVERIFY((px - where[i]).manhattanLength() <= 1);
            }
        }
    }

    void devicePositionsThatNeverComeAreUploaded() {
        // Waiting for a device copy of the points: nothing is drawn until it comes or the wait
        // ends, then the host uploads.
        auto points = makePoints(3, {0, 0, 0, 1, 1, 1});
        auto view = std::make_unique<PointCloudView>();
        view->resize(200, 200);
        view->show();
        QVERIFY(QTest::qWaitForWindowExposed(view.get()));
        view->setPointSet(points);
        view->expectDevicePositions(300);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), std::size_t(0));
        QTRY_COMPARE_WITH_TIMEOUT(view->uploadedPointCount(), std::size_t(2), 5000);
        QCOMPARE(view->positionPath(), PointCloudView::UploadPath::HostUpload);
        // New points of the same count: the old positions are not drawn while waiting. A backend
        // without a device copy answers nullptr: the host uploads at once.
        view->setPointSet(makePoints(3, {5, 5, 5, 6, 6, 6}));
        view->expectDevicePositions(60000);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), std::size_t(0));
        view->setDevicePositions(nullptr);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), std::size_t(2));
        QCOMPARE(view->readPositionBuffer(),
                 std::vector<float>({-0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f}));
    }

    void cameraMath() {
        OrbitCamera cam;
        const QVector3D centre(10, -5, 3);
        const QVector3D half(4, 2, 1);
        const float aspect = 1.5f;
        cam.reset(centre - half, centre + half, aspect, false);
        QCOMPARE(cam.yaw(), OrbitCamera::kDefaultYaw);
        QCOMPARE(cam.pitch(), OrbitCamera::kDefaultPitch);
        QCOMPARE(cam.target(), centre);
        // After the fit every corner of the box is in view and between the clip planes, and
        // the fit is tight: some corner is near the edge.
        const QMatrix4x4 mvp = cam.projection(aspect) * cam.view();
        float widest = 0.0f;
        for (int corner = 0; corner < 8; ++corner) {
            const QVector3D p = centre + QVector3D(corner & 1 ? half.x() : -half.x(),
                                                   corner & 2 ? half.y() : -half.y(),
                                                   corner & 4 ? half.z() : -half.z());
            const QVector3D ndc = mvp.map(p);
            QVERIFY(std::abs(ndc.x()) <= 1.0f && std::abs(ndc.y()) <= 1.0f);
            QVERIFY(ndc.z() > -1.0f && ndc.z() < 1.0f);
            widest = std::max({widest, std::abs(ndc.x()), std::abs(ndc.y())});
        }
        QVERIFY2(widest > 0.85f, qPrintable(QString::number(widest)));
        // The target projects to the centre.
        QVERIFY(mvp.map(centre).toVector2D().length() < 1e-4f);

        const float d = cam.distance();
        cam.zoom(0.5f);
        QVERIFY(qFuzzyCompare(cam.distance(), d * 0.5f));
        // Zooming toward the cursor keeps the point under it in place.
        const QPointF cursor(0.4, -0.3);
        const float halfH = cam.distance() * std::tan(qDegreesToRadians(OrbitCamera::kFovY / 2));
        const QVector3D anchor = cam.target() + cam.right() * float(cursor.x()) * halfH * aspect +
                                 cam.up() * float(cursor.y()) * halfH;
        cam.zoom(0.7f, cursor, aspect);
        const QVector3D after = (cam.projection(aspect) * cam.view()).map(anchor);
        QVERIFY2(std::abs(after.x() - cursor.x()) < 1e-3 && std::abs(after.y() - cursor.y()) < 1e-3,
                 qPrintable(QStringLiteral("%1 %2").arg(after.x()).arg(after.y())));

        // Pitch never passes the pole; yaw wraps.
        cam.orbit(0, 500);
        QCOMPARE(cam.pitch(), OrbitCamera::kMaxPitch);
        cam.setAngles(190, 0);
        QCOMPARE(cam.yaw(), -170.0f);
        // Panning moves the target within the view plane.
        const QVector3D before = cam.target();
        cam.pan(100, 0, 500);
        const QVector3D moved = cam.target() - before;
        QVERIFY(moved.length() > 0);
        QVERIFY(std::abs(QVector3D::dotProduct(moved, cam.forward())) < 1e-4f);
        // Zoom is bounded by the scene's size.
        cam.zoom(1e-12f);
        QVERIFY(cam.distance() > 0);
        // Planar data is seen straight on: x right, y up.
        cam.reset(QVector3D(-1, -1, 0), QVector3D(1, 1, 0), 1, true);
        QCOMPARE(cam.yaw(), 0.0f);
        QCOMPARE(cam.pitch(), 0.0f);
        QVERIFY(cam.right().distanceToPoint(QVector3D(1, 0, 0)) < 1e-5f);
        QVERIFY(cam.up().distanceToPoint(QVector3D(0, 1, 0)) < 1e-5f);
    }

    void viewPresets() {
        // A camera cloud in its sensor's frame (z ahead, y down), with the sensor turned over
        // about x and moved: the view draws it in the world frame and can look from the sensor.
        PointSet set = PointSet::fromCoords(3, {0, 0, 5, 1, 0, 5, 0, -1, 5, -1, 1, 4, 2, 1, 6});
        cs::SensorPose pose;
        pose.origin = {1, 2, 3};
        pose.orientation = {0, 1, 0, 0};
        set.sensorPose = pose;
        const QVector3D ahead(0, 0, 5), right(1, 0, 5), above(0, -1, 5);
        auto view = makeView(std::make_shared<const PointSet>(set), QSize(300, 200));
        QVERIFY(view);
        QVERIFY(view->sensorPose());
        // The turned-over sensor puts the cloud behind the world origin: +Y is up already.
        QCOMPARE(PointCloudView::suggestedUpAxis(set), PointCloudView::UpAxis::PlusY);
        set.sensorPose.reset();
        QCOMPARE(PointCloudView::suggestedUpAxis(set), PointCloudView::UpAxis::MinusY);

        const auto inView = [&] {
            for (std::size_t i = 0; i < set.n; ++i) {
                const auto p = set.point(i);
                const QPointF s = view->project(QVector3D(p[0], p[1], p[2]));
                if (!QRectF(0, 0, view->width(), view->height()).contains(s)) return false;
            }
            return true;
        };
        QTest::keyClick(view.get(), Qt::Key_1);
        QCOMPARE(view->camera().yaw(), 0.0f);
        QCOMPARE(view->camera().pitch(), 0.0f);
        QVERIFY(inView());
        // Front: the sensor's up (its -y, turned into the world's +y) is up on screen.
        QVERIFY(view->project(above).y() < view->project(ahead).y() - 5);
        QTest::keyClick(view.get(), Qt::Key_3);
        QCOMPARE(view->camera().yaw(), 90.0f);
        QCOMPARE(view->camera().pitch(), 0.0f);
        QVERIFY(inView());
        QTest::keyClick(view.get(), Qt::Key_7);
        QCOMPARE(view->camera().pitch(), OrbitCamera::kMaxPitch);
        QVERIFY(inView());
        // Fit keeps the orientation and frames the data again.
        view->orbit(20, -10);
        view->pan(200, 0);
        QVERIFY(!inView());
        const float yaw = view->camera().yaw(), pitch = view->camera().pitch();
        view->setViewPreset(PointCloudView::ViewPreset::Fit);
        QCOMPARE(view->camera().yaw(), yaw);
        QCOMPARE(view->camera().pitch(), pitch);
        QVERIFY(inView());

        // Sensor: the eye where the sensor was, its optical axis through the screen's centre,
        // its x to the right and its -y up (the picture as the sensor took it).
        QTest::keyClick(view.get(), Qt::Key_0);
        const QPointF centre(view->width() / 2.0, view->height() / 2.0);
        QVERIFY2(QLineF(view->project(ahead), centre).length() < 1.0,
                 qPrintable(QStringLiteral("%1 %2")
                                .arg(view->project(ahead).x())
                                .arg(view->project(ahead).y())));
        QVERIFY(view->project(right).x() > centre.x() + 5);
        QVERIFY(std::abs(view->project(right).y() - centre.y()) < 1.0);
        QVERIFY(view->project(above).y() < centre.y() - 5);
        QVERIFY(std::abs(view->project(above).x() - centre.x()) < 1.0);
        // The eye sits at the sensor: the origin of the file's frame, in the view's frame.
        const QVector3D eye = view->camera().eye();
        const QMatrix4x4 model = [&] {
            QMatrix4x4 m;
            m.rotate(180.0f, 1, 0, 0);
            return m;
        }();
        const auto c = view->viewCentre();
        const QVector3D sensorAt = model.map(QVector3D(float(-c[0]), float(-c[1]), float(-c[2])) *
                                             float(view->viewScale()));
        QVERIFY2(eye.distanceToPoint(sensorAt) < 1e-3f,
                 qPrintable(QStringLiteral("%1 %2 %3").arg(eye.x()).arg(eye.y()).arg(eye.z())));

        // Names for the menu and the command line.
        QCOMPARE(PointCloudView::viewPresetNames(),
                 QStringList({"front", "top", "side", "sensor", "fit"}));
        QCOMPARE(PointCloudView::viewPresetFromName(QStringLiteral("Sensor")),
                 PointCloudView::ViewPreset::Sensor);
        QVERIFY(!PointCloudView::viewPresetFromName(QStringLiteral("back")));

        // Without a pose the sensor is at the origin looking along +z.
        view->setPointSet(makePoints(3, {0, 0, 5, 1, 0, 5, 0, 1, 6}));
        QVERIFY(!view->sensorPose());
        view->setViewPreset(PointCloudView::ViewPreset::Sensor);
        QVERIFY(QLineF(view->project(ahead), centre).length() < 1.0);
    }

    void keysChangeState() {
        auto view = makeView(makePoints(3, {0, 0, 0, 1, 1, 1, 2, 0, 1}));
        QVERIFY(view);
        const OrbitCamera start = view->camera();

        QTest::keyClick(view.get(), Qt::Key_Left);
        QVERIFY(view->camera().yaw() != start.yaw());
        QTest::keyClick(view.get(), Qt::Key_Down);
        QVERIFY(view->camera().pitch() != start.pitch());
        QTest::keyClick(view.get(), Qt::Key_R);
        QCOMPARE(view->camera().yaw(), start.yaw());
        QCOMPARE(view->camera().pitch(), start.pitch());
        QCOMPARE(view->camera().distance(), start.distance());

        view->pan(40, 25);
        view->zoom(0.3f, QPointF(10, 10));
        QVERIFY(view->camera().target() != start.target());
        QTest::keyClick(view.get(), Qt::Key_F);
        QCOMPARE(view->camera().target(), start.target());
        QVERIFY(qFuzzyCompare(view->camera().distance(), start.distance()));

        const float size = view->pointSize();
        QTest::keyClick(view.get(), Qt::Key_Plus);
        QVERIFY(view->pointSize() > size);
        QTest::keyClick(view.get(), Qt::Key_Minus);
        QTest::keyClick(view.get(), Qt::Key_Minus);
        QVERIFY(view->pointSize() < size);
        for (int i = 0; i < 50; ++i)
            QTest::keyClick(view.get(), Qt::Key_Minus);
        QCOMPARE(view->pointSize(), PointCloudView::kMinPointSize);

        // Mouse: a left drag orbits, the wheel zooms.
        const float yaw = view->camera().yaw();
        QTest::mousePress(view.get(), Qt::LeftButton, {}, QPoint(100, 100));
        QMouseEvent move(QEvent::MouseMove, QPointF(140, 100), view->mapToGlobal(QPointF(140, 100)),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view.get(), &move);
        QTest::mouseRelease(view.get(), Qt::LeftButton, {}, QPoint(140, 100));
        QVERIFY(view->camera().yaw() != yaw);
    }

    void setColoursReplacesColours() {
        auto view = makeView(makePoints(3, {-1, 0, 0, 1, 0, 0}), QSize(300, 200));
        QVERIFY(view);
        view->setPointSize(11);
        const std::vector<std::uint32_t> wrong(3, ColourMaps::packRgba(255, 0, 0));
        QVERIFY(!view->setColours(wrong));
        const std::uint32_t red = ColourMaps::packRgba(220, 20, 30);
        const std::uint32_t green = ColourMaps::packRgba(20, 200, 40);
        const std::vector<std::uint32_t> rgba{red, green};
        QSignalSpy changed(view.get(), &PointCloudView::colourByChanged);
        QVERIFY(view->setColours(rgba));
        QCOMPARE(view->colourBy(), QStringLiteral("custom"));
        QCOMPARE(changed.count(), 1);
        QVERIFY(waitDrawn(*view));
        const QImage image = view->grabFramebuffer();
        QVERIFY(
            near(image.pixelColor(view->project({-1, 0, 0}).toPoint()), ColourMaps::toColor(red)));
        QVERIFY(
            near(image.pixelColor(view->project({1, 0, 0}).toPoint()), ColourMaps::toColor(green)));
        // Alpha 0 hides a point.
        QVERIFY(view->setColours(std::vector<std::uint32_t>{red, green & 0x00ffffffu}));
        QVERIFY(waitDrawn(*view));
        const QImage hidden = view->grabFramebuffer();
        QVERIFY(near(hidden.pixelColor(view->project({1, 0, 0}).toPoint()),
                     view->backgroundColour(), 2));
    }

    void lowDimensionalAndEmptySets() {
        auto view = makeView(makePoints(1, {0, 1, 2, 3}));
        QVERIFY(view);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), std::size_t(4));
        // d = 1: y = z = 0, so the points lie on a horizontal line through the centre.
        QVERIFY(std::abs(view->project({0, 0, 0}).y() - view->height() / 2.0) < 1.0);

        view->setPointSet(makePoints(2, {0, 0, 5, 5}));
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), std::size_t(2));
        view->setPointSet(nullptr);
        QVERIFY(waitDrawn(*view));
        QCOMPARE(view->uploadedPointCount(), std::size_t(0));
        QCOMPARE(view->pointCount(), std::size_t(0));
        view->resetCamera();  // no data: must not crash
        view->fitToData();
    }

    void millionPointsUpload() {
        constexpr std::size_t n = 1'000'000;
        std::vector<float> coords(n * 3);
        std::mt19937 rng(7);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        for (float& c : coords)
            c = normal(rng);
        auto view = makeView(makePoints(3, std::move(coords)), QSize(400, 300));
        QVERIFY(view);
        QVERIFY(waitDrawn(*view));
        QVERIFY2(view->glError().isEmpty(), qPrintable(view->glError()));
        QCOMPARE(view->uploadedPointCount(), n);
        QVERIFY(view->positionBufferId() != 0);
        QVERIFY(view->colourBufferId() != 0);
        const QImage image = view->grabFramebuffer();
        QVERIFY(!near(image.pixelColor(image.width() / 2, image.height() / 2),
                      view->backgroundColour(), 2));
    }
};

CS_GL_TEST_MAIN(TestPointView)
#include "tst_point_view.moc"
