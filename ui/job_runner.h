// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "compute/backend/backend.h"
#include "compute/core/job_control.h"

class QThread;

namespace cs::ui {

/// What a finished job hands back to the GUI thread.
struct JobOutcome {
    QString kind;                        ///< "dbscan", "kdist" ...
    std::uint64_t generation = 0;        ///< the submit() number this answers
    std::shared_ptr<const void> result;  ///< the job's value (JobRunner::submit<T> makes a T)
    QString backend;                     ///< name of the backend that produced it
    std::vector<StageTiming> timings;    ///< stages as recorded by the JobControl
    double milliseconds = 0.0;           ///< wall time of the whole job
    QString error;                       ///< empty on success
    bool cancelled = false;              ///< stopped at a checkpoint; result is null
};

/// The live compute engine shared by every algorithm panel: one worker thread that owns the
/// active compute backend and runs typed jobs. Per kind, only the newest request is kept
/// (latest wins): submit() replaces a pending request of the same kind and cancels a running
/// one at its next checkpoint. Every submit() gets a generation number, increasing per runner;
/// only the outcome of the newest generation of a kind is delivered (finished, failed or
/// cancelled, on the GUI thread), so consumers never see a stale result. The GUI thread never
/// waits: submit() and cancel() only touch a queue under a short lock.
///
/// Fallback rule: when a job throws on a non-CPU backend (anything but cs::Cancelled), it is
/// re-run on the CPU backend. If that succeeds, the accelerator failed, not the input: the
/// runner switches to the CPU for this and every later job and emits backendChanged(). If the
/// CPU fails as well, the input or parameters were at fault: that error is reported and the
/// accelerator stays in use.
/// @code
/// runner.submit<cs::DbscanResult>("dbscan", [points, p](cs::Backend& b, cs::JobControl& job) {
///     return b.dbscan(*points, p, job);
/// });
/// @endcode
class JobRunner : public QObject {
    Q_OBJECT
public:
    using BackendFactory = std::function<std::shared_ptr<Backend>()>;
    using Work = std::function<std::shared_ptr<const void>(Backend&, JobControl&)>;

    /// primary: the preferred backend (e.g. the registry's "auto"); fallback: the CPU. Both are
    /// created on the worker thread at its first job, since CUDA initialisation takes time.
    JobRunner(BackendFactory primary, BackendFactory fallback, QObject* parent = nullptr);
    /// Cancels every job and joins the worker (the only place the GUI thread waits).
    ~JobRunner() override;

    /// Queues work of this kind, superseding the pending and cancelling the running one of the
    /// same kind; returns its generation.
    std::uint64_t submitWork(const QString& kind, Work work);
    /// Typed convenience: the result of fn (a T) travels as a shared_ptr<const T>.
    template <class T, class Fn>
    std::uint64_t submit(const QString& kind, Fn fn) {
        return submitWork(kind, [fn = std::move(fn)](Backend& b, JobControl& job) {
            return std::shared_ptr<const void>(std::make_shared<const T>(fn(b, job)));
        });
    }
    /// Drops the pending request and cancels the running job of this kind; cancelled() follows.
    void cancel(const QString& kind);
    /// Cancels every kind.
    void cancelAll();

    /// True while the newest request of this kind has not been answered.
    bool isBusy(const QString& kind) const;
    /// True while any kind is busy.
    bool isBusy() const;
    /// The newest generation submitted for kind (0 when none).
    std::uint64_t latestGeneration(const QString& kind) const;
    /// Name of the backend jobs run on now ("cuda", "cpu"; empty before the first job).
    QString backendName() const;

signals:
    /// The newest request of outcome.kind finished with a result.
    void finished(const cs::ui::JobOutcome& outcome);
    /// The newest request of outcome.kind failed; outcome.error says why.
    void failed(const cs::ui::JobOutcome& outcome);
    /// The newest request of outcome.kind was cancelled; the previous result stays valid.
    void cancelled(const cs::ui::JobOutcome& outcome);
    /// Progress of the running job (throttled to a few updates a second).
    void progress(const QString& kind, std::uint64_t generation, double fraction,
                  const QString& stage);
    /// The busy state of the runner as a whole changed.
    void busyChanged(bool busy);
    /// Jobs now run on another backend; reason says why (a CUDA failure ...).
    void backendChanged(const QString& name, const QString& reason);

private:
    struct Request {
        std::uint64_t generation = 0;
        Work work;
    };
    struct Running {
        QString kind;
        std::uint64_t generation = 0;
        JobControl* control = nullptr;
    };
    void workerLoop();
    JobOutcome runOne(const QString& kind, const Request& request);
    void deliver(JobOutcome outcome);
    void updateBusy();

    BackendFactory m_primaryFactory;
    BackendFactory m_fallbackFactory;
    QThread* m_thread = nullptr;

    // Shared with the worker, under m_mutex.
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::map<QString, Request> m_pending;
    std::vector<QString> m_order;  // pending kinds, oldest request first
    Running m_running;
    bool m_stop = false;
    std::shared_ptr<Backend> m_backend;
    std::shared_ptr<Backend> m_fallback;
    QString m_backendName;
    std::uint64_t m_nextGeneration = 1;

    // GUI thread only.
    std::map<QString, std::uint64_t> m_latest;    // newest generation submitted per kind
    std::map<QString, std::uint64_t> m_answered;  // newest generation answered per kind
    bool m_busy = false;
};

/// An outcome's times for a panel, one line each: "cuda · 35.5 ms", then "  tree: 4.8 ms (3×)"
/// per stage; stages a job repeats (per tree, batch or iteration) are summed per name, in the
/// order they first finished.
QString timingText(const JobOutcome& outcome);

}  // namespace cs::ui

Q_DECLARE_METATYPE(cs::ui::JobOutcome)
