// SPDX-License-Identifier: MIT
// Select ▸ Run on the selection only, for every method: the method runs on the selected points
// or series alone; its result maps back to the whole set (kNotRun for the rest, greyed in the
// point view), equals a direct run on the extracted items, the summary says "on N of M", the
// exports name the original rows, and Ctrl+Z brings back the full result. The automation's
// --select points=RANGES --run-on-selection ALGO does the same from the command line.
#include <QAction>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <set>

#include "app/common/register_backends.h"
#include "compute/backend/cpu_backend.h"
#include "compute/core/item_subset.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/knn/knn_descriptor.h"
#include "tests/ui/gui_test_main.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/rocket/rocket_panel.h"
#include "ui/shell/automation.h"
#include "ui/shell/main_window.h"
#include "ui/shell/selection_model.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/series_view.h"

using cs::ui::MainWindow;

namespace {

// The CSV's data rows (after the "# parameters" line and the header), split at commas.
std::vector<QStringList> csvRows(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    std::vector<QStringList> rows;
    bool header = false;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line.isEmpty() || line.startsWith('#')) continue;
        if (!header) {
            header = true;
            continue;
        }
        rows.push_back(QString::fromUtf8(line).split(QLatin1Char(',')));
    }
    return rows;
}

}  // namespace

class TestRunOnSelection : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_window;

    bool settle() {
        return QTest::qWaitFor([&] { return m_window->isSettled(); }, 120000);
    }
    void key(Qt::Key k, Qt::KeyboardModifiers modifiers) {
        m_window->pointView()->setFocus();
        QTest::keyClick(m_window->pointView(), k, modifiers);
    }
    // The Select menu's entry for this method, as a user picks it.
    QAction* runOnSelectionAction(const QString& method) {
        for (QAction* a : m_window->runOnSelectionMenu()->actions())
            if (a->data().toString() == method) return a;
        return nullptr;
    }
    void loadPoints(std::size_t n) {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoPoints(n);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY(settle());
    }
    void loadSeries() {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoSeries();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY(settle());
    }
    // Every third point or series, and a block: a selection with gaps of every size.
    static std::vector<std::uint32_t> someOf(std::size_t n) {
        std::vector<std::uint32_t> out;
        for (std::uint32_t i = 0; i < n; ++i)
            if (i % 3 == 0 || (i > n / 2 && i < n / 2 + n / 10)) out.push_back(i);
        return out;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        cs::app::registerBuiltinBackends();
    }

    void init() {
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1280, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }
    void cleanup() { m_window.reset(); }

    void dbscanOnSelectionEqualsADirectRun() {
        loadPoints(3000);
        cs::ui::DbscanPanel* panel = m_window->dbscanPanel();
        QVERIFY(panel->suggestedEps() > 0);
        panel->setEps(panel->suggestedEps());
        panel->run();
        QVERIFY(settle());
        const std::vector<std::int32_t> full = panel->lastRun()->result.labels;
        QCOMPARE(full.size(), std::size_t(3000));
        // Linked: the points of cluster 1 selected in the 3-D view (as a box or lasso selects
        // them) mark its legend entry, and only its.
        std::vector<std::uint32_t> one;
        for (std::size_t i = 0; i < full.size(); ++i)
            if (full[i] == 1) one.push_back(std::uint32_t(i));
        QVERIFY(!one.empty());
        m_window->selection()->selectPoints(one);
        QCOMPARE(m_window->pointView()->highlightedCategories(), (std::vector<std::int32_t>{1}));
        m_window->selection()->clear();
        QVERIFY(m_window->pointView()->highlightedCategories().empty());

        // Nothing selected: the action says what to do and runs nothing.
        QAction* action = runOnSelectionAction(QStringLiteral("dbscan"));
        QVERIFY(action);
        QVERIFY(!m_window->runOnSelection(QStringLiteral("dbscan")).isEmpty());
        QVERIFY(!panel->runSubset());

        const std::vector<std::uint32_t> chosen = someOf(3000);
        m_window->selection()->selectPoints(chosen);
        const int steps = m_window->undoStack()->count();
        action->trigger();
        QVERIFY(settle());
        QVERIFY(panel->runSubset());
        QVERIFY(panel->resultSubset());
        QCOMPARE(panel->resultSubset()->indices, chosen);
        QCOMPARE(m_window->undoStack()->count(), steps + 1);
        QVERIFY(m_window->runOnAllAction()->isEnabled());

        // The labels of the selected points are those of DBSCAN on them alone; the others
        // were not run.
        const auto points = m_window->pointView()->pointSet();
        const cs::ItemSubset subset = cs::ItemSubset::of(chosen, points->n);
        cs::CpuBackend cpu;
        cs::JobControl job;
        const cs::DbscanResult direct =
            cpu.dbscan(cs::subsetOf(*points, subset), panel->params(), job);
        const std::vector<std::int32_t> labels = panel->lastRun()->result.labels;
        QCOMPARE(labels.size(), std::size_t(3000));
        QVERIFY(direct.clusterCount > 1);
        std::size_t notRun = 0;
        for (std::size_t i = 0, j = 0; i < labels.size(); ++i) {
            if (j < chosen.size() && chosen[j] == i) {
                QCOMPARE(labels[i], direct.labels[j]);
                ++j;
            } else {
                QCOMPARE(labels[i], cs::kNotRun);
                ++notRun;
            }
        }
        QCOMPARE(notRun, 3000 - chosen.size());
        QCOMPARE(panel->lastRun()->result.clusterCount, direct.clusterCount);
        const QString summary = panel->statisticsLabel()->text();
        QVERIFY2(summary.contains(QLocale().toString(qulonglong(chosen.size()))) &&
                     summary.contains(QLocale().toString(3000)),
                 qPrintable(summary));
        QVERIFY(cs::test::logged(
            QStringLiteral("on %1 of").arg(QLocale().toString(qulonglong(chosen.size())))));

        // Greyed: with the selection cleared the points left out stay dimmed.
        m_window->selection()->clear();
        QVERIFY(settle());
        const auto& mask = m_window->pointView()->pointMask();
        QCOMPARE(mask.size(), std::size_t(3000));
        for (std::size_t i = 0; i < labels.size(); ++i)
            if (labels[i] == cs::kNotRun)
                QCOMPARE(int(mask[i]), int(cs::ui::PointCloudView::Dimmed));

        // The export holds the selected points only, by their rows in the data.
        const QString csv = m_tmp.filePath(QStringLiteral("subset_labels.csv"));
        QCOMPARE(m_window->exportTo(csv), QString());
        const auto rows = csvRows(csv);
        QCOMPARE(rows.size(), chosen.size());
        for (std::size_t j = 0; j < rows.size(); ++j) {
            QCOMPARE(rows[j].value(0).toUInt(), chosen[j]);
            QCOMPARE(rows[j].value(1).toInt(), direct.labels[j]);
        }

        // Ctrl+Z: the clear, then the run on the selection: the full result is back.
        key(Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(m_window->selection()->points(), chosen);
        key(Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(settle());
        QVERIFY(!panel->runSubset());
        QVERIFY(!panel->resultSubset());
        QCOMPARE(panel->lastRun()->result.labels, full);
        QVERIFY(!panel->statisticsLabel()->text().contains(QStringLiteral("not run")));
        // Ctrl+Shift+Z runs on the selection again.
        key(Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(settle());
        QCOMPARE(panel->lastRun()->result.labels, labels);
        // Run on all again: one step, the full result.
        m_window->runOnAllAction()->trigger();
        QVERIFY(settle());
        QCOMPARE(panel->lastRun()->result.labels, full);
        QVERIFY(!m_window->runOnAllAction()->isEnabled());
    }

    void knnOnSelectionNamesTheOriginalPoints() {
        loadPoints(2000);
        cs::ui::KnnPanel* panel = m_window->knnPanel();
        panel->setK(5);
        QVERIFY(settle());
        const std::vector<std::uint32_t> chosen = someOf(2000);
        m_window->selection()->selectPoints(chosen);
        runOnSelectionAction(QStringLiteral("knn"))->trigger();
        QVERIFY(settle());
        const auto run = panel->lastRun();
        QVERIFY(run);
        const cs::KnnGraph& g = *run->graph;
        QCOMPARE(g.n, std::size_t(2000));
        QCOMPARE(g.k, 5);

        const auto points = m_window->pointView()->pointSet();
        const cs::ItemSubset subset = cs::ItemSubset::of(chosen, points->n);
        cs::CpuBackend cpu;
        cs::JobControl job;
        const cs::KnnGraph direct =
            cpu.knnGraph(cs::subsetOf(*points, subset), panel->params(), job);
        const std::set<std::uint32_t> in(chosen.begin(), chosen.end());
        for (std::size_t i = 0, j = 0; i < g.n; ++i) {
            const bool selected = in.count(std::uint32_t(i)) > 0;
            for (int c = 0; c < g.k; ++c) {
                const std::int32_t t = g.indices[i * 5 + std::size_t(c)];
                if (!selected) {
                    QCOMPARE(t, -1);
                    continue;
                }
                // An original index, of a selected point: the direct graph's, mapped.
                QVERIFY(in.count(std::uint32_t(t)) > 0);
                QCOMPARE(t,
                         std::int32_t(chosen[std::size_t(direct.indices[j * 5 + std::size_t(c)])]));
                QCOMPARE(g.distances[i * 5 + std::size_t(c)],
                         direct.distances[j * 5 + std::size_t(c)]);
            }
            if (selected) ++j;
        }
        QVERIFY(panel->statisticsLabel()->text().contains(QStringLiteral("not run")));

        // The edges CSV: sources and targets are rows of the data, all of them selected.
        const QString csv = m_tmp.filePath(QStringLiteral("subset_knn.csv"));
        QCOMPARE(m_window->exportTo(csv), QString());
        const auto rows = csvRows(csv);
        QCOMPARE(rows.size(), chosen.size() * 5);
        for (const QStringList& row : rows) {
            QVERIFY(in.count(row.value(0).toUInt()) > 0);
            QVERIFY(in.count(row.value(1).toUInt()) > 0);
        }
    }

    void kshapeOnSelectedSeries() {
        loadSeries();
        cs::ui::KShapePanel* panel = m_window->kshapePanel();
        cs::ParameterValues values;
        values.set("k", std::int64_t(3));
        values.set("seed", std::int64_t(5));
        panel->applyParameters(values, false);
        const auto series = m_window->seriesView()->seriesSet();
        const std::vector<std::uint32_t> chosen = someOf(series->n);
        // Points selected do not count for a series method.
        QVERIFY(!m_window->runOnSelection(QStringLiteral("kshape")).isEmpty());
        m_window->selection()->selectSeries(chosen);
        runOnSelectionAction(QStringLiteral("kshape"))->trigger();
        QVERIFY(settle());
        const auto run = panel->lastRun();
        QVERIFY(run);
        QCOMPARE(run->series, series);
        const auto& labels = run->result->labels;
        QCOMPARE(labels.size(), series->n);

        cs::CpuBackend cpu;
        cs::JobControl job;
        const cs::ui::KShapeRun direct =
            cs::ui::KShapePanel::compute(std::make_shared<const cs::SeriesSet>(cs::subsetOf(
                                             *series, cs::ItemSubset::of(chosen, series->n))),
                                         panel->params(), cpu, job);
        for (std::size_t i = 0, j = 0; i < labels.size(); ++i) {
            if (j < chosen.size() && chosen[j] == i) {
                QCOMPARE(labels[i], direct.result->labels[j]);
                ++j;
            } else {
                QCOMPARE(labels[i], cs::kNotRun);
            }
        }
        QCOMPARE(run->sizes, direct.sizes);
        QVERIFY(panel->statisticsLabel()->text().contains(QStringLiteral("series")));
        QVERIFY(panel->statisticsLabel()->text().contains(QStringLiteral("not run")));

        const QString csv = m_tmp.filePath(QStringLiteral("subset_kshape.csv"));
        QCOMPARE(m_window->exportTo(csv), QString());
        const auto rows = csvRows(csv);
        QCOMPARE(rows.size(), chosen.size());
        for (std::size_t j = 0; j < rows.size(); ++j)
            QCOMPARE(rows[j].value(0).toUInt(), chosen[j]);
    }

    void rocketOnSelectedSeries() {
        loadSeries();
        cs::ui::RocketPanel* panel = m_window->rocketPanel();
        cs::ParameterValues values;
        values.set("kernels", std::int64_t(200));
        panel->applyParameters(values, false);
        const auto series = m_window->seriesView()->seriesSet();
        const std::vector<std::uint32_t> chosen = someOf(series->n);
        m_window->selection()->selectSeries(chosen);
        QCOMPARE(m_window->runOnSelection(QStringLiteral("rocket")), QString());
        QVERIFY(settle());
        const auto run = panel->lastRun();
        QVERIFY(run);
        QCOMPARE(run->features->n, series->n);

        cs::CpuBackend cpu;
        cs::JobControl job;
        const cs::ui::RocketRun direct =
            cs::ui::RocketPanel::compute(std::make_shared<const cs::SeriesSet>(cs::subsetOf(
                                             *series, cs::ItemSubset::of(chosen, series->n))),
                                         panel->params(), cpu, job);
        const std::size_t columns = run->features->columns();
        QCOMPARE(columns, direct.features->columns());
        for (std::size_t i = 0, j = 0; i < series->n; ++i) {
            const bool selected = j < chosen.size() && chosen[j] == i;
            for (std::size_t c = 0; c < columns; ++c)
                QCOMPARE(run->features->values[i * columns + c],
                         selected ? direct.features->values[j * columns + c] : 0.0f);
            if (!run->predictions.empty())
                QCOMPARE(run->predictions[i], selected ? direct.predictions[j] : cs::kNotRun);
            if (selected) ++j;
        }
        QCOMPARE(run->trainCount, direct.trainCount);
        QCOMPARE(run->testAccuracy, direct.testAccuracy);
        QVERIFY(panel->statisticsLabel()->text().contains(QStringLiteral("not run")));
        // Ctrl+Z: the features of every series again.
        m_window->setCurrentView(MainWindow::View::Series);
        m_window->seriesView()->setFocus();
        QTest::keyClick(m_window->seriesView(), Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(settle());
        QVERIFY(!panel->runSubset());
        QVERIFY(!panel->resultSubset());
    }

    void newDataLiftsTheLimit() {
        loadPoints(1000);
        m_window->selection()->selectPoints(someOf(1000));
        QCOMPARE(m_window->runOnSelection(QStringLiteral("knn")), QString());
        QVERIFY(settle());
        QVERIFY(m_window->knnPanel()->runSubset());
        loadPoints(1200);
        QVERIFY(!m_window->knnPanel()->runSubset());
        QVERIFY(!m_window->runOnAllAction()->isEnabled());
        QVERIFY(
            m_window->runOnSelection(QStringLiteral("nosuch")).contains(QStringLiteral("dbscan")));
    }

    void automationRunsOnTheSelection() {
        const QString csv = m_tmp.filePath(QStringLiteral("auto_labels.csv"));
        QString error;
        auto options = cs::ui::Automation::parse(
            {QStringLiteral("clusterscope"), QStringLiteral("--demo-points"),
             QStringLiteral("2000"), QStringLiteral("--param"), QStringLiteral("dbscan.eps=0.8"),
             QStringLiteral("--select"), QStringLiteral("points=100-599,1500"),
             QStringLiteral("--run-on-selection"), QStringLiteral("dbscan"),
             QStringLiteral("--export"), csv},
            &error);
        QVERIFY2(options, qPrintable(error));
        QCOMPARE(options->selectPoints.size(), std::size_t(501));
        cs::ui::Automation automation(*m_window, *options);
        automation.start();
        QTRY_VERIFY_WITH_TIMEOUT(automation.isDone(), 120000);
        QCOMPARE(automation.error(), QString());
        const auto rows = csvRows(csv);
        QCOMPARE(rows.size(), std::size_t(501));
        QCOMPARE(rows.front().value(0), QStringLiteral("100"));
        QCOMPARE(rows.back().value(0), QStringLiteral("1500"));

        // --select alone (nothing to run on it) finishes too, and exports the points chosen.
        m_window.reset();
        init();
        const QString selected = m_tmp.filePath(QStringLiteral("auto_selection.csv"));
        options = cs::ui::Automation::parse(
            {QStringLiteral("clusterscope"), QStringLiteral("--demo-points"), QStringLiteral("500"),
             QStringLiteral("--select"), QStringLiteral("points=0-9,499"),
             QStringLiteral("--export"), selected},
            &error);
        QVERIFY2(options, qPrintable(error));
        cs::ui::Automation selectOnly(*m_window, *options);
        selectOnly.start();
        QTRY_VERIFY_WITH_TIMEOUT(selectOnly.isDone(), 60000);
        QCOMPARE(selectOnly.error(), QString());
        QCOMPARE(csvRows(selected).size(), std::size_t(11));

        // Bad input: clear errors.
        QVERIFY(!cs::ui::Automation::parse(
            {QStringLiteral("clusterscope"), QStringLiteral("--run-on-selection"),
             QStringLiteral("dbscan")},
            &error));
        QVERIFY2(error.contains(QStringLiteral("--select")), qPrintable(error));
        QVERIFY(
            !cs::ui::Automation::parse({QStringLiteral("clusterscope"), QStringLiteral("--select"),
                                        QStringLiteral("points=5-2")},
                                       &error));
        QVERIFY2(error.contains(QStringLiteral("ends before it starts")), qPrintable(error));
    }
};

CS_GL_TEST_MAIN(TestRunOnSelection)
#include "tst_run_on_selection.moc"
