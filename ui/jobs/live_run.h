// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QTimer>
#include <functional>

namespace cs::ui {

class JobRunner;
struct JobOutcome;

/// When an algorithm panel re-runs its job of one kind as the parameters change. Short jobs
/// coalesce: at most one is in flight per kind and the newest parameters run as soon as it ends,
/// so a drag streams results. A job whose last run took longJobMs or more is debounced instead, and
/// its run supersedes (cancels) the one in flight: waiting for that would lag behind the user.
/// A change on a job whose last run took kOneFrameJobMs or less holds the windows' repaints
/// (FrameHold) until its result is shown, so that both reach the screen in one frame.
/// @code
/// LiveRun live(runner, "knn", [this] { submitRun(); });  // submitRun() calls beginSubmit()
/// live.schedule();                                       // a parameter changed
/// @endcode
class LiveRun {
public:
    /// Runs at least this long (ms) are debounced and superseded rather than coalesced.
    static constexpr double kLongJobMs = 1000.0;
    /// Changes on long jobs settle for this long (ms) before a run starts.
    static constexpr int kLongJobDebounceMs = 150;
    /// Runs at most this long (ms) show their change and their result in one frame.
    static constexpr double kOneFrameJobMs = 40.0;

    /// submit: the panel's submission, which starts with beginSubmit().
    LiveRun(JobRunner& runner, QString kind, std::function<void()> submit,
            double longJobMs = kLongJobMs, int longJobDebounceMs = kLongJobDebounceMs);

    /// The parameters changed: runs now, after the run in flight, or after the debounce.
    void schedule();
    /// Runs now, skipping a pending debounce.
    void runNow();
    /// What a submission does first: the parameters it reads are no longer pending.
    void beginSubmit();
    /// New data: cancels the run of this kind and forgets pending changes and the last run time.
    void reset();
    /// True while a change waits to run (debounced, or behind the run in flight).
    bool isPending() const { return m_dirty || m_debounce.isActive(); }
    /// True while a change is pending (or debounced) or a run of this kind is computing.
    bool isBusy() const;

    /// A run finished: call before showing it, so a change made in response is scheduled by this
    /// run's time; call runPending() after.
    void finished(const JobOutcome& outcome);
    /// A run failed: runs the changes made while it computed.
    void failed(const JobOutcome& outcome);
    /// A run was cancelled: nothing is pending any more (new data or an explicit cancel).
    void cancelled(const JobOutcome& outcome);
    /// After a run was shown (or failed): ends its frame hold and runs the changes made while it
    /// computed, if any.
    void runPending();

    /// Wall time of the last finished run (0 before the first and after reset()).
    double lastRunMs() const { return m_lastRunMs; }
    /// The job kind ("dbscan", "knn" ...).
    const QString& kind() const { return m_kind; }

private:
    void submitOrWait();
    void releaseFrame();

    JobRunner& m_runner;
    QString m_kind;
    std::function<void()> m_submit;
    double m_longJobMs;
    int m_longJobDebounceMs;
    bool m_dirty = false;  // parameters changed since the last submitted run
    double m_lastRunMs = 0.0;
    QTimer m_debounce;
};

}  // namespace cs::ui
