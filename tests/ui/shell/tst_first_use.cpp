// SPDX-License-Identifier: MIT
// What a new user stumbled on (issue 9, items 1, 2, 6 and 9): at 1280 x 720 every method's
// result, warning and export are on screen without scrolling; the first launch says what to do
// next; iterative methods show their iteration; and the small things: the status bar, the
// Colour by box, point size in the series view, docks that follow the view, the k-distance
// chart's log axis and clamped eps, ROCKET run once, the export folder remembered.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyleOptionComboBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtTest>

#include "app/common/register_backends.h"
#include "compute/demo/demo_data.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/dbscan/k_distance_chart.h"
#include "ui/panels/dbscan/sweep_heatmap.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/rocket/rocket_panel.h"
#include "ui/shell/main_window.h"
#include "ui/views/points/point_cloud_view.h"
#include "ui/views/series/series_view.h"

using cs::ui::AlgorithmPanel;
using cs::ui::JobOutcome;
using cs::ui::MainWindow;
using cs::ui::PointCloudView;

namespace {

const QSize kSmallScreen(1280, 720);

QScrollArea* scrollAreaOf(QWidget* panel) {
    for (QWidget* w = panel->parentWidget(); w; w = w->parentWidget())
        if (auto* scroll = qobject_cast<QScrollArea*>(w)) return scroll;
    return nullptr;
}

QDockWidget* dockOf(QWidget* panel) {
    for (QWidget* w = panel->parentWidget(); w; w = w->parentWidget())
        if (auto* dock = qobject_cast<QDockWidget*>(w)) return dock;
    return nullptr;
}

// Empty when w lies wholly inside the scroll area's viewport as it scrolls now (no scrolling
// needed), and the viewport inside the window; else what is wrong.
QString whyNotOnScreen(QWidget* w, QScrollArea* scroll, QWidget* window) {
    if (!w->isVisible()) return QStringLiteral("%1 is hidden").arg(w->objectName());
    const QRect inViewport(w->mapTo(scroll->viewport(), QPoint(0, 0)), w->size());
    if (!scroll->viewport()->rect().contains(inViewport))
        return QStringLiteral("%1 at %2,%3 %4x%5 is outside the viewport (%6x%7)")
            .arg(w->objectName())
            .arg(inViewport.x())
            .arg(inViewport.y())
            .arg(inViewport.width())
            .arg(inViewport.height())
            .arg(scroll->viewport()->width())
            .arg(scroll->viewport()->height());
    if (w->visibleRegion().isEmpty())
        return QStringLiteral("%1 has no visible region").arg(w->objectName());
    const QRect viewportInWindow(scroll->viewport()->mapTo(window, QPoint(0, 0)),
                                 scroll->viewport()->size());
    if (!window->rect().contains(viewportInWindow))
        return QStringLiteral("the viewport of %1 leaves the window").arg(w->objectName());
    return {};
}

// A QFileDialog's directory, read while it is open (then cancelled): the export dialogs are
// modal and static.
QString dialogDirectoryDuring(const std::function<void()>& open) {
    QString directory = QStringLiteral("(no dialog)");
    QTimer poll;
    poll.setInterval(50);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        directory = dialog->directory().absolutePath();
        dialog->reject();
    });
    poll.start();
    open();
    return directory;
}

}  // namespace

class TestFirstUse : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_window;

    cs::ui::DbscanPanel* dbscan() { return m_window->dbscanPanel(); }

    bool openDemoPoints() {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoPoints(20000);
        return QTest::qWaitFor(
            [&] {
                return !loaded.isEmpty() && m_window->isSettled() && dbscan()->suggestedEps() > 0;
            },
            60000);
    }

    bool openDemoSeries() {
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoSeries();
        return QTest::qWaitFor([&] { return !loaded.isEmpty() && m_window->isSettled(); }, 60000);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QSettings().clear();
        // The dialogs are Qt's own, so that the test can read and close them.
        QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<MainWindow>();
        m_window->resize(kSmallScreen);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        // Keys and focus, as a user's: shortcuts and the end of an edit need an active window.
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }

    // The window really is 1280 x 720: nothing in it asks for more.
    void windowFitsASmallScreen() {
        QVERIFY2(m_window->minimumSizeHint().width() <= kSmallScreen.width(),
                 qPrintable(QString::number(m_window->minimumSizeHint().width())));
        QVERIFY2(m_window->minimumSizeHint().height() <= kSmallScreen.height(),
                 qPrintable(QString::number(m_window->minimumSizeHint().height())));
        QTRY_COMPARE(m_window->size(), kSmallScreen);
    }

    // Item 2: loading says what to do next once the k-distance curve is in, and the colours
    // the demo opens with say that they are not a clustering.
    void firstLaunchSaysWhatToDoNext() {
        QVERIFY(openDemoPoints());
        const QString text = dbscan()->statisticsLabel()->text();
        QVERIFY2(!text.contains(QStringLiteral("Computing")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Next:")) &&
                     text.contains(QStringLiteral("Use suggested eps")) &&
                     text.contains(QStringLiteral("move eps")),
                 qPrintable(text));
        QVERIFY(dbscan()->suggestButton()->isEnabled());
        QVERIFY(!dbscan()->lastRun());
        const QString title = m_window->pointView()->legend().title;
        QVERIFY2(title.contains(QStringLiteral("truth")) &&
                     title.contains(QStringLiteral("not a clustering")),
                 qPrintable(title));
        // A cancelled curve says so instead of "Computing…" for ever. New points start the
        // curve at once; Cancel is pressed before the event loop runs again, so the curve is
        // cancelled however fast the machine computes it.
        dbscan()->setPointSet(
            std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(20000, 2)));
        QVERIFY(dbscan()->statisticsLabel()->text().contains(QStringLiteral("Computing")));
        QVERIFY(m_window->jobRunner()->isBusy(QStringLiteral("kdist")));
        QTest::mouseClick(dbscan()->cancelButton(), Qt::LeftButton);
        QVERIFY(!dbscan()->isBusy());
        QVERIFY2(!dbscan()->statisticsLabel()->text().contains(QStringLiteral("Computing")),
                 qPrintable(dbscan()->statisticsLabel()->text()));
        QTest::qWait(200);  // the cancelled curve's own answer, if it comes, is stale
        QCOMPARE(dbscan()->suggestedEps(), 0.0);
        // The window's own points again, for the tests that follow.
        QVERIFY(openDemoPoints());
    }

    // Review finding: on the CPU, loading computes the curve and its knee only; the sweep
    // behind the suggestion runs when the user presses the button, then eps is set and
    // DBSCAN runs with it.
    void suggestionIsSweptOnlyWhenAskedFor() {
        if (m_window->jobRunner()->backendName() != QLatin1String("cpu"))
            QSKIP("on an accelerator the suggestion comes with the curve");
        QVERIFY(!dbscan()->isSuggestionSwept());
        QCOMPARE(m_window->jobRunner()->latestGeneration(QStringLiteral("dbscan-suggest")),
                 std::uint64_t(0));
        const double knee = dbscan()->suggestedEps();
        QTest::mouseClick(dbscan()->suggestButton(), Qt::LeftButton);
        QVERIFY(m_window->jobRunner()->latestGeneration(QStringLiteral("dbscan-suggest")) > 0);
        QTRY_VERIFY_WITH_TIMEOUT(
            dbscan()->isSuggestionSwept() && dbscan()->lastRun() && !dbscan()->isBusy(), 120000);
        QVERIFY(dbscan()->suggestedEps() != knee);
        QCOMPARE(dbscan()->lastRun()->params.eps, float(dbscan()->epsSpin()->value()));
        QVERIFY2(dbscan()->suggestButton()->text().contains(
                     QLocale().toString(dbscan()->suggestedEps(), 'g', 4)),
                 qPrintable(dbscan()->suggestButton()->text()));
        // A new MinPts is a new curve: its suggestion is not known until asked for.
        dbscan()->setMinPts(12);
        QTRY_VERIFY_WITH_TIMEOUT(!dbscan()->isBusy(), 60000);
        QVERIFY(!dbscan()->isSuggestionSwept());
        dbscan()->setMinPts(10);
        QTRY_VERIFY_WITH_TIMEOUT(!dbscan()->isBusy(), 60000);
    }

    // Item 1: each method's summary, warning and export are on screen at 1280 x 720 once it
    // has run, without scrolling.
    void resultIsAboveTheFold_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("dbscan") << QStringLiteral("dbscan");
        QTest::newRow("knn") << QStringLiteral("knn");
        QTest::newRow("kshape") << QStringLiteral("kshape");
        QTest::newRow("rocket") << QStringLiteral("rocket");
    }
    void resultIsAboveTheFold() {
        QFETCH(QString, kind);
        const cs::ui::Algorithm* algorithm = m_window->algorithms().find(kind);
        QVERIFY(algorithm);
        AlgorithmPanel* panel = m_window->findChild<AlgorithmPanel*>(kind + "Panel");
        QVERIFY(panel);
        const bool series = panel->descriptor().input == cs::InputKind::Series;
        if (series && !m_window->seriesView()->seriesSet()) QVERIFY(openDemoSeries());
        if (!series && !m_window->pointView()->pointSet()) QVERIFY(openDemoPoints());
        m_window->setCurrentView(series ? MainWindow::View::Series : MainWindow::View::Points);
        if (kind == QLatin1String("rocket"))
            algorithm->setParameter(QStringLiteral("kernels"), std::int64_t(1000));
        algorithm->run();  // raises the panel, as --run does
        QTRY_VERIFY_WITH_TIMEOUT(panel->hasResult() && !panel->isBusy() && m_window->isSettled(),
                                 180000);
        QTest::qWait(50);  // the layout of the new text
        QCOMPARE(m_window->size(), kSmallScreen);
        QScrollArea* scroll = scrollAreaOf(panel);
        QVERIFY(scroll);
        QVERIFY(dockOf(panel)->isVisible());
        // The panel as it first shows, scrolled to its top (an earlier test's clicks below the
        // fold may have scrolled it).
        scroll->verticalScrollBar()->setValue(0);
        for (QWidget* w : {static_cast<QWidget*>(panel->statisticsLabel()),
                           static_cast<QWidget*>(panel->exportButton())}) {
            const QString why = whyNotOnScreen(w, scroll, m_window.get());
            QVERIFY2(why.isEmpty(), qPrintable(kind + ": " + why));
        }
        QVERIFY(panel->exportButton()->isEnabled());
        if (!panel->warningLabel()->text().isEmpty()) {
            const QString why = whyNotOnScreen(panel->warningLabel(), scroll, m_window.get());
            QVERIFY2(why.isEmpty(), qPrintable(kind + ": " + why));
        }
    }

    // After a sweep (Algorithm::sweep, as --sweep and the Sweep button start it) its heat maps
    // are on screen whole: at the sizes a user has, no scrolling to find them.
    void sweepIsAboveTheFold_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1400x900") << QSize(1400, 900);
        QTest::newRow("1280x720") << kSmallScreen;
    }
    void sweepIsAboveTheFold() {
        QFETCH(QSize, size);
        m_window->resize(size);
        QTRY_COMPARE(m_window->size(), size);
        if (!m_window->pointView()->pointSet()) QVERIFY(openDemoPoints());
        m_window->setCurrentView(MainWindow::View::Points);
        cs::ui::DbscanPanel* panel = dbscan();
        QScrollArea* scroll = scrollAreaOf(panel);
        QVERIFY(scroll);
        // From the top of the panel, as it first shows, with another method's dock in front.
        scroll->verticalScrollBar()->setValue(0);
        dockOf(m_window->knnPanel())->raise();
        // Whoever waits for the panel (the automation's screenshot) must never find it idle
        // with the heat maps out of view: checked the moment the sweep lands.
        QString whenLanded = QStringLiteral("(the sweep did not land)");
        const auto connection = connect(
            m_window->jobRunner(), &cs::ui::JobRunner::finished, this,
            [&](const JobOutcome& outcome) {
                if (outcome.kind != QLatin1String("dbscan-sweep")) return;
                whenLanded = panel->isBusy()
                                 ? QString()
                                 : whyNotOnScreen(panel->sweepHeatmap(), scroll, m_window.get());
            });
        m_window->algorithms().find(QStringLiteral("dbscan"))->sweep();
        QTRY_VERIFY_WITH_TIMEOUT(
            !panel->isSweeping() && panel->sweepHeatmap()->hasSweep() && m_window->isSettled(),
            120000);
        disconnect(connection);
        QVERIFY2(whenLanded.isEmpty(), qPrintable(QStringLiteral("idle, but ") + whenLanded));
        QVERIFY(dockOf(panel)->isVisible());
        QVERIFY(!dockOf(panel)->visibleRegion().isEmpty());
        const QString why = whyNotOnScreen(panel->sweepHeatmap(), scroll, m_window.get());
        QVERIFY2(why.isEmpty(), qPrintable(why));
        m_window->resize(kSmallScreen);
        QTRY_COMPARE(m_window->size(), kSmallScreen);
    }

    // Item 6: k-Shape's progress line names the iteration and how many series moved.
    void iterativeMethodsShowTheirIteration() {
        if (!m_window->seriesView()->seriesSet()) QVERIFY(openDemoSeries());
        cs::ui::KShapePanel* panel = m_window->kshapePanel();
        QStringList lines;
        connect(m_window->jobRunner(), &cs::ui::JobRunner::progress, this,
                [&](const QString& kind, std::uint64_t, double, const QString& stage) {
                    if (kind == QLatin1String("kshape")) lines << stage;
                });
        panel->setK(panel->kSpin()->value() == 4 ? 5 : 4);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isBusy() && panel->hasResult(), 120000);
        QVERIFY(!lines.isEmpty());
        const QRegularExpression iteration(QStringLiteral("iteration \\d+ / %1 · \\d+ series moved")
                                               .arg(panel->iterationsSpin()->value()));
        QVERIFY2(lines.last().contains(iteration), qPrintable(lines.join(QStringLiteral(" | "))));
        QVERIFY2(panel->progressLabel()->text().contains(iteration),
                 qPrintable(panel->progressLabel()->text()));
        // The kNN graph's trees, the same way.
        lines.clear();
        if (!m_window->pointView()->pointSet()) QVERIFY(openDemoPoints());
        cs::ui::KnnPanel* knn = m_window->knnPanel();
        connect(m_window->jobRunner(), &cs::ui::JobRunner::progress, this,
                [&](const QString& kind, std::uint64_t, double, const QString& stage) {
                    if (kind == QLatin1String("knn")) lines << stage;
                });
        const std::uint64_t before = m_window->jobRunner()->latestGeneration(QStringLiteral("knn"));
        knn->run();
        if (m_window->jobRunner()->latestGeneration(QStringLiteral("knn")) == before) {
            // The graph on screen is for these parameters already: one more tree makes it new.
            knn->findChild<QSpinBox*>(QStringLiteral("knn_trees"))->stepUp();
        }
        QTRY_VERIFY_WITH_TIMEOUT(!knn->isBusy() && knn->hasResult(), 120000);
        const QRegularExpression tree(QStringLiteral("tree \\d+ / \\d+ · recall \\d\\.\\d{3}"));
        QVERIFY2(!lines.isEmpty() && lines.last().contains(tree),
                 qPrintable(lines.join(QStringLiteral(" | "))));
        disconnect(m_window->jobRunner(), &cs::ui::JobRunner::progress, this, nullptr);
    }

    // Item 9: ROCKET runs once when Kernels is typed and Run pressed.
    void rocketRunsOnceForKernelsAndRun() {
        if (!m_window->seriesView()->seriesSet()) QVERIFY(openDemoSeries());
        cs::ui::RocketPanel* panel = m_window->rocketPanel();
        m_window->setCurrentView(MainWindow::View::Series);
        dockOf(panel)->raise();
        QTRY_VERIFY(!panel->visibleRegion().isEmpty());
        // Short runs, which re-run at once on an edit (long ones wait for the edits to settle).
        panel->setKernels(200);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isBusy() && panel->hasResult(), 120000);
        cs::ui::JobRunner& runner = *m_window->jobRunner();
        const std::uint64_t before = runner.latestGeneration(QStringLiteral("rocket"));
        QSignalSpy cancelled(&runner, &cs::ui::JobRunner::cancelled);
        QSignalSpy finished(&runner, &cs::ui::JobRunner::finished);
        QSpinBox* kernels = panel->findChild<QSpinBox*>(QStringLiteral("rocket_kernels"));
        QVERIFY(kernels);
        const int next = 300;
        kernels->setFocus();
        kernels->selectAll();
        QTest::keyClicks(kernels, QString::number(next));
        // The press takes the focus and ends the edit, which re-runs (at once for a short run,
        // after a debounce for a long one); the click that follows must not start another.
        QTest::mousePress(panel->runButton(), Qt::LeftButton);
        const std::uint64_t afterEdit = runner.latestGeneration(QStringLiteral("rocket"));
        QTest::mouseRelease(panel->runButton(), Qt::LeftButton);
        const std::uint64_t afterClick = runner.latestGeneration(QStringLiteral("rocket"));
        QCOMPARE(int(afterEdit > before) + int(afterClick > afterEdit), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isBusy() && m_window->isSettled(), 120000);
        QCOMPARE(kernels->value(), next);
        // Generations count every kind's jobs: the answers say how many ROCKET runs there were.
        QVERIFY(runner.latestGeneration(QStringLiteral("rocket")) > before);
        const auto rocketOutcomes = [](const QSignalSpy& spy) {
            int n = 0;
            for (const auto& args : spy)
                n += args.front().value<JobOutcome>().kind == QLatin1String("rocket");
            return n;
        };
        QCOMPARE(rocketOutcomes(cancelled), 0);
        QCOMPARE(rocketOutcomes(finished), 1);
        // Run once it has finished runs it again, as asked.
        const std::uint64_t ran = runner.latestGeneration(QStringLiteral("rocket"));
        QTest::mouseClick(panel->runButton(), Qt::LeftButton);
        QVERIFY(runner.latestGeneration(QStringLiteral("rocket")) > ran);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isBusy() && m_window->isSettled(), 120000);
    }

    // Item 9: docks follow the view; point size has nothing to do in the series view.
    void docksAndPointSizeFollowTheView() {
        if (!m_window->pointView()->pointSet()) QVERIFY(openDemoPoints());
        if (!m_window->seriesView()->seriesSet()) QVERIFY(openDemoSeries());
        auto* larger = m_window->findChild<QAction*>(QStringLiteral("largerPointsAction"));
        auto* smaller = m_window->findChild<QAction*>(QStringLiteral("smallerPointsAction"));
        auto* sizeMenu = m_window->findChild<QMenu*>(QStringLiteral("pointSizeMenu"));
        QVERIFY(larger && smaller && sizeMenu);
        // Tabbed docks behind the front one count as visible (parked outside the window): in
        // front is what has pixels on screen.
        const auto shown = [](QWidget* w) { return !w->visibleRegion().isEmpty(); };
        const auto seriesPanelShown = [&] {
            return shown(m_window->kshapePanel()) || shown(m_window->rocketPanel());
        };
        const auto pointPanelShown = [&] {
            return shown(m_window->dbscanPanel()) || shown(m_window->knnPanel());
        };
        m_window->activateWindow();
        QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
        QTRY_COMPARE(m_window->currentView(), MainWindow::View::Points);
        QTRY_VERIFY(pointPanelShown() && !seriesPanelShown());
        QVERIFY(larger->isEnabled() && smaller->isEnabled() && sizeMenu->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
        QTRY_COMPARE(m_window->currentView(), MainWindow::View::Series);
        QTRY_VERIFY(seriesPanelShown() && !pointPanelShown());
        QVERIFY(!larger->isEnabled() && !smaller->isEnabled() && !sizeMenu->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
        QTRY_VERIFY(pointPanelShown());
        QVERIFY(larger->isEnabled());
    }

    void pointRendererMenuIsKept() {
        // View ▸ Point renderer: each choice reaches the view and the settings; automation's
        // choice reaches the view and the menu but not the settings.
        auto* view = m_window->pointView();
        for (const char* name : {"gl", "splat", "automatic"}) {
            auto* action = m_window->findChild<QAction*>(QStringLiteral("pointRenderer_") + name);
            QVERIFY(action && action->isCheckable());
            action->trigger();
            QVERIFY(action->isChecked());
            QCOMPARE(PointCloudView::rendererName(view->pointRenderer()),
                     QString::fromLatin1(name));
            QCOMPARE(QSettings().value(QStringLiteral("view/pointRenderer")).toString(),
                     QString::fromLatin1(name));
        }
        m_window->setPointRenderer(PointCloudView::PointRenderer::GlPoints, false);
        QVERIFY(m_window->findChild<QAction*>(QStringLiteral("pointRenderer_gl"))->isChecked());
        QCOMPARE(view->pointRenderer(), PointCloudView::PointRenderer::GlPoints);
        QCOMPARE(QSettings().value(QStringLiteral("view/pointRenderer")).toString(),
                 QStringLiteral("automatic"));
        // Splats asked for: drawn by CUDA where interop works, else by GL (no GPU, Mesa), and
        // every point either way.
        if (!view->pointSet()) QVERIFY(openDemoPoints());
        m_window->setCurrentView(MainWindow::View::Points);
        QTRY_VERIFY(view->isVisible() && !view->visibleRegion().isEmpty());
        QSignalSpy frames(view, &QOpenGLWidget::frameSwapped);
        m_window->setPointRenderer(PointCloudView::PointRenderer::Splats, false);
        QTRY_VERIFY(frames.count() > 0);
        QCOMPARE(view->lastDrawnPointCount(), view->pointCount());
        QCOMPARE(view->lastFrameSplatted(), view->interopError().isEmpty());
        m_window->setPointRenderer(PointCloudView::PointRenderer::Automatic, false);
    }

    // Item 9: the k-distance chart offers a log axis, and an eps above it shows at the top,
    // dashed, with the chart saying so.
    void kDistanceChartLogAxisAndClampedEps() {
        if (!m_window->pointView()->pointSet()) QVERIFY(openDemoPoints());
        m_window->setCurrentView(MainWindow::View::Points);
        dockOf(dbscan())->raise();
        QTRY_VERIFY(!dbscan()->visibleRegion().isEmpty());
        cs::ui::KDistanceChart* chart = dbscan()->chart();
        QVERIFY(chart->hasCurve());
        QCheckBox* log = dbscan()->logScaleBox();
        QVERIFY(!log->isChecked());
        QCOMPARE(chart->yAxis()->type(), QAbstractAxis::AxisTypeValue);
        scrollAreaOf(dbscan())->ensureWidgetVisible(log);
        QTest::mouseClick(log, Qt::LeftButton, {}, QPoint(8, log->height() / 2));
        QVERIFY(log->isChecked());
        QVERIFY(chart->isLogScale());
        QCOMPARE(chart->yAxis()->type(), QAbstractAxis::AxisTypeLogValue);
        QVERIFY(QSettings().value(QStringLiteral("dbscan/kDistanceLogScale")).toBool());
        // The eps line still follows eps on the log axis.
        const int low = (dbscan()->setEps(dbscan()->suggestedEps()), chart->epsLineY());
        const int high = (dbscan()->setEps(dbscan()->suggestedEps() * 2), chart->epsLineY());
        QVERIFY2(high < low, qPrintable(QStringLiteral("%1 %2").arg(low).arg(high)));
        QVERIFY(!chart->isEpsClamped());
        QVERIFY(chart->chart()->title().isEmpty());
        // Far above the curve: drawn at the top edge, and said.
        dbscan()->setEps(dbscan()->suggestedEps() * 30);
        QVERIFY(chart->isEpsClamped());
        QVERIFY2(chart->chart()->title().contains(QStringLiteral("above the chart")),
                 qPrintable(chart->chart()->title()));
        const QRectF plot = chart->chart()->plotArea();
        QVERIFY2(std::abs(chart->epsLineY() - chart->mapFromScene(plot.topLeft()).y()) <= 2,
                 qPrintable(QString::number(chart->epsLineY())));
        QTest::mouseClick(log, Qt::LeftButton, {}, QPoint(8, log->height() / 2));
        QCOMPARE(chart->yAxis()->type(), QAbstractAxis::AxisTypeValue);
        QVERIFY(chart->isEpsClamped());
        dbscan()->setEps(dbscan()->suggestedEps());
        QVERIFY(!chart->isEpsClamped());
        QTRY_VERIFY_WITH_TIMEOUT(!dbscan()->isBusy(), 60000);
    }

    // Item 9: the Colour by box shows its entries whole, and a status message never runs into
    // the point count.
    void toolbarAndStatusBarFit() {
        if (!m_window->pointView()->pointSet()) QVERIFY(openDemoPoints());
        m_window->setCurrentView(MainWindow::View::Points);
        auto* box = m_window->findChild<QComboBox*>(QStringLiteral("colourBox"));
        QVERIFY(box);
        QTRY_VERIFY(box->isVisible());
        int widest = 0;
        for (int i = 0; i < box->count(); ++i)
            widest = std::max(widest, box->fontMetrics().horizontalAdvance(box->itemText(i)));
        QVERIFY2(box->count() >= 4, qPrintable(QString::number(box->count())));
        // The text area is the box less its arrow and frame.
        QStyleOptionComboBox option;
        option.initFrom(box);
        const QRect text = box->style()->subControlRect(QStyle::CC_ComboBox, &option,
                                                        QStyle::SC_ComboBoxEditField, box);
        QVERIFY2(text.width() >= widest,
                 qPrintable(QStringLiteral("%1 < %2").arg(text.width()).arg(widest)));

        auto* count = m_window->statusBar()->findChild<QLabel*>(QStringLiteral("dataLabel"));
        QVERIFY(count);
        QVERIFY(count->text().contains(QStringLiteral("points")));
        const QString message =
            QStringLiteral(
                "A status message much longer than the room the status bar has for it "
                "beside its permanent widgets, as a failed run's error can be: ")
                .repeated(3);
        m_window->statusBar()->showMessage(message, 5000);
        QTest::qWait(50);
        const QImage shot = m_window->grab().toImage();
        // The message is drawn left of the first permanent widget; the count's own pixels are
        // its text alone.
        const QRect countRect(count->mapTo(m_window.get(), QPoint(0, 0)), count->size());
        QVERIFY2(count->isVisible() && countRect.right() < m_window->width(),
                 qPrintable(QStringLiteral("%1").arg(countRect.right())));
        const QImage alone = count->grab().toImage();
        int differing = 0;
        for (int y = 0; y < alone.height(); ++y)
            for (int x = 0; x < alone.width(); ++x)
                differing += shot.pixel(countRect.x() + x, countRect.y() + y) != alone.pixel(x, y);
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 pixels differ").arg(differing)));
        m_window->statusBar()->clearMessage();
    }

    // Item 9: the export dialog opens in the folder of the last export.
    void exportDialogRemembersItsFolder() {
        if (!m_window->pointView()->pointSet()) QVERIFY(openDemoPoints());
        m_window->setCurrentView(MainWindow::View::Points);
        dockOf(dbscan())->raise();
        if (!dbscan()->lastRun()) {
            dbscan()->run();
            QTRY_VERIFY_WITH_TIMEOUT(dbscan()->lastRun() && !dbscan()->isBusy(), 60000);
        }
        QVERIFY(QDir(m_tmp.path()).mkpath(QStringLiteral("results")));
        const QString results = QDir(m_tmp.filePath(QStringLiteral("results"))).absolutePath();
        // A dialog that exports there.
        QTimer poll;
        poll.setInterval(50);
        connect(&poll, &QTimer::timeout, this, [&] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            poll.stop();
            dialog->selectFile(QDir(results).filePath(QStringLiteral("demo_dbscan.csv")));
            QMetaObject::invokeMethod(dialog, "accept");
        });
        poll.start();
        QTest::mouseClick(dbscan()->exportButton(), Qt::LeftButton);
        QTRY_VERIFY(QFileInfo::exists(QDir(results).filePath(QStringLiteral("demo_dbscan.csv"))));
        QCOMPARE(QSettings().value(QStringLiteral("ui/lastExportDirectory")).toString(), results);
        // The next export dialogs open there: the method's and File > Export's.
        QCOMPARE(dialogDirectoryDuring(
                     [&] { QTest::mouseClick(dbscan()->exportButton(), Qt::LeftButton); }),
                 results);
        QAction* exportAction = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+E"))) exportAction = a;
        QVERIFY(exportAction);
        QCOMPARE(dialogDirectoryDuring([&] { exportAction->trigger(); }), results);
    }

    // The automation's --window-size gives a screenshot of exactly that size.
    void automationWindowSizeIsExact() {
        QProcess app;
        const QString shot = m_tmp.filePath(QStringLiteral("small.png"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("data")));
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(CS_CLUSTERSCOPE_EXE),
                  {QStringLiteral("--demo-points"), QStringLiteral("20000"),
                   QStringLiteral("--window-size"), QStringLiteral("1280x720"),
                   QStringLiteral("--screenshot"), shot, QStringLiteral("--quit")});
        QVERIFY(app.waitForFinished(180000));
        QVERIFY2(app.exitCode() == 0, app.readAllStandardError().constData());
        const QImage image(shot);
        QCOMPARE(image.size(), kSmallScreen);
    }

    void cleanupTestCase() { m_window.reset(); }
};

CS_GL_TEST_MAIN(TestFirstUse)
#include "tst_first_use.moc"
