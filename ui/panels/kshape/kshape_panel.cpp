// SPDX-License-Identifier: MIT
#include "ui/panels/kshape/kshape_panel.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <span>

#include "compute/core/error.h"
#include "compute/io/npy.h"
#include "compute/io/writers.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/kshape/kshape_quantities.h"
#include "compute/kshape/kshape_subset.h"
#include "ui/panels/kshape/kshape_sweep_box.h"
#include "ui/panels/parameter_store.h"
#include "ui/panels/warning_row.h"
#include "ui/shell/logger.h"
#include "ui/views/series/series_view.h"

namespace cs::ui {
namespace {

// LiveRun thresholds: k-Shape on a UCR set takes tens of milliseconds to seconds; runs of at
// least this long are debounced and cancel the run they supersede, shorter ones coalesce.
constexpr double kLongJobMs = 400.0;
constexpr int kLongJobDebounceMs = 250;

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString fixed(double v, int decimals = 3) {
    return QLocale().toString(v, 'f', decimals);
}

}  // namespace

KShapePanel::KShapePanel(JobRunner& runner, SeriesView& view, QWidget* parent)
    : AlgorithmPanel(runner, kshapeDescriptor(), parent, kLongJobMs, kLongJobDebounceMs),
      m_view(view) {
    // k starts at the set's class count and the channel's range is the set's: neither is
    // stored between sessions.
    m_kSpin = addIntParameter("k", /*stored=*/false);
    m_iterationsSpin = addIntParameter("maxIterations");
    m_seedSpin = addIntParameter("seed");
    m_channelSpin = addIntParameter("channel", /*stored=*/false);
    m_channelSpin->setRange(int(kKShapeAllChannels), int(kKShapeAllChannels));
    m_agreement = new QLabel;
    m_agreement->setObjectName(QStringLiteral("kshapeAgreement"));
    m_agreement->setWordWrap(true);
    m_agreement->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_agreement->hide();
    addResultWidget(m_agreement);
    statisticsLabel()->setText(tr("No clusters yet"));
    m_sweepBox = new KShapeSweepBox(runner);
    addBox(m_sweepBox);
    connect(m_sweepBox, &KShapeSweepBox::sweepRequested, this, &KShapePanel::sweep);
    connect(m_sweepBox, &KShapeSweepBox::valueChosen, this, [this](int k) {
        logInfo(tr("k-Shape: k = %1 from the sweep").arg(k));
        setK(k);
    });
    connect(m_kSpin, &QSpinBox::valueChanged, m_sweepBox, &KShapeSweepBox::setCurrentK);
    m_sweepBox->setCurrentK(m_kSpin->value());
}

KShapePanel::~KShapePanel() = default;

void KShapePanel::setSeriesSet(std::shared_ptr<const SeriesSet> series) {
    m_series = std::move(series);
    m_run.reset();
    m_view.setGroups(nullptr, {});
    m_agreement->clear();
    m_agreement->hide();
    {
        // New data brings its own defaults; they are not changes to run.
        const QSignalBlocker b1(m_kSpin);
        const QSignalBlocker b2(m_channelSpin);
        const std::size_t classes = m_series ? m_series->classCount() : 0;
        const ParameterSpec& k = parameterSpec(kshapeDescriptor(), "k");
        m_kSpin->setValue(classes > 0 ? int(std::min<std::size_t>(classes, m_kSpin->maximum()))
                                      : int(std::get<std::int64_t>(k.defaultValue)));
        // All channels together (the descriptor's default), or one of the set's.
        const int channels = m_series ? int(m_series->channels) : 0;
        m_channelSpin->setRange(int(kKShapeAllChannels), std::max(channels - 1, 0));
        m_channelSpin->setValue(int(kKShapeAllChannels));
        parameterForm()->setRowVisible(m_channelSpin, channels > 1);
    }
    m_sweepBox->setSeriesSet(m_series);
    m_sweepBox->setCurrentK(m_kSpin->value());
    setEnabled(hasInput());
    resetResult(hasInput() ? tr("No clusters yet: press Run or change a parameter")
                           : tr("No time series loaded"));
}

bool KShapePanel::hasInput() const {
    return m_series && m_series->n > 0;
}

KShapeParams KShapePanel::params() const {
    return kshapeParams(parameterValues());
}

void KShapePanel::setK(int k) {
    m_kSpin->setValue(k);
}

void KShapePanel::setMaxIterations(int iterations) {
    m_iterationsSpin->setValue(iterations);
}

void KShapePanel::setSeed(std::uint64_t seed) {
    m_seedSpin->setValue(int(std::min<std::uint64_t>(seed, std::uint64_t(m_seedSpin->maximum()))));
}

void KShapePanel::setChannel(int channel) {
    if (m_series && channel != kKShapeAllChannels &&
        (channel < 0 || std::size_t(channel) >= m_series->channels)) {
        refuse(tr("channel %1 does not exist: the set has %2")
                   .arg(channel)
                   .arg(m_series->channels == 1 ? tr("1 channel")
                                                : tr("%1 channels").arg(m_series->channels)));
        return;
    }
    m_channelSpin->setValue(channel);
}

void KShapePanel::submitRun() {
    const KShapeParams p = params();
    try {
        // O(1) checks (k against the series, the length, the channel) before the worker.
        validateKShape(*m_series, p);
    } catch (const Error& e) {
        refuse(QString::fromUtf8(e.what()));
        return;
    }
    const auto subset = runSubset();
    if (subset && (subset->total != m_series->n || subset->size() < std::size_t(p.k))) {
        refuse(subset->total != m_series->n
                   ? tr("the selection to run on is of other series")
                   : tr("k-Shape needs at least k = %1 series, the selection has %2")
                         .arg(p.k)
                         .arg(count(subset->size())));
        return;
    }
    submitMethodRun<KShapeRun>(
        {.items = subset ? subset->size() : m_series->n,
         .length = m_series->length,
         .channels = m_series->channels},
        [series = m_series, subset, p](Backend& backend, JobControl& job) {
            if (!subset) return compute(series, p, backend, job);
            // On a selection: k-Shape of the selected series alone, mapped back to the set.
            KShapeRun run = compute(std::make_shared<const SeriesSet>(subsetOf(*series, *subset)),
                                    p, backend, job);
            run.result =
                std::make_shared<const KShapeResult>(expandKShapeResult(*run.result, *subset));
            run.series = series;
            return run;
        });
}

KShapeRun KShapePanel::compute(std::shared_ptr<const SeriesSet> series, const KShapeParams& params,
                               Backend& backend, JobControl& job) {
    KShapeRun run;
    run.params = params;
    run.series = series;
    auto result = std::make_shared<KShapeResult>(backend.kshape(*series, params, job));
    job.checkpoint();
    // The device copy is the backend's, not the result's value; the view draws from the host.
    result->device.reset();
    auto [sizes, empty] = kshapeClusterSizes(*result);
    run.sizes = std::move(sizes);
    run.emptyClusters = empty;
    const SeriesSet& s = *series;
    if (s.classCount() > 0 && s.labels.size() == s.n) {
        const auto stage = job.stage("agreement");
        run.agreement = clusterAgreement(result->labels, s.labels);
        run.hasAgreement = run.agreement.compared > 0;
    }
    run.result = std::move(result);
    return run;
}

void KShapePanel::showOutcome(const JobOutcome& outcome) {
    auto run = std::static_pointer_cast<const KShapeRun>(outcome.result);
    // A result for a set no longer loaded is dropped (setSeriesSet cancels, but the run may
    // have finished first).
    if (run->series != m_series) return;
    const bool first = !m_run;
    SeriesGroups groups;
    try {
        groups = kshapeGroups(*run->series, run->result, run->params.channel);
    } catch (const Error&) {
        // the warning below says it
    }
    if (!groups || !m_view.setGroups(run->series, std::move(groups))) {
        setWarning(tr("The clusters do not match the series on screen; they are not shown."));
        return;
    }
    m_run = std::move(run);
    // The first clusters of a set bring their view to the front; later runs leave the style
    // the user chose.
    if (first) m_view.setStyle(SeriesView::Style::Clusters);
    statisticsLabel()->setText(statisticsText(*m_run));
    m_agreement->setText(agreementText(*m_run));
    m_agreement->setVisible(!m_agreement->text().isEmpty());
    showTimings(outcome);
    setWarning({});
    const KShapeRun& r = *m_run;
    QString summary = tr("k-Shape (k %1, seed %2) of %3 series in %4 ms on %5: %6 iterations%7")
                          .arg(r.params.k)
                          .arg(qulonglong(r.params.seed))
                          .arg(count(r.result->labels.size()))
                          .arg(outcome.milliseconds, 0, 'f', 0)
                          .arg(outcome.backend)
                          .arg(r.result->iterations)
                          .arg(r.result->converged ? tr(", converged") : tr(", not converged"));
    if (r.hasAgreement)
        summary += tr(", ARI %1, NMI %2")
                       .arg(r.agreement.adjustedRandIndex, 0, 'f', 3)
                       .arg(r.agreement.normalizedMutualInformation, 0, 'f', 3);
    logInfo(summary);
    emit resultChanged();
}

QString KShapePanel::statisticsText(const KShapeRun& run) {
    const KShapeResult& r = *run.result;
    QStringList lines;
    lines
        << (r.converged
                ? tr("Converged after %1 iterations").arg(r.iterations)
                : tr("Not converged: stopped after %1 iterations (the maximum)").arg(r.iterations));
    lines << tr("%1 series in %2 clusters, length %3")
                 .arg(count(r.labels.size()))
                 .arg(r.k)
                 .arg(count(r.length));
    if (r.channels > 1)
        lines << tr("All %1 channels together: one shift per series").arg(r.channels);
    QStringList sizes;
    for (std::size_t c = 0; c < run.sizes.size(); ++c)
        sizes << tr("%1: %2").arg(c).arg(count(run.sizes[c]));
    lines << tr("Cluster sizes: %1").arg(sizes.join(QStringLiteral(", ")));
    if (run.emptyClusters > 0)
        lines << tr("%1 of the %2 clusters are empty: kept with zero centroids, not re-seeded")
                     .arg(run.emptyClusters)
                     .arg(r.k);
    return lines.join(QLatin1Char('\n'));
}

QString KShapePanel::agreementText(const KShapeRun& run) {
    if (!run.hasAgreement) return {};
    const ClusterAgreement& a = run.agreement;
    return tr("Agreement with the %1 class labels (%2 series):\n"
              "  Rand index %3 · adjusted Rand index %4 · NMI %5\n"
              "Cluster ids are arbitrary: these scores compare partitions, not ids.")
        .arg(run.series->classCount())
        .arg(count(a.compared))
        .arg(fixed(a.randIndex), fixed(a.adjustedRandIndex), fixed(a.normalizedMutualInformation));
}

QString KShapePanel::parameterText() const {
    const KShapeParams p = m_run ? m_run->params : params();
    const ParameterSpec& channel = parameterSpec(kshapeDescriptor(), "channel");
    QString text =
        QStringLiteral("kshape k=%1 maxIterations=%2 seed=%3 channel=%4")
            .arg(p.k)
            .arg(p.maxIterations)
            .arg(qulonglong(p.seed))
            .arg(QString::fromStdString(channel.format(*kshapeValues(p).find("channel"))));
    if (m_run)
        text +=
            QStringLiteral(" iterations=%1 converged=%2")
                .arg(m_run->result->iterations)
                .arg(m_run->result->converged ? QStringLiteral("true") : QStringLiteral("false"));
    return text + QStringLiteral(" backend=%1")
                      .arg(runner().backendName().isEmpty() ? QStringLiteral("auto")
                                                            : runner().backendName());
}

QString KShapePanel::exportLabels(const QString& path) const {
    if (!m_run) return tr("no k-Shape clusters to export yet");
    const KShapeResult& r = *m_run->result;
    try {
        io::writeKShapeCsv(path.toStdString(), r.labels, r.distances, r.shifts,
                           parameterText().toStdString());
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("k-Shape labels (%1 series) written to %2").arg(count(r.labels.size()), path));
    return {};
}

QString KShapePanel::exportCentroids(const QString& path) const {
    if (!m_run) return tr("no k-Shape centroids to export yet");
    const KShapeResult& r = *m_run->result;
    // k x m for one channel, k x C x m for all channels together (as the CLI writes them).
    std::vector<std::size_t> shape{std::size_t(r.k), r.length};
    if (r.channels > 1) shape.insert(shape.begin() + 1, r.channels);
    try {
        io::writeNpy(path.toStdString(), std::span<const float>(r.centroids), shape);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    const QString dims = r.channels > 1 ? tr("%1 × %2 × %3").arg(r.k).arg(r.channels).arg(r.length)
                                        : tr("%1 × %2").arg(r.k).arg(count(r.length));
    logInfo(tr("k-Shape centroids (%1) written to %2").arg(dims, path));
    return {};
}

void KShapePanel::setParameter(const QString& name, const ParameterValue& value) {
    const int v = int(std::get<std::int64_t>(value));
    if (name == QLatin1String("k"))
        setK(v);
    else if (name == QLatin1String("maxIterations"))
        setMaxIterations(v);
    else if (name == QLatin1String("seed"))
        setSeed(std::uint64_t(v));
    else if (name == QLatin1String("channel"))
        setChannel(v);
}

QVariantMap KShapePanel::sweepRange() const {
    return {{QStringLiteral("sweepKFrom"), m_sweepBox->fromSpin()->value()},
            {QStringLiteral("sweepKTo"), m_sweepBox->toSpin()->value()}};
}

void KShapePanel::setSweepRange(const QVariantMap& range) {
    // The last first: the spin boxes clamp to the set, not to each other.
    if (const auto to = numberOf(range.value(QStringLiteral("sweepKTo"))))
        m_sweepBox->toSpin()->setValue(int(*to));
    if (const auto from = numberOf(range.value(QStringLiteral("sweepKFrom"))))
        m_sweepBox->fromSpin()->setValue(int(*from));
}

void KShapePanel::sweep() {
    if (hasInput()) m_sweepBox->sweep(params());
}

bool KShapePanel::isBusy() const {
    return AlgorithmPanel::isBusy() || m_sweepBox->isBusy();
}

void KShapePanel::cancel() {
    m_sweepBox->cancel();
    AlgorithmPanel::cancel();
}

QString KShapePanel::exportResult(const std::string& exportId, const QString& path) {
    if (exportId == kKShapeSweepExport) return m_sweepBox->exportCsv(path);
    return exportId == "centroids" ? exportCentroids(path) : exportLabels(path);
}

}  // namespace cs::ui
