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
#include <optional>
#include <vector>

#include "compute/backend/backend.h"
#include "compute/core/job_control.h"

class QThread;

namespace cs::ui {

/// Jobs that have run this long (ms) say in their progress line how long they have left.
inline constexpr double kLongRunMs = 2000.0;

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
    /// Empty, or what a user should know about how the result came about ("the GPU ran out of
    /// memory for this run: it ran on the CPU").
    QString note;
    /// When the job started on its worker, ended there and was delivered on the GUI thread
    /// (steady clock, ns since its epoch; 0 when it never ran): where a change's time went.
    std::int64_t startedNs = 0;
    std::int64_t endedNs = 0;
    std::int64_t deliveredNs = 0;
};

/// The steady clock in ns since its epoch, as JobOutcome's times and the view's frame times.
std::int64_t steadyNowNs();

/// Drops a result on a pool thread when this is its last reference: freeing tens of MB of
/// labels and colours (and their device buffers) takes milliseconds the GUI thread owes the
/// next frame (50 MB: 3 to 5 ms).
void releaseOffGuiThread(std::shared_ptr<const void> result);

/// The live compute engine shared by every algorithm panel. Each kind of job runs on a lane of
/// its own: a worker thread with its own backends (on CUDA, its own stream and library handles),
/// so that no kind waits behind another (a slow k-distance never holds up DBSCAN); kinds that
/// must share a backend's device-resident data share a lane (shareLane()). Per kind, only the
/// newest request is kept (latest wins): submit() replaces a pending request of the same kind and
/// cancels a running one at its next checkpoint. Every submit() gets a generation number,
/// increasing per runner; only the outcome of the newest generation of a kind is delivered
/// (finished, failed or cancelled, on the GUI thread), so consumers never see a stale result. The
/// GUI thread never waits: submit() and cancel() only touch a queue under a short lock.
///
/// Fallback rule: when a job throws on a non-CPU backend (anything but cs::Cancelled), it is
/// re-run on the CPU backend. A device fault (isDeviceFault()) retires the accelerator: every
/// lane runs on the CPU from then on and backendChanged() is emitted. Anything else (the GPU ran
/// out of memory, a limit of the GPU path) sends only that job to the CPU, says so in
/// JobOutcome::note, and the accelerator stays in use. If the CPU fails as well, the input or
/// parameters were at fault: that error is reported.
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

    /// primary: the preferred backend (e.g. a new instance of the registry's "auto"); fallback:
    /// the CPU. Each lane calls both on its own thread at its first job (CUDA initialisation
    /// takes time), so each lane gets backends of its own when the factories make new ones.
    JobRunner(BackendFactory primary, BackendFactory fallback, QObject* parent = nullptr);
    /// Cancels every job and joins the workers (the only place the GUI thread waits).
    ~JobRunner() override;

    /// Runs kind on the lane of withKind (created on first use), e.g. the job that keeps the
    /// points on the device and DBSCAN, which reads that copy. Call before submitting kind.
    void shareLane(const QString& kind, const QString& withKind);

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
    /// Drops the pending request and cancels the running job of this kind (it stops at its next
    /// checkpoint). The newest request is answered cancelled() at once; a result its job still
    /// produces is stale and never delivered.
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
    /// Runs setup on each lane's preferred backend, on the lane's thread, before each of its
    /// jobs (the device set the backend chip chose); setup changes the backend only when it
    /// must. An exception from it fails the job with its message.
    void setBackendSetup(std::function<void(Backend&)> setup);

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
    /// One worker thread, its queue and its backends.
    struct Lane {
        QString name;
        QThread* thread = nullptr;
        std::condition_variable wake;
        std::map<QString, Request> pending;
        std::vector<QString> order;  // pending kinds, oldest request first
        Running running;
        // Worker thread only.
        std::shared_ptr<Backend> backend;
        std::shared_ptr<Backend> fallback;
    };
    /// The lane of kind, started on first use (m_mutex held).
    Lane& laneOf(const QString& kind);
    void workerLoop(Lane& lane);
    JobOutcome runOne(Lane& lane, const QString& kind, const Request& request);
    void deliver(JobOutcome outcome);
    void updateBusy();

    BackendFactory m_primaryFactory;
    BackendFactory m_fallbackFactory;
    std::function<void(Backend&)> m_backendSetup;  // guarded by m_mutex

    // Shared with the workers, under m_mutex.
    mutable std::mutex m_mutex;
    std::map<QString, std::unique_ptr<Lane>> m_lanes;  // by lane name
    std::map<QString, QString> m_laneOfKind;           // kinds sharing another kind's lane
    bool m_stop = false;
    bool m_primaryRetired = false;  // a device fault: every lane runs on the fallback
    QString m_backendName;
    std::uint64_t m_nextGeneration = 1;

    // GUI thread only.
    std::map<QString, std::uint64_t> m_latest;    // newest generation submitted per kind
    std::map<QString, std::uint64_t> m_answered;  // newest generation answered per kind
    bool m_busy = false;
};

/// The progress line of a job, written once for every method: its stage, the iteration of an
/// iterative method ("iteration 3 / 100 · 12 series moved", "tree 2 / 8 · recall 0.931") and,
/// once it has run for longRunMs, the time left as estimated from its fraction done ("about
/// 40 s left"; "at most" for an iterative method, which may converge sooner).
QString progressText(const QString& stage, const std::optional<IterationStatus>& iteration,
                     double fraction, double elapsedMs, double longRunMs = kLongRunMs);

/// An outcome's times for a panel, one line each: "cuda · 35.5 ms", then "  tree: 4.8 ms (3×)"
/// per stage; stages a job repeats (per tree, batch or iteration) are summed per name, in the
/// order they first finished.
QString timingText(const JobOutcome& outcome);

}  // namespace cs::ui

Q_DECLARE_METATYPE(cs::ui::JobOutcome)
