// SPDX-License-Identifier: MIT
#include "ui/kshape_panel.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <fstream>
#include <limits>
#include <span>

#include "compute/core/error.h"
#include "compute/io/npy.h"
#include "ui/logger.h"
#include "ui/series_view.h"
#include "ui/warning_row.h"

namespace cs::ui {
namespace {

const QString kKShape = QStringLiteral("kshape");
const QString kIterationsKey = QStringLiteral("kshape/maxIterations");
const QString kSeedKey = QStringLiteral("kshape/seed");

// LiveRun thresholds: k-Shape on a UCR set takes tens of milliseconds to seconds; runs of at
// least this long are debounced and cancel the run they supersede, shorter ones coalesce.
constexpr double kLongJobMs = 400.0;
constexpr int kLongJobDebounceMs = 250;
constexpr int kMaxSeed = std::numeric_limits<int>::max();
// The registry's bound on the channel; the set decides what is valid.
constexpr int kMaxChannel = 65535;

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString fixed(double v, int decimals = 3) {
    return QLocale().toString(v, 'f', decimals);
}

}  // namespace

KShapePanel::KShapePanel(JobRunner& runner, SeriesView& view, QWidget* parent)
    : QWidget(parent),
      m_runner(runner),
      m_view(view),
      m_live(
          runner, kKShape, [this] { submitRun(); }, kLongJobMs, kLongJobDebounceMs) {
    setObjectName(QStringLiteral("kshapePanel"));
    buildUi();
    connect(&m_runner, &JobRunner::finished, this, &KShapePanel::onFinished);
    connect(&m_runner, &JobRunner::failed, this, &KShapePanel::onFailed);
    connect(&m_runner, &JobRunner::cancelled, this, &KShapePanel::onCancelled);
    setEnabled(false);
}

KShapePanel::~KShapePanel() = default;

void KShapePanel::buildUi() {
    QSettings settings;
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSizeConstraint(QLayout::SetMinimumSize);

    auto* params = new QGroupBox(tr("Parameters"));
    auto* form = new QFormLayout(params);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const KShapeParams defaults;
    m_kSpin = new QSpinBox;
    m_kSpin->setRange(1, kMaxK);
    m_kSpin->setValue(kDefaultK);
    m_kSpin->setKeyboardTracking(false);
    m_kSpin->setToolTip(tr("Clusters, 1 to %1 (at most the number of series); the set's class "
                           "count when it has labels")
                            .arg(kMaxK));
    form->addRow(tr("&Clusters (k)"), m_kSpin);
    m_iterationsSpin = new QSpinBox;
    m_iterationsSpin->setRange(1, kMaxIterations);
    m_iterationsSpin->setValue(settings.value(kIterationsKey, defaults.maxIterations).toInt());
    m_iterationsSpin->setKeyboardTracking(false);
    m_iterationsSpin->setToolTip(
        tr("Iterations at most; k-Shape stops earlier when no series changes its cluster"));
    form->addRow(tr("Max &iterations"), m_iterationsSpin);
    m_seedSpin = new QSpinBox;
    m_seedSpin->setRange(0, kMaxSeed);
    m_seedSpin->setValue(settings.value(kSeedKey, int(defaults.seed)).toInt());
    m_seedSpin->setKeyboardTracking(false);
    m_seedSpin->setToolTip(tr("Seed of the initial random cluster of every series"));
    form->addRow(tr("S&eed"), m_seedSpin);
    m_channelSpin = new QSpinBox;
    m_channelSpin->setRange(0, 0);
    m_channelSpin->setKeyboardTracking(false);
    m_channelSpin->setToolTip(tr("The channel clustered (0-based)"));
    m_channelLabel = new QLabel(tr("C&hannel"));
    m_channelLabel->setBuddy(m_channelSpin);
    form->addRow(m_channelLabel, m_channelSpin);
    m_runButton = new QPushButton(tr("&Run"));
    m_runButton->setToolTip(tr("Cluster now (parameter changes re-run it too)"));
    form->addRow(m_runButton);
    layout->addWidget(params);

    auto* result = new QGroupBox(tr("Result"));
    auto* resultLayout = new QVBoxLayout(result);
    auto selectable = [](QLabel* label, const QString& name) {
        label->setObjectName(name);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    };
    m_stats = new QLabel(tr("No clusters yet"));
    selectable(m_stats, QStringLiteral("kshapeStatistics"));
    m_agreement = new QLabel;
    selectable(m_agreement, QStringLiteral("kshapeAgreement"));
    m_agreement->hide();
    m_warningRow = new WarningRow(QStringLiteral("kshape"));
    m_timings = new QLabel;
    selectable(m_timings, QStringLiteral("kshapeTimings"));
    m_timings->setForegroundRole(QPalette::PlaceholderText);
    m_timings->hide();
    m_exportButton = new QPushButton(tr("Export clusters…"));
    m_exportButton->setToolTip(
        tr("Write the labels as CSV (index,label,distance,shift) or the centroids as .npy "
           "(k × m float32)"));
    m_exportButton->setEnabled(false);
    resultLayout->addWidget(m_stats);
    resultLayout->addWidget(m_agreement);
    resultLayout->addWidget(m_warningRow);
    resultLayout->addWidget(m_timings);
    resultLayout->addWidget(m_exportButton);
    layout->addWidget(result);
    layout->addStretch(1);

    connect(m_kSpin, &QSpinBox::valueChanged, this, [this] { parametersChanged(); });
    connect(m_channelSpin, &QSpinBox::valueChanged, this, [this] { parametersChanged(); });
    for (auto [spin, key] :
         {std::pair{m_iterationsSpin, kIterationsKey}, std::pair{m_seedSpin, kSeedKey}})
        connect(spin, &QSpinBox::valueChanged, this, [this, key](int v) {
            QSettings().setValue(key, v);
            parametersChanged();
        });
    connect(m_runButton, &QPushButton::clicked, this, &KShapePanel::run);
    connect(m_exportButton, &QPushButton::clicked, this, &KShapePanel::exportRequested);
}

void KShapePanel::setSeriesSet(std::shared_ptr<const SeriesSet> series) {
    m_live.reset();
    m_series = std::move(series);
    m_run.reset();
    m_view.setKShapeResult(nullptr, nullptr);
    setWarning({});
    m_agreement->clear();
    m_agreement->hide();
    m_timings->clear();
    m_timings->hide();
    m_exportButton->setEnabled(false);
    {
        // New data brings its own defaults; they are not changes to run.
        const QSignalBlocker b1(m_kSpin);
        const QSignalBlocker b2(m_channelSpin);
        const std::size_t classes = m_series ? m_series->classCount() : 0;
        m_kSpin->setValue(classes > 0 ? int(std::min<std::size_t>(classes, kMaxK)) : kDefaultK);
        const int channels = m_series ? int(m_series->channels) : 0;
        m_channelSpin->setRange(0, std::max(channels - 1, 0));
        m_channelSpin->setValue(0);
        m_channelLabel->setVisible(channels > 1);
        m_channelSpin->setVisible(channels > 1);
    }
    setEnabled(m_series && m_series->n > 0);
    m_stats->setText(isEnabled() ? tr("No clusters yet: press Run or change a parameter")
                                 : tr("No time series loaded"));
}

KShapeParams KShapePanel::params() const {
    KShapeParams p;
    p.k = m_kSpin->value();
    p.maxIterations = m_iterationsSpin->value();
    p.seed = std::uint64_t(m_seedSpin->value());
    p.channel = std::size_t(m_channelSpin->value());
    return p;
}

void KShapePanel::setK(int k) {
    m_kSpin->setValue(k);
}

void KShapePanel::setMaxIterations(int iterations) {
    m_iterationsSpin->setValue(iterations);
}

void KShapePanel::setSeed(std::uint64_t seed) {
    m_seedSpin->setValue(int(std::min<std::uint64_t>(seed, std::uint64_t(kMaxSeed))));
}

void KShapePanel::setChannel(int channel) {
    if (m_series && (channel < 0 || std::size_t(channel) >= m_series->channels)) {
        refuse(tr("channel %1 does not exist: the set has %2")
                   .arg(channel)
                   .arg(m_series->channels == 1 ? tr("1 channel")
                                                : tr("%1 channels").arg(m_series->channels)));
        return;
    }
    m_channelSpin->setValue(channel);
}

void KShapePanel::parametersChanged() {
    if (!m_series || m_series->n == 0) return;
    m_live.schedule();
}

void KShapePanel::run() {
    if (!m_series || m_series->n == 0) return;
    m_live.runNow();
}

bool KShapePanel::isBusy() const {
    return m_live.isBusy();
}

void KShapePanel::refuse(const QString& problem) {
    const QString message = tr("k-Shape: %1").arg(problem);
    logError(message);
    emit statusMessage(message + tr(" — the previous result is kept"), 8000);
    setWarning(tr("%1. The previous result is kept.").arg(message));
}

void KShapePanel::submitRun() {
    m_live.beginSubmit();
    if (!m_series) return;
    const KShapeParams p = params();
    try {
        // O(1) checks (k against the series, the length, the channel) before the worker.
        validateKShape(*m_series, p);
    } catch (const Error& e) {
        refuse(QString::fromUtf8(e.what()));
        return;
    }
    m_runner.submit<KShapeRun>(kKShape, [series = m_series, p](Backend& backend, JobControl& job) {
        return compute(series, p, backend, job);
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
    run.sizes.assign(std::size_t(std::max(result->k, 0)), 0);
    for (const std::int32_t label : result->labels)
        if (label >= 0 && std::size_t(label) < run.sizes.size()) ++run.sizes[std::size_t(label)];
    const SeriesSet& s = *series;
    if (s.classCount() > 0 && s.labels.size() == s.n) {
        const auto stage = job.stage("agreement");
        run.agreement = clusterAgreement(result->labels, s.labels);
        run.hasAgreement = run.agreement.compared > 0;
    }
    run.result = std::move(result);
    return run;
}

void KShapePanel::onFinished(const JobOutcome& outcome) {
    if (outcome.kind != kKShape) return;
    m_live.finished(outcome);
    auto run = std::static_pointer_cast<const KShapeRun>(outcome.result);
    // A result for a set no longer loaded is dropped (setSeriesSet cancels, but the run may
    // have finished first).
    if (run->series == m_series) showRun(std::move(run), outcome);
    m_live.runPending();
}

void KShapePanel::onFailed(const JobOutcome& outcome) {
    if (outcome.kind != kKShape) return;
    // The window logs the error and shows it in the status bar.
    setWarning(tr("k-Shape failed: %1. The previous result is kept.").arg(outcome.error));
    m_live.failed(outcome);
}

void KShapePanel::onCancelled(const JobOutcome& outcome) {
    m_live.cancelled(outcome);
}

void KShapePanel::showRun(std::shared_ptr<const KShapeRun> run, const JobOutcome& outcome) {
    const bool first = !m_run;
    if (!m_view.setKShapeResult(run->series, run->result, run->params.channel)) {
        setWarning(tr("The clusters do not match the series on screen; they are not shown."));
        return;
    }
    m_run = std::move(run);
    // The first clusters of a set bring their view to the front; later runs leave the style
    // the user chose.
    if (first) m_view.setStyle(SeriesView::Style::Clusters);
    m_stats->setText(statisticsText(*m_run));
    m_agreement->setText(agreementText(*m_run));
    m_agreement->setVisible(!m_agreement->text().isEmpty());
    m_timings->setText(timingText(outcome));
    m_timings->show();
    setWarning({});
    m_exportButton->setEnabled(true);
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

QLabel* KShapePanel::warningLabel() const {
    return m_warningRow->label();
}

void KShapePanel::setWarning(const QString& text) {
    m_warningRow->setText(text);
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
    QStringList sizes;
    for (std::size_t c = 0; c < run.sizes.size(); ++c)
        sizes << tr("%1: %2").arg(c).arg(count(run.sizes[c]));
    lines << tr("Cluster sizes: %1").arg(sizes.join(QStringLiteral(", ")));
    const auto empty = std::count(run.sizes.begin(), run.sizes.end(), std::size_t(0));
    if (empty > 0) lines << tr("%1 empty clusters (zero centroids)").arg(empty);
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
    QString text = QStringLiteral("kshape k=%1 maxIterations=%2 seed=%3 channel=%4")
                       .arg(p.k)
                       .arg(p.maxIterations)
                       .arg(qulonglong(p.seed))
                       .arg(qulonglong(p.channel));
    if (m_run)
        text +=
            QStringLiteral(" iterations=%1 converged=%2")
                .arg(m_run->result->iterations)
                .arg(m_run->result->converged ? QStringLiteral("true") : QStringLiteral("false"));
    return text + QStringLiteral(" backend=%1")
                      .arg(m_runner.backendName().isEmpty() ? QStringLiteral("auto")
                                                            : m_runner.backendName());
}

QString KShapePanel::exportLabels(const QString& path) const {
    if (!m_run) return tr("no k-Shape clusters to export yet");
    const KShapeResult& r = *m_run->result;
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    if (!out) return tr("cannot write %1").arg(path);
    out << "# " << parameterText().toStdString() << "\nindex,label,distance,shift\n";
    for (std::size_t i = 0; i < r.labels.size(); ++i)
        out << i << ',' << r.labels[i] << ','
            << QString::number(double(r.distances[i]), 'g', 9).toStdString() << ',' << r.shifts[i]
            << '\n';
    out.close();
    if (!out) return tr("cannot write %1").arg(path);
    logInfo(tr("k-Shape labels (%1 series) written to %2").arg(count(r.labels.size()), path));
    return {};
}

QString KShapePanel::exportCentroids(const QString& path) const {
    if (!m_run) return tr("no k-Shape centroids to export yet");
    const KShapeResult& r = *m_run->result;
    try {
        io::writeNpy(path.toStdString(), std::span<const float>(r.centroids),
                     {std::size_t(r.k), r.length});
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("k-Shape centroids (%1 × %2) written to %3").arg(r.k).arg(count(r.length), path));
    return {};
}

Algorithm KShapePanel::algorithm() {
    using Type = AlgorithmParameter::Type;
    const KShapeParams defaults;
    Algorithm a;
    a.name = kKShape;
    a.title = tr("k-Shape");
    a.parameters = {{QStringLiteral("k"),
                     Type::Int,
                     1,
                     double(kMaxK),
                     {},
                     kDefaultK,
                     tr("clusters (default: the set's class count, else 3)")},
                    {QStringLiteral("maxIterations"),
                     Type::Int,
                     1,
                     double(kMaxIterations),
                     {},
                     defaults.maxIterations,
                     tr("iterations at most")},
                    {QStringLiteral("seed"),
                     Type::Int,
                     0,
                     double(kMaxSeed),
                     {},
                     qulonglong(defaults.seed),
                     tr("seed of the initial random clusters")},
                    {QStringLiteral("channel"),
                     Type::Int,
                     0,
                     double(kMaxChannel),
                     {},
                     qulonglong(defaults.channel),
                     tr("the channel clustered (multivariate sets)")}};
    a.setParameter = [this](const QString& name, const QVariant& value) {
        if (name == QLatin1String("k"))
            setK(value.toInt());
        else if (name == QLatin1String("maxIterations"))
            setMaxIterations(value.toInt());
        else if (name == QLatin1String("seed"))
            setSeed(value.toULongLong());
        else if (name == QLatin1String("channel"))
            setChannel(value.toInt());
    };
    a.run = [this] { run(); };
    a.isBusy = [this] { return isBusy(); };
    return a;
}

}  // namespace cs::ui
