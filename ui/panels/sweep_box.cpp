// SPDX-License-Identifier: MIT
#include "ui/panels/sweep_box.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/panels/sweep_curve_chart.h"
#include "ui/shell/logger.h"

namespace cs::ui {

SweepBox::SweepBox(JobRunner& runner, QString kind, const QString& title, QWidget* parent)
    : QGroupBox(title, parent), m_runner(runner), m_kind(std::move(kind)) {
    setObjectName(m_kind + QStringLiteral("Box"));
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    m_inputRow = new QHBoxLayout;
    row->addLayout(m_inputRow, 1);
    m_sweepButton = new QPushButton(tr("S&weep"));
    m_sweepButton->setObjectName(m_kind + QStringLiteral("Button"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName(m_kind + QStringLiteral("Cancel"));
    m_cancelButton->setToolTip(tr("Stop the sweep; the chart on screen stays"));
    m_cancelButton->hide();
    row->addWidget(m_sweepButton);
    row->addWidget(m_cancelButton);
    layout->addLayout(row);
    m_progressBar = new QProgressBar;
    m_progressBar->setObjectName(m_kind + QStringLiteral("Progress"));
    m_progressBar->setRange(0, 1000);
    m_progressBar->setTextVisible(false);
    m_progressBar->setMaximumHeight(8);
    m_progressBar->hide();
    layout->addWidget(m_progressBar);
    m_chart = new SweepCurveChart;
    m_chart->setObjectName(m_kind + QStringLiteral("Chart"));
    layout->addWidget(m_chart);
    m_summary = new QLabel;
    m_summary->setObjectName(m_kind + QStringLiteral("Summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    connect(m_sweepButton, &QPushButton::clicked, this, &SweepBox::sweepRequested);
    connect(m_cancelButton, &QPushButton::clicked, this, &SweepBox::cancel);
    connect(m_chart, &SweepCurveChart::valueClicked, this, &SweepBox::valueChosen);
    connect(&m_runner, &JobRunner::progress, this,
            [this](const QString& kind, std::uint64_t, double fraction, const QString& stage) {
                if (kind != m_kind) return;
                m_progressBar->setValue(int(fraction * 1000.0));
                if (!stage.isEmpty()) m_summary->setText(tr("Sweeping: %1…").arg(stage));
            });
    connect(&m_runner, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
        if (outcome.kind != m_kind) return;
        stopped();
        showResult(outcome);
    });
    connect(&m_runner, &JobRunner::failed, this, [this](const JobOutcome& outcome) {
        if (outcome.kind != m_kind) return;
        stopped();
        m_summary->setText(tr("The sweep failed: %1").arg(outcome.error));
        logError(tr("%1: %2").arg(this->title(), outcome.error));
    });
    connect(&m_runner, &JobRunner::cancelled, this, [this](const JobOutcome& outcome) {
        if (outcome.kind != m_kind) return;
        stopped();
        m_summary->setText(m_chart->hasSweep() ? tr("Sweep cancelled; the chart shows the last "
                                                    "finished sweep")
                                               : tr("Sweep cancelled"));
    });
}

// The runner may go first (the window's children die in order): it cancels its jobs itself.
SweepBox::~SweepBox() = default;

bool SweepBox::isBusy() const {
    return m_runner.isBusy(m_kind) || m_revealing;
}

void SweepBox::cancel() {
    m_runner.cancel(m_kind);
}

void SweepBox::refuse(const QString& problem) {
    m_summary->setText(problem);
    logError(tr("%1: %2").arg(title(), problem));
}

void SweepBox::started(const QString& text) {
    m_sweepButton->setEnabled(false);
    m_cancelButton->show();
    m_progressBar->setValue(0);
    m_progressBar->show();
    m_summary->setText(text);
    logInfo(text);
}

void SweepBox::stopped() {
    m_sweepButton->setEnabled(true);
    m_cancelButton->hide();
    m_progressBar->hide();
}

void SweepBox::revealChart() {
    // Once the new text is laid out; busy until then, so that nothing waiting for the panel (a
    // screenshot) sees the chart out of view.
    m_revealing = true;
    QTimer::singleShot(0, this, [this] {
        m_revealing = false;
        for (QWidget* w = parentWidget(); w; w = w->parentWidget())
            if (auto* scroll = qobject_cast<QScrollArea*>(w)) {
                // The chart, then the line under it (the box can be taller than the view).
                scroll->ensureWidgetVisible(m_chart, 0, 0);
                scroll->ensureWidgetVisible(m_summary, 0, 4);
                break;
            }
    });
}

}  // namespace cs::ui
