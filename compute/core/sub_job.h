// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "compute/core/job_control.h"

namespace cs {

/// A part of a job, for a job made of whole runs (a sweep's k-Shape or ROCKET runs): the part
/// runs on a JobControl of its own, whose progress lands in [from, to] of the parent's under a
/// stage text of the parent's choosing ("k = 5 (4 of 19)"), and which is cancelled whenever
/// the parent is (JobControl::setParent).
/// @code
/// cs::SubJob part(job, 0.25, 0.5, "k = 3");
/// auto r = backend.kshape(series, params, part.job());
/// @endcode
class SubJob {
public:
    SubJob(JobControl& parent, double from, double to, std::string stage)
        : m_parent(parent),
          m_from(from),
          m_to(to),
          m_stage(std::move(stage)),
          m_job([this](double f, std::string_view) {
              m_parent.setProgress(m_from + (m_to - m_from) * f, m_stage);
          }) {
        m_job.setParent(&parent);
        parent.checkpoint();
        parent.setProgress(from, m_stage);
    }
    JobControl& job() { return m_job; }

private:
    JobControl& m_parent;
    double m_from, m_to;
    std::string m_stage;
    JobControl m_job;
};

}  // namespace cs
