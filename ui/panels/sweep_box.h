// SPDX-License-Identifier: MIT
#pragma once

#include <QGroupBox>
#include <QString>

#include "ui/jobs/job_runner.h"

class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;

namespace cs::ui {

class SweepCurveChart;

/// What the one-parameter sweeps of a panel share (k-Shape's k, ROCKET's kernel count): a box
/// with the sweep's own inputs, Sweep and Cancel, a progress bar with the current step ("k = 5
/// (4 of 19)") while the sweep computes, the chart, and a line under it. The sweep is one job
/// of its own kind on the runner (its own lane: it never holds up the panel's runs); a newer
/// sweep supersedes it, Cancel stops it at its next checkpoint. A subclass adds its inputs to
/// inputRow(), submits the job with submitSweep() and shows what came back in showResult().
class SweepBox : public QGroupBox {
    Q_OBJECT
public:
    SweepBox(JobRunner& runner, QString kind, const QString& title, QWidget* parent = nullptr);
    ~SweepBox() override;

    /// The job kind ("kshape-sweep").
    const QString& kind() const { return m_kind; }
    /// True while a sweep is pending or computing, or its chart is not yet scrolled into view.
    bool isBusy() const;
    /// Stops the sweep in progress; the chart on screen stays.
    void cancel();

    SweepCurveChart* chart() const { return m_chart; }
    QPushButton* sweepButton() const { return m_sweepButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }
    QProgressBar* progressBar() const { return m_progressBar; }
    QLabel* summaryLabel() const { return m_summary; }

signals:
    /// The user pressed Sweep: the panel starts the sweep with its parameters.
    void sweepRequested();
    /// The user clicked a swept value on the chart: the panel applies it.
    void valueChosen(int value);

protected:
    JobRunner& runner() const { return m_runner; }
    /// The row above the chart, left of Sweep and Cancel, for the sweep's own inputs.
    QHBoxLayout* inputRow() const { return m_inputRow; }
    /// Submits work as this box's job, with text under the chart until it is done.
    template <class T, class Fn>
    void submitSweep(const QString& text, Fn fn) {
        started(text);
        m_runner.submit<T>(m_kind, std::move(fn));
    }
    /// Says why a sweep cannot start (logged, and under the chart).
    void refuse(const QString& problem);
    /// A finished sweep of this kind (the newest).
    virtual void showResult(const JobOutcome& outcome) = 0;
    /// Brings the chart into view in the panel's scroll area (a sweep started from the
    /// automation shows its chart, not the box above it).
    void revealChart();

private:
    void started(const QString& text);
    void stopped();

    JobRunner& m_runner;
    QString m_kind;
    QHBoxLayout* m_inputRow = nullptr;
    QPushButton* m_sweepButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progressBar = nullptr;
    SweepCurveChart* m_chart = nullptr;
    QLabel* m_summary = nullptr;
    bool m_revealing = false;  // revealChart() is yet to scroll
};

}  // namespace cs::ui
