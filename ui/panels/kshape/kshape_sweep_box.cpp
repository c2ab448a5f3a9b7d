// SPDX-License-Identifier: MIT
#include "ui/panels/kshape/kshape_sweep_box.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

#include "compute/core/error.h"
#include "compute/core/memory.h"
#include "compute/io/writers.h"
#include "compute/kshape/kshape_descriptor.h"
#include "ui/panels/sweep_curve_chart.h"
#include "ui/shell/logger.h"

namespace cs::ui {

KShapeSweepBox::KShapeSweepBox(JobRunner& runner, QWidget* parent)
    : SweepBox(runner, QStringLiteral("kshape-sweep"), tr("Sweep over k"), parent) {
    m_from = new QSpinBox;
    m_from->setObjectName(QStringLiteral("kshapeSweepFrom"));
    m_from->setRange(1, 1024);
    m_from->setValue(2);
    m_from->setToolTip(tr("First k of the sweep"));
    m_to = new QSpinBox;
    m_to->setObjectName(QStringLiteral("kshapeSweepTo"));
    m_to->setRange(1, 1024);
    m_to->setValue(20);
    m_to->setToolTip(tr("Last k of the sweep (at most the number of series)"));
    auto* fromLabel = new QLabel(tr("k from"));
    fromLabel->setBuddy(m_from);
    auto* toLabel = new QLabel(tr("to"));
    toLabel->setBuddy(m_to);
    inputRow()->addWidget(fromLabel);
    inputRow()->addWidget(m_from);
    inputRow()->addWidget(toLabel);
    inputRow()->addWidget(m_to);
    inputRow()->addStretch(1);
    sweepButton()->setToolTip(
        tr("Run k-Shape once per k of the range (same seed, iterations and channel) and chart "
           "the sum of SBD to the centroids and the agreement with the classes"));
    chart()->setXTitle(tr("k"));
    chart()->setPlaceholder(
        tr("Sweep k to see how the clusters tighten as k grows and, with "
           "class labels, where they agree best with the classes"));
    summaryLabel()->setText(tr("Press Sweep: one k-Shape run per k"));
}

void KShapeSweepBox::setSeriesSet(std::shared_ptr<const SeriesSet> series) {
    cancel();
    m_series = std::move(series);
    m_run.reset();
    chart()->clear();
    const int n = m_series ? int(std::min<std::size_t>(m_series->n, 1024)) : 1;
    m_from->setMaximum(std::max(n, 1));
    m_to->setMaximum(std::max(n, 1));
    // The default range, clamped to the set: 2 to 20, or 1 to n for a tiny one.
    m_to->setValue(std::min(20, n));
    m_from->setValue(std::min(2, m_to->value()));
    summaryLabel()->setText(m_series ? tr("Press Sweep: one k-Shape run per k")
                                     : tr("No time series loaded"));
}

void KShapeSweepBox::setCurrentK(int k) {
    chart()->setCurrent(k);
}

void KShapeSweepBox::sweep(const KShapeParams& run) {
    if (!m_series) return;
    KShapeSweepParams params{.kFrom = m_from->value(), .kTo = m_to->value(), .run = run};
    const DataShape shape{
        .items = m_series->n, .length = m_series->length, .channels = m_series->channels};
    const MemoryNeed need = kshapeDescriptor().memoryNeed(shape, kshapeValues(run));
    try {
        validateKShapeSweep(*m_series, params);
        checkMemoryFits("The k-Shape sweep", need);
    } catch (const Error& e) {
        refuse(tr("k-Shape sweep: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    submitSweep<KShapeSweepRun>(
        tr("k-Shape sweep: k = %1 to %2, seed %3")
            .arg(params.kFrom)
            .arg(params.kTo)
            .arg(qulonglong(run.seed)),
        [series = m_series, params, need](Backend& backend, JobControl& job) {
            return explainingOutOfMemory("The k-Shape sweep", need, job, [&] {
                return KShapeSweepRun{series, kshapeSweep(backend, *series, params, job)};
            });
        });
}

void KShapeSweepBox::showResult(const JobOutcome& outcome) {
    auto run = std::static_pointer_cast<const KShapeSweepRun>(outcome.result);
    if (run->series != m_series) return;  // finished for a set no longer loaded
    m_run = run;
    const KShapeSweepResult& s = run->sweep;
    std::vector<int> ks;
    SweepCurveChart::Curve sbd{tr("SBD sum"), {}};
    SweepCurveChart::Curve ari{tr("ARI"), {}};
    const bool labelled = !s.cells.empty() && s.cells.front().hasAgreement;
    const KShapeSweepCell* best = nullptr;
    for (const KShapeSweepCell& c : s.cells) {
        ks.push_back(c.k);
        sbd.values.push_back(c.sbdSum);
        ari.values.push_back(c.hasAgreement ? c.adjustedRandIndex : NAN);
        if (c.hasAgreement && (!best || c.adjustedRandIndex > best->adjustedRandIndex)) best = &c;
    }
    chart()->setSweep(std::move(ks), std::move(sbd),
                      labelled ? std::optional(std::move(ari)) : std::nullopt);
    QString text = tr("SBD sum from %1 (k = %2) to %3 (k = %4).")
                       .arg(QLocale().toString(s.cells.front().sbdSum, 'f', 2))
                       .arg(s.cells.front().k)
                       .arg(QLocale().toString(s.cells.back().sbdSum, 'f', 2))
                       .arg(s.cells.back().k);
    if (best)
        text += QLatin1Char(' ') +
                tr("Best agreement with the %1 classes at k = %2: ARI %3, NMI %4.")
                    .arg(run->series->classCount())
                    .arg(best->k)
                    .arg(QLocale().toString(best->adjustedRandIndex, 'f', 3))
                    .arg(QLocale().toString(best->normalizedMutualInformation, 'f', 3));
    text += QLatin1Char(' ') + tr("Click a k to use it.");
    summaryLabel()->setText(text);
    logInfo(tr("k-Shape sweep of %1 values of k in %2 ms on %3")
                .arg(s.cells.size())
                .arg(outcome.milliseconds, 0, 'f', 0)
                .arg(outcome.backend));
    revealChart();
}

QString KShapeSweepBox::exportCsv(const QString& path) const {
    if (!m_run) return tr("no k-Shape sweep to export yet (Sweep first)");
    try {
        io::writeFileBytes(path.toStdString(), kshapeSweepCsv(m_run->sweep));
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("k-Shape sweep (%1 values of k) written to %2")
                .arg(m_run->sweep.cells.size())
                .arg(path));
    return {};
}

}  // namespace cs::ui
