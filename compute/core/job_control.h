// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs {

/// Wall-clock (or CUDA-event) time of one named stage of a job.
struct StageTiming {
    std::string name;     ///< stage name as shown to the user ("grid", "union-find" ...)
    double milliseconds;  ///< elapsed time of the stage
};

/// Where an iterative job stands (k-Shape's refinement, the kNN graph's trees), for a progress
/// line such as "iteration 3 / 100 · 12 series moved".
struct IterationStatus {
    std::string name = "iteration";  ///< what one step is called ("iteration", "tree")
    int current = 0;                 ///< steps done, counted from 1
    int max = 0;                     ///< the most steps there can be
    std::int64_t changes = -1;       ///< what the last step changed; -1 when not counted
    std::string changesUnit;         ///< what changes counts ("series moved")
    std::string measure;             ///< a convergence measure as text ("recall 0.93"), or empty
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
    /// An iterative job's step (kept until the job ends), reported with fraction as progress.
    void setIteration(IterationStatus status, double fraction);
    /// The last step setIteration() reported, if any (thread-safe).
    std::optional<IterationStatus> iteration() const;
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
    std::optional<IterationStatus> m_iteration;
};

}  // namespace cs
