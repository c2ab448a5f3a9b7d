// SPDX-License-Identifier: MIT
// Edit ▸ Undo and Redo through the keyboard (Ctrl+Z, Ctrl+Shift+Z): parameter edits of any
// method (typed, or a slider dragged: one step), colour by and point size; new data starts
// afresh. Every finished run is in the log with its parameters.
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStyleOptionSlider>
#include <QUndoStack>
#include <QtTest>

#include "app/common/register_backends.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "tests/ui/gui_test_main.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"
#include "ui/shell/main_window.h"
#include "ui/shell/selection_model.h"
#include "ui/shell/undo_commands.h"
#include "ui/views/points/point_cloud_view.h"

using cs::ui::MainWindow;

class TestUndo : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    bool settle() {
        return QTest::qWaitFor([&] { return m_window->isSettled(); }, 60000);
    }
    // From the view, as after a click on it: a focused spin box keeps Ctrl+Z for its text.
    void undo() {
        m_window->pointView()->setFocus();
        QTest::keyClick(m_window->pointView(), Qt::Key_Z, Qt::ControlModifier);
    }
    void redo() {
        m_window->pointView()->setFocus();
        QTest::keyClick(m_window->pointView(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    }
    QString steps() const {
        QStringList texts;
        for (int i = 0; i < m_window->undoStack()->count(); ++i)
            texts << m_window->undoStack()->text(i);
        return texts.join(QStringLiteral(" | "));
    }
    // Edits more than kUndoMergeMs apart are separate steps.
    static void pause() { QTest::qWait(int(cs::ui::kUndoMergeMs) + 150); }

private slots:
    void initTestCase() {
        QSettings().clear();
        cs::app::registerBuiltinBackends();
    }

    void init() {
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        // Shortcuts reach the active window only.
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoPoints(3000);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY(settle());
        QCOMPARE(m_window->undoStack()->count(), 0);
    }
    void cleanup() { m_window.reset(); }

    void typedParameterUndoesAndRedoes() {
        QSpinBox* minPts = m_window->dbscanPanel()->minPtsSpin();
        const int before = minPts->value();
        const int typed = before + 5;
        minPts->setFocus();
        minPts->selectAll();
        QTest::keyClicks(minPts, QString::number(typed));
        QTest::keyClick(minPts, Qt::Key_Return);
        QCOMPARE(minPts->value(), typed);
        QCOMPARE(m_window->undoStack()->count(), 1);
        pause();
        // Another method's parameter: written once for all of them.
        QSpinBox* k = m_window->findChild<QSpinBox*>(QStringLiteral("knn_k"));
        QVERIFY(k);
        const int kBefore = k->value();
        k->setFocus();
        QTest::keyClick(k, Qt::Key_Up);
        QCOMPARE(k->value(), kBefore + 1);
        QCOMPARE(m_window->undoStack()->count(), 2);

        undo();
        QCOMPARE(k->value(), kBefore);
        QCOMPARE(minPts->value(), typed);
        undo();
        QCOMPARE(minPts->value(), before);
        QCOMPARE(m_window->dbscanPanel()->parameterValues().integer("minPts"), before);
        redo();
        QCOMPARE(minPts->value(), typed);
        redo();
        QCOMPARE(k->value(), kBefore + 1);
        // The runs undo and redo started used the values on screen.
        QVERIFY(settle());
        QCOMPARE(int(m_window->dbscanPanel()->lastRun()->params.minPts), typed);
    }

    void sliderDragIsOneStep() {
        cs::ui::DbscanPanel* panel = m_window->dbscanPanel();
        QSlider* slider = panel->epsSlider();
        panel->epsSlider()->setFocus();
        const double before = panel->epsSpin()->value();
        const int y = slider->height() / 2;
        QStyleOptionSlider option;
        option.initFrom(slider);
        option.orientation = slider->orientation();
        option.minimum = slider->minimum();
        option.maximum = slider->maximum();
        option.sliderPosition = slider->sliderPosition();
        option.sliderValue = slider->value();
        const QPoint start =
            slider->style()
                ->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, slider)
                .center();
        QTest::mousePress(slider, Qt::LeftButton, {}, start);
        const int width = slider->width();
        for (int step = 1; step <= 8; ++step) {
            QMouseEvent move(QEvent::MouseMove, QPointF(start.x() + step * width / 20, y),
                             slider->mapToGlobal(QPointF(start.x() + step * width / 20, y)),
                             Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(slider, &move);
            QTest::qWait(20);
        }
        QTest::mouseRelease(slider, Qt::LeftButton, {}, QPoint(start.x() + 8 * width / 20, y));
        const double after = panel->epsSpin()->value();
        QVERIFY2(after > before, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
        QVERIFY2(m_window->undoStack()->count() == 1, qPrintable(steps()));  // eight eps values
        undo();
        QCOMPARE(panel->epsSpin()->value(), before);
        redo();
        QCOMPARE(panel->epsSpin()->value(), after);
        QVERIFY(settle());
    }

    void colourAndPointSize() {
        cs::ui::PointCloudView* view = m_window->pointView();
        const QString colourBefore = view->colourBy();
        QComboBox* box = m_window->findChild<QComboBox*>(QStringLiteral("colourBox"));
        QVERIFY(box && box->count() > 1);
        const int current = box->currentIndex();
        const int other = current + 1 < box->count() ? current + 1 : current - 1;
        const QString chosen = box->itemData(other).toString();
        box->setFocus();
        // The combo's own keyboard: one step down or up picks the neighbour (activated()).
        QTest::keyClick(box, other > current ? Qt::Key_Down : Qt::Key_Up);
        QCOMPARE(view->colourBy(), chosen);
        const float sizeBefore = view->pointSize();
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Plus);
        QTest::keyClick(view, Qt::Key_Plus);  // held: one step
        const float sizeAfter = view->pointSize();
        QVERIFY(sizeAfter > sizeBefore);
        QCOMPARE(m_window->undoStack()->count(), 2);

        undo();
        QCOMPARE(view->pointSize(), sizeBefore);
        QCOMPARE(view->colourBy(), chosen);
        undo();
        QCOMPARE(view->colourBy(), colourBefore);
        redo();
        QCOMPARE(view->colourBy(), chosen);
        redo();
        QCOMPARE(view->pointSize(), sizeAfter);

        // New data: nothing to undo into.
        QSignalSpy loaded(m_window.get(), &MainWindow::datasetLoaded);
        m_window->openDemoPoints(1000);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(m_window->undoStack()->count(), 0);
        QVERIFY(settle());
    }

    void visibility() {
        // A view option of a panel: the kNN graph's Show edges, toggled from the keyboard.
        m_window->findChild<QDockWidget*>(QStringLiteral("knnDock"))->raise();
        QCheckBox* show = m_window->knnPanel()->showEdgesBox();
        QTRY_VERIFY(show->isVisible());
        const bool before = show->isChecked();
        show->setFocus();
        QTest::keyClick(show, Qt::Key_Space);
        QCOMPARE(show->isChecked(), !before);
        QCOMPARE(m_window->pointView()->edgesVisible(), !before);
        QCOMPARE(m_window->undoStack()->count(), 1);
        undo();
        QCOMPARE(show->isChecked(), before);
        QCOMPARE(m_window->pointView()->edgesVisible(), before);
        redo();
        QCOMPARE(show->isChecked(), !before);
    }

    void selectionSteps() {
        // Select, invert, isolate, hide a cluster and clear, the menu's keys where it has them;
        // then Ctrl+Z walks back through each and Ctrl+Shift+Z forward again.
        cs::ui::DbscanPanel* panel = m_window->dbscanPanel();
        panel->setEps(panel->suggestedEps());
        QVERIFY(settle());
        QVERIFY(panel->lastRun()->result.clusterCount > 1);
        const int base = m_window->undoStack()->count();
        cs::ui::SelectionModel* selection = m_window->selection();
        QCOMPARE(m_window->selectCluster(0), QString());
        const auto cluster = selection->points();
        QVERIFY(!cluster.empty());
        QTest::keyClick(m_window->pointView(), Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
        const auto inverted = selection->points();
        QCOMPARE(inverted.size(), std::size_t(3000) - cluster.size());
        QTest::keyClick(m_window->pointView(), Qt::Key_I, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(m_window->isIsolated());
        // Alt+click on the legend's row of cluster 1 hides it.
        const auto& entries = m_window->pointView()->legend().entries;
        int row = -1;
        for (std::size_t e = 0; e < entries.size(); ++e)
            if (entries[e].category && *entries[e].category == 1) row = int(e);
        QVERIFY(row >= 0);
        m_window->onLegendClicked(row, Qt::AltModifier);
        QVERIFY(m_window->isClusterHidden(1));
        QTest::keyClick(m_window->pointView(), Qt::Key_X, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(selection->points().empty());
        QCOMPARE(m_window->undoStack()->count(), base + 5);
        QVERIFY(steps().contains(QStringLiteral("Clear the selection")));

        undo();
        QCOMPARE(selection->points(), inverted);
        QVERIFY(m_window->isClusterHidden(1));
        undo();
        QVERIFY(!m_window->isClusterHidden(1));
        QVERIFY(m_window->isIsolated());
        undo();
        QVERIFY(!m_window->isIsolated());
        QVERIFY(!m_window->isolateAction()->isChecked());
        QCOMPARE(selection->points(), inverted);
        undo();
        QCOMPARE(selection->points(), cluster);
        undo();
        QVERIFY(selection->points().empty());
        // Undoing made no steps of its own.
        QCOMPARE(m_window->undoStack()->count(), base + 5);
        // The point view follows: nothing selected, nothing dimmed.
        QVERIFY(m_window->pointView()->pointMask().empty());

        redo();
        QCOMPARE(selection->points(), cluster);
        redo();
        QCOMPARE(selection->points(), inverted);
        redo();
        QVERIFY(m_window->isIsolated());
        redo();
        QVERIFY(m_window->isClusterHidden(1));
        redo();
        QVERIFY(selection->points().empty());
        QCOMPARE(m_window->undoStack()->index(), base + 5);
    }

    void everyRunIsLogged() {
        cs::ui::DbscanPanel* panel = m_window->dbscanPanel();
        panel->setEps(2.75);
        QVERIFY(settle());
        QVERIFY(panel->hasResult());
        const QString line = QStringLiteral("run %1 (")
                                 .arg(QString::fromStdString(
                                     cs::dbscanDescriptor().describe(panel->parameterValues())));
        QVERIFY2(cs::test::logged(line), qPrintable(line));
        QVERIFY(cs::test::logged(QStringLiteral("run dbscan eps=2.75 ")));
        m_window->knnPanel()->run();
        QVERIFY(settle());
        QVERIFY(cs::test::logged(QStringLiteral("run knn k=")));
    }
};

CS_GL_TEST_MAIN(TestUndo)
#include "tst_undo.moc"
