// SPDX-License-Identifier: MIT
// The point inspector and the shared selection, in the window and on the command line: a click
// on the point view inspects the point under it (content checked against a brute-force search
// done here), its neighbours are marked and its cluster stands out; Select ▸ actions, the
// selection box and the selection export; --inspect point=I (one JSON line on stdout) and
// --select cluster=N run by the real clusterscope executable.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMouseEvent>
#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app/common/register_backends.h"
#include "compute/core/geometry.h"
#include "compute/demo/demo_data.h"
#include "compute/io/point_readers.h"
#include "compute/io/series_readers.h"
#include "compute/kshape/kshape.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/rocket/rocket_panel.h"
#include "ui/shell/dataset_loader.h"
#include "ui/shell/main_window.h"
#include "ui/shell/point_inspector.h"
#include "ui/shell/selection_model.h"
#include "ui/shell/series_inspector.h"
#include "ui/views/legend.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/feature_matrix_view.h"
#include "ui/views/series/series_heatmap_view.h"
#include "ui/views/series/series_view.h"

using cs::ui::MainWindow;
using cs::ui::PointCloudView;

namespace {

constexpr std::size_t kDemoPoints = 3000;

// The exact neighbours of point q as the kNN graph defines them, written out here from the
// definition (recentred frame, canonical squared distance, ties to the lower index): the
// oracle of the inspector's worker.
std::vector<std::pair<std::size_t, float>> bruteForce(const cs::PointSet& p, std::size_t q,
                                                      std::size_t count) {
    const cs::RecentredCoords frame = cs::recentredCoords(p);
    std::vector<std::pair<float, std::size_t>> all;
    for (std::size_t j = 0; j < p.n; ++j)
        if (j != q)
            all.push_back(
                {cs::canonicalDist2(&frame.coords[q * p.dims], &frame.coords[j * p.dims], p.dims),
                 j});
    std::sort(all.begin(), all.end());
    all.resize(std::min(count, all.size()));
    std::vector<float> distances;
    for (const auto& a : all)
        distances.push_back(std::sqrt(a.first));
    cs::fromRecentred(distances, frame.scale);
    std::vector<std::pair<std::size_t, float>> out;
    for (std::size_t i = 0; i < all.size(); ++i)
        out.push_back({all[i].second, distances[i]});
    return out;
}

// The series nearest to series q by SBD over the k-Shape input rows, by brute force.
std::pair<std::size_t, double> nearestBySbd(const cs::SeriesSet& s, std::size_t q) {
    const std::vector<float> rows = cs::kshapeInput(s, 0);
    const std::size_t m = s.length;
    std::pair<std::size_t, double> best{0, 2.0};
    for (std::size_t j = 0; j < s.n; ++j) {
        if (j == q) continue;
        const double d = cs::sbdDirect({rows.data() + q * m, m}, {rows.data() + j * m, m});
        if (d < best.second) best = {j, d};
    }
    return best;
}

QString gunPoint() {
    return QString::fromStdString(cs::test::sharedData("ucr/GunPoint/GunPoint_TRAIN.ts").string());
}

}  // namespace

class TestInspector : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_tmp;

    struct Run {
        int exitCode = -1;
        QString stdOut;
        QString stdErr;
    };
    Run runClusterscope(const QStringList& args) {
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        // The child's settings must not touch the user's (nor another test run's).
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE), args);
        if (!p.waitForFinished(300000)) {
            p.kill();
            p.waitForFinished();
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromLocal8Bit(p.readAllStandardError())};
    }

    bool settle() {
        return QTest::qWaitFor([&] { return m_window->isSettled(); }, 120000);
    }

    // The demo with DBSCAN's clusters on screen.
    bool openClusteredDemo() {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoPoints(kDemoPoints);
        if (!QTest::qWaitFor([&] { return !loaded.isEmpty() && m_window->isSettled(); }, 60000))
            return false;
        m_window->dbscanPanel()->setEps(4.0);
        m_window->algorithms().find(QStringLiteral("dbscan"))->run();
        return settle() && m_window->dbscanPanel()->hasClusters();
    }

    // Checks the inspector's content for point i against the data and the brute force.
    void checkInspection(std::size_t i) {
        const auto& got = m_window->pointInspector()->inspection();
        QVERIFY(got);
        QCOMPARE(got->index, i);
        const cs::PointSet& p = *m_window->pointView()->pointSet();
        QCOMPARE(got->fileRow, p.fileRow(i));
        const auto coords = p.point(i);
        QCOMPARE(got->coordinates, std::vector<float>(coords.begin(), coords.end()));
        const int k = m_window->knnPanel()->params().k;
        const int minPts = m_window->dbscanPanel()->params().minPts;
        QCOMPARE(got->k, k);
        const auto want = bruteForce(p, i, std::size_t(std::max(k, minPts - 1)));
        QCOMPARE(got->neighbours.size(), std::size_t(k));
        for (std::size_t q = 0; q < std::size_t(k); ++q) {
            QCOMPARE(got->neighbours[q].index, want[q].first);
            QCOMPARE(got->neighbours[q].distance, want[q].second);
        }
        QCOMPARE(got->kDistance, want[std::size_t(minPts - 2)].second);
        const cs::DbscanResult& r = m_window->dbscanPanel()->lastRun()->result;
        QVERIFY(got->cluster);
        QCOMPARE(*got->cluster, r.labels[i]);
        QCOMPARE(got->role, r.labels[i] < 0 ? QStringLiteral("noise")
                            : r.isCore[i]   ? QStringLiteral("core")
                                            : QStringLiteral("border"));
        // The table lists the same neighbours.
        QCOMPARE(m_window->pointInspector()->neighbourTable()->rowCount(), k);
        QCOMPARE(m_window->pointInspector()->neighbourTable()->item(0, 0)->text(),
                 QString::number(want[0].first));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
    }

    void init() {
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup() { m_window.reset(); }

    void clickInspectsThePointAndHighlights() {
        QVERIFY(openClusteredDemo());
        PointCloudView* view = m_window->pointView();
        QVERIFY(m_window->inspectorDock()->isHidden());
        // A point of a cluster, clicked where it is drawn: the pick may name a point in front
        // of it, so the test follows whichever point the view reports.
        const cs::DbscanResult& r = m_window->dbscanPanel()->lastRun()->result;
        const cs::PointSet& p = *view->pointSet();
        std::size_t target = 0;
        while (r.labels[target] < 0 || !r.isCore[target])
            ++target;
        const auto x = p.point(target);
        QSignalSpy clicked(view, &PointCloudView::pointClicked);
        QTest::mouseClick(view, Qt::LeftButton, {},
                          view->project(QVector3D(x[0], x[1], x[2])).toPoint());
        QCOMPARE(clicked.count(), 1);
        const qint64 picked = clicked.front().front().toLongLong();
        QVERIFY(picked >= 0);
        QVERIFY(settle());
        QVERIFY(m_window->inspectorDock()->isVisible());
        checkInspection(std::size_t(picked));

        // The inspected point and its neighbours are marked; its cluster shows, the rest dims.
        const auto& inspection = *m_window->pointInspector()->inspection();
        std::vector<std::uint32_t> marked{std::uint32_t(picked)};
        for (const auto& nb : inspection.neighbours)
            marked.push_back(std::uint32_t(nb.index));
        QCOMPARE(view->markedPoints(), marked);
        const auto& mask = view->pointMask();
        if (*inspection.cluster >= 0) {
            QCOMPARE(mask.size(), p.n);
            for (std::size_t i = 0; i < p.n; ++i)
                QCOMPARE(mask[i] == PointCloudView::Shown, r.labels[i] == *inspection.cluster);
        }
        QVERIFY(m_window->pointInspector()
                    ->tooltip(std::size_t(picked))
                    .contains(QStringLiteral("point %1").arg(picked)));

        // Double-clicking a neighbour in the table inspects it.
        const std::size_t next = inspection.neighbours[2].index;
        QTableWidget* table = m_window->pointInspector()->neighbourTable();
        emit table->cellDoubleClicked(2, 0);
        QVERIFY(settle());
        checkInspection(next);

        // New parameters: the cluster and role follow DBSCAN's new result.
        m_window->dbscanPanel()->setEps(0.05);
        QVERIFY(settle());
        QVERIFY(QTest::qWaitFor(
            [&] {
                const auto& now = m_window->pointInspector()->inspection();
                return now && now->cluster &&
                       *now->cluster == m_window->dbscanPanel()->lastRun()->result.labels[next];
            },
            10000));
        QCOMPARE(m_window->pointInspector()->inspection()->role, QStringLiteral("noise"));
    }

    void selectionActionsAndExport() {
        QVERIFY(openClusteredDemo());
        PointCloudView* view = m_window->pointView();
        cs::ui::SelectionModel* selection = m_window->selection();
        const cs::DbscanResult& r = m_window->dbscanPanel()->lastRun()->result;
        const std::size_t n = view->pointCount();
        QVERIFY(r.clusterCount >= 2);
        std::vector<std::uint32_t> members;
        for (std::size_t i = 0; i < n; ++i)
            if (r.labels[i] == 1) members.push_back(std::uint32_t(i));

        QCOMPARE(m_window->selectCluster(1), QString());
        QCOMPARE(selection->points(), members);
        auto shownAre = [&](const std::vector<std::uint32_t>& want, std::uint8_t others) {
            const auto& mask = view->pointMask();
            if (mask.size() != n) return false;
            std::size_t next = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const bool in = next < want.size() && want[next] == i;
                if (in) ++next;
                if (mask[i] != (in ? std::uint8_t(PointCloudView::Shown) : others)) return false;
            }
            return true;
        };
        QVERIFY(shownAre(members, PointCloudView::Dimmed));
        m_window->isolateAction()->trigger();
        QVERIFY(m_window->isIsolated());
        QVERIFY(shownAre(members, PointCloudView::Hidden));
        m_window->isolateAction()->trigger();
        QVERIFY(shownAre(members, PointCloudView::Dimmed));

        m_window->invertSelectionAction()->trigger();
        QCOMPARE(selection->points().size(), n - members.size());
        QVERIFY(!std::binary_search(selection->points().begin(), selection->points().end(),
                                    members.front()));
        m_window->invertSelectionAction()->trigger();
        QCOMPARE(selection->points(), members);

        // The export names each point's row in the file too.
        const QString file = m_tmp.filePath(QStringLiteral("demo_selection.csv"));
        QCOMPARE(m_window->exportTo(file), QString());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines =
            QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.front().startsWith(QLatin1String("index,original_index,")),
                 qPrintable(lines.front()));
        QCOMPARE(lines.size(), qsizetype(members.size() + 1));
        QCOMPARE(lines.at(1).section(QLatin1Char(','), 0, 1),
                 QStringLiteral("%1,%1").arg(members.front()));

        m_window->clearSelectionAction()->trigger();
        QVERIFY(selection->points().empty());
        QVERIFY(view->pointMask().empty());
        QVERIFY(m_window->exportTo(file).contains(QLatin1String("no points selected")));

        // Bad clusters: clear messages, the selection unchanged.
        QVERIFY(m_window->selectCluster(r.clusterCount).contains(QLatin1String("no cluster")));
        QVERIFY(m_window->selectCluster(-2).contains(QLatin1String("no cluster")));
        QVERIFY(selection->points().empty());
    }

    void legendClicksSelectAndHideClusters() {
        QVERIFY(openClusteredDemo());
        PointCloudView* view = m_window->pointView();
        cs::ui::SelectionModel* selection = m_window->selection();
        const cs::DbscanResult& r = m_window->dbscanPanel()->lastRun()->result;
        const cs::ui::Legend& legend = view->legend();
        // Where the legend draws entry e: found through the view's own hit test.
        auto rowOf = [&](int e) {
            for (int y = 0; y < view->height(); ++y)
                for (int x = view->width() - 60; x < view->width() - 20; x += 10)
                    if (view->legendEntryAt(QPoint(x, y)) == e) return QPoint(x, y + 2);
            return QPoint(-1, -1);
        };
        auto members = [&](int id) {
            std::vector<std::uint32_t> out;
            for (std::size_t i = 0; i < r.labels.size(); ++i)
                if (r.labels[i] == id) out.push_back(std::uint32_t(i));
            return out;
        };
        const int first = *legend.entries[0].category, second = *legend.entries[1].category;
        QVERIFY(rowOf(0).x() >= 0 && rowOf(1).x() >= 0);
        QSignalSpy clicked(view, &PointCloudView::pointClicked);
        QTest::mouseClick(view, Qt::LeftButton, {}, rowOf(0));
        QCOMPARE(clicked.count(), 0);  // a legend click picks no point
        QCOMPARE(selection->points(), members(first));
        QTest::mouseClick(view, Qt::LeftButton, Qt::ShiftModifier, rowOf(1));
        std::vector<std::uint32_t> both = members(first);
        const auto more = members(second);
        both.insert(both.end(), more.begin(), more.end());
        std::sort(both.begin(), both.end());
        QCOMPARE(selection->points(), both);
        // The legend marks both clusters, and only them.
        std::vector<std::int32_t> marks = view->highlightedCategories();
        std::sort(marks.begin(), marks.end());
        QCOMPARE(marks,
                 (std::vector<std::int32_t>{std::min(first, second), std::max(first, second)}));
        QTest::mouseClick(view, Qt::LeftButton, Qt::ControlModifier, rowOf(0));
        QCOMPARE(selection->points(), members(second));
        // Alt hides a cluster, and shows it again.
        m_window->clearSelectionAction()->trigger();
        QTest::mouseClick(view, Qt::LeftButton, Qt::AltModifier, rowOf(1));
        QVERIFY(m_window->isClusterHidden(second));
        const auto& mask = view->pointMask();
        QCOMPARE(mask.size(), r.labels.size());
        for (std::size_t i = 0; i < mask.size(); ++i)
            QCOMPARE(mask[i] == PointCloudView::Hidden, r.labels[i] == second);
        QTest::mouseClick(view, Qt::LeftButton, Qt::AltModifier, rowOf(1));
        QVERIFY(!m_window->isClusterHidden(second));
        QVERIFY(view->pointMask().empty());
        // The noise row selects the noise.
        const int noiseRow = int(legend.entries.size()) - 1;
        QCOMPARE(*legend.entries[std::size_t(noiseRow)].category, -1);
        QTest::mouseClick(view, Qt::LeftButton, {}, rowOf(noiseRow));
        QCOMPARE(selection->points(), members(-1));
    }

    void boxSelectsOnAWorker() {
        QVERIFY(openClusteredDemo());
        PointCloudView* view = m_window->pointView();
        cs::ui::SelectionModel* selection = m_window->selection();
        const QRect box(view->width() / 4, view->height() / 4, view->width() / 3,
                        view->height() / 3);
        auto drag = [&](QRect r, Qt::KeyboardModifiers release) {
            QTest::mousePress(view, Qt::LeftButton, Qt::ControlModifier, r.topLeft());
            QMouseEvent move(QEvent::MouseMove, QPointF(r.bottomRight()),
                             view->mapToGlobal(QPointF(r.bottomRight())), Qt::NoButton,
                             Qt::LeftButton, Qt::ControlModifier);
            QApplication::sendEvent(view, &move);
            QTest::mouseRelease(view, Qt::LeftButton, release, r.bottomRight());
        };
        QSignalSpy changed(selection, &cs::ui::SelectionModel::changed);
        drag(box, Qt::ControlModifier);
        QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty(); }, 20000));
        const auto want = PointCloudView::pointsInBox(
            *view->pointSet(),
            view->boxProjection(QRectF(QRect(box.topLeft(), box.bottomRight()))));
        QVERIFY(!want.empty());
        QCOMPARE(selection->points(), want);
        // Alt removes what a second box covers; Shift adds it back.
        const QRect second(box.topLeft(), box.size() / 2);
        changed.clear();
        drag(second, Qt::ControlModifier | Qt::AltModifier);
        QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty(); }, 20000));
        QVERIFY(selection->points().size() < want.size());
        changed.clear();
        drag(second, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty(); }, 20000));
        QCOMPARE(selection->points(), want);
    }

    void clickOnAHeatmapRowInspectsTheSeries() {
        if (!QFileInfo::exists(gunPoint()))
            CS_QSKIP_MISSING_DATA(QStringLiteral("no %1").arg(gunPoint()));
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openFile(gunPoint());
        QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty() && m_window->isSettled(); }, 60000));
        m_window->kshapePanel()->setK(2);
        m_window->algorithms().find(QStringLiteral("kshape"))->run();
        QVERIFY(settle());
        QVERIFY(m_window->kshapePanel()->lastRun());
        cs::ui::SeriesView* view = m_window->seriesView();
        QVERIFY(view->setStyle(cs::ui::SeriesView::Style::Heatmap));
        QVERIFY(settle());
        cs::ui::SeriesHeatmapView* heatmap = view->heatmapView();
        const std::size_t row = heatmap->rowCount() / 3;
        const std::size_t index = heatmap->rows()[row];
        QTest::mouseClick(heatmap, Qt::LeftButton, {}, heatmap->cellCentre(row, 10).toPoint());
        QVERIFY(settle());
        QVERIFY(m_window->inspectorDock()->isVisible());
        const auto& got = m_window->seriesInspector()->inspection();
        QVERIFY(got);
        QCOMPARE(got->index, index);
        const cs::SeriesSet& s = *view->seriesSet();
        QCOMPARE(got->className,
                 QString::fromStdString(s.classNames[std::size_t(s.labels[index])]));
        QCOMPARE(got->split, s.isTest[index] ? QStringLiteral("test") : QStringLiteral("train"));
        const cs::KShapeResult& r = *m_window->kshapePanel()->lastRun()->result;
        QVERIFY(got->cluster);
        QCOMPARE(*got->cluster, r.labels[index]);
        QCOMPARE(got->centroidSbd, r.distances[index]);
        QCOMPARE(got->centroidShift, r.shifts[index]);
        const auto [nearest, sbd] = nearestBySbd(s, index);
        QVERIFY(got->nearest);
        QCOMPARE(*got->nearest, nearest);
        QCOMPARE(got->nearestSbd, sbd);
        QVERIFY(got->prediction.isEmpty());  // no ROCKET run

        // The plain click selected the row alone; Ctrl+click adds rows to the shared selection
        // (the heat map highlights them), and takes them out again.
        cs::ui::SelectionModel* selection = m_window->selection();
        QCOMPARE(selection->series(), (std::vector<std::uint32_t>{std::uint32_t(index)}));
        const std::size_t other = heatmap->rows()[row + 1];
        QTest::mouseClick(heatmap, Qt::LeftButton, Qt::ControlModifier,
                          heatmap->cellCentre(row + 1, 10).toPoint());
        std::vector<std::uint32_t> want{std::uint32_t(index), std::uint32_t(other)};
        std::sort(want.begin(), want.end());
        QCOMPARE(selection->series(), want);
        const auto& marked = heatmap->markedRows();
        QCOMPARE(marked.size(), heatmap->rowCount());
        for (std::size_t r = 0; r < marked.size(); ++r)
            QCOMPARE(bool(marked[r]), r == row || r == row + 1);
        QTest::mouseClick(heatmap, Qt::LeftButton, Qt::ControlModifier,
                          heatmap->cellCentre(row, 10).toPoint());
        QCOMPARE(selection->series(), (std::vector<std::uint32_t>{std::uint32_t(other)}));
        m_window->clearSelectionAction()->trigger();
        QVERIFY(heatmap->markedRows().empty());
        QCOMPARE(m_window->seriesInspector()->inspection()->index, index);
    }

    void inspectorListsTheKernelsThatWeighMost() {
        if (!QFileInfo::exists(gunPoint()))
            CS_QSKIP_MISSING_DATA(QStringLiteral("no %1").arg(gunPoint()));
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openFile(gunPoint());
        QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty() && m_window->isSettled(); }, 60000));
        m_window->rocketPanel()->setKernels(300);
        m_window->algorithms().find(QStringLiteral("rocket"))->run();
        QVERIFY(settle());
        const auto run = m_window->rocketPanel()->lastRun();
        QVERIFY(run && run->model);
        cs::ui::SeriesView* view = m_window->seriesView();
        QCOMPARE(view->style(), cs::ui::SeriesView::Style::FeatureMap);
        QVERIFY(settle());
        // A click on a feature-map row inspects its series.
        cs::ui::FeatureMatrixView* map = view->featureMatrixView();
        const std::size_t row = map->rowCount() / 2;
        const std::size_t index = map->rows()[row];
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellCentre(row, 3).toPoint());
        QVERIFY(settle());
        QCOMPARE(m_window->selection()->series(),
                 (std::vector<std::uint32_t>{std::uint32_t(index)}));
        const auto& got = m_window->seriesInspector()->inspection();
        QVERIFY(got);
        QCOMPARE(got->index, index);
        // The direct computation: every feature's term of the predicted class's score.
        const cs::RidgeModel& m = *run->model;
        const cs::RocketFeatures& f = *run->features;
        const auto cls = std::size_t(run->predictions[index]);
        QCOMPARE(got->prediction, QString::fromStdString(view->seriesSet()->classNames[cls]));
        std::vector<std::pair<double, std::size_t>> terms;
        for (std::size_t j = 0; j < f.columns(); ++j) {
            const double x = double(f.values[index * f.columns() + j]);
            terms.push_back(
                {m.weights[j * std::size_t(m.classes) + cls] * (x - m.mean[j]) * m.scale[j], j});
        }
        std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) {
            return std::abs(a.first) > std::abs(b.first);
        });
        QCOMPARE(got->topFeatures.size(), std::size_t(5));
        for (std::size_t k = 0; k < 5; ++k) {
            const auto& feature = got->topFeatures[k];
            QCOMPARE(feature.column, terms[k].second / 2);
            QCOMPARE(feature.layer,
                     terms[k].second % 2 ? QStringLiteral("MAX") : QStringLiteral("PPV"));
            QVERIFY(std::abs(feature.contribution - terms[k].first) <=
                    1e-9 * std::max(1.0, std::abs(terms[k].first)));
            // ROCKET's kernel parameters.
            const cs::RocketKernels& kernels = *run->kernels;
            QVERIFY(feature.parameters.contains(
                QStringLiteral("dilation %1").arg(kernels.dilations[feature.column])));
            QVERIFY(feature.parameters.contains(QLatin1String("bias")));
        }
        const QJsonObject json = got->toJson();
        QCOMPARE(json[QStringLiteral("top_features")].toArray().size(), qsizetype(5));
        QCOMPARE(json[QStringLiteral("top_features")]
                     .toArray()[0]
                     .toObject()[QStringLiteral("column")]
                     .toInteger(),
                 qint64(got->topFeatures[0].column));
        // The inspector shows them.
        bool shown = false;
        for (QLabel* label : m_window->seriesInspector()->findChildren<QLabel*>())
            shown = shown || (label->isVisible() &&
                              label->text().contains(
                                  QStringLiteral("kernel %1").arg(got->topFeatures[0].column)));
        QVERIFY(shown);
    }

    void inspectASeriesOnTheCommandLine() {
        if (!QFileInfo::exists(gunPoint()))
            CS_QSKIP_MISSING_DATA(QStringLiteral("no %1").arg(gunPoint()));
        const QString labels = m_tmp.filePath(QStringLiteral("gun_kshape.csv"));
        const Run run = runClusterscope({gunPoint(), "--param", "kshape.k=2", "--run", "kshape",
                                         "--export", labels, "--inspect", "series=17", "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        const QJsonObject json = QJsonDocument::fromJson(run.stdOut.trimmed().toUtf8()).object();
        QCOMPARE(json[QStringLiteral("index")].toInteger(), qint64(17));
        QFile l(labels);
        QVERIFY(l.open(QIODevice::ReadOnly | QIODevice::Text));
        QStringList row;  // index,label,distance,shift
        for (const QString& line : QString::fromUtf8(l.readAll()).split(QLatin1Char('\n')))
            if (line.startsWith(QLatin1String("17,"))) row = line.split(QLatin1Char(','));
        QCOMPARE(row.size(), qsizetype(4));
        QCOMPARE(json[QStringLiteral("cluster")].toInt(), row[1].toInt());
        QCOMPARE(float(json[QStringLiteral("centroid_sbd")].toDouble()), row[2].toFloat());
        QCOMPARE(json[QStringLiteral("centroid_shift")].toInt(), row[3].toInt());
        const cs::SeriesSet s = cs::io::readSeriesWithSplit(gunPoint().toStdString());
        QCOMPARE(json[QStringLiteral("class")].toString(),
                 QString::fromStdString(s.classNames[std::size_t(s.labels[17])]));
        const auto [nearest, sbd] = nearestBySbd(s, 17);
        const QJsonObject near = json[QStringLiteral("nearest")].toObject();
        QCOMPARE(std::size_t(near[QStringLiteral("index")].toInteger()), nearest);
        QCOMPARE(near[QStringLiteral("sbd")].toDouble(), sbd);
        QVERIFY(json[QStringLiteral("prediction")].isNull());
        QVERIFY(json[QStringLiteral("top_features")].isNull());

        const Run bad = runClusterscope({gunPoint(), "--inspect", "series=5000", "--quit"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.stdErr.contains(QLatin1String("there is no series 5000")),
                 qPrintable(bad.stdErr));
    }

    void inspectOnTheCommandLine() {
        // --inspect prints one JSON line on stdout; its cluster and role are those of the labels
        // CSV written by the same run, its neighbours those of the brute force.
        const QString labels = m_tmp.filePath(QStringLiteral("demo_labels.csv"));
        const std::size_t point = 1234;
        const Run run =
            runClusterscope({"--demo-points", QString::number(kDemoPoints), "--param",
                             "dbscan.eps=4", "--param", "knn.k=7", "--run", "dbscan", "--export",
                             labels, "--inspect", QStringLiteral("point=%1").arg(point), "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        const QStringList lines = run.stdOut.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), qsizetype(1));
        QJsonParseError error;
        const QJsonObject json = QJsonDocument::fromJson(lines.front().toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(lines.front()));
        QCOMPARE(json[QStringLiteral("index")].toInteger(), qint64(point));
        QCOMPARE(json[QStringLiteral("original_index")].toInteger(), qint64(point));
        const cs::PointSet demo =
            cs::demo::makeDemoPoints(kDemoPoints, cs::ui::DatasetLoader::kDemoSeed);
        const QJsonArray coords = json[QStringLiteral("coordinates")].toArray();
        QCOMPARE(coords.size(), qsizetype(demo.dims));
        for (std::size_t j = 0; j < demo.dims; ++j)
            QCOMPARE(float(coords[qsizetype(j)].toDouble()), demo.point(point)[j]);
        QFile f(labels);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        QString row;
        for (const QString& line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n')))
            if (line.startsWith(QStringLiteral("%1,").arg(point))) row = line;
        const QStringList fields = row.split(QLatin1Char(','));
        QCOMPARE(fields.size(), qsizetype(3));
        QCOMPARE(json[QStringLiteral("cluster")].toInt(), fields[1].toInt());
        const QString role = fields[1].toInt() < 0             ? QStringLiteral("noise")
                             : fields[2] == QLatin1String("1") ? QStringLiteral("core")
                                                               : QStringLiteral("border");
        QCOMPARE(json[QStringLiteral("role")].toString(), role);
        QCOMPARE(json[QStringLiteral("k")].toInt(), 7);
        const QJsonArray near = json[QStringLiteral("neighbours")].toArray();
        const auto want = bruteForce(demo, point, 7);
        QCOMPARE(near.size(), qsizetype(7));
        for (qsizetype q = 0; q < near.size(); ++q) {
            const QJsonObject nb = near[q].toObject();
            QCOMPARE(std::size_t(nb[QStringLiteral("index")].toInteger()),
                     want[std::size_t(q)].first);
            QCOMPARE(float(nb[QStringLiteral("distance")].toDouble()), want[std::size_t(q)].second);
        }
    }

    void originalIndicesSkipDroppedRows() {
        // Rows 1 and 3 of this file have NaN coordinates and are dropped: point 2 is row 4.
        const QString file = m_tmp.filePath(QStringLiteral("holes.xyz"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
        f.write("0 0 0\nnan 1 1\n1 0 0\n2 nan 2\n3 0 0\n5 0 0\n9 0 0\n");
        f.close();
        const cs::PointSet read = cs::io::readXyz(file.toStdString());
        QCOMPARE(read.n, std::size_t(5));
        // DBSCAN runs by itself here (MinPts is clamped to the 5 points): its labels file names
        // rows of the file too, and the inspector's cluster and role are that row's.
        const QString labels = m_tmp.filePath(QStringLiteral("holes_labels.csv"));
        const Run run = runClusterscope(
            {file, "--param", "knn.k=3", "--inspect", "point=2", "--export", labels, "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        const QJsonObject json = QJsonDocument::fromJson(run.stdOut.trimmed().toUtf8()).object();
        QCOMPARE(json[QStringLiteral("index")].toInteger(), qint64(2));
        QCOMPARE(json[QStringLiteral("original_index")].toInteger(), qint64(4));
        QFile l(labels);
        QVERIFY(l.open(QIODevice::ReadOnly | QIODevice::Text));
        // index,original_index,label,core: the row of point 2 names file row 4.
        const QStringList csv = QString::fromUtf8(l.readAll()).split(QLatin1Char('\n'));
        QVERIFY(csv.size() > 2);
        QCOMPARE(csv[1], QStringLiteral("index,original_index,label,core"));
        QStringList row;
        for (const QString& line : csv)
            if (line.startsWith(QLatin1String("2,"))) row = line.split(QLatin1Char(','));
        QCOMPARE(row.size(), qsizetype(4));
        QCOMPARE(row[1], QStringLiteral("4"));
        QCOMPARE(json[QStringLiteral("cluster")].toInt(), row[2].toInt());
        QCOMPARE(json[QStringLiteral("role")].toString(),
                 row[2].toInt() < 0             ? QStringLiteral("noise")
                 : row[3] == QLatin1String("1") ? QStringLiteral("core")
                                                : QStringLiteral("border"));
        // Point 2 is (3,0,0): nearest (1,0,0) row 2, then (5,0,0) row 5, then (0,0,0) row 0.
        const QJsonArray near = json[QStringLiteral("neighbours")].toArray();
        QCOMPARE(near.size(), qsizetype(3));
        const qint64 rows[] = {2, 5, 0};
        const double distances[] = {2, 2, 3};
        for (qsizetype q = 0; q < 3; ++q) {
            QCOMPARE(near[q].toObject()[QStringLiteral("original_index")].toInteger(), rows[q]);
            QCOMPARE(near[q].toObject()[QStringLiteral("distance")].toDouble(), distances[q]);
        }
        // MinPts 5: the point and 4 others, the farthest at 6.
        QCOMPARE(json[QStringLiteral("min_pts")].toInt(), 5);
        QCOMPARE(json[QStringLiteral("k_distance")].toDouble(), 6.0);
    }

    void noClusterWithoutDbscan() {
        // No DBSCAN run: no cluster, said as null, not as a number that could be mistaken.
        const Run run =
            runClusterscope({"--demo-points", "1000", "--inspect", "point=5", "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        const QJsonObject json = QJsonDocument::fromJson(run.stdOut.trimmed().toUtf8()).object();
        QCOMPARE(json[QStringLiteral("index")].toInteger(), qint64(5));
        QVERIFY(json[QStringLiteral("cluster")].isNull());
        QVERIFY(json[QStringLiteral("role")].isNull());
        QCOMPARE(json[QStringLiteral("neighbours")].toArray().size(), qsizetype(10));
    }

    void selectOnTheCommandLine() {
        const QString labels = m_tmp.filePath(QStringLiteral("sel_labels.csv"));
        const QString selected = m_tmp.filePath(QStringLiteral("demo_selection.csv"));
        const QStringList common{"--demo-points", QString::number(kDemoPoints),
                                 "--param",       "dbscan.eps=4",
                                 "--run",         "dbscan"};
        Run run = runClusterscope(common + QStringList{"--export", labels, "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        run = runClusterscope(common +
                              QStringList{"--select", "cluster=2", "--export", selected, "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        QVERIFY(run.stdOut.isEmpty());  // standard output is --inspect's alone
        QStringList want;
        QFile l(labels);
        QVERIFY(l.open(QIODevice::ReadOnly | QIODevice::Text));
        for (const QString& line : QString::fromUtf8(l.readAll()).split(QLatin1Char('\n')))
            if (line.section(QLatin1Char(','), 1, 1) == QLatin1String("2"))
                want << line.section(QLatin1Char(','), 0, 0);
        QVERIFY(!want.isEmpty());
        QStringList got;
        QFile s(selected);
        QVERIFY(s.open(QIODevice::ReadOnly | QIODevice::Text));
        for (const QString& line : QString::fromUtf8(s.readAll()).split(QLatin1Char('\n')))
            if (!line.isEmpty() && line.front().isDigit())
                got << line.section(QLatin1Char(','), 1, 1);
        QCOMPARE(got, want);
    }

    void commandLineErrors() {
        Run run = runClusterscope({"--demo-points", "1000", "--inspect", "point=1000", "--quit"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stdErr.contains(QLatin1String("there is no point 1000")),
                 qPrintable(run.stdErr));
        run = runClusterscope({"--demo-points", "1000", "--select", "cluster=0", "--quit"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stdErr.contains(QLatin1String("run DBSCAN first")), qPrintable(run.stdErr));
        run = runClusterscope({"--demo-points", "1000", "--param", "dbscan.eps=4", "--run",
                               "dbscan", "--select", "cluster=999", "--quit"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stdErr.contains(QLatin1String("there is no cluster 999")),
                 qPrintable(run.stdErr));
        for (const char* bad : {"point=-1", "pont=3", "point=x", "3"}) {
            run = runClusterscope({"--inspect", bad, "--quit"});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.stdErr.contains(QLatin1String("--inspect takes point=I")),
                     qPrintable(run.stdErr));
        }
        run = runClusterscope({"--select", "cluster=", "--quit"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.stdErr.contains(QLatin1String("--select takes cluster=N")),
                 qPrintable(run.stdErr));
    }
};

CS_GL_TEST_MAIN(TestInspector)
#include "tst_inspector.moc"
