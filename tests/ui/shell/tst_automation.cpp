// SPDX-License-Identifier: MIT
// The GUI's command line run for real: an in-process run with a stand-in algorithm, and the real
// clusterscope executable end to end (needs GL; parsing and the registry's checks, which do
// not, are in tst_automation_options.cpp).
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "tests/ui/shell/automation_test_support.h"
#include "ui/panels/algorithm_registry.h"
#include "ui/shell/automation.h"
#include "ui/shell/main_window.h"
#include "ui/shell/view_benchmark.h"
#include "ui/views/points/point_cloud_view.h"

using cs::test::FakeAlgorithm;
using cs::test::parse;
using cs::ui::AlgorithmRegistry;
using cs::ui::Automation;

namespace {

bool notBlank(const QImage& image) {
    if (image.isNull()) return false;
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    return colours.size() > 20;
}

}  // namespace

class TestAutomation : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    QProcessEnvironment childEnvironment() const {
        auto env = QProcessEnvironment::systemEnvironment();
        // The child's settings must not touch the user's (nor another test run's).
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        // Nor its autosave and crash marker.
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("data")));
        return env;
    }
    struct Run {
        int exitCode = -1;
        QString stdErr;
    };
    Run runClusterscope(const QStringList& args) {
        QProcess p;
        p.setProcessEnvironment(childEnvironment());
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE), args);
        if (!p.waitForFinished(300000)) {
            p.kill();
            p.waitForFinished();
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromLocal8Bit(p.readAllStandardError())};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
    }

    void runsInProcess() {
        FakeAlgorithm fake;
        cs::ui::MainWindow window;
        window.algorithms().add(fake.spec());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString shot = m_tmp.filePath(QStringLiteral("inprocess.png"));
        auto o = parse({"--demo-points", "3000", "--param", "fake.eps=0.25", "--param",
                        "fake.metric=cosine", "--run", "fake", "--screenshot", shot, "--quit",
                        "--window-size", "900x600"});
        QVERIFY(o);
        Automation automation(window, *o);
        QSignalSpy finished(&automation, &Automation::finished);
        automation.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(finished.front().front().toInt(), 0);
        QCOMPARE(automation.error(), QString());
        QCOMPARE(std::get<double>(fake.values.at("eps")), 0.25);
        QCOMPARE(std::get<std::string>(fake.values.at("metric")), std::string("cosine"));
        QCOMPARE(fake.runs, 1);
        QCOMPARE(fake.busyPolls, 0);  // waited until the job was done
        QCOMPARE(window.pointView()->pointCount(), std::size_t(3000));
        const QImage image(shot);
        QCOMPARE(image.size(), QSize(900, 600) * window.devicePixelRatio());
        QVERIFY(notBlank(image));
    }

    void cameraColoursAndEdgesInProcess() {
        // --view, --colour-map, --colour-range and --edges reach the point view.
        cs::ui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto o = parse({"--demo-points", "3000", "--param", "knn.k=5", "--run", "knn", "--view",
                        "top", "--colour-map", "magma", "--colour-range", "p5:p95", "--edges",
                        "points,over,min=0.25,max=1.5,opacity=0.9,map=diverging", "--quit",
                        "--window-size", "900x600"});
        QVERIFY(o);
        Automation automation(window, *o);
        QSignalSpy finished(&automation, &Automation::finished);
        automation.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(automation.error(), QString());
        QCOMPARE(finished.front().front().toInt(), 0);
        const cs::ui::PointCloudView* view = window.pointView();
        QCOMPARE(view->camera().pitch(), cs::ui::OrbitCamera::kMaxPitch);
        QCOMPARE(view->scalarStyle().map, cs::ui::ColourMaps::Map::Magma);
        QCOMPARE(view->scalarStyle().rangeText(), QStringLiteral("p5:p95"));
        QCOMPARE(view->edges().edgeCount(), std::size_t(3000 * 5));
        QCOMPARE(view->edgeColouring(), cs::ui::PointCloudView::EdgeColouring::Points);
        QVERIFY(view->edgesOverPoints());
        QCOMPARE(view->edgeMap(), cs::ui::ColourMaps::Map::Diverging);
        QCOMPARE(view->edgeLengthMinimum(), 0.25);
        QCOMPARE(view->edgeLengthMaximum(), 1.5);
        QCOMPARE(view->edgeOpacity(), 0.9f);

        // --edges without a graph to style is a failure, said so.
        cs::ui::MainWindow bare;
        bare.show();
        o = parse({"--demo-points", "1000", "--edges", "over", "--quit"});
        Automation noGraph(bare, *o);
        QSignalSpy noGraphFinished(&noGraph, &Automation::finished);
        noGraph.start();
        QTRY_COMPARE_WITH_TIMEOUT(noGraphFinished.count(), 1, 60000);
        QCOMPARE(noGraphFinished.front().front().toInt(), 1);
        QVERIFY2(noGraph.error().contains(QLatin1String("--edges: there is no kNN graph")),
                 qPrintable(noGraph.error()));
    }

    void failingLoadExitsNonZeroInProcess() {
        cs::ui::MainWindow window;
        window.show();
        auto o = parse({m_tmp.filePath(QStringLiteral("nope.pcd")), "--quit"});
        Automation automation(window, *o);
        QSignalSpy finished(&automation, &Automation::finished);
        automation.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QCOMPARE(finished.front().front().toInt(), 1);
        // An unknown algorithm ends it at once with the usage status, even without --quit.
        o = parse({"--run", "hdbscan"});
        Automation refused(window, *o);
        QSignalSpy refusedFinished(&refused, &Automation::finished);
        refused.start();
        QTRY_COMPARE(refusedFinished.count(), 1);
        QCOMPARE(refusedFinished.front().front().toInt(), Automation::kUsageError);
        QVERIFY(refused.error().contains(QLatin1String("unknown algorithm 'hdbscan'")));
    }

    void endToEndScreenshot() {
        const QString shot = m_tmp.filePath(QStringLiteral("x.png"));
        const Run run = runClusterscope({"--demo-points", "20000", "--screenshot", shot, "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        QVERIFY2(run.stdErr.contains(QLatin1String("GL_RENDERER: ")), qPrintable(run.stdErr));
        const QImage image(shot);
        QVERIFY(!image.isNull());
        QVERIFY(notBlank(image));
    }

    void endToEndMeasurements() {
        // --measure: frames while orbiting and eps changes to screen, on both colour paths, in a
        // JSON report. The child runs on the backend "auto" picks on this machine: the first
        // available of this build's registry (cuda on a GPU machine, else cpu).
        QString expectedBackend;
        for (const auto& status : cs::backendRegistry().statuses())
            if (status.available) {
                expectedBackend = QString::fromStdString(status.name);
                break;
            }
        QVERIFY(!expectedBackend.isEmpty());
        const QString report = m_tmp.filePath(QStringLiteral("m.json"));
        const Run run = runClusterscope({"--demo-points", "20000", "--run", "dbscan", "--measure",
                                         report, "--window-size", "900x700", "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject j = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(j[QStringLiteral("points")].toDouble(), 20000.0);
        QVERIFY(!j[QStringLiteral("glRenderer")].toString().isEmpty());
        const QJsonObject frames = j[QStringLiteral("frames")].toObject();
        const QJsonObject draw = frames[QStringLiteral("drawMs")].toObject();
        QVERIFY(draw[QStringLiteral("count")].toInt() >= cs::ui::ViewBenchmark::kFrames);
        QVERIFY(draw[QStringLiteral("median")].toDouble() > 0.0);
        QVERIFY(
            frames[QStringLiteral("intervalMs")].toObject()[QStringLiteral("median")].toDouble() >=
            draw[QStringLiteral("min")].toDouble());
        // Under the level of detail's budget every frame draws every point.
        QCOMPARE(frames[QStringLiteral("pointsDrawnMoving")]
                     .toObject()[QStringLiteral("median")]
                     .toDouble(),
                 20000.0);
        QCOMPARE(frames[QStringLiteral("pointsDrawnAtRest")].toDouble(), 20000.0);
        QVERIFY(frames[QStringLiteral("lodBudget")].toDouble() > 0);
        const QJsonObject changes = j[QStringLiteral("paramToScreen")].toObject();
        // Every series reports every stage, finite, and the stages add up to the total.
        const QStringList stageKeys{"changeToJobStartMs", "jobMs",           "jobToDeliveredMs",
                                    "deliveredToShownMs", "resultToPaintMs", "paintMs",
                                    "paintToSwapMs"};
        for (const QString& series : {QStringLiteral("interop"), QStringLiteral("host"),
                                      QStringLiteral("minPts"), QStringLiteral("knnK")}) {
            const QJsonObject p = changes[series].toObject();
            QVERIFY2(!p.isEmpty(), qPrintable(series));
            QCOMPARE(p[QStringLiteral("totalMs")].toObject()[QStringLiteral("count")].toInt(),
                     cs::ui::ViewBenchmark::kChangesPerPath);
            double sum = 0.0;
            for (const QString& key : stageKeys) {
                const QJsonObject stage = p[key].toObject();
                QCOMPARE(stage[QStringLiteral("count")].toInt(),
                         cs::ui::ViewBenchmark::kChangesPerPath);
                const double median = stage[QStringLiteral("median")].toDouble(-1.0);
                QVERIFY2(std::isfinite(median) && median >= 0.0,
                         qPrintable(QStringLiteral("%1 %2: %3").arg(series, key).arg(median)));
                QVERIFY(stage[QStringLiteral("max")].toDouble() <
                        p[QStringLiteral("totalMs")].toObject()[QStringLiteral("max")].toDouble() +
                            1e-6);
                sum += median;
            }
            QVERIFY2(sum > 0.0, qPrintable(series));
            // The wait for the paint splits into the event loop's turn and the other widgets.
            const double waitMax =
                p[QStringLiteral("resultToPaintMs")].toObject()[QStringLiteral("max")].toDouble();
            for (const QString& key : {QStringLiteral("resultToUpdateRequestMs"),
                                       QStringLiteral("updateRequestToPaintMs")}) {
                const QJsonObject part = p[key].toObject();
                QCOMPARE(part[QStringLiteral("count")].toInt(),
                         cs::ui::ViewBenchmark::kChangesPerPath);
                const double median = part[QStringLiteral("median")].toDouble(-1.0);
                QVERIFY2(median >= 0.0 && part[QStringLiteral("max")].toDouble() <= waitMax + 1e-6,
                         qPrintable(QStringLiteral("%1 %2: %3").arg(series, key).arg(median)));
            }
        }
        const QJsonObject drag = j[QStringLiteral("drag")].toObject();
        QCOMPARE(drag[QStringLiteral("positions")].toInt(), cs::ui::ViewBenchmark::kDragPositions);
        QVERIFY(drag[QStringLiteral("landed")].toInt() >= 1);
        QVERIFY(drag[QStringLiteral("landed")].toInt() <= cs::ui::ViewBenchmark::kDragPositions);
        QCOMPARE(drag[QStringLiteral("stale")].toInt(), 0);
        QVERIFY(drag[QStringLiteral("finalMatches")].toBool());
        const double lastToScreen = drag[QStringLiteral("lastToScreenMs")].toDouble(-1.0);
        QVERIFY2(std::isfinite(lastToScreen) && lastToScreen >= 0.0,
                 qPrintable(QString::number(lastToScreen)));
        for (const QString& path : {QStringLiteral("interop"), QStringLiteral("host")}) {
            const QJsonObject p = changes[path].toObject();
            QCOMPARE(p[QStringLiteral("totalMs")].toObject()[QStringLiteral("count")].toInt(),
                     cs::ui::ViewBenchmark::kChangesPerPath);
            // The result arrives before its frame is on screen, and after its job ran.
            const double total =
                p[QStringLiteral("totalMs")].toObject()[QStringLiteral("median")].toDouble();
            const double result =
                p[QStringLiteral("resultMs")].toObject()[QStringLiteral("median")].toDouble();
            const double job =
                p[QStringLiteral("jobMs")].toObject()[QStringLiteral("median")].toDouble();
            QVERIFY2(job > 0 && result >= job && total >= result,
                     qPrintable(QStringLiteral("%1: job %2, result %3, total %4")
                                    .arg(path)
                                    .arg(job)
                                    .arg(result)
                                    .arg(total)));
            // Forced to the host path: always host. Interop allowed: only CUDA results can be
            // painted on the device, and CUDA-GL interop may still be missing there.
            const QString colourPath = p[QStringLiteral("colourPath")].toString();
            if (path == QLatin1String("host") || expectedBackend != QLatin1String("cuda"))
                QCOMPARE(colourPath, QStringLiteral("host"));
            else
                QVERIFY2(
                    colourPath == QLatin1String("interop") || colourPath == QLatin1String("host"),
                    qPrintable(colourPath));
        }
        QCOMPARE(j[QStringLiteral("backend")].toString(), expectedBackend);
    }

    void endToEndExport() {
        // --export writes what File ▸ Export does: here the DBSCAN labels, one row per point.
        const QString labels = m_tmp.filePath(QStringLiteral("labels.csv"));
        const Run run = runClusterscope({"--demo-points", "5000", "--param", "dbscan.eps=4",
                                         "--run", "dbscan", "--export", labels, "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        QFile file(labels);
        QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines =
            QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.front().startsWith(QLatin1String("#")) &&
                     lines.front().contains(QLatin1String("eps=4")),
                 qPrintable(lines.front()));
        int rows = 0;
        for (const QString& line : lines)
            rows += !line.startsWith(QLatin1Char('#')) && line.count(QLatin1Char(',')) == 2 &&
                    line.front().isDigit();
        QCOMPARE(rows, 5000);
        // No labels yet without a run: a clear failure, exit status 1.
        const Run none = runClusterscope({"--demo-points", "1000", "--export",
                                          m_tmp.filePath(QStringLiteral("none.csv")), "--quit"});
        QCOMPARE(none.exitCode, 1);
        QVERIFY2(none.stdErr.contains(QLatin1String("no DBSCAN labels")), qPrintable(none.stdErr));
    }

    void endToEndSession() {
        // --save-session after the runs; --session (or the exported PNG as FILE) brings the same
        // methods and views back, saved again identically.
        const QString first = m_tmp.filePath(QStringLiteral("first.session.json"));
        const QString shot = m_tmp.filePath(QStringLiteral("first.png"));
        Run run = runClusterscope({"--demo-points", "4000", "--param", "dbscan.eps=3.5", "--param",
                                   "knn.k=7", "--run", "dbscan", "--save-session", first,
                                   "--screenshot", shot, "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        auto read = [](const QString& path) {
            QFile file(path);
            [&] { QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path)); }();
            return QJsonDocument::fromJson(file.readAll()).object();
        };
        const QJsonObject saved = read(first);
        const QJsonObject dbscan =
            saved[QStringLiteral("methods")][QStringLiteral("dbscan")].toObject();
        QCOMPARE(dbscan[QStringLiteral("parameters")][QStringLiteral("eps")].toDouble(), 3.5);
        QVERIFY(dbscan[QStringLiteral("hasResult")].toBool());
        QCOMPARE(
            saved[QStringLiteral("data")][QStringLiteral("points")][QStringLiteral("demoPoints")]
                .toInt(),
            4000);

        for (const QStringList& open : {QStringList{"--session", first}, QStringList{shot}}) {
            const QString again = m_tmp.filePath(QStringLiteral("again.session.json"));
            run = runClusterscope(open + QStringList{"--save-session", again, "--quit"});
            QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
            const QJsonObject back = read(again);
            QCOMPARE(back[QStringLiteral("methods")], saved[QStringLiteral("methods")]);
            QCOMPARE(back[QStringLiteral("view")], saved[QStringLiteral("view")]);
            QCOMPARE(back[QStringLiteral("data")], saved[QStringLiteral("data")]);
        }

        const QString broken = m_tmp.filePath(QStringLiteral("broken.session.json"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"clusterscope-session\", \"version\": 1, \"da");
        file.close();
        run = runClusterscope({"--session", broken, "--quit"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stdErr.contains(QLatin1String("broken.session.json")) &&
                     run.stdErr.contains(QLatin1String("not valid JSON")),
                 qPrintable(run.stdErr));
    }

    void endToEndCrashRecovery() {
        // A run killed after its DBSCAN result leaves its crash marker and its autosave; the next
        // start restores it when --recover says so (never a dialog in a script).
        const QDir dataDir(m_tmp.filePath(QStringLiteral("data/Clusterscope/Clusterscope")));
        const QString autosave = dataDir.filePath(QStringLiteral("autosave.session.json"));
        const QString marker = dataDir.filePath(QStringLiteral("running.lock"));
        QProcess crashing;
        crashing.setProcessEnvironment(childEnvironment());
        crashing.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                       {"--demo-points", "3000", "--param", "dbscan.eps=3.25", "--run", "dbscan"});
        QVERIFY(crashing.waitForStarted());
        const auto autosaved = [&] {
            QFile file(autosave);
            if (!file.open(QIODevice::ReadOnly)) return false;
            const QJsonObject dbscan = QJsonDocument::fromJson(file.readAll())
                                           .object()[QStringLiteral("methods")]
                                           .toObject()[QStringLiteral("dbscan")]
                                           .toObject();
            return dbscan[QStringLiteral("hasResult")].toBool();
        };
        QTRY_VERIFY_WITH_TIMEOUT(autosaved(), 120000);
        crashing.kill();  // SIGKILL: no clean exit
        crashing.waitForFinished();
        QVERIFY(QFileInfo::exists(marker));

        const QString restored = m_tmp.filePath(QStringLiteral("restored.session.json"));
        Run run = runClusterscope({"--recover", "yes", "--save-session", restored, "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        QVERIFY2(run.stdErr.contains(QLatin1String("did not exit cleanly")),
                 qPrintable(run.stdErr));
        QFile file(restored);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
        const QJsonObject dbscan =
            root[QStringLiteral("methods")][QStringLiteral("dbscan")].toObject();
        QCOMPARE(dbscan[QStringLiteral("parameters")][QStringLiteral("eps")].toDouble(), 3.25);
        QVERIFY(dbscan[QStringLiteral("hasResult")].toBool());
        QCOMPARE(
            root[QStringLiteral("data")][QStringLiteral("points")][QStringLiteral("demoPoints")]
                .toInt(),
            3000);

        // That run exited cleanly: nothing is left to recover.
        QVERIFY(!QFileInfo::exists(autosave));
        run = runClusterscope({"--demo-points", "500", "--quit"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
        QVERIFY2(!run.stdErr.contains(QLatin1String("did not exit cleanly")),
                 qPrintable(run.stdErr));
    }

    void endToEndFailures() {
        const QString missing = m_tmp.filePath(QStringLiteral("no-such-cloud.pcd"));
        Run run = runClusterscope({missing, "--quit"});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.stdErr.contains(QLatin1String("no-such-cloud.pcd")), qPrintable(run.stdErr));

        run = runClusterscope({"--demo-points", "1000", "--run", "hdbscan", "--quit"});
        QCOMPARE(run.exitCode, Automation::kUsageError);
        QVERIFY2(run.stdErr.contains(QLatin1String(
                     "unknown algorithm 'hdbscan' (available: dbscan, knn, rocket, kshape)")),
                 qPrintable(run.stdErr));

        run = runClusterscope({"--param", "hdbscan.k=3", "--quit"});
        QCOMPARE(run.exitCode, Automation::kUsageError);
        QVERIFY(run.stdErr.contains(QLatin1String("unknown algorithm 'hdbscan'")));

        run = runClusterscope(
            {"--demo-points", "1000", "--screenshot", "/nonexistent-folder/x.png", "--quit"});
        QCOMPARE(run.exitCode, Automation::kUsageError);
        QVERIFY(run.stdErr.contains(QLatin1String("/nonexistent-folder/x.png")));

        // Valid on its own, refused by the panel with these data (leaf size below 2 (k + 1)):
        // the run fails, the exit status says so, the screenshot is still written.
        const QString refusedShot = m_tmp.filePath(QStringLiteral("refused.png"));
        run = runClusterscope({"--demo-points", "2000", "--param", "knn.k=20", "--param",
                               "knn.leafSize=30", "--run", "knn", "--screenshot", refusedShot,
                               "--quit"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stdErr.contains(QLatin1String("a run failed")) &&
                     run.stdErr.contains(QLatin1String("leafSize")),
                 qPrintable(run.stdErr));
        QVERIFY(QFileInfo::exists(refusedShot));

        run = runClusterscope({"--version"});
        QCOMPARE(run.exitCode, 0);
    }
};

CS_GL_TEST_MAIN(TestAutomation)
#include "tst_automation.moc"
