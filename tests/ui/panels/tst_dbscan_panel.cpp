// SPDX-License-Identifier: MIT
// The DBSCAN panel through the GUI: its labels equal a direct CPU run, the eps controls stay in
// sync, export reads back, and the real executable runs DBSCAN from the command line.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextStream>
#include <QtTest>
#include <algorithm>
#include <numeric>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/dbscan/dbscan_sweep.h"
#include "compute/dbscan/eps_suggestion.h"
#include "tests/common/json_at.h"
#include "tests/common/test_paths.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/dbscan/k_distance_chart.h"
#include "ui/panels/dbscan/sweep_heatmap.h"
#include "ui/shell/main_window.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/point_cloud_view.h"

using cs::ui::DbscanPanel;

class TestDbscanPanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<cs::ui::MainWindow> m_window;

    DbscanPanel* panel() { return m_window->dbscanPanel(); }
    bool settled() { return !panel()->isBusy() && panel()->lastRun(); }
    // For the executable: settings and data folders of the test's own.
    QProcessEnvironment ownSettings() const {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("data")));
        return env;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<cs::ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        m_window->openDemoPoints(20000);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->pointView()->pointCount() == 20000, 30000);
        // The knee of the k-distance curve presets eps; loading alone runs nothing.
        QTRY_VERIFY_WITH_TIMEOUT(panel()->suggestedEps() > 0 && !panel()->isBusy(), 60000);
        QVERIFY(!panel()->lastRun());
        panel()->run();
        QTRY_VERIFY_WITH_TIMEOUT(settled(), 60000);
        QCOMPARE(panel()->lastRun()->params.eps, float(panel()->epsSpin()->value()));
    }

    void labelsMatchADirectRun() {
        panel()->minPtsSpin()->setValue(8);
        panel()->epsSpin()->setValue(7.5);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun()->params.minPts == 8 &&
                                     panel()->lastRun()->params.eps == 7.5f,
                                 60000);
        const auto run = panel()->lastRun();
        cs::JobControl job;
        const auto points = m_window->pointView()->pointSet();
        const cs::DbscanResult direct =
            cs::backendRegistry().get("cpu")->dbscan(*points, {.eps = 7.5f, .minPts = 8}, job);
        QCOMPARE(run->result.labels, direct.labels);
        QCOMPARE(run->result.isCore, direct.isCore);
        QVERIFY(direct.clusterCount >= 3);
        QCOMPARE(panel()->statisticsLabel()->text(), DbscanPanel::statisticsText(direct));
        // The view shows the clusters: one colour per point, noise de-emphasised.
        const auto colours = m_window->pointView()->colours();
        QCOMPARE(colours.size(), direct.labels.size());
        for (std::size_t i = 0; i < colours.size(); i += 97)
            QCOMPARE(colours[i] >> 24,
                     direct.labels[i] < 0 ? cs::ui::ColourMaps::kBehindAlpha : 255u);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 10000);
    }

    // Many clusters: the legend lists the 12 largest (largest first, ties by the lower id), one
    // line sums up the rest, and noise comes last; counts from the run's statistics.
    void legendListsTheLargestClusters() {
        panel()->minPtsSpin()->setValue(4);
        for (const double eps : {3.0, 2.0, 1.5, 1.0, 0.7}) {
            panel()->epsSpin()->setValue(eps);
            QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun()->params.eps == float(eps) &&
                                         panel()->lastRun()->params.minPts == 4,
                                     60000);
            if (panel()->lastRun()->result.clusterCount > 20) break;
        }
        const cs::DbscanResult& r = panel()->lastRun()->result;
        QVERIFY2(r.clusterCount > 20, qPrintable(QString::number(r.clusterCount)));
        const auto& sizes = r.stats.clusterSizes;
        std::vector<std::int32_t> order(sizes.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
            return sizes[std::size_t(a)] > sizes[std::size_t(b)];
        });
        const cs::ui::Legend& legend = m_window->pointView()->legend();
        QCOMPARE(legend.entries.size(), std::size_t(14));
        std::size_t listed = 0;
        for (std::size_t i = 0; i < 12; ++i) {
            QCOMPARE(legend.entries[i].category, std::optional<std::int32_t>(order[i]));
            QCOMPARE(legend.entries[i].count, sizes[std::size_t(order[i])]);
            listed += legend.entries[i].count;
        }
        QVERIFY(!legend.entries[12].category);
        QVERIFY(legend.entries[12].name.contains(QString::number(sizes.size() - 12)));
        QCOMPARE(legend.entries[12].count + listed,
                 std::accumulate(sizes.begin(), sizes.end(), std::size_t(0)));
        QCOMPARE(legend.entries[13].category, std::optional<std::int32_t>(-1));
        QCOMPARE(legend.entries[13].count, r.stats.noisePoints);
        // Back to the parameters the next tests start from.
        panel()->minPtsSpin()->setValue(8);
        panel()->epsSpin()->setValue(7.5);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun()->params.minPts == 8 &&
                                     panel()->lastRun()->params.eps == 7.5f,
                                 60000);
    }

    // A run quicker than the progress row's delay never shows it: the panel does not relayout
    // twice (and the window present two extra frames) for a run the user cannot follow.
    void quickRunsShowNoProgressRow() {
        struct ShowCounter : QObject {
            int shows = 0;
            bool eventFilter(QObject*, QEvent* e) override {
                if (e->type() == QEvent::Show) ++shows;
                return false;
            }
        } counter;
        QProgressBar* bar = panel()->progressBar();
        bar->installEventFilter(&counter);
        QSignalSpy finished(m_window->jobRunner(), &cs::ui::JobRunner::finished);
        panel()->setEps(panel()->epsSpin()->value() * 1.02);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && !finished.isEmpty(), 60000);
        QTest::qWait(cs::ui::AlgorithmPanel::kProgressDelayMs + 50);
        bar->removeEventFilter(&counter);
        QVERIFY(bar->isHidden());
        const double ms = finished.back().front().value<cs::ui::JobOutcome>().milliseconds;
        // A machine too busy to run 20,000 points in 150 ms may rightly show it.
        if (ms < cs::ui::AlgorithmPanel::kProgressDelayMs - 100)
            QCOMPARE(counter.shows, 0);
        else
            qWarning("the run took %.0f ms: the progress row may show", ms);
    }

    void clustersAreAColourByEntry() {
        // The panel's colouring is an entry of the window's Colour by, offered by the panel
        // (AlgorithmPanel::pointColouringTitle), not by the window knowing DBSCAN.
        QVERIFY(settled());
        auto* box = m_window->findChild<QComboBox*>(QStringLiteral("colourBox"));
        QVERIFY(box);
        const int clusters = box->findData(QStringLiteral("panel:dbscan"));
        QVERIFY(clusters >= 0);
        QCOMPARE(box->itemText(clusters), QStringLiteral("clusters (DBSCAN)"));
        QCOMPARE(box->currentIndex(), clusters);
        const auto shown = [&] {
            const auto c = m_window->pointView()->colours();
            return std::vector<std::uint32_t>(c.begin(), c.end());
        };
        const auto painted = shown();
        // Another colouring, then the clusters again: the same colours, not recomputed.
        const int z = box->findData(QStringLiteral("dim:2"));
        QVERIFY2(z >= 0, "no Colour by entry for the z coordinate");
        box->setCurrentIndex(z);
        emit box->activated(z);  // as a user's pick
        QCOMPARE(m_window->pointView()->colourBy(), QStringLiteral("dim:2"));
        QVERIFY(shown() != painted);
        const auto before = panel()->lastRun();
        box->setCurrentIndex(clusters);
        emit box->activated(clusters);
        QCOMPARE(m_window->pointView()->colourBy(), QStringLiteral("custom"));
        QCOMPARE(shown(), painted);
        QCOMPARE(panel()->lastRun(), before);
        QCOMPARE(box->currentIndex(), clusters);
    }

    void epsControlsStayInSync() {
        DbscanPanel* p = panel();
        p->epsSpin()->setValue(3.25);
        QCOMPARE(p->epsSlider()->value(), p->sliderPosition(3.25));
        QCOMPARE(p->chart()->eps(), 3.25);
        QCOMPARE(p->params().eps, 3.25f);

        p->epsSlider()->setValue(600);
        const double fromSlider = p->sliderEps(600);
        QVERIFY(std::abs(p->epsSpin()->value() - fromSlider) <= fromSlider * 1e-3);
        QCOMPARE(p->chart()->eps(), p->epsSpin()->value());

        QVERIFY(p->chart()->hasCurve());
        const QPoint at(p->chart()->width() / 2, p->chart()->height() / 3);
        QTest::mousePress(p->chart()->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseRelease(p->chart()->viewport(), Qt::LeftButton, {}, at);
        const double dragged = p->chart()->eps();
        QVERIFY(std::abs(p->epsSpin()->value() - dragged) <= std::max(1e-4, dragged * 1e-3));
        QCOMPARE(p->epsSlider()->value(), p->sliderPosition(p->epsSpin()->value()));
        QTRY_VERIFY_WITH_TIMEOUT(settled(), 60000);
        QCOMPARE(p->lastRun()->params.eps, float(p->epsSpin()->value()));
    }

    void exportWritesLabels() {
        const QString path = m_tmp.filePath(QStringLiteral("labels.csv"));
        QCOMPARE(m_window->exportTo(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        const auto& r = panel()->lastRun()->result;
        QVERIFY(lines.front().startsWith(QLatin1String("# dbscan eps=")));
        QCOMPARE(std::size_t(lines.size()),
                 r.labels.size() + 1 + (lines.at(1).startsWith("index") ? 1 : 0));
        const int first = lines.at(1).startsWith("index") ? 2 : 1;
        for (std::size_t i = 0; i < r.labels.size(); i += 101) {
            const QStringList cols = lines.at(first + int(i)).split(',');
            QCOMPARE(cols.at(0).toULongLong(), qulonglong(i));
            QCOMPARE(cols.at(1).toInt(), r.labels[i]);
        }
        QCOMPARE(panel()->exportLabels(m_tmp.filePath(QStringLiteral("labels.npy"))), QString());
        QVERIFY(QFileInfo(m_tmp.filePath(QStringLiteral("labels.npy"))).size() >
                qint64(4 * r.labels.size()));
    }

    // The suggestion is the middle of the plateau of a sweep around the knee, as
    // suggestDbscanEps computes it for these points and this MinPts. On the CPU the sweep runs
    // when "Use suggested eps" is pressed (loading computes only the knee); with CUDA it comes
    // with the curve.
    void suggestionIsThePlateau() {
        const auto points = m_window->pointView()->pointSet();
        const int minPts = panel()->minPtsSpin()->value();
        QTest::mouseClick(panel()->suggestButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(panel()->isSuggestionSwept() && settled(), 120000);
        QCOMPARE(panel()->lastRun()->params.eps, float(panel()->epsSpin()->value()));
        cs::JobControl job;
        auto cpu = cs::backendRegistry().get("cpu");
        const auto kd = cpu->kDistance(*points, minPts, job);
        const cs::EpsSuggestion s =
            cs::suggestDbscanEps(*cpu, *points, kd.sorted, {.eps = 1.0f, .minPts = minPts}, job);
        QVERIFY(s.plateau.has_value());
        QCOMPARE(float(panel()->suggestedEps()), s.eps);
        QVERIFY(s.eps != s.knee);
    }

    // --use-suggested-eps presses the button once the curve is known and waits for the run with
    // the suggestion: the same eps as the button gave here, on the same points and MinPts.
    void executableUsesTheSuggestedEps() {
        QVERIFY(panel()->isSuggestionSwept());
        const double want = panel()->epsSpin()->value();
        const QProcessEnvironment env = ownSettings();
        const QString session = m_tmp.filePath(QStringLiteral("suggested.json"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {"--demo-points", "20000", "--param",
                 QStringLiteral("dbscan.minPts=%1").arg(panel()->minPtsSpin()->value()),
                 "--use-suggested-eps", "--save-session", session, "--quit"});
        QVERIFY(p.waitForFinished(300000));
        const QString err = QString::fromLocal8Bit(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("DBSCAN ran with the suggested eps")), qPrintable(err));
        QFile f(session);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray json = f.readAll();
        QVERIFY(cs::test::jsonAt(json, {"methods", "dbscan", "hasResult"}).toBool());
        const double eps =
            cs::test::jsonAt(json, {"methods", "dbscan", "parameters", "eps"}).toDouble();
        QVERIFY2(std::abs(eps / want - 1.0) < 1e-6,
                 qPrintable(QStringLiteral("%1 vs %2").arg(eps).arg(want)));

        QProcess bad;
        bad.setProcessEnvironment(env);
        bad.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                  {"--demo-series", "--use-suggested-eps", "--quit"});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(QString::fromLocal8Bit(bad.readAllStandardError()).contains("--use-suggested-eps"));
    }

    // Sweep: one job, heat maps of the three measures over the grid, a click applies the cell,
    // and the table exports.
    void sweepShowsHeatMapsAndAppliesACell() {
        DbscanPanel* p = panel();
        p->setMinPts(10);
        p->setEps(p->suggestedEps());
        QTRY_VERIFY_WITH_TIMEOUT(settled(), 60000);
        QVERIFY(!p->sweepHeatmap()->hasSweep());
        QTest::mouseClick(p->sweepButton(), Qt::LeftButton);
        QVERIFY(p->isSweeping() || p->sweepHeatmap()->hasSweep());
        QTRY_VERIFY_WITH_TIMEOUT(!p->isSweeping() && p->sweepHeatmap()->hasSweep(), 120000);
        const cs::DbscanSweepResult& sweep = p->sweepHeatmap()->sweep();
        QCOMPARE(sweep.eps.size(), std::size_t(16));
        QCOMPARE(sweep.minPts.front(), 3);
        QCOMPARE(sweep.minPts.back(), 20);
        QVERIFY(sweep.eps.front() < p->epsSpin()->value() &&
                sweep.eps.back() > p->epsSpin()->value());
        QVERIFY2(p->plateauLabel()->text().contains(QStringLiteral("MinPts 10:")),
                 qPrintable(p->plateauLabel()->text()));

        // Every measure colours the map from its own values.
        auto* map = p->sweepHeatmap();
        const cs::DbscanSweepCell& some = sweep.at(3, 7);
        const std::pair<int, double> measures[] = {
            {0, double(some.clusters)}, {1, some.noiseShare}, {2, some.largestShare}};
        for (const auto& [index, want] : measures) {
            p->sweepMeasureBox()->setCurrentIndex(index);
            emit p->sweepMeasureBox()->activated(index);
            QCOMPARE(map->value(some), want);
        }
        p->sweepMeasureBox()->setCurrentIndex(0);
        emit p->sweepMeasureBox()->activated(0);

        // A click on a cell runs DBSCAN with its parameters, which finds what the cell says.
        const std::size_t e = 2, m = 9;
        const cs::DbscanSweepCell cell = sweep.at(e, m);
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellCentre(e, m));
        QCOMPARE(p->minPtsSpin()->value(), cell.minPts);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && p->lastRun()->params.minPts == cell.minPts &&
                                     p->lastRun()->params.eps == float(p->epsSpin()->value()),
                                 60000);
        QVERIFY(std::abs(p->lastRun()->params.eps / cell.eps - 1.0f) < 1e-3f);
        cs::JobControl job;
        const auto points = m_window->pointView()->pointSet();
        const cs::DbscanResult direct = cs::backendRegistry().get("cpu")->dbscan(
            *points, {.eps = cell.eps, .minPts = cell.minPts}, job);
        QCOMPARE(cell.clusters, direct.clusterCount);
        QCOMPARE(p->lastRun()->result.clusterCount, direct.clusterCount);

        const QString path = m_tmp.filePath(QStringLiteral("demo_sweep.csv"));
        QCOMPARE(m_window->exportTo(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().toStdString(), cs::dbscanSweepCsv(sweep));
    }

    void executableSweeps() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        const QString table = m_tmp.filePath(QStringLiteral("auto_sweep.csv"));
        const QString png = m_tmp.filePath(QStringLiteral("sweep.png"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {"--demo-points", "20000", "--param", "dbscan.eps=8", "--param", "dbscan.minPts=10",
                 "--sweep", "dbscan", "--export", table, "--screenshot", png, "--window-size",
                 "1280x720", "--quit"});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QFile f(table);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QStringLiteral("eps,minPts,clusters,noise_share,largest_share"));
        QCOMPARE(lines.size(), 1 + 16 * 18);
        // Around eps 8: the grid spans 2 to 32, log-spaced.
        QCOMPARE(lines.at(1).section(',', 0, 0).toDouble(), 2.0);
        QCOMPARE(lines.last().section(',', 0, 1), QStringLiteral("32,20"));
        QVERIFY(!QImage(png).isNull());

        QProcess bad;
        bad.setProcessEnvironment(env);
        bad.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                  {"--demo-points", "1000", "--sweep", "knn", "--quit"});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(QString::fromLocal8Bit(bad.readAllStandardError()).contains("knn has no sweep"));
    }

    void executableRunsDbscan() {
        const QProcessEnvironment env = ownSettings();
        const QString png = m_tmp.filePath(QStringLiteral("dbscan.png"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                {"--demo-points", "20000", "--param", "dbscan.eps=8", "--param", "dbscan.minPts=10",
                 "--run", "dbscan", "--screenshot", png, "--window-size", "1200x800", "--quit"});
        QVERIFY(p.waitForFinished(300000));
        QCOMPARE(p.exitCode(), 0);
        QImage image(png);
        QVERIFY(!image.isNull());
        // Several palette colours on screen: the clusters are drawn, not just grey points.
        int coloursSeen = 0;
        for (int slot = 0; slot < 6; ++slot) {
            const QColor c = cs::ui::ColourMaps::categorical(slot);
            int hits = 0;
            for (int y = 0; y < image.height(); y += 2)
                for (int x = 0; x < image.width() * 3 / 4; x += 2) {
                    const QColor q = image.pixelColor(x, y);
                    hits += std::abs(q.red() - c.red()) + std::abs(q.green() - c.green()) +
                                std::abs(q.blue() - c.blue()) <
                            24;
                }
            coloursSeen += hits > 40;
        }
        QVERIFY2(coloursSeen >= 4, qPrintable(QString::number(coloursSeen)));

        QProcess bad;
        bad.setProcessEnvironment(env);
        bad.start(
            QStringLiteral(CS_CLUSTERSCOPE_EXE),
            {"--demo-points", "1000", "--param", "dbscan.eps=-1", "--run", "dbscan", "--quit"});
        QVERIFY(bad.waitForFinished(60000));
        QVERIFY(bad.exitCode() != 0);
        QVERIFY(QString::fromLocal8Bit(bad.readAllStandardError()).contains("eps"));
    }

    // MinPts in the thousands on 20,000 points costs seconds (kDistanceCostCpu: not costly): the
    // curve is computed at once, without asking.
    void cheapLargeKDistanceIsNotAsked() {
        QTRY_VERIFY_WITH_TIMEOUT(settled(), 60000);
        const auto points = m_window->pointView()->pointSet();
        QVERIFY(!cs::kDistanceCostCpu(points->n, points->dims, 5000).costly());
        cs::ui::JobRunner& runner = *m_window->jobRunner();
        QSignalSpy finished(&runner, &cs::ui::JobRunner::finished);
        panel()->setMinPts(5000);
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(finished.begin(), finished.end(),
                        [](const QList<QVariant>& a) {
                            return a.front().value<cs::ui::JobOutcome>().kind == "kdist";
                        }),
            120000);
        QVERIFY(!panel()->kDistanceConfirmButton()->isVisibleTo(panel()));
        panel()->setMinPts(8);
        QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun()->params.minPts == 8, 60000);
    }

    // A new user typed MinPts 100000 on cturtle (167k points): the k-distance curve for that k
    // takes minutes. It is not started without asking; once asked for, DBSCAN still runs at
    // once beside it (a lane of its own), Cancel stops it and keeps the results on screen, and
    // DBSCAN at MinPts 10 then runs at once.
    void expensiveKDistanceNeverHoldsUpDbscan() {
        const QString cturtle =
            QString::fromStdString(cs::test::sharedData("points/cturtle.pcd").string());
        if (!QFileInfo::exists(cturtle)) CS_QSKIP_MISSING_DATA("missing " + cturtle);
        m_window->openFile(cturtle);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->pointView()->pointCount() > 160000, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
        cs::ui::JobRunner& runner = *m_window->jobRunner();
        const QString kdist = QStringLiteral("kdist");
        panel()->setMinPts(100000);
        QTRY_VERIFY(panel()->kDistanceConfirmButton()->isVisibleTo(panel()));
        QVERIFY(!runner.isBusy(kdist));  // asked, not started
        // Why, in the words of the CLI's warning (one estimate for both).
        const auto turtle = m_window->pointView()->pointSet();
        const cs::JobCost cost = cs::kDistanceCostCpu(turtle->n, turtle->dims, 100000);
        QVERIFY(cost.costly());
        const QString why = QString::fromStdString(cost.text());
        QVERIFY2(panel()->kDistanceConfirmButton()->toolTip().contains(why),
                 qPrintable(panel()->kDistanceConfirmButton()->toolTip()));
        QVERIFY(panel()->statisticsLabel()->text().contains(why));
        QTest::mouseClick(panel()->kDistanceConfirmButton(), Qt::LeftButton);
        QVERIFY(runner.isBusy(kdist));
        QVERIFY(panel()->cancelButton()->isEnabled());

        // DBSCAN runs beside it and answers while the curve is still computing.
        QSignalSpy finished(&runner, &cs::ui::JobRunner::finished);
        panel()->setEps(panel()->epsSpin()->value() * 1.5);
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(finished.begin(), finished.end(),
                        [](const QList<QVariant>& a) {
                            return a.front().value<cs::ui::JobOutcome>().kind == "dbscan";
                        }),
            60000);
        QVERIFY2(runner.isBusy(kdist), "the k-distance curve ended before DBSCAN answered");
        // The MinPts change ran DBSCAN too: every run asked for answers before the curve ends.
        QTRY_VERIFY_WITH_TIMEOUT(!runner.isBusy(QStringLiteral("dbscan")), 60000);
        QVERIFY2(runner.isBusy(kdist), "the k-distance curve ended before DBSCAN answered");
        const auto before = panel()->lastRun();
        QVERIFY(before);

        // Cancel stops the curve (tst_cancellation measures how fast); the clusters stay.
        QElapsedTimer clock;
        clock.start();
        QTest::mouseClick(panel()->cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!runner.isBusy(kdist), 5000);
        qInfo("Cancel -> k-distance (k = 100000) answered cancelled in %lld ms", clock.elapsed());
        QCOMPARE(panel()->lastRun(), before);

        // And MinPts 10 runs at once.
        panel()->setMinPts(10);
        QTRY_VERIFY_WITH_TIMEOUT(panel()->lastRun() && panel()->lastRun()->params.minPts == 10,
                                 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel()->isBusy(), 60000);
    }

    // A stored MinPts that does not fit the points loaded is clamped to them, with a log line,
    // never run blind.
    void storedMinPtsIsClampedToThePoints() {
        QSettings().setValue(QStringLiteral("dbscan/minPts"), QStringLiteral("50000"));
        {
            cs::ui::MainWindow window;
            window.resize(1000, 700);
            window.show();
            QCOMPARE(window.dbscanPanel()->minPtsSpin()->value(), 50000);
            window.openDemoPoints(2000);
            QTRY_VERIFY_WITH_TIMEOUT(window.pointView()->pointCount() == 2000, 30000);
            QTRY_COMPARE(window.dbscanPanel()->minPtsSpin()->value(), 2000);
            QVERIFY(cs::test::logged(QStringLiteral("MinPts is set to 2000")));
            QTRY_VERIFY_WITH_TIMEOUT(!window.dbscanPanel()->isBusy(), 60000);
        }
        QSettings().setValue(QStringLiteral("dbscan/minPts"), QStringLiteral("10"));
    }

    // A cloud in units of 1e-30 or 1e30: the eps box shows and runs such an eps (a box with
    // fixed decimals turned 3e-31 into its minimum and gave one cluster of everything), the
    // suggested eps comes from the k-distance curve at that scale, and the labels are those of
    // the same cloud in units of 1.
    void cloudsAtAnyScale() {
        std::vector<float> unit;
        for (int blob = 0; blob < 3; ++blob)
            for (int i = 0; i < 400; ++i) {
                const double a = 0.61803398875 * i * 6.2831853, r = 0.02 * std::sqrt(double(i));
                unit.insert(unit.end(), {float(blob * 3 + r * std::cos(a)), float(r * std::sin(a)),
                                         float(0.01 * (i % 7))});
            }
        const auto reference = cs::PointSet::fromCoords(3, unit);
        cs::JobControl job;
        const cs::DbscanResult want =
            cs::backendRegistry().get("cpu")->dbscan(reference, {.eps = 0.25f, .minPts = 5}, job);
        QCOMPARE(want.clusterCount, 3);
        for (double scale : {1e-30, 1e30}) {
            const QString path = m_tmp.filePath(QStringLiteral("scaled_%1.csv").arg(scale));
            {
                QFile file(path);
                QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
                QTextStream out(&file);
                out << "x,y,z\n";
                for (std::size_t i = 0; i < unit.size(); i += 3)
                    out << QString::number(unit[i] * scale, 'g', 9) << ','
                        << QString::number(unit[i + 1] * scale, 'g', 9) << ','
                        << QString::number(unit[i + 2] * scale, 'g', 9) << '\n';
            }
            m_window->openFile(path);
            QTRY_VERIFY_WITH_TIMEOUT(
                m_window->pointView()->pointCount() == 1200 && m_window->isSettled(), 60000);
            const double suggested = panel()->suggestedEps();
            QVERIFY2(suggested > 0.01 * scale && suggested < 10 * scale,
                     qPrintable(QString::number(suggested)));
            const double eps = 0.25 * scale;
            panel()->setMinPts(5);
            panel()->epsSpin()->setValue(eps);
            QCOMPARE(panel()->epsSpin()->value(), eps);
            QVERIFY2(panel()->epsSpin()->text().contains(QLatin1Char('e')),
                     qPrintable(panel()->epsSpin()->text()));
            QTRY_VERIFY_WITH_TIMEOUT(settled() && panel()->lastRun()->params.eps == float(eps) &&
                                         panel()->lastRun()->params.minPts == 5,
                                     60000);
            QCOMPARE(panel()->lastRun()->result.labels, want.labels);
        }
    }

    void cleanupTestCase() { m_window.reset(); }
};

CS_GL_TEST_MAIN(TestDbscanPanel)
#include "tst_dbscan_panel.moc"
