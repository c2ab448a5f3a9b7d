// SPDX-License-Identifier: MIT
// A change on a quick live run and its result reach the screen in one frame: the window does
// not repaint between the change and the result (FrameHold, held by LiveRun), paints right
// after it, and never stays held past the hold's limit.
#include <QLabel>
#include <QVBoxLayout>
#include <QWidget>
#include <chrono>
#include <memory>
#include <thread>

#include "compute/backend/cpu_backend.h"
#include "tests/ui/gui_test_main.h"
#include "ui/jobs/frame_hold.h"
#include "ui/jobs/job_runner.h"
#include "ui/jobs/live_run.h"

using cs::ui::FrameHold;
using cs::ui::JobOutcome;
using cs::ui::JobRunner;
using cs::ui::LiveRun;

namespace {

// Counts the paints of a widget, and when the first one after mark() came.
class PaintCounter : public QObject {
public:
    int paints = 0;
    std::int64_t firstPaintNs = 0;
    void mark() {
        paints = 0;
        firstPaintNs = 0;
    }

protected:
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint && paints++ == 0) firstPaintNs = cs::ui::steadyNowNs();
        return false;
    }
};

// A window with a parameter label, and a live run of the given length behind it: a panel in
// miniature.
struct Window {
    std::shared_ptr<cs::Backend> cpu = std::make_shared<cs::CpuBackend>(1);
    JobRunner runner{[this] { return cpu; }, [this] { return cpu; }};
    QWidget window;
    QLabel* parameterLabel = new QLabel(QStringLiteral("0"));
    QLabel* resultLabel = new QLabel(QStringLiteral("-"));
    PaintCounter counter;
    int parameter = 0;
    int jobMs = 0;
    std::int64_t shownNs = 0;
    LiveRun live{runner, QStringLiteral("fake"), [this] { submit(); }};

    Window() {
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(parameterLabel);
        layout->addWidget(resultLabel);
        parameterLabel->installEventFilter(&counter);
        QObject::connect(&runner, &JobRunner::finished, &runner, [this](const JobOutcome& o) {
            live.finished(o);
            resultLabel->setText(QString::number(*std::static_pointer_cast<const int>(o.result)));
            shownNs = cs::ui::steadyNowNs();
            live.runPending();
        });
        window.resize(300, 120);
        window.show();
    }
    void submit() {
        live.beginSubmit();
        runner.submit<int>(QStringLiteral("fake"),
                           [p = parameter, ms = jobMs](cs::Backend&, cs::JobControl&) {
                               std::this_thread::sleep_for(std::chrono::milliseconds(ms));
                               return p;
                           });
    }
    // What a spin box does: shows the new value at once and re-runs.
    void change(int value) {
        parameter = value;
        parameterLabel->setText(QString::number(value));
        live.schedule();
    }
    bool showing(int value) const { return resultLabel->text() == QString::number(value); }
};

}  // namespace

class TestFrameHold : public QObject {
    Q_OBJECT

private slots:
    void changeAndResultShareAFrame() {
        Window w;
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.jobMs = 15;
        w.change(1);  // the first run: nothing known of its time, nothing held
        QTRY_VERIFY(w.showing(1));
        QVERIFY(w.live.lastRunMs() > 0.0 && w.live.lastRunMs() <= LiveRun::kOneFrameJobMs);
        QTest::qWait(50);

        const int heldBefore = FrameHold::instance().heldRepaints();
        w.counter.mark();
        w.change(2);
        QTRY_VERIFY(w.showing(2));
        QTRY_VERIFY(w.counter.paints > 0);
        // The new value was painted after its result was shown, not while the run computed.
        QVERIFY2(w.counter.firstPaintNs >= w.shownNs,
                 qPrintable(QStringLiteral("painted %1 ms before the result")
                                .arg(double(w.shownNs - w.counter.firstPaintNs) / 1e6)));
        QVERIFY(FrameHold::instance().heldRepaints() > heldBefore);
        QVERIFY(!FrameHold::instance().isHolding());
    }

    void aSlowRunLetsTheChangeShow() {
        Window w;
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.jobMs = 120;  // over the one-frame limit: no hold
        w.change(1);
        QTRY_VERIFY(w.showing(1));
        QVERIFY(w.live.lastRunMs() > LiveRun::kOneFrameJobMs);
        QTest::qWait(50);
        w.counter.mark();
        w.change(2);
        QTRY_VERIFY(w.counter.paints > 0);
        QVERIFY(!w.showing(2));  // the value is on screen before its result
        QTRY_VERIFY(w.showing(2));
    }

    void aHoldEndsAtItsLimit() {
        QWidget window;
        auto* label = new QLabel(QStringLiteral("a"), &window);
        PaintCounter counter;
        label->installEventFilter(&counter);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(50);
        counter.mark();
        // A run that never reports back: the window repaints once the limit has passed.
        FrameHold::instance().hold(QStringLiteral("lost"), 60);
        label->setText(QStringLiteral("b"));
        QTest::qWait(30);
        QCOMPARE(counter.paints, 0);
        QTRY_VERIFY_WITH_TIMEOUT(counter.paints > 0, 2000);
        QVERIFY(!FrameHold::instance().isHolding());
    }
};

CS_GUI_TEST_MAIN(TestFrameHold)
#include "tst_frame_hold.moc"
