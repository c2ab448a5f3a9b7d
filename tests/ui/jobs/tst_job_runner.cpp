// SPDX-License-Identifier: MIT
// The live engine under a storm of requests: latest wins, stale results never shown, the GUI
// thread never blocked, cancellation keeps the previous result, errors and CUDA-style
// failures handled (with a fallback to the CPU).
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>
#include <chrono>
#include <future>
#include <thread>

#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"
#include "compute/demo/demo_data.h"
#include "ui/jobs/job_runner.h"

using cs::ui::JobOutcome;
using cs::ui::JobRunner;

namespace {

// A backend that only has a name; the fake jobs do their own work.
class NamedBackend : public cs::Backend {
public:
    explicit NamedBackend(std::string name) : m_name(std::move(name)) {}
    std::string name() const override { return m_name; }
    cs::BackendInfo info() const override { return {m_name, "test", 0, 0, 1, {}}; }
    cs::DbscanResult dbscan(const cs::PointSet&, const cs::DbscanParams&,
                            cs::JobControl&) override {
        if (m_name == "cuda-limited") throw cs::Error("the CUDA k-distance supports k <= 256");
        if (m_name == "cuda-oom")
            throw cs::DeviceError(
                "CUDA error cudaErrorMemoryAllocation (2): out of memory, in cudaMallocAsync",
                /*outOfMemory=*/true);
        throw cs::DeviceError(
            "CUDA error 700 (cudaErrorIllegalAddress): an illegal memory "
            "access was encountered");
    }

private:
    std::string m_name;
};

// The "slow job": a deterministic function of its parameter, computed in small steps with a
// checkpoint between them.
long long slowValue(int parameter, cs::JobControl& job, int steps) {
    long long v = 0;
    for (int i = 0; i < steps; ++i) {
        job.checkpoint();
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        v += (long long)parameter * 31 + i;
    }
    return v;
}

std::shared_ptr<JobRunner> makeRunner() {
    auto cpu = std::make_shared<NamedBackend>("cpu");
    return std::make_shared<JobRunner>([cpu] { return cpu; }, [cpu] { return cpu; });
}

}  // namespace

class TestJobRunner : public QObject {
    Q_OBJECT

private slots:
    void stormOfRequests() {
        const quint32 seed = QRandomGenerator::global()->generate();
        qInfo("seed %u", seed);
        QRandomGenerator rng(seed);
        auto runner = makeRunner();
        std::vector<std::uint64_t> generations;
        long long lastShown = -1;
        std::uint64_t lastGeneration = 0;
        bool ordered = true;
        connect(runner.get(), &JobRunner::finished, this, [&](const JobOutcome& o) {
            ordered = ordered && o.generation > lastGeneration;
            lastGeneration = o.generation;
            lastShown = *std::static_pointer_cast<const long long>(o.result);
            generations.push_back(o.generation);
        });

        // A 5 ms timer measures how long the GUI thread is ever kept from its event loop.
        QElapsedTimer tick;
        qint64 maxGap = 0;
        QTimer heartbeat;
        heartbeat.setInterval(5);
        connect(&heartbeat, &QTimer::timeout, this,
                [&] { maxGap = std::max(maxGap, tick.restart()); });
        tick.start();
        heartbeat.start();

        int lastParameter = 0;
        int submitted = 0;
        QTimer storm;
        storm.setInterval(2);
        connect(&storm, &QTimer::timeout, this, [&] {
            for (int burst = 0; burst < 4 && submitted < 1000; ++burst, ++submitted) {
                lastParameter = int(rng.bounded(1000000));
                const int p = lastParameter;
                runner->submit<long long>("slow", [p](cs::Backend&, cs::JobControl& job) {
                    return slowValue(p, job, 20);
                });
            }
            if (submitted >= 1000) storm.stop();
        });
        storm.start();
        QTRY_VERIFY_WITH_TIMEOUT(submitted >= 1000 && !runner->isBusy(), 20000);
        heartbeat.stop();

        cs::JobControl direct;
        QCOMPARE(lastShown, slowValue(lastParameter, direct, 20));
        QVERIFY(ordered);
        QVERIFY(!generations.empty());
        QCOMPARE(generations.back(), runner->latestGeneration("slow"));
        // How long the event loop was kept waiting depends on the machine's load (two cores
        // shared with other suites under ctest -j): informative only. The property itself is
        // checked by neverWaitsForARunningJob().
        qInfo("longest GUI gap during the storm: %lld ms", maxGap);
    }

    // The GUI thread never waits for a job: submit() and cancel() return while a job of the
    // same kind (and one of another kind) is stuck. A runner that waited would deadlock here,
    // since only this thread can release the jobs.
    void neverWaitsForARunningJob() {
        auto runner = makeRunner();
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        std::atomic<int> started{0};
        auto stuck = [released, &started](cs::Backend&, cs::JobControl&) {
            ++started;
            released.wait();
            return 1;
        };
        runner->submit<int>("a", stuck);
        runner->submit<int>("b", stuck);
        QTRY_COMPARE(started.load(), 2);
        for (int i = 0; i < 1000; ++i) {
            runner->submit<int>(i % 2 ? "a" : "b", [](cs::Backend&, cs::JobControl&) { return 2; });
            if (i % 10 == 0) runner->cancel("a");
        }
        QVERIFY(runner->isBusy());
        release.set_value();
        QTRY_VERIFY(!runner->isBusy());
    }

    // Each kind runs on a lane of its own: a job of one kind finishes while a job of another
    // kind is still running, and each lane has its own backends.
    void kindsDoNotWaitBehindEachOther() {
        std::atomic<int> made{0};
        JobRunner runner(
            [&made] {
                ++made;
                return std::make_shared<NamedBackend>("cpu");
            },
            [] { return std::make_shared<NamedBackend>("cpu"); });
        QSignalSpy finished(&runner, &JobRunner::finished);
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        runner.submit<int>("kdist", [released](cs::Backend&, cs::JobControl&) {
            released.wait();
            return 1;
        });
        runner.submit<int>("dbscan", [](cs::Backend&, cs::JobControl&) { return 2; });
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(finished.front().front().value<JobOutcome>().kind, QStringLiteral("dbscan"));
        QVERIFY(runner.isBusy("kdist"));
        QCOMPARE(made.load(), 2);
        release.set_value();
        QTRY_COMPARE(finished.size(), 2);
        // A kind that shares a lane runs behind the other kind of that lane, on its backend.
        runner.shareLane("resident", "dbscan");
        const cs::Backend* dbscanBackend = nullptr;
        const cs::Backend* residentBackend = nullptr;
        runner.submit<int>("dbscan", [&](cs::Backend& b, cs::JobControl&) {
            dbscanBackend = &b;
            return 3;
        });
        runner.submit<int>("resident", [&](cs::Backend& b, cs::JobControl&) {
            residentBackend = &b;
            return 4;
        });
        QTRY_COMPARE(finished.size(), 4);
        QVERIFY(dbscanBackend && dbscanBackend == residentBackend);
        QCOMPARE(made.load(), 2);
    }

    void cancellationKeepsPreviousResult() {
        auto runner = makeRunner();
        QSignalSpy finished(runner.get(), &JobRunner::finished);
        QSignalSpy cancelled(runner.get(), &JobRunner::cancelled);
        runner->submit<int>("k", [](cs::Backend&, cs::JobControl&) { return 7; });
        QTRY_COMPARE(finished.size(), 1);
        runner->submit<long long>(
            "k", [](cs::Backend&, cs::JobControl& job) { return slowValue(1, job, 100000); });
        QTest::qWait(30);
        QVERIFY(runner->isBusy("k"));
        runner->cancel("k");
        QTRY_COMPARE(cancelled.size(), 1);
        QCOMPARE(finished.size(), 1);  // nothing replaced the first result
        QVERIFY(!runner->isBusy("k"));
        const auto first = finished.front().front().value<JobOutcome>();
        QCOMPARE(*std::static_pointer_cast<const int>(first.result), 7);
    }

    // Cancel answers at once: a job that finishes before its next checkpoint (or never looks)
    // does not land after the user cancelled it.
    void cancelledJobNeverLandsLate() {
        auto runner = makeRunner();
        QSignalSpy finished(runner.get(), &JobRunner::finished);
        QSignalSpy cancelled(runner.get(), &JobRunner::cancelled);
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        std::atomic<bool> started{false};
        runner->submit<int>("k", [released, &started](cs::Backend&, cs::JobControl&) {
            started = true;
            released.wait();
            return 5;
        });
        QTRY_VERIFY(started.load());
        runner->cancel("k");
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!runner->isBusy("k"));
        release.set_value();
        // A later request of the kind still runs on the same lane, behind the stale one.
        runner->submit<int>("k", [](cs::Backend&, cs::JobControl&) { return 6; });
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(*std::static_pointer_cast<const int>(
                     finished.front().front().value<JobOutcome>().result),
                 6);
        QCOMPARE(cancelled.size(), 1);
    }

    void errorsAreReportedAndTheRunnerGoesOn() {
        auto runner = makeRunner();
        QSignalSpy failed(runner.get(), &JobRunner::failed);
        QSignalSpy finished(runner.get(), &JobRunner::finished);
        runner->submit<int>("k", [](cs::Backend&, cs::JobControl&) -> int {
            throw cs::Error("eps must be finite");
        });
        QTRY_COMPARE(failed.size(), 1);
        QVERIFY(failed.front().front().value<JobOutcome>().error.contains("finite"));
        runner->submit<int>("k",
                            [](cs::Backend&, cs::JobControl&) -> int { throw std::bad_alloc(); });
        QTRY_COMPARE(failed.size(), 2);
        QVERIFY(failed.back().front().value<JobOutcome>().error.contains("out of memory"));
        runner->submit<int>("k", [](cs::Backend&, cs::JobControl&) { return 3; });
        QTRY_COMPARE(finished.size(), 1);
    }

    void cudaFailureFallsBackToCpu() {
        auto cuda = std::make_shared<NamedBackend>("cuda");
        auto cpu = std::make_shared<cs::CpuBackend>(1);
        JobRunner runner([cuda] { return cuda; }, [cpu] { return cpu; });
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy changed(&runner, &JobRunner::backendChanged);
        auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(2000, 3));
        const cs::DbscanParams p{.eps = 8.0f, .minPts = 5};
        runner.submit<cs::DbscanResult>("dbscan", [points, p](cs::Backend& b, cs::JobControl& j) {
            return b.dbscan(*points, p, j);
        });
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.front().at(0).toString(), QStringLiteral("cpu"));
        QVERIFY(changed.front().at(1).toString().contains("illegal memory"));
        QCOMPARE(runner.backendName(), QStringLiteral("cpu"));
        const auto o = finished.front().front().value<JobOutcome>();
        QCOMPARE(o.backend, QStringLiteral("cpu"));
        cs::JobControl job;
        QCOMPARE(std::static_pointer_cast<const cs::DbscanResult>(o.result)->labels,
                 cs::CpuBackend(1).dbscan(*points, p, job).labels);
        // Later jobs stay on the CPU.
        runner.submit<std::string>("n", [](cs::Backend& b, cs::JobControl&) { return b.name(); });
        QTRY_COMPARE(finished.size(), 2);
        QCOMPARE(*std::static_pointer_cast<const std::string>(
                     finished.back().front().value<JobOutcome>().result),
                 std::string("cpu"));
    }

    void gpuLimitsRunOnTheCpuWithoutSwitching() {
        auto cuda = std::make_shared<NamedBackend>("cuda-limited");
        auto cpu = std::make_shared<cs::CpuBackend>(1);
        JobRunner runner([cuda] { return cuda; }, [cpu] { return cpu; });
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy changed(&runner, &JobRunner::backendChanged);
        auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(2000, 3));
        const cs::DbscanParams p{.eps = 8.0f, .minPts = 5};
        runner.submit<cs::DbscanResult>("dbscan", [points, p](cs::Backend& b, cs::JobControl& j) {
            return b.dbscan(*points, p, j);
        });
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(finished.front().front().value<JobOutcome>().backend, QStringLiteral("cpu"));
        QCOMPARE(changed.size(), 0);  // this job went to the CPU; the GPU stays in use
        QCOMPARE(runner.backendName(), QStringLiteral("cuda-limited"));
    }

    // Running out of GPU memory is this job's limit, not a device fault: the job runs on the
    // CPU and says so, the GPU stays in use for the next job.
    void gpuOutOfMemoryKeepsTheGpu() {
        auto cuda = std::make_shared<NamedBackend>("cuda-oom");
        auto cpu = std::make_shared<cs::CpuBackend>(1);
        JobRunner runner([cuda] { return cuda; }, [cpu] { return cpu; });
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy changed(&runner, &JobRunner::backendChanged);
        auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(2000, 3));
        const cs::DbscanParams p{.eps = 8.0f, .minPts = 5};
        runner.submit<cs::DbscanResult>("dbscan", [points, p](cs::Backend& b, cs::JobControl& j) {
            return b.dbscan(*points, p, j);
        });
        QTRY_COMPARE(finished.size(), 1);
        const auto o = finished.front().front().value<JobOutcome>();
        QCOMPARE(o.backend, QStringLiteral("cpu"));
        QVERIFY2(o.note.contains("out of memory") && o.note.contains("CPU"), qPrintable(o.note));
        QCOMPARE(changed.size(), 0);
        runner.submit<std::string>("dbscan",
                                   [](cs::Backend& b, cs::JobControl&) { return b.name(); });
        QTRY_COMPARE(finished.size(), 2);
        QCOMPARE(*std::static_pointer_cast<const std::string>(
                     finished.back().front().value<JobOutcome>().result),
                 std::string("cuda-oom"));
        QVERIFY(!cs::isDeviceFault(cs::DeviceError("out of memory", true)));
        QVERIFY(cs::isDeviceFault(cs::DeviceError("illegal address")));
    }

    // A device fault in one lane retires the GPU for every lane.
    void deviceFaultRetiresEveryLane() {
        auto cuda = std::make_shared<NamedBackend>("cuda");
        auto cpu = std::make_shared<cs::CpuBackend>(1);
        JobRunner runner([cuda] { return cuda; }, [cpu] { return cpu; });
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy changed(&runner, &JobRunner::backendChanged);
        runner.submit<std::string>("knn", [](cs::Backend& b, cs::JobControl&) { return b.name(); });
        QTRY_COMPARE(finished.size(), 1);
        auto points = std::make_shared<const cs::PointSet>(cs::demo::makeDemoPoints(500, 3));
        const cs::DbscanParams p{.eps = 8.0f, .minPts = 5};
        runner.submit<cs::DbscanResult>("dbscan", [points, p](cs::Backend& b, cs::JobControl& j) {
            return b.dbscan(*points, p, j);
        });
        QTRY_COMPARE(finished.size(), 2);
        QTRY_COMPARE(changed.size(), 1);
        runner.submit<std::string>("knn", [](cs::Backend& b, cs::JobControl&) { return b.name(); });
        QTRY_COMPARE(finished.size(), 3);
        QCOMPARE(*std::static_pointer_cast<const std::string>(
                     finished.back().front().value<JobOutcome>().result),
                 std::string("cpu"));
    }

    void inputErrorsDoNotSwitchBackends() {
        auto cuda = std::make_shared<NamedBackend>("cuda");
        auto cpu = std::make_shared<cs::CpuBackend>(1);
        JobRunner runner([cuda] { return cuda; }, [cpu] { return cpu; });
        QSignalSpy failed(&runner, &JobRunner::failed);
        QSignalSpy changed(&runner, &JobRunner::backendChanged);
        runner.submit<int>("k", [](cs::Backend&, cs::JobControl&) -> int {
            throw cs::Error("minPts must be at least 1");
        });
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(changed.size(), 0);
        QCOMPARE(runner.backendName(), QStringLiteral("cuda"));
    }

    void destructionCancelsRunningWork() {
        auto runner = makeRunner();
        runner->submit<long long>(
            "k", [](cs::Backend&, cs::JobControl& job) { return slowValue(1, job, 1000000); });
        QTest::qWait(20);
        QElapsedTimer t;
        t.start();
        runner.reset();
        QVERIFY(t.elapsed() < 1000);
    }

    // Iterative methods report their step through JobControl::setIteration; the runner writes
    // the progress line for every method alike, with the time left once a run is long.
    void iterationsInTheProgressLine() {
        auto runner = makeRunner();
        QStringList lines;
        connect(runner.get(), &JobRunner::progress, this,
                [&](const QString& kind, std::uint64_t, double, const QString& stage) {
                    if (kind == "iterate") lines << stage;
                });
        QSignalSpy finished(runner.get(), &JobRunner::finished);
        runner->submit<int>("iterate", [](cs::Backend&, cs::JobControl& job) {
            auto stage = job.stage("assign");
            for (int i = 1; i <= 3; ++i) {
                // Beyond the runner's throttle, so that every step reaches the GUI.
                std::this_thread::sleep_for(std::chrono::milliseconds(80));
                job.setIteration(
                    {.current = i, .max = 10, .changes = 10 - 3 * i, .changesUnit = "series moved"},
                    0.1 * i);
            }
            return 0;
        });
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        QVERIFY2(lines.contains(QStringLiteral("assign · iteration 2 / 10 · 4 series moved")),
                 qPrintable(lines.join(QStringLiteral(" | "))));
        QVERIFY(lines.contains(QStringLiteral("assign · iteration 3 / 10 · 1 series moved")));
    }

    void progressTextSaysTheTimeLeft() {
        using cs::ui::progressText;
        // Short runs: no estimate.
        QCOMPARE(progressText(QStringLiteral("transform"), std::nullopt, 0.5, 1500.0),
                 QStringLiteral("transform"));
        // Long runs: the rest at the rate so far.
        QCOMPARE(progressText(QStringLiteral("transform"), std::nullopt, 0.25, 10000.0),
                 QStringLiteral("transform · about 30 s left"));
        QCOMPARE(progressText({}, std::nullopt, 0.1, 60000.0), QStringLiteral("about 9 min left"));
        QCOMPARE(progressText({}, std::nullopt, 0.02, 120000.0),
                 QStringLiteral("about 1 h 38 min left"));
        // An iterative method may converge before its maximum: at most.
        const cs::IterationStatus tree{
            .name = "tree", .current = 2, .max = 8, .measure = "recall 0.931"};
        QCOMPARE(progressText(QStringLiteral("leaf search"), tree, 0.25, 4000.0),
                 QStringLiteral("leaf search · tree 2 / 8 · recall 0.931 · at most about 12 s "
                                "left"));
        // Nothing to estimate from at the start, nor at the end.
        QCOMPARE(progressText({}, std::nullopt, 0.0, 5000.0), QString());
        QCOMPARE(progressText({}, std::nullopt, 1.0, 5000.0), QString());
    }
};

QTEST_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
