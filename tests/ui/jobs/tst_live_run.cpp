// SPDX-License-Identifier: MIT
// The live-run policy with fake jobs through a real JobRunner: short jobs coalesce (one in
// flight, the newest parameters next), long ones are debounced and supersede the run in flight,
// runNow() skips the debounce, and reset() cancels and forgets.
#include <QtTest>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "compute/backend/cpu_backend.h"
#include "ui/jobs/job_runner.h"
#include "ui/jobs/live_run.h"

using cs::ui::JobOutcome;
using cs::ui::JobRunner;
using cs::ui::LiveRun;

namespace {

const QString kFake = QStringLiteral("fake");

// A panel in miniature: its parameter, what it submitted and what it was shown.
struct FakePanel {
    JobRunner runner;
    LiveRun live;
    int parameter = 0;
    int jobMs = 0;  // how long the next submitted job takes
    std::vector<int> submitted;
    std::vector<int> shown;

    FakePanel(double longJobMs, int debounceMs)
        : runner(cpu, cpu),
          live(
              runner, kFake, [this] { submit(); }, longJobMs, debounceMs) {
        QObject::connect(&runner, &JobRunner::finished, &runner, [this](const JobOutcome& o) {
            live.finished(o);
            shown.push_back(*std::static_pointer_cast<const int>(o.result));
            live.runPending();
        });
        QObject::connect(&runner, &JobRunner::failed, &runner,
                         [this](const JobOutcome& o) { live.failed(o); });
        QObject::connect(&runner, &JobRunner::cancelled, &runner,
                         [this](const JobOutcome& o) { live.cancelled(o); });
    }
    // The jobs never touch the backend; the runner needs one to run them on.
    static std::shared_ptr<cs::Backend> cpu() { return std::make_shared<cs::CpuBackend>(1); }

    void submit() {
        live.beginSubmit();
        submitted.push_back(parameter);
        runner.submit<int>(kFake, [p = parameter, ms = jobMs](cs::Backend&, cs::JobControl& job) {
            // Small steps with checkpoints, so a superseded job stops at once.
            for (int t = 0; t < ms; t += 5) {
                job.checkpoint();
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            return p;
        });
    }
    void change(int value) {
        parameter = value;
        live.schedule();
    }
};

}  // namespace

class TestLiveRun : public QObject {
    Q_OBJECT

private slots:
    void shortJobsCoalesce() {
        FakePanel panel(LiveRun::kLongJobMs, LiveRun::kLongJobDebounceMs);
        panel.jobMs = 200;
        panel.change(1);
        QCOMPARE(panel.submitted, std::vector<int>({1}));  // at once: no run before
        // While it runs, changes only mark the parameters; the newest runs next.
        for (int v : {2, 3, 4, 5})
            panel.change(v);
        QCOMPARE(panel.submitted, std::vector<int>({1}));
        QVERIFY(panel.live.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!panel.live.isBusy(), 10000);
        QCOMPARE(panel.submitted, std::vector<int>({1, 5}));
        QCOMPARE(panel.shown, std::vector<int>({1, 5}));
        QVERIFY(panel.live.lastRunMs() >= 150.0);
    }

    void longJobsAreDebouncedAndSupersede() {
        FakePanel panel(20.0, 50);
        panel.jobMs = 40;
        panel.change(1);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.live.isBusy(), 10000);
        QVERIFY(panel.live.lastRunMs() >= 20.0);
        // Now a long job: changes wait for the debounce, and only the last one runs.
        panel.jobMs = 5000;
        panel.change(2);
        panel.change(3);
        QCOMPARE(panel.submitted, std::vector<int>({1}));
        QVERIFY(panel.live.isBusy());
        QTRY_COMPARE_WITH_TIMEOUT(panel.submitted, std::vector<int>({1, 3}), 10000);
        // A change while 3 runs cancels it after the debounce instead of waiting for it.
        panel.jobMs = 40;
        panel.change(4);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.live.isBusy(), 4000);
        QCOMPARE(panel.submitted, std::vector<int>({1, 3, 4}));
        QCOMPARE(panel.shown, std::vector<int>({1, 4}));
    }

    void runNowSkipsTheDebounce() {
        FakePanel panel(0.0, 10000);  // every job counts as long
        panel.change(1);              // even the first: 0 ms is not below a threshold of 0
        QCOMPARE(panel.submitted, std::vector<int>());
        QVERIFY(panel.live.isBusy());
        panel.live.runNow();
        QCOMPARE(panel.submitted, std::vector<int>({1}));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.live.isBusy(), 10000);
        QCOMPARE(panel.shown, std::vector<int>({1}));
    }

    void resetCancelsAndForgets() {
        FakePanel panel(LiveRun::kLongJobMs, LiveRun::kLongJobDebounceMs);
        panel.jobMs = 40;
        panel.change(1);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.live.isBusy(), 10000);
        QVERIFY(panel.live.lastRunMs() > 0.0);
        panel.jobMs = 5000;
        panel.change(2);
        panel.change(3);  // pending behind 2
        panel.live.reset();
        QCOMPARE(panel.live.lastRunMs(), 0.0);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.live.isBusy(), 4000);
        // Neither 2 nor the pending 3 ran to the end.
        QCOMPARE(panel.submitted, std::vector<int>({1, 2}));
        QCOMPARE(panel.shown, std::vector<int>({1}));
    }
};

QTEST_GUILESS_MAIN(TestLiveRun)
#include "tst_live_run.moc"
