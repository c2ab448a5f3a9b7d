// SPDX-License-Identifier: MIT
#include "ui/jobs/live_run.h"

#include <algorithm>
#include <utility>

#include "ui/jobs/frame_hold.h"
#include "ui/jobs/job_runner.h"

namespace cs::ui {

LiveRun::LiveRun(JobRunner& runner, QString kind, std::function<void()> submit, double longJobMs,
                 int longJobDebounceMs)
    : m_runner(runner),
      m_kind(std::move(kind)),
      m_submit(std::move(submit)),
      m_longJobMs(longJobMs),
      m_longJobDebounceMs(longJobDebounceMs) {
    m_debounce.setSingleShot(true);
    QObject::connect(&m_debounce, &QTimer::timeout, &m_debounce, [this] { m_submit(); });
}

void LiveRun::schedule() {
    m_dirty = true;
    if (m_lastRunMs > 0.0 && m_lastRunMs <= kOneFrameJobMs) {
        // Twice the last run's time, and a frame: a slower run than that lets the change show.
        const int limitMs = int(std::min(2.0 * m_lastRunMs + 16.0, 100.0));
        FrameHold::instance().hold(m_kind, limitMs);
    }
    submitOrWait();
}

void LiveRun::submitOrWait() {
    if (m_lastRunMs < m_longJobMs) {
        // Short jobs: let the running one finish and show it; the newest parameters run next.
        if (!m_runner.isBusy(m_kind)) m_submit();
        return;
    }
    m_debounce.start(m_longJobDebounceMs);
}

void LiveRun::releaseFrame() {
    FrameHold::instance().release(m_kind);
}

void LiveRun::runNow() {
    m_debounce.stop();
    m_submit();
}

void LiveRun::beginSubmit() {
    m_debounce.stop();
    m_dirty = false;
}

void LiveRun::reset() {
    releaseFrame();
    m_runner.cancel(m_kind);
    m_debounce.stop();
    m_dirty = false;
    m_lastRunMs = 0.0;
}

bool LiveRun::isBusy() const {
    return m_dirty || m_debounce.isActive() || m_runner.isBusy(m_kind);
}

void LiveRun::finished(const JobOutcome& outcome) {
    if (outcome.kind == m_kind) m_lastRunMs = outcome.milliseconds;
}

void LiveRun::failed(const JobOutcome& outcome) {
    if (outcome.kind == m_kind) runPending();
}

void LiveRun::cancelled(const JobOutcome& outcome) {
    if (outcome.kind != m_kind) return;
    m_dirty = false;
    releaseFrame();
}

void LiveRun::runPending() {
    // The result just shown is painted now; the changes made meanwhile run without a new hold,
    // which would keep it off the screen until theirs.
    releaseFrame();
    if (m_dirty) submitOrWait();
}

}  // namespace cs::ui
