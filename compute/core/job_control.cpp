// SPDX-License-Identifier: MIT
#include "compute/core/job_control.h"

#include <algorithm>

#include "compute/core/error.h"

namespace cs {

void JobControl::setProgress(double fraction, std::string_view stage) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    m_lastFraction = fraction;
    if (m_progress) m_progress(fraction, stage);
}

void JobControl::setIteration(IterationStatus status, double fraction) {
    std::string stage;
    {
        const std::lock_guard lock(m_mutex);
        m_iteration = std::move(status);
        stage = m_lastStage;
    }
    setProgress(fraction, stage);
}

std::optional<IterationStatus> JobControl::iteration() const {
    const std::lock_guard lock(m_mutex);
    return m_iteration;
}

void JobControl::checkpoint() const {
    if (isCancelled()) throw Cancelled();
}

void JobControl::addTiming(std::string name, double milliseconds) {
    std::lock_guard lock(m_mutex);
    m_timings.push_back({std::move(name), milliseconds});
}

std::vector<StageTiming> JobControl::timings() const {
    std::lock_guard lock(m_mutex);
    return m_timings;
}

JobControl::Stage::Stage(JobControl& job, std::string name)
    : m_job(job), m_name(std::move(name)), m_start(std::chrono::steady_clock::now()) {
    {
        const std::lock_guard lock(m_job.m_mutex);
        m_job.m_lastStage = m_name;
    }
    m_job.setProgress(m_job.m_lastFraction, m_name);
}

std::string JobControl::lastStage() const {
    const std::lock_guard lock(m_mutex);
    return m_lastStage;
}

JobControl::Stage::~Stage() {
    const auto elapsed = std::chrono::steady_clock::now() - m_start;
    m_job.addTiming(m_name, std::chrono::duration<double, std::milli>(elapsed).count());
}

}  // namespace cs
