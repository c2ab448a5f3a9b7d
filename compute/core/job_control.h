// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace cs {

/// Wall-clock (or CUDA-event) time of one named stage of a job.
struct StageTiming {
    std::string name;     ///< stage name as shown to the user ("grid", "union-find" ...)
    double milliseconds;  ///< elapsed time of the stage
};

/// Progress, cooperative cancellation and per-stage timings of one job.
/// The job calls setProgress()/checkpoint() from its own thread; any thread may call cancel().
/// @code
/// cs::JobControl job([](double f, std::string_view stage) { print(f, stage); });
/// { auto s = job.stage("read"); ... job.checkpoint(); }
/// for (const auto& t : job.timings()) ...
/// @endcode
class JobControl {
public:
    /// Receives the fraction done in [0, 1] and the current stage text; called on the job's thread.
    using ProgressFn = std::function<void(double fraction, std::string_view stage)>;

    JobControl() = default;
    explicit JobControl(ProgressFn progress) : m_progress(std::move(progress)) {}
    JobControl(const JobControl&) = delete;
    JobControl& operator=(const JobControl&) = delete;

    /// Reports progress; fraction is clamped to [0, 1].
    void setProgress(double fraction, std::string_view stage = {});
    /// Asks the job to stop at its next checkpoint (thread-safe).
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    /// True once cancel() was called (on this job or on the job it is part of).
    bool isCancelled() const {
        return m_cancelled.load(std::memory_order_relaxed) || (m_parent && m_parent->isCancelled());
    }
    /// Makes this job a part of parent: parent's cancel() reaches this job's checkpoints at
    /// once (not only at its next progress report). parent must outlive this job.
    void setParent(const JobControl* parent) { m_parent = parent; }
    /// Throws cs::Cancelled when cancel() was called; jobs call it between batches of work.
    void checkpoint() const;

    /// Records a finished stage (used directly for CUDA-event timings).
    void addTiming(std::string name, double milliseconds);
    /// Stages recorded so far, in the order they finished.
    std::vector<StageTiming> timings() const;

    /// Times the enclosing scope as one stage and announces it through the progress callback.
    class Stage {
    public:
        Stage(JobControl& job, std::string name);
        ~Stage();
        Stage(const Stage&) = delete;
        Stage& operator=(const Stage&) = delete;

    private:
        JobControl& m_job;
        std::string m_name;
        std::chrono::steady_clock::time_point m_start;
    };
    /// @code auto s = job.stage("sort"); @endcode
    [[nodiscard]] Stage stage(std::string name) { return Stage(*this, std::move(name)); }
    /// The stage begun last (empty before the first): where a failure happened, for messages.
    std::string lastStage() const;

private:
    ProgressFn m_progress;
    std::atomic<bool> m_cancelled{false};
    const JobControl* m_parent = nullptr;
    double m_lastFraction = 0.0;
    mutable std::mutex m_mutex;
    std::vector<StageTiming> m_timings;
    std::string m_lastStage;
};

}  // namespace cs
