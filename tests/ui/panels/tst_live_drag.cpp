// SPDX-License-Identifier: MIT
// Dragging DBSCAN's eps slider as a user does (50 positions at frame rate, never waiting for a
// run): once idle, the colours in the view's GL buffer are those of a DBSCAN run at the last
// position, and no result of an older position landed after a newer one or after the last.
#include <QDoubleSpinBox>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>
#include <algorithm>
#include <vector>

#include "app/common/register_backends.h"
#include "compute/backend/backend_registry.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/dbscan/cluster_colours.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/shell/main_window.h"
#include "ui/views/points/point_cloud_view.h"

using cs::ui::DbscanPanel;

class TestLiveDrag : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<cs::ui::MainWindow> m_window;

    DbscanPanel* panel() { return m_window->dbscanPanel(); }
    bool settled() { return !panel()->isBusy() && panel()->lastRun(); }

private slots:
    void initTestCase() {
        QSettings().clear();
        cs::app::registerBuiltinBackends();
        m_window = std::make_unique<cs::ui::MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        m_window->openDemoPoints(20000);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->pointView()->pointCount() == 20000, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(panel()->suggestedEps() > 0 && !panel()->isBusy(), 60000);
        panel()->run();
        QTRY_VERIFY_WITH_TIMEOUT(settled() && m_window->pointView()->isContentDrawn(), 60000);
    }

    void lastSliderPositionWins() {
        DbscanPanel* p = panel();
        QSlider* slider = p->epsSlider();
        // 50 positions across a range where the clustering changes (a quarter to twice the knee),
        // ending off the start, so that the last position's colours differ from the first's.
        const int from = p->sliderPosition(p->suggestedEps() * 0.25);
        const int to = p->sliderPosition(p->suggestedEps() * 2.0);
        QVERIFY(to - from >= 50);
        std::vector<int> positions;
        for (int i = 0; i < 50; ++i)
            positions.push_back(from + (to - from) * i / 49);

        // Every result that lands, in order, as the eps it ran with.
        std::vector<float> landed;
        const auto connection = connect(p, &DbscanPanel::resultChanged, this,
                                        [&] { landed.push_back(p->lastRun()->params.eps); });
        std::vector<float> asked;  // the eps of each position, as the spin box makes it
        slider->setSliderDown(true);
        for (const int position : positions) {
            slider->setSliderPosition(position);  // tracking: valueChanged, as a drag gives
            asked.push_back(float(p->epsSpin()->value()));
            QTest::qWait(16);  // one frame; the runs go on meanwhile
        }
        slider->setSliderDown(false);
        const float last = asked.back();
        QTRY_VERIFY_WITH_TIMEOUT(settled() && m_window->pointView()->isContentDrawn(), 60000);
        QTest::qWait(300);  // a stale run still in flight would land now
        disconnect(connection);
        QVERIFY2(!landed.empty(), "no result landed");
        QCOMPARE(landed.back(), last);
        QCOMPARE(p->lastRun()->params.eps, last);
        // Results land in the order of the positions they answer, never an older after a newer.
        std::size_t at = 0;
        for (const float eps : landed) {
            const auto it = std::find(asked.begin() + std::ptrdiff_t(at), asked.end(), eps);
            QVERIFY2(it != asked.end(),
                     qPrintable(QStringLiteral("eps %1 landed out of order").arg(double(eps))));
            at = std::size_t(it - asked.begin());
        }
        qInfo("%zu of %zu positions landed", landed.size(), asked.size());

        // What the GPU holds for the screen is DBSCAN at the last eps, run here directly.
        const auto points = m_window->pointView()->pointSet();
        cs::JobControl job;
        const cs::DbscanResult direct = cs::backendRegistry().get("cpu")->dbscan(
            *points, {.eps = last, .minPts = p->params().minPts}, job);
        QCOMPARE(p->lastRun()->result.labels, direct.labels);
        const std::vector<std::uint32_t> shown = m_window->pointView()->readColourBuffer();
        QCOMPARE(shown.size(), direct.labels.size());
        QVERIFY(cs::ui::coloursShowLabels(shown, direct.labels));
        QVERIFY(cs::ui::coloursShowRun(shown, direct.labels, p->lastRun()->slotOf,
                                       p->lastRun()->slotColours));
        // And not those of the first position (the check can tell them apart).
        const cs::DbscanResult first = cs::backendRegistry().get("cpu")->dbscan(
            *points, {.eps = asked.front(), .minPts = p->params().minPts}, job);
        QVERIFY(first.labels != direct.labels);
        QVERIFY(!cs::ui::coloursShowLabels(shown, first.labels));
    }

    void cleanupTestCase() { m_window.reset(); }
};

CS_GL_TEST_MAIN(TestLiveDrag)
#include "tst_live_drag.moc"
