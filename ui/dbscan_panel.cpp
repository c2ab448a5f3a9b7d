// SPDX-License-Identifier: MIT
#include "ui/dbscan_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "compute/core/error.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/io/npy.h"
#include "compute/io/writers.h"
#include "ui/colour_maps.h"
#include "ui/k_distance_chart.h"
#include "ui/logger.h"
#include "ui/point_cloud_view.h"
#include "ui/warning_row.h"

namespace cs::ui {
namespace {

const QString kDbscan = QStringLiteral("dbscan");
const QString kKDist = QStringLiteral("kdist");
const QString kMinPtsKey = QStringLiteral("dbscan/minPts");
const QString kStarKey = QStringLiteral("dbscan/star");
const QString kPathKey = QStringLiteral("dbscan/path");
const QString kShowCoreKey = QStringLiteral("dbscan/showCore");
const QString kShowBorderKey = QStringLiteral("dbscan/showBorder");
const QString kShowNoiseKey = QStringLiteral("dbscan/showNoise");

// The k-distance curve needs a kNN search: let MinPts typing settle first.
constexpr int kKDistDebounceMs = 300;
// The chart needs no more points than it has pixels.
constexpr std::size_t kCurveBuckets = 1000;
// Legend rows for clusters; the rest are summed up in one line.
constexpr std::size_t kLegendClusters = 12;
// Degenerate-result thresholds.
constexpr double kMostlyNoise = 0.95;
constexpr double kOneCluster = 0.95;

const std::pair<DbscanPath, const char*> kPaths[] = {
    {DbscanPath::Auto, QT_TRANSLATE_NOOP("DbscanPanel", "auto")},
    {DbscanPath::Grid, QT_TRANSLATE_NOOP("DbscanPanel", "grid (d ≤ 3)")},
    {DbscanPath::Brute, QT_TRANSLATE_NOOP("DbscanPanel", "brute force")},
    {DbscanPath::KdTree, QT_TRANSLATE_NOOP("DbscanPanel", "kd-tree")}};

/// What the k-distance job hands back: never the full curve (10M floats) but what the chart
/// and the eps suggestion need.
struct KDistanceSummary {
    std::vector<QPointF> curve;
    QPointF knee;
    std::size_t n = 0;
    int k = 0;
    double minPositive = 0.0;
};

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString percent(double fraction) {
    return QLocale().toString(100.0 * fraction, 'f', fraction < 0.1 ? 2 : 1) + QStringLiteral(" %");
}

QString pathName(DbscanPath path) {
    const auto s = toString(path);
    return QString::fromLatin1(s.data(), qsizetype(s.size()));
}

}  // namespace

DbscanPanel::DbscanPanel(JobRunner& runner, PointCloudView& view, QWidget* parent)
    : QWidget(parent),
      m_runner(runner),
      m_view(view),
      m_live(runner, kDbscan, [this] { submitRun(); }) {
    setObjectName(QStringLiteral("dbscanPanel"));
    m_kdistDebounce.setSingleShot(true);
    m_kdistDebounce.setInterval(kKDistDebounceMs);
    connect(&m_kdistDebounce, &QTimer::timeout, this, &DbscanPanel::submitKDistance);
    buildUi();
    connect(&m_runner, &JobRunner::finished, this, &DbscanPanel::onFinished);
    connect(&m_runner, &JobRunner::failed, this, &DbscanPanel::onFailed);
    connect(&m_runner, &JobRunner::cancelled, this, &DbscanPanel::onCancelled);
    setEnabled(false);
}

DbscanPanel::~DbscanPanel() = default;

void DbscanPanel::buildUi() {
    QSettings settings;
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    // The panel never shrinks below its contents (the dock's scroll area scrolls instead), so a
    // short dock cannot squeeze the chart or stack labels on top of each other.
    layout->setSizeConstraint(QLayout::SetMinimumSize);

    auto* params = new QGroupBox(tr("Parameters"));
    auto* form = new QFormLayout(params);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_epsSlider = new QSlider(Qt::Horizontal);
    m_epsSlider->setRange(0, kSliderSteps);
    m_epsSlider->setToolTip(tr("Neighbourhood radius (log scale)"));
    m_epsSpin = new QDoubleSpinBox;
    m_epsSpin->setDecimals(4);
    m_epsSpin->setRange(1e-4, 1e9);
    m_epsSpin->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    m_epsSpin->setKeyboardTracking(false);
    m_epsSpin->setToolTip(tr("Neighbourhood radius: points within eps are neighbours"));
    // The slider takes what the spin box leaves; neither may widen the dock. The spin box's own
    // hint is sized for its 1e9 maximum, far wider than any eps typed.
    m_epsSlider->setMinimumWidth(40);
    m_epsSlider->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_epsSpin->setMinimumWidth(
        m_epsSpin->fontMetrics().horizontalAdvance(QStringLiteral("000.0000")) +
        style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 16);
    m_epsSpin->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    auto* epsRow = new QHBoxLayout;
    epsRow->setSpacing(4);
    epsRow->addWidget(m_epsSlider, 3);
    epsRow->addWidget(m_epsSpin, 2);
    auto* epsLabel = new QLabel(tr("&eps"));
    epsLabel->setBuddy(m_epsSpin);
    form->addRow(epsLabel, epsRow);

    m_minPtsSpin = new QSpinBox;
    m_minPtsSpin->setRange(1, 100000);
    m_minPtsSpin->setValue(settings.value(kMinPtsKey, 10).toInt());
    m_minPtsSpin->setKeyboardTracking(false);
    m_minPtsSpin->setToolTip(tr("Neighbours within eps, the point itself included, to be core"));
    form->addRow(tr("&MinPts"), m_minPtsSpin);

    m_pathBox = new QComboBox;
    m_pathBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_pathBox->setMinimumContentsLength(8);
    for (const auto& [path, text] : kPaths)
        m_pathBox->addItem(tr(text), int(path));
    m_pathBox->setCurrentIndex(std::max(0, m_pathBox->findData(settings.value(kPathKey, 0))));
    m_pathBox->setToolTip(tr("Neighbour search: the result is the same; only the speed differs"));
    form->addRow(tr("&Search"), m_pathBox);

    m_starBox = new QCheckBox(tr("DBSCAN* (border points are noise)"));
    m_starBox->setChecked(settings.value(kStarKey, false).toBool());
    form->addRow(m_starBox);
    layout->addWidget(params);

    auto* curve = new QGroupBox(tr("k-distance"));
    auto* curveLayout = new QVBoxLayout(curve);
    m_chart = new KDistanceChart;
    m_chart->setMinimumHeight(190);
    m_chart->setMaximumHeight(260);
    curveLayout->addWidget(m_chart);
    m_suggestButton = new QPushButton(tr("Use suggested eps"));
    m_suggestButton->setMinimumWidth(0);
    m_suggestButton->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_suggestButton->setEnabled(false);
    m_suggestButton->setToolTip(tr("Set eps to the knee of the k-distance curve"));
    curveLayout->addWidget(m_suggestButton);
    layout->addWidget(curve);

    auto* show = new QGroupBox(tr("Show"));
    auto* showLayout = new QHBoxLayout(show);
    m_showCore = new QCheckBox(tr("&Core"));
    m_showBorder = new QCheckBox(tr("&Border"));
    m_showNoise = new QCheckBox(tr("&Noise"));
    m_showCore->setChecked(settings.value(kShowCoreKey, true).toBool());
    m_showBorder->setChecked(settings.value(kShowBorderKey, true).toBool());
    m_showNoise->setChecked(settings.value(kShowNoiseKey, true).toBool());
    for (QCheckBox* c : {m_showCore, m_showBorder, m_showNoise})
        showLayout->addWidget(c);
    showLayout->addStretch(1);
    layout->addWidget(show);

    // The result box: statistics, the warning (icon + text, palette colours only), then the
    // backend, path and one line per stage. Labels wrap rather than widen the dock; the scroll
    // area around the panel follows their height (see MainWindow::createComputePanels).
    auto* result = new QGroupBox(tr("Result"));
    auto* resultLayout = new QVBoxLayout(result);
    m_stats = new QLabel(tr("No result yet"));
    m_stats->setWordWrap(true);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stats->setObjectName(QStringLiteral("dbscanStatistics"));
    m_warningRow = new WarningRow(QStringLiteral("dbscan"));
    m_timings = new QLabel;
    m_timings->setObjectName(QStringLiteral("dbscanTimings"));
    m_timings->setWordWrap(true);
    m_timings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_timings->setForegroundRole(QPalette::PlaceholderText);
    m_timings->hide();
    m_exportButton = new QPushButton(tr("Export labels…"));
    m_exportButton->setEnabled(false);
    resultLayout->addWidget(m_stats);
    resultLayout->addWidget(m_warningRow);
    resultLayout->addWidget(m_timings);
    resultLayout->addWidget(m_exportButton);
    layout->addWidget(result);
    layout->addStretch(1);

    connect(m_epsSpin, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { applyEps(v, Source::Spin); });
    connect(m_epsSlider, &QSlider::valueChanged, this,
            [this](int v) { applyEps(sliderEps(v), Source::Slider); });
    connect(m_chart, &KDistanceChart::epsDragged, this,
            [this](double v) { applyEps(v, Source::Chart); });
    connect(m_minPtsSpin, &QSpinBox::valueChanged, this, [this](int v) {
        QSettings().setValue(kMinPtsKey, v);
        parametersChanged();
        m_kdistDebounce.start();
    });
    connect(m_pathBox, &QComboBox::activated, this, [this] {
        QSettings().setValue(kPathKey, m_pathBox->currentData());
        parametersChanged();
    });
    connect(m_starBox, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kStarKey, on);
        parametersChanged();
    });
    connect(m_suggestButton, &QPushButton::clicked, this, [this] {
        if (m_suggestedEps > 0) applyEps(m_suggestedEps, Source::Code);
    });
    for (auto [box, key] :
         {std::pair{m_showCore, kShowCoreKey}, std::pair{m_showBorder, kShowBorderKey},
          std::pair{m_showNoise, kShowNoiseKey}})
        connect(box, &QCheckBox::toggled, this, [this, key](bool on) {
            QSettings().setValue(key, on);
            repaint();
        });
    // The export dialog belongs to the main window (File ▸ Export… offers the labels too).
    connect(m_exportButton, &QPushButton::clicked, this, &DbscanPanel::exportRequested);
}

void DbscanPanel::setPointSet(std::shared_ptr<const PointSet> points) {
    m_live.reset();
    m_runner.cancel(kKDist);
    m_kdistDebounce.stop();
    m_points = std::move(points);
    m_run.reset();
    m_epsChosen = false;
    m_waitingForKnee = false;
    m_suggestedEps = 0.0;
    m_chart->clearCurve();
    m_suggestButton->setEnabled(false);
    m_exportButton->setEnabled(false);
    setWarning({});
    m_timings->clear();
    m_timings->hide();
    setEnabled(m_points && m_points->n > 0);
    if (!isEnabled()) {
        m_stats->setText(tr("No points loaded"));
        return;
    }
    m_stats->setText(tr("Computing the k-distance curve for a suggested eps…"));
    updatePathChoices();

    // The slider spans the scales that can matter for this cloud: from a ten-thousandth of its
    // extent (duplicates, scan spacing) to a quarter of it (everything one cluster).
    double diag2 = 0.0;
    const std::size_t d = m_points->dims;
    for (std::size_t j = 0; j < d; ++j) {
        float lo = m_points->coords[j], hi = lo;
        for (std::size_t i = 0; i < m_points->n;
             i += std::max<std::size_t>(1, m_points->n / 65536)) {
            const float v = m_points->coords[i * d + j];
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        diag2 += double(hi - lo) * double(hi - lo);
    }
    const double diag = diag2 > 0 ? std::sqrt(diag2) : 1.0;
    m_epsMin = diag * 1e-4;
    m_epsMax = diag * 0.25;
    // Enough decimals to show the smallest eps the slider reaches.
    m_epsSpin->setDecimals(std::clamp(int(std::ceil(-std::log10(m_epsMin))) + 2, 2, 9));
    m_epsSpin->setRange(std::pow(10.0, -m_epsSpin->decimals()), m_epsMax * 40.0);
    {
        // A starting eps for the controls only: no run happens until the knee is known.
        const QSignalBlocker b1(m_epsSpin), b2(m_epsSlider);
        m_eps = diag * 0.01;
        m_epsSpin->setValue(m_eps);
        m_epsSlider->setValue(sliderPosition(m_eps));
        m_chart->setEps(m_eps);
    }
    submitKDistance();
}

void DbscanPanel::updatePathChoices() {
    auto* model = qobject_cast<QStandardItemModel*>(m_pathBox->model());
    const std::size_t d = m_points ? m_points->dims : 3;
    for (int i = 0; i < m_pathBox->count(); ++i) {
        const auto path = DbscanPath(m_pathBox->itemData(i).toInt());
        const bool ok = path != DbscanPath::Grid || d <= 3;
        model->item(i)->setEnabled(ok);
        model->item(i)->setToolTip(
            ok ? QString() : tr("the grid handles 1 to 3 dimensions; these points have %1").arg(d));
        if (!ok && m_pathBox->currentIndex() == i) m_pathBox->setCurrentIndex(0);
    }
}

int DbscanPanel::sliderPosition(double eps) const {
    if (!(eps > m_epsMin)) return 0;
    const double t = std::log(eps / m_epsMin) / std::log(m_epsMax / m_epsMin);
    return std::clamp(int(std::lround(t * kSliderSteps)), 0, kSliderSteps);
}

double DbscanPanel::sliderEps(int position) const {
    return m_epsMin * std::pow(m_epsMax / m_epsMin, double(position) / kSliderSteps);
}

void DbscanPanel::applyEps(double eps, Source source) {
    if (!(eps > 0) || !std::isfinite(eps)) return;
    // A slider position stands for a range of eps: the spin box shows what runs.
    if (source == Source::Slider) eps = std::stod(QString::number(eps, 'g', 4).toStdString());
    m_eps = eps;
    if (source != Source::Code) m_epsChosen = true;
    {
        const QSignalBlocker b1(m_epsSpin), b2(m_epsSlider);
        if (source != Source::Spin) m_epsSpin->setValue(eps);
        if (source != Source::Slider) m_epsSlider->setValue(sliderPosition(eps));
    }
    if (source != Source::Chart) m_chart->setEps(m_epsSpin->value());
    m_eps = m_epsSpin->value();  // the spin box rounds to its decimals; run what it shows
    parametersChanged();
}

void DbscanPanel::setEps(double eps) {
    m_epsChosen = true;
    applyEps(eps, Source::Code);
}

void DbscanPanel::setMinPts(int minPts) {
    m_minPtsSpin->setValue(minPts);
}

void DbscanPanel::setStar(bool star) {
    m_starBox->setChecked(star);
}

void DbscanPanel::setPath(DbscanPath path) {
    const int index = m_pathBox->findData(int(path));
    if (index < 0) return;
    m_pathBox->setCurrentIndex(index);
    QSettings().setValue(kPathKey, int(path));
    parametersChanged();
}

DbscanParams DbscanPanel::params() const {
    DbscanParams p;
    p.eps = float(m_eps);
    p.minPts = m_minPtsSpin->value();
    p.star = m_starBox->isChecked();
    p.path = DbscanPath(m_pathBox->currentData().toInt());
    return p;
}

void DbscanPanel::parametersChanged() {
    if (!m_points || m_points->n == 0) return;
    // Until the knee is known, only an explicit eps starts a run.
    if (!m_epsChosen && !m_run && m_suggestedEps <= 0) {
        m_waitingForKnee = true;
        return;
    }
    m_live.schedule();
}

void DbscanPanel::run() {
    if (!m_points || m_points->n == 0) return;
    if (!m_epsChosen && !m_run && m_suggestedEps <= 0) {
        m_waitingForKnee = true;
        return;
    }
    m_live.runNow();
}

void DbscanPanel::submitRun() {
    m_live.beginSubmit();
    if (!m_points) return;
    const DbscanParams p = params();
    try {
        validateDbscanParams(p);
    } catch (const Error& e) {
        const QString message = tr("DBSCAN: %1").arg(QString::fromUtf8(e.what()));
        logError(message);
        emit statusMessage(message, 8000);
        return;
    }
    const ClusterVisibility vis = visibility();
    QColor noise = m_view.noiseColour();
    noise.setAlpha(ColourMaps::kBehindAlpha);
    const std::uint32_t noiseRgba = ColourMaps::packRgba(noise);
    // A CUDA result is painted on the GPU through GL interop when the view can: no per-point
    // colours on the host then.
    const bool paintOnDevice = m_view.mayPaintOnDevice();
    // The previous run travels with the job: matching (and host painting) happen on the worker,
    // so the GUI only swaps buffers when the result arrives.
    m_runner.submit<DbscanRun>(kDbscan, [points = m_points, p, prev = m_run, vis, noiseRgba,
                                         paintOnDevice](Backend& backend, JobControl& job) {
        DbscanRun run;
        run.params = p;
        run.result = backend.dbscan(*points, p, job);
        job.checkpoint();
        {
            const auto match = job.stage("match colours");
            // The previous run's clusters overlap the new ones where their labels live (on the
            // GPU after a CUDA run).
            std::vector<ClusterOverlap> overlap;
            if (prev && prev->result.labels.size() == run.result.labels.size())
                overlap = backend.clusterOverlap(prev->result, run.result, job);
            run.sizes = clusterSizes(run.result.labels, run.result.clusterCount);
            run.slotOf = matchClusterSlots(
                overlap, prev ? std::span<const int>(prev->slotOf) : std::span<const int>(),
                run.sizes);
            const int maxSlot =
                run.slotOf.empty() ? -1 : *std::max_element(run.slotOf.begin(), run.slotOf.end());
            run.slotColours.resize(std::size_t(maxSlot + 1));
            for (int s = 0; s <= maxSlot; ++s)
                run.slotColours[std::size_t(s)] = ColourMaps::packRgba(ColourMaps::categorical(s));
        }
        if (!(paintOnDevice && run.result.device)) {
            const auto paint = job.stage("paint colours");
            run.rgba = paintClusters(run.result.labels, run.result.isCore,
                                     clusterPaint(run.slotOf, run.slotColours, noiseRgba, vis));
        }
        return run;
    });
}

void DbscanPanel::submitKDistance() {
    m_kdistDebounce.stop();
    if (!m_points || m_points->n == 0) return;
    const int k =
        std::clamp(m_minPtsSpin->value(), 1, int(std::min<std::size_t>(m_points->n, 1 << 30)));
    m_kdistK = k;
    m_runner.submit<KDistanceSummary>(
        kKDist, [points = m_points, k](Backend& backend, JobControl& job) {
            const KDistanceResult r = backend.kDistance(*points, k, job);
            job.checkpoint();
            KDistanceSummary s;
            s.n = r.sorted.size();
            s.k = k;
            if (s.n == 0) return s;
            const KDistanceKnee knee = kDistanceKnee(r.sorted);
            s.knee = QPointF(double(knee.index), double(knee.distance));
            // The curve is monotonic, so each bucket's first and last values keep its shape.
            const std::size_t buckets = std::min(kCurveBuckets, s.n);
            s.curve.reserve(2 * buckets);
            for (std::size_t b = 0; b < buckets; ++b) {
                const std::size_t first = b * s.n / buckets;
                const std::size_t last = std::max(first, (b + 1) * s.n / buckets - 1);
                s.curve.emplace_back(double(first), double(r.sorted[first]));
                if (last != first) s.curve.emplace_back(double(last), double(r.sorted[last]));
            }
            return s;
        });
}

ClusterVisibility DbscanPanel::visibility() const {
    return {m_showCore->isChecked(), m_showBorder->isChecked(), m_showNoise->isChecked()};
}

bool DbscanPanel::isBusy() const {
    return m_live.isBusy() || m_kdistDebounce.isActive() || m_runner.isBusy(kKDist);
}

void DbscanPanel::onFinished(const JobOutcome& outcome) {
    if (outcome.kind == kKDist) {
        auto s = std::static_pointer_cast<const KDistanceSummary>(outcome.result);
        if (s->n == 0) return;
        m_chart->setCurve(s->curve, s->n, s->k, s->knee);
        m_chart->setEps(m_eps);
        m_suggestedEps = s->knee.y();
        m_suggestButton->setEnabled(m_suggestedEps > 0);
        m_suggestButton->setText(
            tr("Use suggested eps (%1)").arg(QLocale().toString(m_suggestedEps, 'g', 4)));
        logInfo(tr("k-distance curve (k = %1) in %2 ms: suggested eps %3")
                    .arg(s->k)
                    .arg(outcome.milliseconds, 0, 'f', 0)
                    .arg(m_suggestedEps, 0, 'g', 4));
        if (!m_epsChosen && !m_run && m_suggestedEps > 0) {
            // The knee only presets eps: loading data keeps its own colouring until the user
            // (or the automation) asks for clusters.
            const QSignalBlocker b1(m_epsSpin), b2(m_epsSlider);
            m_epsSpin->setValue(m_suggestedEps);
            m_eps = m_epsSpin->value();
            m_epsSlider->setValue(sliderPosition(m_eps));
            m_chart->setEps(m_eps);
        }
        if (m_waitingForKnee) {
            m_waitingForKnee = false;
            m_epsChosen = true;
            m_live.schedule();
        }
        return;
    }
    if (outcome.kind != kDbscan) return;
    m_live.finished(outcome);
    showRun(std::static_pointer_cast<const DbscanRun>(outcome.result), outcome);
    m_live.runPending();
}

void DbscanPanel::onFailed(const JobOutcome& outcome) {
    if (outcome.kind != kDbscan && outcome.kind != kKDist) return;
    const QString what = outcome.kind == kDbscan ? tr("DBSCAN") : tr("k-distance curve");
    setWarning(tr("%1 failed: %2. The previous result is kept.").arg(what, outcome.error));
    if (outcome.kind == kKDist && m_waitingForKnee) {
        // No suggestion: run with the starting eps rather than not at all.
        m_waitingForKnee = false;
        m_epsChosen = true;
        m_live.schedule();
    }
    m_live.failed(outcome);
}

void DbscanPanel::onCancelled(const JobOutcome& outcome) {
    if (outcome.kind == kKDist && m_waitingForKnee) {
        m_waitingForKnee = false;
        m_epsChosen = true;
    }
    m_live.cancelled(outcome);
}

void DbscanPanel::showRun(std::shared_ptr<const DbscanRun> run, const JobOutcome& outcome) {
    m_run = std::move(run);
    const DbscanResult& r = m_run->result;
    repaint();
    m_stats->setText(statisticsText(r));
    // One stage per line: a single joined line is wider than the dock.
    QStringList lines;
    lines << tr("%1 · %2 ms · path %3")
                 .arg(outcome.backend)
                 .arg(QLocale().toString(outcome.milliseconds, 'f', 1), pathName(r.pathUsed));
    for (const auto& t : outcome.timings)
        lines << tr("  %1: %2 ms")
                     .arg(QString::fromStdString(t.name),
                          QLocale().toString(t.milliseconds, 'f', 1));
    m_timings->setText(lines.join(QLatin1Char('\n')));
    m_timings->show();
    setWarning(degenerateWarning(r));
    m_exportButton->setEnabled(true);
    emit resultChanged();
}

QLabel* DbscanPanel::warningLabel() const {
    return m_warningRow->label();
}

void DbscanPanel::setWarning(const QString& text) {
    m_warningRow->setText(text);
}

bool DbscanPanel::hasClusters() const {
    return m_run && m_points && m_points == m_view.pointSet() &&
           m_run->result.labels.size() == m_points->n;
}

bool DbscanPanel::showClusters() {
    if (!hasClusters()) return false;
    repaint();
    return true;
}

void DbscanPanel::repaint() {
    if (!m_run || !m_points || m_run->result.labels.size() != m_points->n) return;
    const DbscanRun& run = *m_run;
    const DbscanResult& r = run.result;
    QColor noise = m_view.noiseColour();
    noise.setAlpha(ColourMaps::kBehindAlpha);
    const ClusterVisibility vis = visibility();
    // The worker's host colours hold only for the visibility they were painted with.
    const bool asComputed = vis.core && vis.border && vis.noise;
    std::vector<std::uint32_t> hostColours;
    if (asComputed && run.rgba.size() == r.labels.size()) hostColours = run.rgba;

    Legend legend;
    legend.kind = Legend::Kind::Categories;
    legend.title = r.clusterCount == 1 ? tr("DBSCAN · 1 cluster")
                                       : tr("DBSCAN · %1 clusters").arg(r.clusterCount);
    std::vector<std::int32_t> order(run.sizes.size());
    for (std::size_t c = 0; c < order.size(); ++c)
        order[c] = std::int32_t(c);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        return run.sizes[std::size_t(a)] > run.sizes[std::size_t(b)];
    });
    const std::size_t shown = order.size() > kLegendClusters + 1 ? kLegendClusters : order.size();
    for (std::size_t i = 0; i < shown; ++i) {
        const auto c = std::size_t(order[i]);
        legend.entries.push_back({tr("cluster %1").arg(c + 1),
                                  run.slotColours[std::size_t(run.slotOf[c])], run.sizes[c]});
    }
    if (shown < order.size()) {
        std::size_t rest = 0;
        for (std::size_t i = shown; i < order.size(); ++i)
            rest += run.sizes[std::size_t(order[i])];
        legend.entries.push_back({tr("… %1 more clusters").arg(order.size() - shown),
                                  ColourMaps::packRgba(m_view.palette().color(QPalette::Mid)),
                                  rest});
    }
    legend.entries.push_back({tr("noise"), ColourMaps::packRgba(noise), r.stats.noisePoints});
    m_view.setClusterColours(
        std::shared_ptr<const DbscanResult>(m_run, &run.result),
        clusterPaint(run.slotOf, run.slotColours, ColourMaps::packRgba(noise), vis),
        std::move(legend), std::move(hostColours));
}

QString DbscanPanel::statisticsText(const DbscanResult& r) {
    const std::size_t n = r.labels.size();
    const double total = double(std::max<std::size_t>(n, 1));
    return tr("Clusters: %1\nNoise: %2 (%3)\nCore: %4 (%5)\nLargest cluster: %6 (%7)")
        .arg(r.clusterCount)
        .arg(count(r.stats.noisePoints), percent(double(r.stats.noisePoints) / total))
        .arg(count(r.stats.corePoints), percent(double(r.stats.corePoints) / total))
        .arg(count(r.stats.largestCluster), percent(double(r.stats.largestCluster) / total));
}

QString DbscanPanel::degenerateWarning(const DbscanResult& r) {
    const double n = double(r.labels.size());
    if (n < 1) return {};
    if (double(r.stats.noisePoints) > kMostlyNoise * n)
        return tr("%1 of the points are noise: eps is probably too small or MinPts too large.")
            .arg(percent(double(r.stats.noisePoints) / n));
    if (double(r.stats.largestCluster) > kOneCluster * n)
        return tr("One cluster holds %1 of the points: eps is probably too large.")
            .arg(percent(double(r.stats.largestCluster) / n));
    return {};
}

QString DbscanPanel::parameterText() const {
    const DbscanParams p = m_run ? m_run->params : params();
    return QStringLiteral("dbscan eps=%1 minPts=%2 star=%3 path=%4 backend=%5")
        .arg(double(p.eps), 0, 'g', 9)
        .arg(p.minPts)
        .arg(p.star ? 1 : 0)
        .arg(pathName(m_run ? m_run->result.pathUsed : p.path),
             m_runner.backendName().isEmpty() ? QStringLiteral("auto") : m_runner.backendName());
}

QString DbscanPanel::exportLabels(const QString& path) const {
    if (!m_run) return tr("no DBSCAN result to export yet");
    const DbscanResult& r = m_run->result;
    try {
        if (QFileInfo(path).suffix().toLower() == QLatin1String("npy"))
            io::writeNpy(path.toStdString(), std::span<const std::int32_t>(r.labels),
                         {r.labels.size()});
        else
            io::writeLabelsCsv(path.toStdString(), r.labels, r.isCore,
                               parameterText().toStdString());
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("DBSCAN labels (%1 points) written to %2").arg(count(r.labels.size()), path));
    return {};
}

Algorithm DbscanPanel::algorithm() {
    using Type = AlgorithmParameter::Type;
    Algorithm a;
    a.name = kDbscan;
    a.title = tr("DBSCAN");
    AlgorithmParameter eps{QStringLiteral("eps"),           Type::Double, 1e-9, 1e9, {}, 2.5,
                           tr("neighbourhood radius (> 0)")};
    AlgorithmParameter minPts{QStringLiteral("minPts"),
                              Type::Int,
                              1,
                              100000,
                              {},
                              10,
                              tr("neighbours within eps, itself included, to be core")};
    AlgorithmParameter path{
        QStringLiteral("path"), Type::Choice,          0, 0, {"auto", "grid", "brute", "kdtree"},
        QStringLiteral("auto"), tr("neighbour search")};
    AlgorithmParameter star{QStringLiteral("star"),
                            Type::Bool,
                            0,
                            1,
                            {},
                            false,
                            tr("DBSCAN*: border points become noise")};
    a.parameters = {eps, minPts, path, star};
    a.setParameter = [this](const QString& name, const QVariant& value) {
        if (name == QLatin1String("eps"))
            setEps(value.toDouble());
        else if (name == QLatin1String("minPts"))
            setMinPts(value.toInt());
        else if (name == QLatin1String("path"))
            setPath(parseDbscanPath(value.toString().toStdString()));
        else if (name == QLatin1String("star"))
            setStar(value.toBool());
    };
    a.run = [this] { run(); };
    a.isBusy = [this] { return isBusy(); };
    return a;
}

}  // namespace cs::ui
