// SPDX-License-Identifier: MIT
#include "ui/panels/dbscan/dbscan_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "compute/core/error.h"
#include "compute/core/job_cost.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/dbscan/dbscan_quantities.h"
#include "compute/dbscan/dbscan_subset.h"
#include "compute/dbscan/dbscan_sweep.h"
#include "compute/dbscan/eps_suggestion.h"
#include "compute/io/writers.h"
#include "ui/panels/dbscan/k_distance_chart.h"
#include "ui/panels/dbscan/sweep_heatmap.h"
#include "ui/panels/number_spin_box.h"
#include "ui/panels/parameter_store.h"
#include "ui/panels/warning_row.h"
#include "ui/shell/logger.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/point_cloud_view.h"

namespace cs::ui {

/// What the k-distance job hands back: never the full curve (10M floats) but what the chart
/// and the eps suggestion need.
struct KDistanceSummary {
    std::vector<QPointF> curve;
    QPointF knee;             ///< where the suggestion lies on the curve (rank, eps)
    double kneeEps = 0.0;     ///< the knee itself
    bool swept = false;       ///< the suggestion's sweep ran (else the suggestion is the knee)
    int plateauClusters = 0;  ///< 0: no plateau, the suggestion is the knee
    double plateauLow = 0.0, plateauHigh = 0.0;
    std::size_t n = 0;
    int k = 0;
    double minPositive = 0.0;
};

namespace {

const QString kKDist = QStringLiteral("kdist");
// The eps suggestion's sweep (24 DBSCAN runs around the knee): seconds on the CPU for a big
// cloud, so it runs when the user asks for it, not at every load.
const QString kSuggest = QStringLiteral("dbscan-suggest");
// The sweep has a lane of its own: a sweep in progress never holds up the runs its cells start.
const QString kSweep = QStringLiteral("dbscan-sweep");
const QString kSweepMeasureKey = QStringLiteral("dbscan/sweepMeasure");
const QString kShowCoreKey = QStringLiteral("dbscan/showCore");
const QString kLogScaleKey = QStringLiteral("dbscan/kDistanceLogScale");
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

/// What the suggestion's sweep hands back (its k is the MinPts it swept for).
struct SuggestionSummary {
    int k = 0;
    double eps = 0.0;
    int plateauClusters = 0;
    double plateauLow = 0.0, plateauHigh = 0.0;
};

/// The summary's fields from a suggestion.
template <class Summary>
void takeSuggestion(Summary& s, const EpsSuggestion& suggestion) {
    if (!suggestion.plateau) return;
    s.plateauClusters = suggestion.plateau->clusters;
    s.plateauLow = suggestion.sweep.eps[suggestion.plateau->first];
    s.plateauHigh = suggestion.sweep.eps[suggestion.plateau->last];
}

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
    : AlgorithmPanel(runner, dbscanDescriptor(), parent), m_view(view) {
    m_kdistDebounce.setSingleShot(true);
    m_kdistDebounce.setInterval(kKDistDebounceMs);
    connect(&m_kdistDebounce, &QTimer::timeout, this, &DbscanPanel::submitKDistance);
    buildUi();
    // The k-distance curve is a side job of its own kind (its own lane: it never holds up
    // DBSCAN); DBSCAN's own answers come through AlgorithmPanel.
    connect(&runner, &JobRunner::finished, this, &DbscanPanel::onKDistanceFinished);
    connect(&runner, &JobRunner::failed, this, &DbscanPanel::onKDistanceFailed);
    connect(&runner, &JobRunner::cancelled, this, &DbscanPanel::onKDistanceCancelled);
}

DbscanPanel::~DbscanPanel() = default;

void DbscanPanel::buildUi() {
    QSettings settings;
    QFormLayout* form = parameterForm();
    const AlgorithmDescriptor& d = dbscanDescriptor();

    m_epsSlider = new QSlider(Qt::Horizontal);
    m_epsSlider->setRange(0, kSliderSteps);
    m_epsSlider->setToolTip(tr("Neighbourhood radius (log scale)"));
    m_epsSpin = new NumberSpinBox;
    ParameterStore::configure(m_epsSpin, parameterSpec(d, "eps"));
    // The declared range starts at 0; setPointSet narrows the spin box and the slider to the
    // scales of the data (which may be 1e-30 or 1e30).
    m_epsSpin->setRange(1e-4, 1e9);
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
    auto* epsLabel = new QLabel(QString::fromStdString(parameterSpec(d, "eps").label));
    epsLabel->setBuddy(m_epsSpin);
    form->addRow(epsLabel, epsRow);

    m_minPtsSpin = addIntParameter("minPts");

    m_pathBox = new QComboBox;
    m_pathBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_pathBox->setMinimumContentsLength(8);
    for (const auto& [path, text] : kPaths)
        m_pathBox->addItem(tr(text), int(path));
    const ParameterSpec& path = parameterSpec(d, "path");
    const DbscanPath storedPath =
        parseDbscanPath(std::get<std::string>(ParameterStore::load(d, path)));
    m_pathBox->setCurrentIndex(std::max(0, m_pathBox->findData(int(storedPath))));
    ParameterStore::configure(m_pathBox, path);
    form->addRow(QString::fromStdString(path.label), m_pathBox);

    m_starBox = addBoolParameter("star", tr("DBSCAN* (border points are noise)"));

    auto* curve = new QGroupBox(tr("k-distance"));
    auto* curveLayout = new QVBoxLayout(curve);
    m_chart = new KDistanceChart;
    m_chart->setMinimumHeight(190);
    m_chart->setMaximumHeight(260);
    curveLayout->addWidget(m_chart);
    m_logScaleBox = new QCheckBox(tr("&Log scale"));
    m_logScaleBox->setObjectName(QStringLiteral("kdistLogScale"));
    m_logScaleBox->setToolTip(
        tr("A log k-distance axis: the small distances of dense regions "
           "spread out"));
    m_logScaleBox->setChecked(settings.value(kLogScaleKey, false).toBool());
    m_chart->setLogScale(m_logScaleBox->isChecked());
    curveLayout->addWidget(m_logScaleBox);
    m_suggestButton = new QPushButton(tr("Use suggested eps"));
    m_suggestButton->setObjectName(QStringLiteral("dbscanSuggest"));
    m_suggestButton->setMinimumWidth(0);
    m_suggestButton->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_suggestButton->setEnabled(false);
    m_suggestButton->setToolTip(
        tr("Set eps to the middle of the widest eps range over which the number of clusters "
           "stays the same (DBSCAN swept over 24 eps values around the knee of the k-distance "
           "curve)"));
    curveLayout->addWidget(m_suggestButton);
    // A k-distance curve far costlier than usual is not computed behind the user's back.
    m_kdistConfirm = new QPushButton;
    m_kdistConfirm->setObjectName(QStringLiteral("kdistConfirm"));
    m_kdistConfirm->setMinimumWidth(0);
    m_kdistConfirm->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_kdistConfirm->hide();
    curveLayout->addWidget(m_kdistConfirm);
    addBox(curve);

    auto* sweepBox = new QGroupBox(tr("eps × MinPts sweep"));
    auto* sweepLayout = new QVBoxLayout(sweepBox);
    auto* sweepRow = new QHBoxLayout;
    m_sweepMeasure = new QComboBox;
    m_sweepMeasure->addItem(tr("Clusters"), int(SweepHeatmap::Measure::Clusters));
    m_sweepMeasure->addItem(tr("Noise share"), int(SweepHeatmap::Measure::NoiseShare));
    m_sweepMeasure->addItem(tr("Largest share"), int(SweepHeatmap::Measure::LargestShare));
    m_sweepMeasure->setCurrentIndex(
        std::clamp(settings.value(kSweepMeasureKey, 0).toInt(), 0, m_sweepMeasure->count() - 1));
    m_sweepMeasure->setToolTip(tr("What the heat map's colours show"));
    m_sweepButton = new QPushButton(tr("&Sweep"));
    m_sweepButton->setToolTip(
        tr("Run DBSCAN for 16 eps values around the current eps and MinPts 3 to 20 in one job; "
           "click a cell to use its parameters"));
    sweepRow->addWidget(m_sweepMeasure, 1);
    sweepRow->addWidget(m_sweepButton);
    sweepLayout->addLayout(sweepRow);
    m_sweepMap = new SweepHeatmap;
    m_sweepMap->setMeasure(SweepHeatmap::Measure(m_sweepMeasure->currentData().toInt()));
    sweepLayout->addWidget(m_sweepMap);
    m_plateauLabel = new QLabel;
    m_plateauLabel->setWordWrap(true);
    sweepLayout->addWidget(m_plateauLabel);
    addBox(sweepBox);

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
    addBox(show);
    statisticsLabel()->setText(tr("No result yet"));

    connect(m_epsSpin, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { applyEps(v, Source::Spin); });
    connect(m_epsSlider, &QSlider::valueChanged, this,
            [this](int v) { applyEps(sliderEps(v), Source::Slider); });
    connect(m_chart, &KDistanceChart::epsDragged, this,
            [this](double v) { applyEps(v, Source::Chart); });
    // MinPts is also the k of the k-distance curve (stored and re-run by AlgorithmPanel).
    connect(m_minPtsSpin, &QSpinBox::valueChanged, this, [this] { m_kdistDebounce.start(); });
    connect(m_pathBox, &QComboBox::activated, this, [this] {
        savePath();
        parametersChanged();
    });
    connect(m_kdistConfirm, &QPushButton::clicked, this, [this] {
        m_kdistConfirmedK = m_minPtsSpin->value();
        m_kdistConfirm->hide();
        submitKDistance();
    });
    connect(m_sweepButton, &QPushButton::clicked, this, &DbscanPanel::sweep);
    connect(m_logScaleBox, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kLogScaleKey, on);
        m_chart->setLogScale(on);
    });
    connect(m_sweepMeasure, &QComboBox::activated, this, [this] {
        QSettings().setValue(kSweepMeasureKey, m_sweepMeasure->currentIndex());
        m_sweepMap->setMeasure(SweepHeatmap::Measure(m_sweepMeasure->currentData().toInt()));
    });
    connect(m_sweepMap, &SweepHeatmap::cellClicked, this, [this](double eps, int minPts) {
        logInfo(tr("DBSCAN: sweep cell eps %1, MinPts %2 applied").arg(eps, 0, 'g', 4).arg(minPts));
        setMinPts(minPts);
        setEps(eps);
    });
    connect(m_minPtsSpin, &QSpinBox::valueChanged, this, &DbscanPanel::updateSweepMarks);
    connect(&runner(), &JobRunner::finished, this, &DbscanPanel::onSweepFinished);
    connect(&runner(), &JobRunner::failed, this, [this](const JobOutcome& outcome) {
        if (outcome.kind != kSweep) return;
        m_sweepButton->setEnabled(hasInput());
        setWarning(tr("The sweep failed: %1.").arg(outcome.error));
    });
    connect(&runner(), &JobRunner::cancelled, this, [this](const JobOutcome& outcome) {
        if (outcome.kind == kSweep) m_sweepButton->setEnabled(hasInput());
    });
    connect(m_suggestButton, &QPushButton::clicked, this, &DbscanPanel::useSuggestedEps);
    connect(&runner(), &JobRunner::finished, this, &DbscanPanel::onSuggestionFinished);
    connect(&runner(), &JobRunner::failed, this, [this](const JobOutcome& outcome) {
        if (outcome.kind != kSuggest) return;
        updateSuggestButton();
        setWarning(tr("The eps suggestion failed: %1.").arg(outcome.error));
    });
    connect(&runner(), &JobRunner::cancelled, this, [this](const JobOutcome& outcome) {
        if (outcome.kind == kSuggest) updateSuggestButton();
    });
    for (auto [box, key] :
         {std::pair{m_showCore, kShowCoreKey}, std::pair{m_showBorder, kShowBorderKey},
          std::pair{m_showNoise, kShowNoiseKey}})
        connect(box, &QCheckBox::toggled, this, [this, key](bool on) {
            QSettings().setValue(key, on);
            repaint();
        });
    addViewOption(QStringLiteral("showCore"), m_showCore);
    addViewOption(QStringLiteral("showBorder"), m_showBorder);
    addViewOption(QStringLiteral("showNoise"), m_showNoise);
    // The export dialog belongs to the main window (File ▸ Export… offers the labels too).
}

void DbscanPanel::setPointSet(std::shared_ptr<const PointSet> points) {
    runner().cancel(kKDist);
    runner().cancel(kSweep);
    runner().cancel(kSuggest);
    m_sweepMap->clear();
    m_plateauLabel->clear();
    m_sweepButton->setEnabled(true);
    m_kdistDebounce.stop();
    m_points = std::move(points);
    m_run.reset();
    m_epsChosen = false;
    m_waitingForKnee = false;
    m_suggestedEps = 0.0;
    m_kneeEps = 0.0;
    m_suggestionSwept = false;
    m_kdist.reset();
    m_chart->clearCurve();
    updateSuggestButton();
    setEnabled(hasInput());
    if (!hasInput()) {
        resetResult(tr("No points loaded"));
        return;
    }
    resetResult(tr("Computing the k-distance curve for a suggested eps…"));
    updatePathChoices();
    m_kdistConfirmedK = 0;
    m_kdistConfirm->hide();
    clampMinPtsToData();

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
    // Down to a thousandth of the slider's smallest eps, up to 40 times its largest.
    m_epsSpin->setRange(m_epsMin * 1e-3, m_epsMax * 40.0);
    changeByProgram([&] {
        // A starting eps for the controls only: no run happens until the knee is known.
        const QSignalBlocker b1(m_epsSpin), b2(m_epsSlider);
        m_eps = NumberSpinBox::shown(diag * 0.01);
        m_epsSpin->setValue(m_eps);
        m_epsSlider->setValue(sliderPosition(m_eps));
        m_chart->setEps(m_eps);
    });
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
        if (source != Source::Spin) m_epsSpin->setValue(NumberSpinBox::shown(eps));
        if (source != Source::Slider) m_epsSlider->setValue(sliderPosition(eps));
    }
    if (source != Source::Chart) m_chart->setEps(m_epsSpin->value());
    m_eps = m_epsSpin->value();  // what the spin box shows: what runs
    updateSweepMarks();
    parametersChanged();
}

void DbscanPanel::setEps(double eps) {
    m_epsChosen = true;
    applyEps(eps, Source::Code);
}

void DbscanPanel::setMinPts(int minPts) {
    m_minPtsSpin->setValue(minPts);
    clampMinPtsToData();
}

void DbscanPanel::clampMinPtsToData() {
    if (!m_points || m_points->n == 0) return;
    // A MinPts kept from another session, or given on the command line, may not fit these
    // points: never run it blind.
    const DataShape shape{.items = m_points->n, .dims = m_points->dims};
    const ParameterSpec& spec = parameterSpec(dbscanDescriptor(), "minPts");
    const ParameterValues values = dbscanValues(params());
    const ParameterValue current = std::int64_t(m_minPtsSpin->value());
    const std::string why = spec.check(current, &shape, values);
    if (why.empty()) return;
    const auto clamped = std::get<std::int64_t>(spec.clamp(current, &shape, values));
    logWarning(tr("DBSCAN: %1; MinPts is set to %2").arg(QString::fromStdString(why)).arg(clamped));
    changeByProgram([&] { m_minPtsSpin->setValue(int(clamped)); });
}

void DbscanPanel::setStar(bool star) {
    m_starBox->setChecked(star);
}

void DbscanPanel::setPath(DbscanPath path) {
    const int index = m_pathBox->findData(int(path));
    if (index < 0) return;
    m_pathBox->setCurrentIndex(index);
    savePath();
    parametersChanged();
}

void DbscanPanel::savePath() {
    ParameterStore::save(dbscanDescriptor(), parameterSpec(dbscanDescriptor(), "path"),
                         std::string(toString(DbscanPath(m_pathBox->currentData().toInt()))));
}

ParameterValues DbscanPanel::parameterValues() const {
    // MinPts and DBSCAN* are the generic rows; eps and the path have widgets of their own.
    ParameterValues values = AlgorithmPanel::parameterValues();
    values.set("eps", m_eps);
    values.set("path", std::string(toString(DbscanPath(m_pathBox->currentData().toInt()))));
    return values;
}

DbscanParams DbscanPanel::params() const {
    return dbscanParams(parameterValues());
}

bool DbscanPanel::hasInput() const {
    return m_points && m_points->n > 0;
}

bool DbscanPanel::mayRun() {
    // Until the knee is known, only an explicit eps starts a run; the knee's arrival runs it.
    if (!m_epsChosen && !m_run && m_suggestedEps <= 0) {
        m_waitingForKnee = true;
        return false;
    }
    return true;
}

void DbscanPanel::submitRun() {
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
    const auto subset = runSubset();
    if (subset && subset->total != m_points->n) {
        refuse(tr("the selection to run on is of other points"));
        return;
    }
    submitMethodRun<DbscanRun>(
        {.items = subset ? subset->size() : m_points->n, .dims = m_points->dims},
        [points = m_points, subset, p, prev = m_run, vis, noiseRgba, paintOnDevice](
            Backend& backend, JobControl& job) {
            DbscanRun run;
            run.params = p;
            // Colour slots matched to the previous run's from the overlap of the two clusterings,
            // counted where the labels live. After a CUDA run this runs on a thread of its own
            // while the labels download, so it is timed with addTiming: stages belong to the
            // job's thread.
            const auto matchColours = [&run, &prev, &job](std::span<const ClusterOverlap> overlap,
                                                          std::span<const std::size_t> sizes) {
                const auto start = std::chrono::steady_clock::now();
                run.slotOf = matchClusterSlots(
                    overlap, prev ? std::span<const int>(prev->slotOf) : std::span<const int>(),
                    sizes);
                const int maxSlot = run.slotOf.empty()
                                        ? -1
                                        : *std::max_element(run.slotOf.begin(), run.slotOf.end());
                run.slotColours = ColourMaps::categoricalRgba(maxSlot + 1);
                job.addTiming("match colours", std::chrono::duration<double, std::milli>(
                                                   std::chrono::steady_clock::now() - start)
                                                   .count());
            };
            if (subset) {
                // On a selection: DBSCAN of the selected points alone, mapped back to the set.
                run.result =
                    expandDbscanResult(backend.dbscan(subsetOf(*points, *subset), p, job), *subset);
                std::vector<ClusterOverlap> overlap;
                if (prev && prev->result.labels.size() == run.result.labels.size())
                    overlap = backend.clusterOverlap(prev->result, run.result, job);
                fillClusterSizes(run.result);
                matchColours(overlap, run.result.stats.clusterSizes);
            } else {
                run.result = backend
                                 .dbscanMatched(*points, p, prev ? &prev->result : nullptr, job,
                                                matchColours)
                                 .result;
            }
            job.checkpoint();
            if (!(paintOnDevice && run.result.device)) {
                const auto paint = job.stage("paint colours");
                run.rgba =
                    paintCategories(run.result.labels, run.result.isCore,
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
    // A curve that may take minutes (the CPU's estimate, as the CLI warns with it) waits until
    // the user asks for it.
    const JobCost cost = kDistanceCostCpu(m_points->n, m_points->dims, k);
    if (cost.costly() && k != m_kdistConfirmedK) {
        runner().cancel(kKDist);
        const QString costText =
            tr("k = %1 on %2 points: %3")
                .arg(count(k), count(m_points->n), QString::fromStdString(cost.text()));
        m_kdistConfirm->setText(tr("Compute the k-distance curve (k = %1)…").arg(count(k)));
        m_kdistConfirm->setToolTip(costText + tr("; MinPts itself is used as it is"));
        m_kdistConfirm->show();
        statisticsLabel()->setText(
            tr("The k-distance curve is expensive (%1): press the button under the chart to "
               "compute it")
                .arg(costText));
        return;
    }
    m_kdistConfirm->hide();
    m_kdistK = k;
    // A suggestion for another MinPts no longer holds.
    runner().cancel(kSuggest);
    m_applySuggestion = false;
    DbscanParams suggestFor = params();
    suggestFor.minPts = k;
    runner().submit<KDistanceSummary>(kKDist, [points = m_points, k, suggestFor](Backend& backend,
                                                                                 JobControl& job) {
        const KDistanceResult r = explainingOutOfMemory(
            "The k-distance curve", kDistanceMemoryNeed({.items = points->n, .dims = points->dims}),
            job, [&] { return backend.kDistance(*points, k, job); });
        job.checkpoint();
        KDistanceSummary s;
        s.n = r.sorted.size();
        s.k = k;
        if (s.n == 0) return s;
        // The suggestion's sweep is 24 DBSCAN runs: milliseconds on an accelerator, so it comes
        // with the curve there; seconds on the CPU for a big cloud, so there it waits until
        // the user presses "Use suggested eps".
        EpsSuggestion suggestion;
        if (backend.name() != "cpu") {
            suggestion = suggestDbscanEps(backend, *points, r.sorted, suggestFor, job);
            s.swept = true;
        } else {
            suggestion.knee = kDistanceKnee(r.sorted).distance;
            suggestion.eps = suggestion.knee;
        }
        s.kneeEps = suggestion.knee;
        takeSuggestion(s, suggestion);
        const auto rank = std::lower_bound(r.sorted.begin(), r.sorted.end(), suggestion.eps);
        s.knee = QPointF(
            double(std::min<std::ptrdiff_t>(rank - r.sorted.begin(), std::ptrdiff_t(s.n) - 1)),
            double(suggestion.eps));
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
    return AlgorithmPanel::isBusy() || m_kdistDebounce.isActive() || runner().isBusy(kKDist) ||
           runner().isBusy(kSuggest) || isSweeping();
}

bool DbscanPanel::isSweeping() const {
    return m_sweepAfterKnee || runner().isBusy(kSweep) || m_revealingSweep;
}

void DbscanPanel::cancel() {
    m_kdistDebounce.stop();
    runner().cancel(kKDist);
    runner().cancel(kSweep);
    runner().cancel(kSuggest);
    m_applySuggestion = false;
    AlgorithmPanel::cancel();
}

void DbscanPanel::onKDistanceFinished(const JobOutcome& outcome) {
    if (outcome.kind == kKDist) {
        auto s = std::static_pointer_cast<const KDistanceSummary>(outcome.result);
        if (s->n == 0) {
            showNextStep();
            return;
        }
        m_kdist = s;
        m_chart->setCurve(s->curve, s->n, s->k, s->knee);
        m_chart->setEps(m_eps);
        m_suggestedEps = s->knee.y();
        m_kneeEps = s->kneeEps;
        m_suggestionSwept = s->swept;
        updateSuggestButton();
        if (s->swept)
            logInfo(tr("k-distance curve (k = %1) in %2 ms: knee at eps %3, suggested eps %4 (%5)")
                        .arg(s->k)
                        .arg(outcome.milliseconds, 0, 'f', 0)
                        .arg(s->kneeEps, 0, 'g', 4)
                        .arg(m_suggestedEps, 0, 'g', 4)
                        .arg(suggestionReason(s->plateauClusters, s->plateauLow, s->plateauHigh)));
        else
            logInfo(tr("k-distance curve (k = %1) in %2 ms: knee at eps %3 (Use suggested eps "
                       "sweeps around it for a stable eps)")
                        .arg(s->k)
                        .arg(outcome.milliseconds, 0, 'f', 0)
                        .arg(s->kneeEps, 0, 'g', 4));
        if (!m_epsChosen && !m_run && m_suggestedEps > 0) {
            // The knee only presets eps: loading data keeps its own colouring until the user
            // (or the automation) asks for clusters.
            changeByProgram([&] {
                const QSignalBlocker b1(m_epsSpin), b2(m_epsSlider);
                m_epsSpin->setValue(NumberSpinBox::shown(m_suggestedEps));
                m_eps = m_epsSpin->value();
                m_epsSlider->setValue(sliderPosition(m_eps));
                m_chart->setEps(m_eps);
            });
        }
        if (m_waitingForKnee) {
            m_waitingForKnee = false;
            m_epsChosen = true;
            parametersChanged();
        }
        if (m_sweepAfterKnee) sweep();
        showNextStep();
    }
}

void DbscanPanel::onKDistanceFailed(const JobOutcome& outcome) {
    if (outcome.kind != kKDist) return;
    setWarning(tr("The k-distance curve failed: %1.").arg(outcome.error));
    showNextStep();
    if (m_waitingForKnee) {
        // No suggestion: run with the starting eps rather than not at all.
        m_waitingForKnee = false;
        m_epsChosen = true;
        parametersChanged();
    }
    if (m_sweepAfterKnee) sweep();  // around the starting eps, rather than not at all
}

void DbscanPanel::onKDistanceCancelled(const JobOutcome& outcome) {
    if (outcome.kind != kKDist) return;
    m_sweepAfterKnee = false;
    showNextStep();
    if (m_waitingForKnee) {
        m_waitingForKnee = false;
        m_epsChosen = true;
    }
}

QString DbscanPanel::suggestionReason(int clusters, double low, double high) {
    return clusters > 0 ? tr("the middle of eps %1 to %2, where DBSCAN finds %3 clusters")
                              .arg(low, 0, 'g', 4)
                              .arg(high, 0, 'g', 4)
                              .arg(clusters)
                        : tr("the knee of the curve: no eps range around it keeps a stable count "
                             "of two or more clusters");
}

void DbscanPanel::showNextStep() {
    // A result on screen, or the expensive curve's question, says enough already.
    if (m_run || !hasInput() || m_kdistConfirm->isVisible()) return;
    if (m_suggestedEps <= 0) {
        statisticsLabel()->setText(
            tr("No clusters yet: set eps (the slider or the box) or press Run."));
        return;
    }
    statisticsLabel()->setText(
        tr("No clusters yet. Next: press Run to cluster with eps %1 (%2), move eps (the "
           "slider, the box or the line on the chart), or press Use suggested eps.")
            .arg(QLocale().toString(m_eps, 'g', 4),
                 m_suggestionSwept ? tr("the suggested eps") : tr("the knee of the curve")));
}

void DbscanPanel::updateSuggestButton() {
    const bool finding = runner().isBusy(kSuggest);
    m_suggestButton->setEnabled(hasInput() && m_suggestedEps > 0 && !finding);
    if (finding)
        m_suggestButton->setText(tr("Finding a stable eps…"));
    else if (m_suggestionSwept)
        m_suggestButton->setText(
            tr("Use suggested eps (%1)").arg(QLocale().toString(m_suggestedEps, 'g', 4)));
    else
        m_suggestButton->setText(tr("Use suggested eps"));
}

void DbscanPanel::useSuggestedEps() {
    if (!hasInput() || m_suggestedEps <= 0) return;
    if (m_suggestionSwept) {
        applyEps(m_suggestedEps, Source::Code);
        return;
    }
    // Swept now, then applied: the user asked for it.
    m_applySuggestion = true;
    DbscanParams suggestFor = params();
    suggestFor.minPts = m_kdistK;
    const float knee = float(m_kneeEps);
    runner().submit<SuggestionSummary>(
        kSuggest, [points = m_points, knee, suggestFor](Backend& backend, JobControl& job) {
            const EpsSuggestion suggestion =
                suggestDbscanEpsAroundKnee(backend, *points, knee, suggestFor, job);
            SuggestionSummary s;
            s.k = suggestFor.minPts;
            s.eps = suggestion.eps;
            takeSuggestion(s, suggestion);
            return s;
        });
    updateSuggestButton();
    emit statusMessage(tr("DBSCAN: sweeping eps around the knee for a stable eps…"), 5000);
}

void DbscanPanel::onSuggestionFinished(const JobOutcome& outcome) {
    if (outcome.kind != kSuggest) return;
    auto s = std::static_pointer_cast<const SuggestionSummary>(outcome.result);
    if (s->k != m_kdistK || !m_kdist) {
        updateSuggestButton();
        return;
    }
    m_suggestedEps = s->eps;
    m_suggestionSwept = true;
    logInfo(tr("DBSCAN eps suggestion (MinPts %1) in %2 ms: eps %3 (%4)")
                .arg(s->k)
                .arg(outcome.milliseconds, 0, 'f', 0)
                .arg(s->eps, 0, 'g', 4)
                .arg(suggestionReason(s->plateauClusters, s->plateauLow, s->plateauHigh)));
    // The chart marks the suggestion where it lies on the curve.
    QPointF mark(m_kdist->knee.x(), s->eps);
    for (const QPointF& p : m_kdist->curve)
        if (p.y() <= s->eps) mark.setX(p.x());
    m_chart->setCurve(m_kdist->curve, m_kdist->n, m_kdist->k, mark);
    updateSuggestButton();
    if (m_applySuggestion) {
        m_applySuggestion = false;
        applyEps(m_suggestedEps, Source::Code);
    }
}

void DbscanPanel::sweep() {
    if (!hasInput()) return;
    if (!m_epsChosen && m_suggestedEps <= 0 && runner().isBusy(kKDist)) {
        m_sweepAfterKnee = true;
        m_plateauLabel->setText(tr("The sweep starts once the suggested eps is known…"));
        return;
    }
    m_sweepAfterKnee = false;
    const DbscanParams p = params();
    const double centre = m_eps > 0.0 ? m_eps : m_suggestedEps;
    DbscanSweepParams grid;
    try {
        const int highest = int(std::min<std::size_t>(20, m_points->n));
        grid = defaultDbscanSweep(float(centre), 16, std::min(3, highest), highest);
        grid.star = p.star;
        grid.path = p.path;
        validateDbscanSweepParams(grid);
    } catch (const Error& e) {
        refuse(tr("DBSCAN sweep: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    submitSweep(grid);
}

void DbscanPanel::submitSweep(const DbscanSweepParams& grid) {
    m_sweepButton->setEnabled(false);
    m_plateauLabel->setText(
        tr("Sweeping %1 eps × %2 MinPts…").arg(grid.eps.size()).arg(grid.minPts.size()));
    logInfo(tr("DBSCAN sweep: eps %1 to %2, MinPts %3 to %4")
                .arg(double(grid.eps.front()), 0, 'g', 4)
                .arg(double(grid.eps.back()), 0, 'g', 4)
                .arg(grid.minPts.front())
                .arg(grid.minPts.back()));
    const MemoryNeed need =
        descriptor().memoryNeed({.items = m_points->n, .dims = m_points->dims}, parameterValues());
    runner().submit<DbscanSweepResult>(
        kSweep, [points = m_points, grid, need](Backend& backend, JobControl& job) {
            return explainingOutOfMemory("The DBSCAN sweep", need, job,
                                         [&] { return backend.dbscanSweep(*points, grid, job); });
        });
}

QVariantMap DbscanPanel::sweepRange() const {
    if (!m_sweepMap->hasSweep()) return {};
    const DbscanSweepResult& s = m_sweepMap->sweep();
    return {{QStringLiteral("sweepEpsFrom"), double(s.eps.front())},
            {QStringLiteral("sweepEpsTo"), double(s.eps.back())},
            {QStringLiteral("sweepEpsCount"), int(s.eps.size())},
            {QStringLiteral("sweepMinPtsFrom"), s.minPts.front()},
            {QStringLiteral("sweepMinPtsTo"), s.minPts.back()}};
}

void DbscanPanel::setSweepRange(const QVariantMap& range) {
    double v[5];
    const char* names[5] = {"sweepEpsFrom", "sweepEpsTo", "sweepEpsCount", "sweepMinPtsFrom",
                            "sweepMinPtsTo"};
    for (int i = 0; i < 5; ++i) {
        const auto value = numberOf(range.value(QLatin1String(names[i])));
        if (!value) return;
        v[i] = *value;
    }
    if (!hasInput()) return;
    // Once the session's parameters are set too (they come after the views): the grid takes
    // DBSCAN* and the path in use.
    QTimer::singleShot(
        0, this,
        [this, points = m_points, v0 = v[0], v1 = v[1], count = int(v[2]), lo = int(v[3]),
         hi = int(v[4])] {
            if (points != m_points) return;
            DbscanSweepParams grid;
            try {
                if (count < 1 || count > 1000 || lo < 1 || hi < lo)
                    throw Error(
                        "the grid is not eps from <= to, 1 to 1000 values, MinPts 1 <= from "
                        "<= to");
                grid.eps = logSpacedEps(float(v0), float(v1), count);
                for (int m = lo;
                     m <= std::min<int>(hi, int(std::min<std::size_t>(m_points->n, 100000))); ++m)
                    grid.minPts.push_back(m);
                grid.star = params().star;
                grid.path = params().path;
                validateDbscanSweepParams(grid);
            } catch (const Error& e) {
                refuse(tr("DBSCAN sweep of the session: %1").arg(QString::fromUtf8(e.what())));
                return;
            }
            submitSweep(grid);
        });
}

void DbscanPanel::onSweepFinished(const JobOutcome& outcome) {
    if (outcome.kind != kSweep) return;
    m_sweepButton->setEnabled(hasInput());
    auto sweep = std::static_pointer_cast<const DbscanSweepResult>(outcome.result);
    m_sweepMap->setSweep(*sweep);
    updateSweepMarks();
    // The heat maps come into view, wherever the panel was scrolled (a sweep started from
    // elsewhere, the automation's, shows them too). Once the label's new text is laid out; busy
    // until then, so that nothing waiting for the panel (a screenshot) sees them out of view.
    m_revealingSweep = true;
    QTimer::singleShot(0, this, [this] {
        m_revealingSweep = false;
        // Where the map is now, with every pending layout done.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        for (QWidget* w = parentWidget(); w; w = w->parentWidget())
            if (auto* scroll = qobject_cast<QScrollArea*>(w)) {
                // The map, then the line under it (the box can be taller than the view).
                scroll->ensureWidgetVisible(m_sweepMap, 0, 0);
                scroll->ensureWidgetVisible(m_plateauLabel, 0, 4);
                break;
            }
    });
    logInfo(tr("DBSCAN sweep of %1 cells in %2 ms on %3")
                .arg(sweep->cells.size())
                .arg(outcome.milliseconds, 0, 'f', 0)
                .arg(outcome.backend));
}

void DbscanPanel::updateSweepMarks() {
    if (!m_sweepMap) return;
    const int minPts = m_minPtsSpin->value();
    m_sweepMap->setCurrent(m_eps, minPts);
    const DbscanSweepResult& sweep = m_sweepMap->sweep();
    if (sweep.cells.empty()) return;
    const auto column = std::find(sweep.minPts.begin(), sweep.minPts.end(), minPts);
    if (column == sweep.minPts.end()) {
        m_plateauLabel->setText(tr("MinPts %1 is outside the sweep").arg(minPts));
        return;
    }
    const auto plateau = dbscanPlateau(sweep, std::size_t(column - sweep.minPts.begin()));
    m_plateauLabel->setText(
        plateau ? tr("MinPts %1: %2 clusters for eps %3 to %4 (dashed); its middle is %5")
                      .arg(minPts)
                      .arg(plateau->clusters)
                      .arg(QLocale().toString(double(sweep.eps[plateau->first]), 'g', 3),
                           QLocale().toString(double(sweep.eps[plateau->last]), 'g', 3),
                           QLocale().toString(double(plateau->eps), 'g', 3))
                : tr("MinPts %1: no eps range with a stable count of two or more clusters")
                      .arg(minPts));
}

QString DbscanPanel::exportSweep(const QString& path) const {
    if (!m_sweepMap->hasSweep()) return tr("no DBSCAN sweep to export yet (Sweep first)");
    try {
        io::writeFileBytes(path.toStdString(), dbscanSweepCsv(m_sweepMap->sweep()));
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("DBSCAN sweep (%1 cells) written to %2")
                .arg(m_sweepMap->sweep().cells.size())
                .arg(path));
    return {};
}

void DbscanPanel::showOutcome(const JobOutcome& outcome) {
    m_run = std::static_pointer_cast<const DbscanRun>(outcome.result);
    const DbscanResult& r = m_run->result;
    repaint();
    statisticsLabel()->setText(statisticsText(r));
    showTimings(outcome, tr("path %1").arg(pathName(r.pathUsed)));
    setWarning(degenerateWarning(r));
    emit resultChanged();
}

bool DbscanPanel::hasClusters() const {
    return m_run && m_points && m_points == m_view.pointSet() &&
           m_run->result.labels.size() == m_points->n;
}

QString DbscanPanel::pointColouringTitle() const {
    return hasClusters() ? tr("clusters (DBSCAN)") : QString();
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
    const std::vector<std::size_t>& sizes = r.stats.clusterSizes;
    const std::size_t shown = sizes.size() > kLegendClusters + 1 ? kLegendClusters : sizes.size();
    std::size_t rest = std::accumulate(sizes.begin(), sizes.end(), std::size_t(0));
    for (const std::int32_t id : largestClusters(sizes, shown)) {
        const auto c = std::size_t(id);
        // The id the labels CSV and the inspector give, so that the three agree.
        legend.entries.push_back(
            {tr("cluster %1").arg(c), run.slotColours[std::size_t(run.slotOf[c])], sizes[c], id});
        rest -= sizes[c];
    }
    if (shown < sizes.size())
        legend.entries.push_back({tr("… %1 more clusters").arg(sizes.size() - shown),
                                  ColourMaps::packRgba(m_view.palette().color(QPalette::Mid)),
                                  rest});
    legend.entries.push_back({tr("noise"), ColourMaps::packRgba(noise), r.stats.noisePoints, -1});
    m_view.setCategories(
        dbscanCategories(std::shared_ptr<const DbscanResult>(m_run, &run.result)),
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
             runner().backendName().isEmpty() ? QStringLiteral("auto") : runner().backendName());
}

QString DbscanPanel::exportLabels(const QString& path) const {
    if (!m_run) return tr("no DBSCAN result to export yet");
    const DbscanResult& r = m_run->result;
    const io::FileRows rows = m_points ? io::fileRowsOf(*m_points) : io::FileRows{};
    try {
        if (QFileInfo(path).suffix().toLower() == QLatin1String("npy"))
            io::writeLabelsNpy(path.toStdString(), r.labels, rows);
        else
            io::writeLabelsCsv(path.toStdString(), r.labels, r.isCore,
                               parameterText().toStdString(), rows);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("DBSCAN labels (%1 points) written to %2").arg(count(r.labels.size()), path));
    return {};
}

void DbscanPanel::setParameter(const QString& name, const ParameterValue& value) {
    if (name == QLatin1String("eps"))
        setEps(std::get<double>(value));
    else if (name == QLatin1String("minPts"))
        setMinPts(int(std::get<std::int64_t>(value)));
    else if (name == QLatin1String("path"))
        setPath(parseDbscanPath(std::get<std::string>(value)));
    else if (name == QLatin1String("star"))
        setStar(std::get<bool>(value));
}

QString DbscanPanel::exportResult(const std::string& exportId, const QString& path) {
    if (exportId == kDbscanSweepExport) return exportSweep(path);
    if (!lastRun()) return tr("no DBSCAN labels to export yet");
    return exportLabels(path);
}

}  // namespace cs::ui
