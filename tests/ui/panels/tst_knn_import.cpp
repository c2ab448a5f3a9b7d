// SPDX-License-Identifier: MIT
// A kNN graph built elsewhere (clusterscope-cli knn --out, also under mpirun) opened in the GUI:
// the kNN panel's import shows it as a run's (the same graph, the view's edges, "imported" in
// the statistics), a bad file keeps the previous graph and says why, a parameter change builds
// one here again, and the executable's --graph does the same from the command line.
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/io/npy.h"
#include "compute/io/writers.h"
#include "compute/knn/knn_graph.h"
#include "compute/knn/knn_quantities.h"
#include "tests/ui/gui_test_main.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/shell/main_window.h"
#include "ui/views/points/point_cloud_view.h"

using cs::test::logged;
using cs::ui::KnnPanel;

namespace {

constexpr std::size_t kRows = 600;
constexpr int kK = 5;

bool bitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

class TestKnnImport : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::unique_ptr<cs::ui::MainWindow> m_window;
    QString m_cloud;
    cs::KnnGraph m_written;  // the graph in graph.npy, by point

    KnnPanel* panel() { return m_window->knnPanel(); }
    cs::ui::PointCloudView* view() { return m_window->pointView(); }
    std::string file(const char* name) { return m_tmp.filePath(QLatin1String(name)).toStdString(); }

    // Writes a cloud of rows 3-D points, rows 7 and 300 NaN, as .npy.
    void writeCloud(const std::string& path, std::size_t rows, std::uint32_t seed) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> u(-5.0f, 5.0f);
        std::vector<float> coords(rows * 3);
        for (float& c : coords)
            c = u(rng);
        for (std::size_t r : {std::size_t(7), std::size_t(300)})
            if (r < rows) coords[r * 3 + 1] = std::numeric_limits<float>::quiet_NaN();
        cs::io::writeNpy(path, std::span<const float>(coords), {rows, 3});
    }
    // The CPU graph of the points on screen, written as clusterscope-cli knn --out writes it.
    cs::KnnGraph writeGraph(const std::string& indices, const std::string& distances, int k,
                            std::uint64_t seed) {
        cs::JobControl job;
        const auto& points = *view()->pointSet();
        cs::KnnGraph g = cs::backendRegistry().get("cpu")->knnGraph(
            points, {.k = k, .trees = 2, .leafSize = 64, .seed = seed}, job);
        cs::io::writeKnnNpy(indices, distances, g.n, std::size_t(k), g.indices, g.distances,
                            cs::io::fileRowsOf(points));
        return g;
    }
    // Starts an import (start() returns importGraph's immediate error) and waits until the
    // worker has read the file: the error, or an empty string once the graph is shown.
    template <typename Start>
    QString finishImport(Start start) {
        QSignalSpy done(panel(), &KnnPanel::importFinished);
        if (const QString error = start(); !error.isEmpty()) return error;
        if (!done.wait(30000)) return QStringLiteral("importFinished never came");
        return done.first().first().toString();
    }
    QProcessEnvironment freshEnvironment(const QString& name) {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(name + "_config"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(name + "_data"));
        return env;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<cs::ui::MainWindow>();
        m_window->resize(1280, 720);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_cloud = QString::fromStdString(file("cloud.npy"));
        writeCloud(m_cloud.toStdString(), kRows, 5);
        m_window->openFile(m_cloud);
        QTRY_VERIFY_WITH_TIMEOUT(view()->pointCount() == kRows - 2, 30000);
        QVERIFY(panel()->importButton()->isEnabled());
        m_written = writeGraph(file("graph.npy"), file("graph_distances.npy"), kK, 3);
    }

    void importShowsTheGraphAsARun() {
        QVERIFY(!panel()->lastRun());
        auto* dbscanDock = m_window->findChild<QDockWidget*>(QStringLiteral("dbscanDock"));
        QVERIFY(dbscanDock);
        dbscanDock->raise();
        auto* knnDock = m_window->findChild<QDockWidget*>(QStringLiteral("knnDock"));
        QVERIFY(knnDock);
        // Tabified docks behind another one stay "visible"; what shows is their region.
        QTRY_VERIFY(knnDock->visibleRegion().isEmpty());  // DBSCAN's tab is in front
        QCOMPARE(finishImport([&] {
                     const QString error =
                         m_window->importKnnGraph(QString::fromStdString(file("graph.npy")));
                     // Read on a worker thread: nothing is shown yet, and the panel is busy.
                     if (!panel()->isBusy() || panel()->lastRun())
                         return QStringLiteral("imported on the GUI thread");
                     return error;
                 }),
                 QString());
        QTRY_VERIFY(!knnDock->visibleRegion().isEmpty());  // as --run does: the panel in front
        const auto run = panel()->lastRun();
        QVERIFY(run);
        QCOMPARE(run->graph->n, kRows - 2);
        QCOMPARE(run->graph->k, kK);
        QCOMPARE(run->graph->indices, m_written.indices);
        QVERIFY(bitwiseEqual(run->graph->distances, m_written.distances));
        QCOMPARE(run->graph->treesBuilt, 0);
        QCOMPARE(run->importedFrom, QString::fromStdString(file("graph.npy")));
        QCOMPARE(run->params.k, kK);
        // k shows the graph's, and setting it ran nothing.
        QCOMPARE(panel()->kSpin()->value(), kK);
        QVERIFY(!panel()->isBusy());
        // The view draws exactly its edges, as after a run.
        QVERIFY(view()->edges().owner == run->graph);
        QCOMPARE(view()->readEdgeBuffer(),
                 cs::edgeIndexPairs(cs::knnEdges(std::make_shared<const cs::KnnGraph>(m_written))));
        QTRY_VERIFY_WITH_TIMEOUT(view()->isContentDrawn(), 10000);
        QCOMPARE(view()->edgeCount(), (kRows - 2) * std::size_t(kK));
        // Imported, not a recall of 0.
        const QString stats = panel()->statisticsLabel()->text();
        QVERIFY2(stats.startsWith(QLatin1String("Imported from graph.npy")), qPrintable(stats));
        QVERIFY2(!stats.contains(QLatin1String("recall: 0")), qPrintable(stats));
        QVERIFY(!panel()->recallLabel()->isVisibleTo(panel()));
        QVERIFY(panel()->warningLabel()->text().isEmpty());
        QVERIFY(
            logged(QStringLiteral("imported from ") + QString::fromStdString(file("graph.npy"))));
        QVERIFY(panel()->parameterText().startsWith(QLatin1String("knn k=5 imported=")));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 10000);
    }

    void badFileKeepsThePreviousGraph() {
        const auto before = panel()->lastRun();
        QVERIFY(before);
        const auto edges = view()->readEdgeBuffer();
        // A graph of another cloud: 599 rows against 600.
        std::vector<std::int32_t> other((kRows - 1) * kK, 1);
        cs::io::writeNpy(file("other.npy"), std::span<const std::int32_t>(other),
                         {kRows - 1, std::size_t(kK)});
        const QString error = finishImport(
            [&] { return panel()->importGraph(QString::fromStdString(file("other.npy"))); });
        QVERIFY2(error.contains(QLatin1String("has 599 rows")) &&
                     error.contains(QLatin1String("has 600")),
                 qPrintable(error));
        QCOMPARE(panel()->lastRun(), before);
        QVERIFY(view()->edges().owner == before->graph);
        QCOMPARE(view()->readEdgeBuffer(), edges);
        const QString warning = panel()->warningLabel()->text();
        QVERIFY2(
            warning.contains(QLatin1String("other.npy")) && warning.contains(QLatin1String("599")),
            qPrintable(warning));
        QVERIFY(panel()->warningLabel()->isVisibleTo(panel()));
        QVERIFY(logged(QStringLiteral("Importing the kNN graph other.npy failed")));
        // Not a graph at all.
        QVERIFY(!finishImport([&] {
                     return panel()->importGraph(QString::fromStdString(file("cloud.npy")));
                 }).isEmpty());
        QCOMPARE(panel()->lastRun(), before);
        QVERIFY(panel()->statisticsLabel()->text().startsWith(QLatin1String("Imported from")));
    }

    void withoutDistancesTheyAreMeasured() {
        // Only the indices: graph_distances.npy's counterpart is absent.
        const auto indices = cs::io::readNpyInt32(file("graph.npy"));
        cs::io::writeNpy(file("bare.npy"), std::span<const std::int32_t>(indices.values),
                         indices.shape);
        QVERIFY(!QFileInfo::exists(m_tmp.filePath(QStringLiteral("bare_distances.npy"))));
        QCOMPARE(finishImport([&] {
                     return panel()->importGraph(QString::fromStdString(file("bare.npy")));
                 }),
                 QString());
        QCOMPARE(panel()->lastRun()->graph->indices, m_written.indices);
        // The same canonical float distance on the same recentred coordinates: bit for bit.
        QVERIFY(bitwiseEqual(panel()->lastRun()->graph->distances, m_written.distances));
    }

    void aParameterChangeBuildsAGraphAgain() {
        QVERIFY(!panel()->lastRun()->importedFrom.isEmpty());
        panel()->setLeafSize(64);
        panel()->setK(4);
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isBusy() && panel()->lastRun() &&
                                     panel()->lastRun()->importedFrom.isEmpty() &&
                                     panel()->lastRun()->graph->k == 4,
                                 60000);
        QCOMPARE(panel()->lastRun()->graph->k, 4);
        QVERIFY(panel()->statisticsLabel()->text().startsWith(QLatin1String("Trees built")));
        QVERIFY(view()->edges().owner == panel()->lastRun()->graph);
    }

    void importCancelsARunInFlight() {
        // The change submits a run at once; the import right after must stay on screen.
        panel()->setK(6);
        QVERIFY(panel()->isBusy());
        QCOMPARE(panel()->importGraph(QString::fromStdString(file("graph.npy"))), QString());
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isBusy(), 60000);
        QTest::qWait(200);  // a stale outcome would land by now
        QVERIFY(!panel()->lastRun()->importedFrom.isEmpty());
        QCOMPARE(panel()->kSpin()->value(), kK);
        QCOMPARE(panel()->lastRun()->graph->indices, m_written.indices);
        QVERIFY(view()->edges().owner == panel()->lastRun()->graph);
    }

    // A run asked for while a graph is being read: the run is the later word, and the graph
    // never shows.
    void aRunAskedForDuringTheReadWins() {
        QSignalSpy done(panel(), &KnnPanel::importFinished);
        QCOMPARE(panel()->importGraph(QString::fromStdString(file("graph.npy"))), QString());
        panel()->setK(4);  // submits at once, before the read's end is processed
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isBusy() && panel()->lastRun(), 60000);
        QTest::qWait(1000);  // a stale import would land by now
        QCOMPARE(done.count(), 0);
        QVERIFY(panel()->lastRun()->importedFrom.isEmpty());
        QCOMPARE(panel()->lastRun()->graph->k, 4);
    }

    // New points while a graph is being read: that graph (of the points before) never shows,
    // and the panel is not left busy.
    void newPointsDropAGraphBeingRead() {
        QSignalSpy done(panel(), &KnnPanel::importFinished);
        QCOMPARE(panel()->importGraph(QString::fromStdString(file("graph.npy"))), QString());
        QVERIFY(panel()->isBusy());
        // No event is processed in between, so the read's end is still to come.
        panel()->setPointSet(view()->pointSet());
        QVERIFY(!panel()->isBusy());
        QTest::qWait(1000);
        QCOMPARE(done.count(), 0);
        QVERIFY(!panel()->hasResult());
    }

    void executableTakesGraph() {
        const QString png = m_tmp.filePath(QStringLiteral("import.png"));
        const QString csv = m_tmp.filePath(QStringLiteral("imported_knn.csv"));
        QProcess p;
        p.setProcessEnvironment(freshEnvironment(QStringLiteral("good")));
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {m_cloud, "--graph", QString::fromStdString(file("graph.npy")), "--export", csv,
                 "--screenshot", png, "--window-size", "1280x720", "--quit"});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(!QImage(png).isNull());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.at(0).startsWith(QLatin1String("# knn k=5 imported=")),
                 qPrintable(lines.at(0)));
        QCOMPARE(std::size_t(lines.size()), (kRows - 2) * std::size_t(kK) + 2);

        // A graph of other points: refused, non-zero exit, the reason on stderr.
        QProcess bad;
        bad.setProcessEnvironment(freshEnvironment(QStringLiteral("bad")));
        bad.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                  {m_cloud, "--graph", QString::fromStdString(file("other.npy")), "--quit"});
        QVERIFY(bad.waitForFinished(120000));
        QVERIFY(bad.exitCode() != 0);
        const QString err = QString::fromLocal8Bit(bad.readAllStandardError());
        QVERIFY2(err.contains(QLatin1String("--graph")) && err.contains(QLatin1String("599 rows")),
                 qPrintable(err));

        // Without the cloud: a command-line error before any window.
        QProcess alone;
        alone.setProcessEnvironment(freshEnvironment(QStringLiteral("alone")));
        alone.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                    {"--graph", QString::fromStdString(file("graph.npy")), "--quit"});
        QVERIFY(alone.waitForFinished(60000));
        QCOMPARE(alone.exitCode(), 2);
        QVERIFY(QString::fromLocal8Bit(alone.readAllStandardError()).contains("--graph"));
    }

    void cleanupTestCase() { m_window.reset(); }
};

CS_GL_TEST_MAIN(TestKnnImport)
#include "tst_knn_import.moc"
