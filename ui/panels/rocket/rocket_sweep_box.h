// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "compute/rocket/rocket_sweep.h"
#include "ui/panels/sweep_box.h"

class QLineEdit;

namespace cs::ui {

/// A finished ROCKET sweep as the panel shows it, with the set it was run on.
struct RocketSweepRun {
    std::shared_ptr<const SeriesSet> series;
    RocketSweepResult sweep;
};

/// The ROCKET panel's sweep over the number of kernels: the kernel counts (a list, 100 to
/// 10,000 by default), Sweep and Cancel, and a chart of the accuracy (on the test split, else
/// leave-one-out) by kernel count on a log scale, for the panel's variant, seed and
/// normalisation. One job (kind "rocket-sweep", rocketSweep on the runner's backend), progress
/// per count. Clicking a count on the chart emits valueChosen(kernels); the count in use is
/// marked.
class RocketSweepBox : public SweepBox {
    Q_OBJECT
public:
    explicit RocketSweepBox(JobRunner& runner, QWidget* parent = nullptr);

    /// New data: cancels a sweep of the previous set and clears the chart.
    void setSeriesSet(std::shared_ptr<const SeriesSet> series);
    /// Starts the sweep of the kernel counts with the runs' variant, seed and normalisation.
    void sweep(const RocketParams& run);
    /// The kernel count in use, marked on the chart.
    void setCurrentKernels(int kernels);
    /// The sweep on screen (nullptr before the first, and after new data).
    std::shared_ptr<const RocketSweepRun> lastSweep() const { return m_run; }
    /// Writes the sweep on screen as CSV (rocketSweepCsv): the error, or empty.
    QString exportCsv(const QString& path) const;

    QLineEdit* kernelsEdit() const { return m_kernels; }

protected:
    void showResult(const JobOutcome& outcome) override;

private:
    std::shared_ptr<const SeriesSet> m_series;
    std::shared_ptr<const RocketSweepRun> m_run;
    QLineEdit* m_kernels = nullptr;
};

}  // namespace cs::ui
