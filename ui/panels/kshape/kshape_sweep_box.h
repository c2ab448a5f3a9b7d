// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "compute/kshape/kshape_sweep.h"
#include "ui/panels/sweep_box.h"

class QSpinBox;

namespace cs::ui {

/// A finished k-Shape sweep as the panel shows it, with the set it was run on.
struct KShapeSweepRun {
    std::shared_ptr<const SeriesSet> series;
    KShapeSweepResult sweep;
};

/// The k-Shape panel's sweep over k: the range (From, To; 2 to 20 by default, clamped to the
/// set), Sweep and Cancel, and a chart of the SBD sum (left axis) and, when the set has class
/// labels, the adjusted Rand index against them (right axis) by k. One job (kind
/// "kshape-sweep", kshapeSweep on the runner's backend), progress per k. Clicking a k on the
/// chart emits valueChosen(k); the k in use is marked.
class KShapeSweepBox : public SweepBox {
    Q_OBJECT
public:
    explicit KShapeSweepBox(JobRunner& runner, QWidget* parent = nullptr);

    /// New data: cancels a sweep of the previous set, clears the chart, fits the range to n.
    void setSeriesSet(std::shared_ptr<const SeriesSet> series);
    /// Starts the sweep of the range with the runs' parameters (seed, iterations, channel).
    void sweep(const KShapeParams& run);
    /// The k in use, marked on the chart.
    void setCurrentK(int k);
    /// The sweep on screen (nullptr before the first, and after new data).
    std::shared_ptr<const KShapeSweepRun> lastSweep() const { return m_run; }
    /// Writes the sweep on screen as CSV (kshapeSweepCsv): the error, or empty.
    QString exportCsv(const QString& path) const;

    QSpinBox* fromSpin() const { return m_from; }
    QSpinBox* toSpin() const { return m_to; }

protected:
    void showResult(const JobOutcome& outcome) override;

private:
    std::shared_ptr<const SeriesSet> m_series;
    std::shared_ptr<const KShapeSweepRun> m_run;
    QSpinBox* m_from = nullptr;
    QSpinBox* m_to = nullptr;
};

}  // namespace cs::ui
