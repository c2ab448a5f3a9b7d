// SPDX-License-Identifier: MIT
#include "ui/jobs/job_runner.h"

#include <QElapsedTimer>
#include <QLocale>
#include <QMetaObject>
#include <QStringList>
#include <QThread>
#include <QThreadPool>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

#include "compute/core/error.h"
#include "compute/core/memory.h"

namespace cs::ui {
namespace {

// Progress reaches the GUI at most this often: a job reporting per batch must not flood the
// event queue of the thread it is trying to keep responsive.
constexpr qint64 kProgressIntervalMs = 50;

QString messageOf(const std::exception& e) {
    // Methods explain their own (explainingOutOfMemory); this is for anything else.
    if (dynamic_cast<const std::bad_alloc*>(&e))
        return QObject::tr(
                   "out of memory: the data or the parameters need more memory than the %1 "
                   "available now")
            .arg(QString::fromStdString(formatBytes(double(availableMemoryBytes()))));
    return QString::fromUtf8(e.what());
}

}  // namespace

std::int64_t steadyNowNs() {
    return std::int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count());
}

void releaseOffGuiThread(std::shared_ptr<const void> result) {
    if (!result || result.use_count() > 1) return;
    QThreadPool::globalInstance()->start(
        [result = std::move(result)]() mutable { result.reset(); });
}

JobRunner::JobRunner(BackendFactory primary, BackendFactory fallback, QObject* parent)
    : QObject(parent),
      m_primaryFactory(std::move(primary)),
      m_fallbackFactory(std::move(fallback)) {
    qRegisterMetaType<cs::ui::JobOutcome>();
}

JobRunner::~JobRunner() {
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
        for (auto& [name, lane] : m_lanes) {
            lane->pending.clear();
            lane->order.clear();
            if (lane->running.control) lane->running.control->cancel();
        }
    }
    for (auto& [name, lane] : m_lanes) {
        lane->wake.notify_all();
        lane->thread->wait();
        delete lane->thread;
    }
}

void JobRunner::shareLane(const QString& kind, const QString& withKind) {
    const std::lock_guard lock(m_mutex);
    m_laneOfKind[kind] = withKind;
}

JobRunner::Lane& JobRunner::laneOf(const QString& kind) {
    const auto shared = m_laneOfKind.find(kind);
    const QString name = shared == m_laneOfKind.end() ? kind : shared->second;
    auto& lane = m_lanes[name];
    if (!lane) {
        lane = std::make_unique<Lane>();
        lane->name = name;
        Lane* raw = lane.get();
        lane->thread = QThread::create([this, raw] { workerLoop(*raw); });
        lane->thread->setObjectName(QStringLiteral("cs-%1").arg(name));
        lane->thread->start();
    }
    return *lane;
}

std::uint64_t JobRunner::submitWork(const QString& kind, Work work) {
    std::uint64_t generation = 0;
    Lane* lane = nullptr;
    {
        const std::lock_guard lock(m_mutex);
        lane = &laneOf(kind);
        generation = m_nextGeneration++;
        lane->pending[kind] = Request{generation, std::move(work)};
        // A superseded request keeps its place in line: a slider drag must not starve a kind
        // sharing its lane, nor be starved by it.
        if (std::find(lane->order.begin(), lane->order.end(), kind) == lane->order.end())
            lane->order.push_back(kind);
        if (lane->running.control && lane->running.kind == kind) lane->running.control->cancel();
    }
    lane->wake.notify_one();
    m_latest[kind] = generation;
    updateBusy();
    return generation;
}

void JobRunner::cancel(const QString& kind) {
    {
        const std::lock_guard lock(m_mutex);
        for (auto& [name, lane] : m_lanes) {
            auto it = lane->pending.find(kind);
            if (it != lane->pending.end()) {
                lane->pending.erase(it);
                lane->order.erase(std::remove(lane->order.begin(), lane->order.end(), kind),
                                  lane->order.end());
            }
            if (lane->running.control && lane->running.kind == kind)
                lane->running.control->cancel();
        }
    }
    // The request is answered now, not when the worker reaches a checkpoint: a job that
    // finishes before it looks is stale all the same, so what the user cancelled never lands.
    const auto latest = m_latest.find(kind);
    if (latest == m_latest.end() || m_answered[kind] >= latest->second) return;
    JobOutcome outcome;
    outcome.kind = kind;
    outcome.generation = latest->second;
    outcome.cancelled = true;
    deliver(std::move(outcome));
}

void JobRunner::cancelAll() {
    std::vector<QString> kinds;
    for (const auto& [kind, generation] : m_latest)
        kinds.push_back(kind);
    for (const QString& kind : kinds)
        cancel(kind);
}

bool JobRunner::isBusy(const QString& kind) const {
    const auto latest = m_latest.find(kind);
    if (latest == m_latest.end()) return false;
    const auto answered = m_answered.find(kind);
    return answered == m_answered.end() || answered->second < latest->second;
}

bool JobRunner::isBusy() const {
    for (const auto& [kind, generation] : m_latest)
        if (isBusy(kind)) return true;
    return false;
}

std::uint64_t JobRunner::latestGeneration(const QString& kind) const {
    const auto it = m_latest.find(kind);
    return it == m_latest.end() ? 0 : it->second;
}

void JobRunner::setBackendSetup(std::function<void(Backend&)> setup) {
    const std::lock_guard lock(m_mutex);
    m_backendSetup = std::move(setup);
}

QString JobRunner::backendName() const {
    const std::lock_guard lock(m_mutex);
    return m_backendName;
}

void JobRunner::workerLoop(Lane& lane) {
    for (;;) {
        QString kind;
        Request request;
        {
            std::unique_lock lock(m_mutex);
            lane.wake.wait(lock, [&] { return m_stop || !lane.order.empty(); });
            if (m_stop) break;
            kind = lane.order.front();
            lane.order.erase(lane.order.begin());
            auto it = lane.pending.find(kind);
            request = std::move(it->second);
            lane.pending.erase(it);
        }
        JobOutcome outcome = runOne(lane, kind, request);
        outcome.endedNs = steadyNowNs();
        QMetaObject::invokeMethod(
            this, [this, o = std::move(outcome)]() mutable { deliver(std::move(o)); },
            Qt::QueuedConnection);
    }
    // The backends (CUDA streams, handles, device memory) go with the thread that made them.
    lane.backend.reset();
    lane.fallback.reset();
}

JobOutcome JobRunner::runOne(Lane& lane, const QString& kind, const Request& request) {
    JobOutcome outcome;
    outcome.kind = kind;
    outcome.generation = request.generation;
    outcome.startedNs = steadyNowNs();

    // Backends are created here, not in the constructor: CUDA start-up must not stall the GUI.
    if (!lane.fallback && m_fallbackFactory) {
        try {
            lane.fallback = m_fallbackFactory();
        } catch (const std::exception&) {
        }
    }
    bool retired = false;
    {
        const std::lock_guard lock(m_mutex);
        retired = m_primaryRetired;
    }
    if (retired) lane.backend = lane.fallback;
    if (!lane.backend) {
        QString reason;
        try {
            if (m_primaryFactory) lane.backend = m_primaryFactory();
        } catch (const std::exception& e) {
            reason = QString::fromUtf8(e.what());
        }
        if (!lane.backend) lane.backend = lane.fallback;
        if (!lane.backend) {
            outcome.error = tr("no compute backend is available%1")
                                .arg(reason.isEmpty() ? QString() : QStringLiteral(": ") + reason);
            return outcome;
        }
        const std::lock_guard lock(m_mutex);
        if (m_backendName.isEmpty()) m_backendName = QString::fromStdString(lane.backend->name());
    }
    std::function<void(Backend&)> setup;
    {
        const std::lock_guard lock(m_mutex);
        setup = m_backendSetup;
    }
    if (setup && lane.backend != lane.fallback) {
        try {
            setup(*lane.backend);
        } catch (const std::exception& e) {
            outcome.error = QString::fromUtf8(e.what());
            return outcome;
        }
    }

    QElapsedTimer progressClock, runClock;
    progressClock.start();
    const JobControl* running = nullptr;  // the attempt's, for its iteration
    auto progressFn = [this, kind, generation = request.generation, &progressClock, &runClock,
                       &running](double fraction, std::string_view stage) {
        if (progressClock.elapsed() < kProgressIntervalMs && fraction < 1.0) return;
        progressClock.restart();
        const QString text = progressText(QString::fromUtf8(stage.data(), qsizetype(stage.size())),
                                          running ? running->iteration() : std::nullopt, fraction,
                                          double(runClock.nsecsElapsed()) / 1e6);
        QMetaObject::invokeMethod(
            this, [=, this] { emit progress(kind, generation, fraction, text); },
            Qt::QueuedConnection);
    };

    // Runs the work on one backend; the JobControl is published so that cancel() reaches it.
    auto attempt = [&](Backend& backend) {
        JobControl control(progressFn);
        running = &control;
        runClock.start();
        {
            const std::lock_guard lock(m_mutex);
            lane.running = {kind, request.generation, &control};
            // A newer request may have arrived between dequeuing and now.
            const auto it = lane.pending.find(kind);
            if (m_stop || (it != lane.pending.end() && it->second.generation > request.generation))
                control.cancel();
        }
        struct Unpublish {
            JobRunner* self;
            Lane& lane;
            const JobControl*& control;
            ~Unpublish() {
                control = nullptr;
                const std::lock_guard lock(self->m_mutex);
                lane.running = {};
            }
        } unpublish{this, lane, running};
        QElapsedTimer clock;
        clock.start();
        control.checkpoint();
        outcome.result = request.work(backend, control);
        // Cancelled after its last checkpoint (say, the data was replaced meanwhile): the
        // result answers a question nobody asks any more.
        control.checkpoint();
        outcome.timings = control.timings();
        outcome.milliseconds = double(clock.nsecsElapsed()) / 1e6;
        outcome.backend = QString::fromStdString(backend.name());
    };

    std::shared_ptr<Backend> backend = lane.backend;
    try {
        attempt(*backend);
    } catch (const Cancelled&) {
        outcome.cancelled = true;
    } catch (const std::exception& e) {
        const QString firstError = messageOf(e);
        if (!lane.fallback || backend == lane.fallback || backend->name() == "cpu") {
            outcome.error = firstError;
            return outcome;
        }
        // A device fault retires the accelerator for every lane; anything else (out of device
        // memory, a limit of the GPU path) sends only this job to the CPU.
        const bool deviceFault = isDeviceFault(e);
        try {
            attempt(*lane.fallback);
            const QString failedName = QString::fromStdString(backend->name());
            if (!deviceFault) {
                outcome.note =
                    tr("%1 could not run this (%2): it ran on the CPU").arg(failedName, firstError);
                return outcome;
            }
            lane.backend = lane.fallback;
            const QString name = QString::fromStdString(lane.backend->name());
            bool first = false;
            {
                const std::lock_guard lock(m_mutex);
                first = !m_primaryRetired;
                m_primaryRetired = true;
                m_backendName = name;
            }
            if (first)
                QMetaObject::invokeMethod(
                    this,
                    [=, this] {
                        emit backendChanged(name, tr("%1 failed (%2)").arg(failedName, firstError));
                    },
                    Qt::QueuedConnection);
        } catch (const Cancelled&) {
            outcome.cancelled = true;
        } catch (const std::exception& e2) {
            outcome.error = messageOf(e2);
        } catch (...) {
            outcome.error = tr("unknown error");
        }
    } catch (...) {
        outcome.error = tr("unknown error");
    }
    return outcome;
}

void JobRunner::deliver(JobOutcome outcome) {
    const auto latest = m_latest.find(outcome.kind);
    // Only the answer to the newest request counts: anything older is stale.
    if (latest == m_latest.end() || outcome.generation != latest->second) return;
    auto& answered = m_answered[outcome.kind];
    if (answered >= outcome.generation) return;
    answered = outcome.generation;
    outcome.deliveredNs = steadyNowNs();
    updateBusy();
    if (outcome.cancelled)
        emit cancelled(outcome);
    else if (!outcome.error.isEmpty())
        emit failed(outcome);
    else
        emit finished(outcome);
}

void JobRunner::updateBusy() {
    const bool busy = isBusy();
    if (busy == m_busy) return;
    m_busy = busy;
    emit busyChanged(busy);
}

namespace {

QString durationText(double seconds) {
    if (seconds < 60.0) return QObject::tr("%1 s").arg(std::max(1, int(std::lround(seconds))));
    const int minutes = int(std::lround(seconds / 60.0));
    if (minutes < 60) return QObject::tr("%1 min").arg(minutes);
    return QObject::tr("%1 h %2 min").arg(minutes / 60).arg(minutes % 60);
}

}  // namespace

QString progressText(const QString& stage, const std::optional<IterationStatus>& iteration,
                     double fraction, double elapsedMs, double longRunMs) {
    QStringList parts;
    if (!stage.isEmpty()) parts << stage;
    const bool iterative = iteration && iteration->max > 0;
    if (iterative) {
        parts << QObject::tr("%1 %2 / %3")
                     .arg(QString::fromStdString(iteration->name))
                     .arg(iteration->current)
                     .arg(iteration->max);
        if (iteration->changes >= 0)
            parts << QObject::tr("%1 %2").arg(QLocale().toString(qlonglong(iteration->changes)),
                                              QString::fromStdString(iteration->changesUnit));
        if (!iteration->measure.empty()) parts << QString::fromStdString(iteration->measure);
    }
    // The first percent says little about the rest; a short run needs no estimate.
    if (elapsedMs >= longRunMs && fraction >= 0.01 && fraction < 1.0) {
        const double left = elapsedMs / 1000.0 * (1.0 - fraction) / fraction;
        parts << (iterative ? QObject::tr("at most about %1 left") : QObject::tr("about %1 left"))
                     .arg(durationText(left));
    }
    return parts.join(QStringLiteral(" · "));
}

QString timingText(const JobOutcome& outcome) {
    const QLocale locale;
    QStringList lines;
    lines << QObject::tr("%1 · %2 ms")
                 .arg(outcome.backend, locale.toString(outcome.milliseconds, 'f', 1));
    std::vector<std::pair<QString, std::pair<double, int>>> stages;
    for (const auto& t : outcome.timings) {
        const QString name = QString::fromStdString(t.name);
        auto it = std::find_if(stages.begin(), stages.end(),
                               [&](const auto& s) { return s.first == name; });
        if (it == stages.end()) it = stages.insert(stages.end(), {name, {0.0, 0}});
        it->second.first += t.milliseconds;
        ++it->second.second;
    }
    for (const auto& [name, total] : stages)
        lines << (total.second > 1
                      ? QObject::tr("  %1: %2 ms (%3×)")
                            .arg(name, locale.toString(total.first, 'f', 1))
                            .arg(total.second)
                      : QObject::tr("  %1: %2 ms").arg(name, locale.toString(total.first, 'f', 1)));
    return lines.join(QLatin1Char('\n'));
}

}  // namespace cs::ui
