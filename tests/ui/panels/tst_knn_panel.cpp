// SPDX-License-Identifier: MIT
// The kNN-graph panel through the GUI: its graph and the point view's element buffer equal a
// direct CPU run, live changes end with the newest parameters on screen, the edge controls drive
// the view, failures keep the previous graph, new data clears it, export reads back, and the real
// executable builds a graph from the command line.
#include <QCheckBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/knn/knn_graph.h"
#include "compute/knn/knn_quantities.h"
#include "tests/common/json_at.h"
#include "tests/common/knn_oracle.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/shell/main_window.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/point_cloud_view.h"

using cs::test::logged;
using cs::ui::KnnPanel;

class TestKnnPanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<cs::ui::MainWindow> m_window;

    KnnPanel* panel() { return m_window->knnPanel(); }
    cs::ui::PointCloudView* view() { return m_window->pointView(); }
    bool settled() { return !panel()->isBusy() && panel()->lastRun(); }
    bool ranWith(const cs::KnnParams& p) {
        if (!settled()) return false;
        const cs::KnnParams& q = panel()->lastRun()->params;
        return q.k == p.k && q.trees == p.trees && q.leafSize == p.leafSize &&
               q.targetRecall == p.targetRecall && q.seed == p.seed;
    }
    // The graph of the points on screen, computed directly on the CPU backend.
    cs::KnnGraph direct(const cs::KnnParams& p) {
        cs::JobControl job;
        return cs::backendRegistry().get("cpu")->knnGraph(*view()->pointSet(), p, job);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<cs::ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->openDemoPoints(20000);
        QTRY_VERIFY_WITH_TIMEOUT(view()->pointCount() == 20000, 30000);
        // Loading alone builds no graph.
        QVERIFY(!panel()->lastRun());
        QVERIFY(!view()->edges());
        QVERIFY(panel()->isEnabled());
    }

    void graphMatchesADirectRun() {
        panel()->kSpin()->setValue(6);
        panel()->treesSpin()->setValue(5);
        panel()->leafSizeSpin()->setValue(200);
        panel()->recallSpin()->setValue(0.9);
        panel()->seedSpin()->setValue(7);
        const cs::KnnParams p = panel()->params();
        QCOMPARE(p.k, 6);
        QCOMPARE(p.seed, std::uint64_t(7));
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 60000);
        const auto run = panel()->lastRun();
        const cs::KnnGraph want = direct(p);
        QCOMPARE(run->graph->n, std::size_t(20000));
        QCOMPARE(run->graph->k, 6);
        QCOMPARE(run->graph->indices, want.indices);
        QCOMPARE(run->graph->distances, want.distances);
        QCOMPARE(run->graph->treesBuilt, want.treesBuilt);
        QCOMPARE(run->graph->recallByTree, want.recallByTree);
        // The view draws exactly the graph's edges, from its own position buffer.
        QVERIFY(view()->edges().owner == run->graph);
        // Its lengths were measured on the worker, and the view reads those.
        QVERIFY(run->edgeLengths && !run->edgeLengths->empty());
        QVERIFY(view()->edges().lengthSample == run->edgeLengths);
        QCOMPARE(*run->edgeLengths, cs::edgeLengthSample(view()->edges(), *run->points));
        QCOMPARE(view()->readEdgeBuffer(),
                 cs::edgeIndexPairs(cs::knnEdges(std::make_shared<const cs::KnnGraph>(want))));
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        QCOMPARE(view()->edgeCount(), std::size_t(20000 * 6));
        QCOMPARE(view()->edgePath(), cs::ui::UploadPath::HostUpload);
        // The panel reports it.
        QCOMPARE(panel()->statisticsLabel()->text(), KnnPanel::statisticsText(*run));
        QVERIFY(panel()->statisticsLabel()->text().contains(QLocale().toString(120000)));
        QCOMPARE(panel()->recallLabel()->text(), KnnPanel::recallText(want));
        double sum = 0.0, largest = 0.0;
        for (std::size_t i = 0; i < want.n; ++i) {
            sum += want.distances[i * 6 + 5];
            largest = std::max(largest, double(want.distances[i * 6 + 5]));
        }
        QVERIFY(std::abs(run->meanKthDistance - sum / double(want.n)) < 1e-9 * sum);
        QCOMPARE(run->maxKthDistance, largest);
        QVERIFY(panel()->warningLabel()->text().isEmpty());
        // "kNN distance" joins Colour by.
        bool offered = false;
        for (const auto& o : view()->colourOptions())
            offered |= o.id == cs::ui::PointCloudView::edgeValueColourId();
        QVERIFY(offered);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 10000);
    }

    void liveChangesEndWithTheNewestParameters() {
        // Several changes in a row: runs in flight are superseded, the newest result stays.
        for (int k : {3, 4, 8, 5, 9})
            panel()->kSpin()->setValue(k);
        const cs::KnnParams p = panel()->params();
        QCOMPARE(p.k, 9);
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(p), 60000);
        QCOMPARE(view()->edges().k, 9);
        QCOMPARE(view()->readEdgeBuffer(),
                 cs::edgeIndexPairs(cs::knnEdges(std::make_shared<const cs::KnnGraph>(direct(p)))));
        // The Run button runs the same parameters again: the same graph.
        const auto before = panel()->lastRun();
        QTest::mouseClick(panel()->runButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun() != before, 60000);
        QCOMPARE(panel()->lastRun()->graph->indices, before->graph->indices);
    }

    void edgeControlsDriveTheView() {
        QVERIFY(settled());
        panel()->showEdgesBox()->setChecked(true);
        panel()->opacitySlider()->setValue(100);
        QCOMPARE(view()->edgeOpacity(), 1.0f);
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        const QImage shown = view()->grabFramebuffer();
        panel()->showEdgesBox()->setChecked(false);
        QVERIFY(!view()->edgesVisible());
        QVERIFY(!panel()->opacitySlider()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        const QImage hidden = view()->grabFramebuffer();
        // The edges (among the sparse noise points above all) make a visible difference.
        int differing = 0;
        for (int y = 0; y < shown.height(); y += 2)
            for (int x = 0; x < shown.width(); x += 2)
                differing += shown.pixel(x, y) != hidden.pixel(x, y);
        QVERIFY2(differing > 200, qPrintable(QString::number(differing)));
        panel()->showEdgesBox()->setChecked(true);
        QVERIFY(view()->edgesVisible());
        panel()->opacitySlider()->setValue(40);
        QCOMPARE(view()->edgeOpacity(), 0.4f);
        // Remembered for the next session.
        QCOMPARE(QSettings().value(QStringLiteral("knn/edgeOpacity")).toInt(), 40);
    }

    void overPointsBoxAndViewAreOneState() {
        QVERIFY(settled());
        panel()->showEdgesBox()->setChecked(true);
        QCheckBox* box = panel()->overPointsBox();
        for (QWidget* w = box; w; w = w->parentWidget())
            if (auto* dock = qobject_cast<QDockWidget*>(w)) dock->raise();
        QTRY_VERIFY(box->isVisible() && box->isEnabled());
        box->setChecked(false);
        QVERIFY(!view()->edgesOverPoints());
        // The box drives the view (Space on the focused box, as a user ticks it)...
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Space);
        QVERIFY(box->isChecked());
        QVERIFY(view()->edgesOverPoints());
        // ...and the view, set from elsewhere (the automation's --edges), ticks the box.
        view()->setEdgesOverPoints(false);
        QVERIFY(!box->isChecked());
        QCOMPARE(panel()->viewOptions().value(QStringLiteral("edgesOverPoints")), QVariant(false));
        view()->setEdgesOverPoints(true);
        QVERIFY(box->isChecked());
        QCOMPARE(panel()->viewOptions().value(QStringLiteral("edgesOverPoints")), QVariant(true));
        // A program's change is not remembered as the user's choice; the user's is.
        QCOMPARE(QSettings().value(QStringLiteral("knn/edgesOverPoints")).toBool(), true);
        QTest::keyClick(box, Qt::Key_Space);
        QVERIFY(!view()->edgesOverPoints());
        view()->setEdgesOverPoints(true);
        QCOMPARE(QSettings().value(QStringLiteral("knn/edgesOverPoints")).toBool(), false);
        box->setChecked(false);
        QVERIFY(!view()->edgesOverPoints());
    }

    void badParametersKeepThePreviousGraph() {
        QVERIFY(settled());
        const auto before = panel()->lastRun();
        const auto edges = view()->readEdgeBuffer();
        // k = 9 needs leaves of at least 20 points.
        panel()->leafSizeSpin()->setValue(10);
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isBusy(), 10000);
        QCOMPARE(panel()->lastRun(), before);
        QVERIFY2(panel()->warningLabel()->text().contains(QLatin1String("leafSize")),
                 qPrintable(panel()->warningLabel()->text()));
        QVERIFY(panel()->warningLabel()->isVisibleTo(panel()));
        QVERIFY(m_window->statusBar()->currentMessage().contains(QLatin1String("kNN graph")));
        QVERIFY(logged(QStringLiteral("kNN graph: ")));
        QVERIFY(view()->edges().owner == before->graph);
        QCOMPARE(view()->readEdgeBuffer(), edges);
        // A valid value runs again and clears the warning.
        panel()->leafSizeSpin()->setValue(64);
        QTRY_VERIFY_WITH_TIMEOUT(ranWith(panel()->params()), 60000);
        QVERIFY(panel()->warningLabel()->text().isEmpty());
        QCOMPARE(view()->readEdgeBuffer(),
                 cs::edgeIndexPairs(cs::knnEdges(
                     std::make_shared<const cs::KnnGraph>(direct(panel()->params())))));
    }

    void exportWritesTheEdges() {
        QVERIFY(settled());
        const auto& g = *panel()->lastRun()->graph;
        const QString path = m_tmp.filePath(QStringLiteral("demo_knn.csv"));
        QCOMPARE(m_window->exportTo(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.at(0).startsWith(QStringLiteral("# knn k=%1 ").arg(g.k)));
        QCOMPARE(lines.at(1), QStringLiteral("source,target,distance"));
        QCOMPARE(std::size_t(lines.size()), g.n * std::size_t(g.k) + 2);
        const auto k = std::size_t(g.k);
        for (std::size_t e = 0; e < g.indices.size(); e += 997) {
            const QStringList cols = lines.at(int(e) + 2).split(',');
            QCOMPARE(cols.size(), 3);
            QCOMPARE(cols.at(0).toULongLong(), qulonglong(e / k));
            QCOMPARE(cols.at(1).toInt(), g.indices[e]);
            QCOMPARE(cols.at(2).toFloat(), g.distances[e]);  // exact: shortest round trip
        }
        // Any other .csv is still the DBSCAN labels.
        QCOMPARE(m_window->exportTo(m_tmp.filePath(QStringLiteral("labels.csv"))),
                 QStringLiteral("no DBSCAN labels to export yet"));
    }

    void otherDataClearsTheGraph() {
        QVERIFY(settled());
        m_window->openDemoPoints(6);
        QTRY_VERIFY_WITH_TIMEOUT(view()->pointCount() == 6, 30000);
        QVERIFY(!panel()->lastRun());
        QVERIFY(!view()->edges());
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        QCOMPARE(view()->edgeCount(), std::size_t(0));
        QVERIFY(view()->readEdgeBuffer().empty());
        for (const auto& o : view()->colourOptions())
            QVERIFY(o.id != cs::ui::PointCloudView::edgeValueColourId());
        // Too few points for k = 9: reported, nothing runs.
        panel()->run();
        QVERIFY(!panel()->isBusy());
        QVERIFY(!panel()->lastRun());
        QVERIFY2(panel()->warningLabel()->text().contains(QLatin1String("points")),
                 qPrintable(panel()->warningLabel()->text()));
        // k = 5 fits six points: every other point is a neighbour.
        panel()->leafSizeSpin()->setValue(16);
        panel()->kSpin()->setValue(5);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && view()->isContentDrawn(), 60000);
        QCOMPARE(view()->edgeCount(), std::size_t(30));
        QCOMPARE(view()->readEdgeBuffer(),
                 cs::edgeIndexPairs(cs::knnEdges(
                     std::make_shared<const cs::KnnGraph>(direct(panel()->params())))));

        // Back to the demo scene for the tests after this one.
        m_window->openDemoPoints(20000);
        QTRY_VERIFY_WITH_TIMEOUT(view()->pointCount() == 20000, 30000);
        QVERIFY(!view()->edges());
    }

    void registryRunsKnn() {
        const cs::ui::Algorithm* knn = m_window->algorithms().find(QStringLiteral("knn"));
        QVERIFY(knn);
        QStringList names;
        for (const auto& p : knn->descriptor->parameters)
            if (p.inPanel) names << QString::fromStdString(p.name);
        QCOMPARE(names, QStringList({"k", "exact", "trees", "leafSize", "targetRecall", "seed"}));
        QString error;
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("knn.k=65"), &error));
        QVERIFY(error.contains(QLatin1String("k")));
        QVERIFY(!m_window->algorithms().parseAssignment(QStringLiteral("knn.targetRecall=1.5"),
                                                        &error));
        const auto a = m_window->algorithms().parseAssignment(QStringLiteral("knn.k=7"), &error);
        QVERIFY(a);
        knn->setParameter(a->parameter, a->value);
        knn->setParameter(QStringLiteral("trees"), std::int64_t(3));
        knn->run();
        QTRY_VERIFY_WITH_TIMEOUT(!knn->isBusy() && panel()->lastRun(), 60000);
        QCOMPARE(panel()->lastRun()->params.k, 7);
        QCOMPARE(panel()->lastRun()->params.trees, 3);
        QCOMPARE(view()->readEdgeBuffer(),
                 cs::edgeIndexPairs(cs::knnEdges(
                     std::make_shared<const cs::KnnGraph>(direct(panel()->params())))));

        // The exact graph from the same panel: marked exact, said so, and the oracle's edges.
        knn->setParameter(QStringLiteral("exact"), true);
        knn->run();
        QTRY_VERIFY_WITH_TIMEOUT(
            !knn->isBusy() && panel()->lastRun() && panel()->lastRun()->params.exact, 60000);
        QVERIFY(panel()->lastRun()->graph->exact);
        QVERIFY(panel()->statisticsLabel()->text().contains(QLatin1String("Exact")));
        const cs::PointSet& shown = *view()->pointSet();
        const cs::KnnGraph oracle =
            cs::test::oracleKnnGraph(cs::recentredCoords(shown), shown.n, shown.dims, 7);
        QCOMPARE(view()->readEdgeBuffer(),
                 cs::edgeIndexPairs(cs::knnEdges(std::make_shared<const cs::KnnGraph>(oracle))));
        knn->setParameter(QStringLiteral("exact"), false);
    }

    void executableRunsKnn() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("data")));
        const QString png = m_tmp.filePath(QStringLiteral("knn.png"));
        const QString csv = m_tmp.filePath(QStringLiteral("cli_knn.csv"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(
            QStringLiteral(CS_CLUSTERSCOPE_EXE),
            {"--demo-points", "5000", "--param", "knn.k=15", "--param", "knn.seed=3", "--run",
             "knn", "--export", csv, "--screenshot", png, "--window-size", "1200x800", "--quit"});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(!QImage(png).isNull());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.at(0).startsWith(QLatin1String("# knn k=15 ")), qPrintable(lines.at(0)));
        QVERIFY(lines.at(0).contains(QLatin1String("seed=3")));
        QCOMPARE(lines.size(), 5000 * 15 + 2);

        // --edges over ticks the panel's box too: the saved session says so.
        const QString session = m_tmp.filePath(QStringLiteral("knn_over.json"));
        QProcess over;
        over.setProcessEnvironment(env);
        over.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                   {"--demo-points", "2000", "--run", "knn", "--edges", "over,length",
                    "--save-session", session, "--quit"});
        QVERIFY(over.waitForFinished(300000));
        QVERIFY2(over.exitCode() == 0, over.readAllStandardError().constData());
        QFile saved(session);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(cs::test::jsonAt(saved.readAll(), {"view", "panels", "knn", "edgesOverPoints"}),
                 QJsonValue(true));

        QProcess bad;
        bad.setProcessEnvironment(env);
        bad.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                  {"--demo-points", "1000", "--param", "knn.k=0", "--run", "knn", "--quit"});
        QVERIFY(bad.waitForFinished(60000));
        QVERIFY(bad.exitCode() != 0);
        QVERIFY(QString::fromLocal8Bit(bad.readAllStandardError()).contains("knn.k"));
    }

    void edgesVisibleOverTheBunny() {
        // A real scan: the edges, coloured by length with magma (the bunny's points take
        // viridis by height), drawn over the points at full opacity, show as magma's reds and
        // pinks, which viridis never makes.
        const QString path =
            QString::fromStdString(cs::test::sharedData("points/bunny.pcd").string());
        if (!QFileInfo::exists(path)) CS_QSKIP_MISSING_DATA(QStringLiteral("bunny.pcd missing"));
        QSignalSpy loaded(m_window.get(), &cs::ui::MainWindow::datasetLoaded);
        m_window->openFile(path);
        QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty() && m_window->isSettled(); }, 60000));
        QCOMPARE(view()->pointCount(), std::size_t(397));
        panel()->showEdgesBox()->setChecked(true);
        panel()->autoOpacityBox()->setChecked(true);
        panel()->setLeafSize(64);  // earlier tests leave one too small for k = 10
        panel()->setK(10);
        panel()->run();  // k may have been 10 already
        QTRY_VERIFY_WITH_TIMEOUT(settled() && m_window->isSettled(), 60000);
        QCOMPARE(view()->edges().edgeCount(), std::size_t(3970));
        // The density-aware opacity for 3,970 edges in this view.
        const float suggested = cs::ui::PointCloudView::suggestedEdgeOpacity(3970, view()->size());
        QCOMPARE(panel()->opacitySlider()->value(), int(std::lround(suggested * 100)));
        QVERIFY(panel()->byLengthBox()->isChecked());
        QCOMPARE(view()->edgeColouring(), cs::ui::PointCloudView::EdgeColouring::Length);
        QCOMPARE(view()->edgeMap(), cs::ui::ColourMaps::Map::Magma);

        // Over the points, opaque: through the panel's widgets, as a user would.
        QTest::mouseClick(panel()->overPointsBox(), Qt::LeftButton, {},
                          QPoint(8, panel()->overPointsBox()->height() / 2));
        QVERIFY(view()->edgesOverPoints());
        panel()->opacitySlider()->setFocus();
        QTest::keyClick(panel()->opacitySlider(), Qt::Key_End);
        QCOMPARE(panel()->opacitySlider()->value(), 100);
        QVERIFY(!panel()->autoOpacityBox()->isChecked());  // a hand on the slider
        const auto magmaPixels = [&] {
            if (!QTest::qWaitFor([&] { return view()->isContentDrawn(); }, 10000)) return -1;
            const QImage image = view()->grabFramebuffer();
            int n = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const QColor c = image.pixelColor(x, y);
                    n += c.red() > 150 && c.green() < 140 && c.red() - c.blue() > 30;
                }
            return n;
        };
        const int byLength = magmaPixels();
        QVERIFY2(byLength > 300, qPrintable(QString::number(byLength)));
        // In the points' colours the reds are gone: the test sees the edges, not the points.
        QTest::mouseClick(panel()->byLengthBox(), Qt::LeftButton, {},
                          QPoint(8, panel()->byLengthBox()->height() / 2));
        QCOMPARE(view()->edgeColouring(), cs::ui::PointCloudView::EdgeColouring::Points);
        const int byPoints = magmaPixels();
        QVERIFY2(byPoints < byLength / 10, qPrintable(QString::number(byPoints)));
        panel()->byLengthBox()->setChecked(true);

        // The length filter: the longest-edge slider at half hides the longer edges.
        const auto graph = view()->edges();
        const auto lengthOf = [&](std::size_t e) {
            const auto a = view()->pointSet()->point(e / std::size_t(graph.k));
            const auto b = view()->pointSet()->point(std::size_t(graph.targets[e]));
            return std::sqrt(double(a[0] - b[0]) * (a[0] - b[0]) +
                             double(a[1] - b[1]) * (a[1] - b[1]) +
                             double(a[2] - b[2]) * (a[2] - b[2]));
        };
        const double longest = view()->edgeLengthBounds()[1];
        view()->setEdgeCounting(true);
        panel()->maxLengthSlider()->setValue(500);
        panel()->minLengthSlider()->setValue(200);
        QCOMPARE(view()->edgeLengthMaximum(), longest * 0.5);
        QCOMPARE(view()->edgeLengthMinimum(), longest * 0.2);
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        view()->grabFramebuffer();  // a frame with the count
        qint64 expected = 0;
        for (std::size_t e = 0; e < graph.edgeCount(); ++e) {
            const double l = lengthOf(e);
            expected += l >= longest * 0.2 && l <= longest * 0.5;
        }
        QVERIFY(expected > 0 && expected < qint64(graph.edgeCount()));
        // Float rounding in the shader may move an edge right at a bound.
        QVERIFY2(std::abs(view()->drawnEdgeCount() - expected) <= 3,
                 qPrintable(QStringLiteral("%1 drawn, %2 expected")
                                .arg(view()->drawnEdgeCount())
                                .arg(expected)));
        QVERIFY(panel()->lengthLabel()->text().contains(QLatin1String("drawn")));
        // Back to all.
        panel()->minLengthSlider()->setValue(0);
        panel()->maxLengthSlider()->setValue(1000);
        QVERIFY(std::isinf(view()->edgeLengthMaximum()));
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        view()->grabFramebuffer();
        QCOMPARE(view()->drawnEdgeCount(), qint64(graph.edgeCount()));
        view()->setEdgeCounting(false);
        panel()->overPointsBox()->setChecked(false);
    }

    // A label's "&" marks its shortcut only with a buddy; without one it shows as "&" (the edge
    // opacity's row of two widgets did). Every such label of the window has one.
    void everyMnemonicLabelHasABuddy() {
        QStringList orphans;
        for (const QLabel* label : m_window->findChildren<QLabel*>()) {
            QString text = label->text();
            if (label->textFormat() == Qt::RichText || Qt::mightBeRichText(text)) continue;
            text.remove(QStringLiteral("&&"));
            if (text.contains(QLatin1Char('&')) && !label->buddy()) orphans << label->text();
        }
        QVERIFY2(orphans.isEmpty(), qPrintable(orphans.join(QStringLiteral(", "))));
    }

    void cleanupTestCase() { m_window.reset(); }
};

CS_GL_TEST_MAIN(TestKnnPanel)
#include "tst_knn_panel.moc"
