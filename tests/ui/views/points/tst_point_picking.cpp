// SPDX-License-Identifier: MIT
// PointCloudView's picking, highlight mask, markers and selection box, through real mouse
// events under xvfb-run (Mesa llvmpipe here, the NVIDIA driver on the GPU machine): the GPU
// pick pass must name the point drawn under the cursor, never one hidden or behind.
#include <QMouseEvent>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>
#include <random>

#include "compute/core/point_set.h"
#include "tests/ui/gui_test_main.h"
#include "ui/views/points/point_cloud_view.h"

using cs::PointSet;
using cs::ui::PointCloudView;

namespace {

std::shared_ptr<const PointSet> makePoints(std::size_t dims, std::vector<float> coords) {
    return std::make_shared<const PointSet>(PointSet::fromCoords(dims, std::move(coords)));
}

QVector3D at(const PointSet& p, std::size_t i) {
    const auto x = p.point(i);
    return QVector3D(x[0], p.dims > 1 ? x[1] : 0.0f, p.dims > 2 ? x[2] : 0.0f);
}

}  // namespace

class TestPointPicking : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<PointCloudView> makeView(std::shared_ptr<const PointSet> points) {
        auto view = std::make_unique<PointCloudView>();
        view->resize(320, 240);
        view->show();
        if (!QTest::qWaitForWindowExposed(view.get())) return nullptr;
        view->setPointSet(std::move(points));
        if (!QTest::qWaitFor([&] { return view->isContentDrawn(); }, 10000)) return nullptr;
        return view;
    }

    static qint64 clickAt(PointCloudView& view, QPointF pos, Qt::KeyboardModifiers modifiers = {}) {
        QSignalSpy clicked(&view, &PointCloudView::pointClicked);
        QTest::mouseClick(&view, Qt::LeftButton, modifiers, pos.toPoint());
        return clicked.count() == 1 ? clicked.front().front().toLongLong() : -2;
    }

private slots:
    void clickPicksThePointUnderTheCursor() {
        // A row of points in the plane, far enough apart on screen that each click is clear.
        auto points = makePoints(2, {-4, 0, -2, 0.5f, 0, -0.5f, 2, 0.2f, 4, -0.1f});
        auto view = makeView(points);
        QVERIFY(view);
        view->setPointSize(6);
        for (std::size_t i = 0; i < points->n; ++i) {
            const QPointF pos = view->project(at(*points, i));
            QCOMPARE(clickAt(*view, pos), qint64(i));
            // A few pixels off still hits (pickRadius), and picks the nearest point.
            QCOMPARE(clickAt(*view, pos + QPointF(3, -2)), qint64(i));
        }
        QVERIFY(view->lastPickMilliseconds() > 0.0);
        // Between the points and far from them: nothing.
        QCOMPARE(clickAt(*view, QPointF(view->width() / 2.0, 10)), qint64(-1));
        // A drag orbits and picks nothing.
        QSignalSpy clicked(view.get(), &PointCloudView::pointClicked);
        const QPointF first = view->project(at(*points, 0));
        QTest::mousePress(view.get(), Qt::LeftButton, {}, first.toPoint());
        QMouseEvent move(QEvent::MouseMove, first + QPointF(30, 0),
                         view->mapToGlobal(first + QPointF(30, 0)), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(view.get(), &move);
        QTest::mouseRelease(view.get(), Qt::LeftButton, {}, (first + QPointF(30, 0)).toPoint());
        QCOMPARE(clicked.count(), 0);
    }

    void frontPointWinsAndHiddenOnesAreSkipped() {
        // Three points on the z axis through the scene's centre, and two off it; looking down
        // the z axis, the three fall on one pixel.
        auto points = makePoints(3, {0, 0, 1, 0, 0, 0, 0, 0, -1, 3, 3, 0, -3, -3, 0});
        auto view = makeView(points);
        QVERIFY(view);
        view->setPointSize(8);
        view->orbit(-view->camera().yaw(), -view->camera().pitch());
        const QPointF centre = view->project(QVector3D(0, 0, 0));
        QVERIFY2(QLineF(centre, view->project(QVector3D(0, 0, 1))).length() < 1.0,
                 "the test expects the camera to look along z");
        // Front to back, by the distance to the eye (the view draws data coordinates here:
        // centre 0, scale 1).
        const bool eyeOnPlusZ = view->camera().eye().z() > 0;
        const std::size_t front = eyeOnPlusZ ? 0 : 2, back = eyeOnPlusZ ? 2 : 0;
        QCOMPARE(view->pickPoint(centre), std::optional<std::size_t>(front));
        using M = PointCloudView::PointMask;
        auto mask = [&](M f, M middle, M b) {
            std::vector<std::uint8_t> m(5, M::Shown);
            m[front] = f;
            m[1] = middle;
            m[back] = b;
            return m;
        };
        // Hidden: the next one shows, and is picked.
        QVERIFY(view->setPointMask(mask(M::Hidden, M::Shown, M::Shown)));
        QCOMPARE(view->pickPoint(centre), std::optional<std::size_t>(1));
        // Dimmed points go behind every shown one.
        QVERIFY(view->setPointMask(mask(M::Dimmed, M::Dimmed, M::Shown)));
        QCOMPARE(view->pickPoint(centre), std::optional<std::size_t>(back));
        QVERIFY(view->setPointMask(mask(M::Hidden, M::Hidden, M::Hidden)));
        QCOMPARE(view->pickPoint(centre), std::nullopt);
        // A mask of other points is refused; an empty one shows all again.
        QVERIFY(!view->setPointMask({M::Shown}));
        QVERIFY(view->setPointMask({}));
        QCOMPARE(view->pickPoint(centre), std::optional<std::size_t>(front));
    }

    void maskAndMarkersReachTheScreen() {
        auto points = makePoints(2, {-1, 0, 1, 0, 0, 2, 0, -2});
        auto view = makeView(points);
        QVERIFY(view);
        QVERIFY(view->setColourBy(QStringLiteral("uniform")));
        view->setPointSize(10);
        QVERIFY(QTest::qWaitFor([&] { return view->isContentDrawn(); }, 10000));
        const QPoint left = view->project(QVector3D(-1, 0, 0)).toPoint();
        const QPoint right = view->project(QVector3D(1, 0, 0)).toPoint();
        const QColor bg = view->backgroundColour();
        auto pixel = [&](QPoint p) { return view->grabFramebuffer().pixelColor(p); };
        auto distance = [](const QColor& a, const QColor& b) {
            return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
                   std::abs(a.blue() - b.blue());
        };
        const QColor shown = pixel(left);
        QVERIFY(distance(shown, bg) > 60);
        using M = PointCloudView::PointMask;
        QVERIFY(view->setPointMask({M::Dimmed, M::Hidden, M::Shown, M::Shown}));
        const QImage masked = view->grabFramebuffer();
        // Dimmed: toward the background, still visible; hidden: gone.
        QVERIFY2(distance(masked.pixelColor(left), bg) < distance(shown, bg) &&
                     distance(masked.pixelColor(left), bg) > 4,
                 qPrintable(masked.pixelColor(left).name()));
        QVERIFY2(distance(masked.pixelColor(right), bg) <= 6,
                 qPrintable(masked.pixelColor(right).name()));
        // A marker rings the right point even though it is hidden; none is drawn on the left.
        view->setMarkedPoints({1, 7});  // 7 does not exist: ignored
        QCOMPARE(view->markedPoints().size(), std::size_t(1));
        const QImage marked = view->grabFramebuffer();
        int ring = 0;
        for (int dx = -14; dx <= 14; ++dx)
            ring += distance(marked.pixelColor(right + QPoint(dx, 0)), bg) > 60;
        QVERIFY2(ring >= 4, qPrintable(QString::number(ring)));
        int aroundLeft = 0;
        for (int dx = 8; dx <= 14; ++dx)
            aroundLeft += distance(marked.pixelColor(left + QPoint(dx, 0)), bg) > 60;
        QCOMPARE(aroundLeft, 0);
    }

    void pickingManyPoints() {
        // 300k random points: every pick names a point whose sprite covers the cursor's
        // neighbourhood, and a point clicked at its own projection is picked when it is in
        // front of everything near it.
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float> coords(300'000 * 3);
        for (float& c : coords)
            c = u(rng);
        auto points = makePoints(3, std::move(coords));
        auto view = makeView(points);
        QVERIFY(view);
        int hits = 0;
        for (int i = 0; i < 20; ++i) {
            const QPointF cursor(60 + 10 * i, 60 + 6 * i);
            const auto picked = view->pickPoint(cursor);
            if (!picked) continue;
            ++hits;
            const QPointF where = view->project(at(*points, *picked));
            QVERIFY2(QLineF(where, cursor).length() <= view->pickRadius() + 1.5,
                     qPrintable(QStringLiteral("seed 7: point %1 at (%2, %3) for (%4, %5)")
                                    .arg(*picked)
                                    .arg(where.x())
                                    .arg(where.y())
                                    .arg(cursor.x())
                                    .arg(cursor.y())));
        }
        QVERIFY2(hits >= 18, qPrintable(QString::number(hits)));
    }

    void ctrlDragDrawsASelectionBox() {
        auto points = makePoints(2, {-4, 0, -2, 1, 0, 0, 2, -1, 4, 0});
        auto view = makeView(points);
        QVERIFY(view);
        const QPointF a = view->project(at(*points, 1)) - QPointF(5, 5);
        const QPointF b = view->project(at(*points, 3)) + QPointF(5, 5);
        // The box spans points 1 to 3 on screen (y grows downward: normalise).
        const QRectF box = QRectF(a, b).normalized();
        QSignalSpy boxes(view.get(), &PointCloudView::boxSelected);
        QSignalSpy clicked(view.get(), &PointCloudView::pointClicked);
        const float yaw = view->camera().yaw();
        QTest::mousePress(view.get(), Qt::LeftButton, Qt::ControlModifier, box.topLeft().toPoint());
        QMouseEvent move(QEvent::MouseMove, box.bottomRight(), view->mapToGlobal(box.bottomRight()),
                         Qt::NoButton, Qt::LeftButton, Qt::ControlModifier);
        QApplication::sendEvent(view.get(), &move);
        QTest::mouseRelease(view.get(), Qt::LeftButton, Qt::ControlModifier | Qt::ShiftModifier,
                            box.bottomRight().toPoint());
        QCOMPARE(boxes.count(), 1);
        QCOMPARE(clicked.count(), 0);
        QCOMPARE(view->camera().yaw(), yaw);  // the box did not orbit
        const QRectF got = boxes.front().at(0).toRectF();
        QVERIFY(std::abs(got.left() - box.left()) <= 1 &&
                std::abs(got.bottom() - box.bottom()) <= 1);
        QVERIFY(boxes.front().at(1).value<Qt::KeyboardModifiers>() & Qt::ShiftModifier);
        const auto inside = PointCloudView::pointsInBox(*points, view->boxProjection(got));
        QCOMPARE(inside, (std::vector<std::uint32_t>{1, 2, 3}));
        // Behind the camera is never inside, whatever the box.
        const auto all = PointCloudView::pointsInBox(
            *points, view->boxProjection(QRectF(0, 0, view->width(), view->height())));
        QCOMPARE(all.size(), std::size_t(5));
    }

    void ctrlDragDrawsALassoInLassoMode() {
        auto points = makePoints(2, {-4, 0, -2, 0, 0, 0, 2, 0, 4, 0});
        auto view = makeView(points);
        QVERIFY(view);
        view->setLassoMode(true);
        // A right triangle around point 1 whose long side passes just above point 2: point 2
        // is inside the lasso's bounds but outside the lasso.
        const QPointF p1 = view->project(at(*points, 1)), p2 = view->project(at(*points, 2));
        const QPolygonF outline{p1 + QPointF(-10, 10), p2 + QPointF(10, 10),
                                p1 + QPointF(-10, -10)};
        QVERIFY(outline.boundingRect().contains(p2));
        QSignalSpy lassos(view.get(), &PointCloudView::lassoSelected);
        QSignalSpy boxes(view.get(), &PointCloudView::boxSelected);
        QTest::mousePress(view.get(), Qt::LeftButton, Qt::ControlModifier, outline[0].toPoint());
        for (const QPointF& corner : {outline[1], outline[2]}) {
            QMouseEvent move(QEvent::MouseMove, corner, view->mapToGlobal(corner), Qt::NoButton,
                             Qt::LeftButton, Qt::ControlModifier);
            QApplication::sendEvent(view.get(), &move);
        }
        QTest::mouseRelease(view.get(), Qt::LeftButton, Qt::ControlModifier,
                            outline[0].toPoint() + QPoint(0, -1));
        QCOMPARE(boxes.count(), 0);
        QCOMPARE(lassos.count(), 1);
        const QPolygonF drawn = lassos.front().at(0).value<QPolygonF>();
        QVERIFY(drawn.size() >= 3);
        const auto inside = PointCloudView::pointsInBox(*points, view->lassoProjection(drawn));
        QCOMPARE(inside, (std::vector<std::uint32_t>{1}));
        // The same outline's bounds as a box take point 2 too.
        const auto boxed =
            PointCloudView::pointsInBox(*points, view->boxProjection(drawn.boundingRect()));
        QCOMPARE(boxed, (std::vector<std::uint32_t>{1, 2}));
    }

    void hoverReportsThePoint() {
        auto points = makePoints(2, {-2, 0, 2, 0});
        auto view = makeView(points);
        QVERIFY(view);
        QSignalSpy hovered(view.get(), &PointCloudView::pointHovered);
        const QPoint pos = view->project(at(*points, 1)).toPoint();
        QTest::mouseMove(view.get(), pos);
        QVERIFY(QTest::qWaitFor([&] { return !hovered.isEmpty(); }, 3000));
        QCOMPARE(hovered.back().at(0).toLongLong(), qint64(1));
    }
};

CS_GL_TEST_MAIN(TestPointPicking)
#include "tst_point_picking.moc"
