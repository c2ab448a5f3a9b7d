// SPDX-License-Identifier: MIT
#include "ui/panels/rocket/rocket_sweep_box.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <algorithm>

#include "compute/core/error.h"
#include "compute/core/memory.h"
#include "compute/io/writers.h"
#include "compute/rocket/rocket_descriptor.h"
#include "ui/panels/sweep_curve_chart.h"
#include "ui/shell/logger.h"

namespace cs::ui {
namespace {

QString percent(double fraction) {
    return QLocale().toString(100.0 * fraction, 'f', 1) + QStringLiteral(" %");
}

QString kernelListText(const std::vector<int>& kernels) {
    QStringList parts;
    for (int k : kernels)
        parts << QString::number(k);
    return parts.join(QStringLiteral(", "));
}

}  // namespace

RocketSweepBox::RocketSweepBox(JobRunner& runner, QWidget* parent)
    : SweepBox(runner, QStringLiteral("rocket-sweep"), tr("Accuracy by number of kernels"),
               parent) {
    m_kernels = new QLineEdit(kernelListText(defaultRocketSweepKernels()));
    m_kernels->setObjectName(QStringLiteral("rocketSweepKernels"));
    m_kernels->setToolTip(tr("Kernel counts to try, ascending, separated by commas (1 to %1 each)")
                              .arg(QLocale().toString(kRocketMaxKernels)));
    auto* label = new QLabel(tr("Kernels"));
    label->setBuddy(m_kernels);
    inputRow()->addWidget(label);
    inputRow()->addWidget(m_kernels, 1);
    sweepButton()->setToolTip(
        tr("Run the classifier once per kernel count (same variant and seed) and chart its "
           "accuracy: on the test split, else leave-one-out"));
    chart()->setXTitle(tr("kernels"));
    chart()->setLogX(true);
    chart()->setPlaceholder(
        tr("Sweep the number of kernels to see how much accuracy more kernels buy"));
    summaryLabel()->setText(tr("Press Sweep: one classifier run per kernel count"));
}

void RocketSweepBox::setSeriesSet(std::shared_ptr<const SeriesSet> series) {
    cancel();
    m_series = std::move(series);
    m_run.reset();
    chart()->clear();
    summaryLabel()->setText(m_series ? tr("Press Sweep: one classifier run per kernel count")
                                     : tr("No time series loaded"));
}

void RocketSweepBox::setCurrentKernels(int kernels) {
    chart()->setCurrent(kernels);
}

void RocketSweepBox::sweep(const RocketParams& run) {
    if (!m_series) return;
    RocketSweepParams params;
    params.run = run;
    MemoryNeed need;
    try {
        params.kernels = parseRocketKernelList(m_kernels->text().toStdString());
        validateRocketSweep(*m_series, params);
        // One run at a time: the largest count's run is the most the sweep holds.
        RocketParams largest = run;
        largest.kernels = params.kernels.back();
        need = rocketDescriptor().memoryNeed(
            {.items = m_series->n, .length = m_series->length, .channels = m_series->channels},
            rocketValues(largest));
        checkMemoryFits("The ROCKET sweep", need);
    } catch (const Error& e) {
        refuse(tr("ROCKET sweep: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    submitSweep<RocketSweepRun>(
        tr("%1 sweep: %2 kernel counts from %3 to %4, seed %5")
            .arg(QString::fromLatin1(rocketVariantTitle(run.variant)))
            .arg(params.kernels.size())
            .arg(QLocale().toString(params.kernels.front()))
            .arg(QLocale().toString(params.kernels.back()))
            .arg(qulonglong(run.seed)),
        [series = m_series, params, need](Backend& backend, JobControl& job) {
            return explainingOutOfMemory("The ROCKET sweep", need, job, [&] {
                return RocketSweepRun{series, rocketSweep(backend, *series, params, job)};
            });
        });
}

void RocketSweepBox::showResult(const JobOutcome& outcome) {
    auto run = std::static_pointer_cast<const RocketSweepRun>(outcome.result);
    if (run->series != m_series) return;  // finished for a set no longer loaded
    m_run = run;
    const RocketSweepResult& s = run->sweep;
    std::vector<int> kernels;
    const QString measure = s.testSplit ? tr("test accuracy") : tr("leave-one-out accuracy");
    SweepCurveChart::Curve accuracy{measure, {}};
    const RocketSweepCell* best = nullptr;
    for (const RocketSweepCell& c : s.cells) {
        kernels.push_back(c.kernels);
        accuracy.values.push_back(c.accuracy);
        if (!best || c.accuracy > best->accuracy) best = &c;
    }
    chart()->setSweep(std::move(kernels), std::move(accuracy));
    summaryLabel()->setText(
        tr("%1 by kernel count: %2 at %3 kernels (%4 ms), best %5 at %6 kernels (%7 ms), %8 at "
           "%9 kernels (%10 ms). Click a count to use it.")
            .arg(measure.left(1).toUpper() + measure.mid(1))
            .arg(percent(s.cells.front().accuracy), QLocale().toString(s.cells.front().kernels))
            .arg(QLocale().toString(s.cells.front().milliseconds, 'f', 0))
            .arg(percent(best->accuracy), QLocale().toString(best->kernels))
            .arg(QLocale().toString(best->milliseconds, 'f', 0))
            .arg(percent(s.cells.back().accuracy), QLocale().toString(s.cells.back().kernels))
            .arg(QLocale().toString(s.cells.back().milliseconds, 'f', 0)));
    logInfo(tr("%1 sweep of %2 kernel counts in %3 ms on %4")
                .arg(QString::fromLatin1(rocketVariantTitle(s.params.run.variant)))
                .arg(s.cells.size())
                .arg(outcome.milliseconds, 0, 'f', 0)
                .arg(outcome.backend));
    revealChart();
}

QString RocketSweepBox::exportCsv(const QString& path) const {
    if (!m_run) return tr("no ROCKET sweep to export yet (Sweep first)");
    try {
        io::writeFileBytes(path.toStdString(), rocketSweepCsv(m_run->sweep));
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("ROCKET sweep (%1 kernel counts) written to %2")
                .arg(m_run->sweep.cells.size())
                .arg(path));
    return {};
}

}  // namespace cs::ui
