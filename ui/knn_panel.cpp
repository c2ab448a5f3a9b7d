// SPDX-License-Identifier: MIT
#include "ui/knn_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

#include "compute/core/error.h"
#include "ui/logger.h"
#include "ui/point_cloud_view.h"
#include "ui/warning_row.h"

namespace cs::ui {
namespace {

const QString kKnn = QStringLiteral("knn");
const QString kKKey = QStringLiteral("knn/k");
const QString kTreesKey = QStringLiteral("knn/trees");
const QString kLeafSizeKey = QStringLiteral("knn/leafSize");
const QString kRecallKey = QStringLiteral("knn/targetRecall");
const QString kSeedKey = QStringLiteral("knn/seed");
const QString kShowEdgesKey = QStringLiteral("knn/showEdges");
const QString kOpacityKey = QStringLiteral("knn/edgeOpacity");

// The seed spin box's range (KnnParams::seed is 64-bit; the GUI offers the non-negative ints).
constexpr int kMaxSeed = std::numeric_limits<int>::max();

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString number(double v, int precision = 4) {
    return QLocale().toString(v, 'g', precision);
}

}  // namespace

KnnPanel::KnnPanel(JobRunner& runner, PointCloudView& view, QWidget* parent)
    : QWidget(parent),
      m_runner(runner),
      m_view(view),
      m_live(runner, kKnn, [this] { submitRun(); }) {
    setObjectName(QStringLiteral("knnPanel"));
    buildUi();
    connect(&m_runner, &JobRunner::finished, this, &KnnPanel::onFinished);
    connect(&m_runner, &JobRunner::failed, this, &KnnPanel::onFailed);
    connect(&m_runner, &JobRunner::cancelled, this, &KnnPanel::onCancelled);
    applyEdgeStyle();
    setEnabled(false);
}

KnnPanel::~KnnPanel() = default;

void KnnPanel::buildUi() {
    QSettings settings;
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    // As the DBSCAN panel: never squeezed below its contents, the dock's scroll area scrolls.
    layout->setSizeConstraint(QLayout::SetMinimumSize);

    auto* params = new QGroupBox(tr("Parameters"));
    auto* form = new QFormLayout(params);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const KnnParams defaults;
    auto intSpin = [&](int lo, int hi, const QString& key, int fallback, const QString& tip) {
        auto* spin = new QSpinBox;
        spin->setRange(lo, hi);
        spin->setValue(settings.value(key, fallback).toInt());
        spin->setKeyboardTracking(false);
        spin->setToolTip(tip);
        return spin;
    };
    m_kSpin =
        intSpin(1, kKnnMaxK, kKKey, defaults.k, tr("Neighbours per point (itself not counted)"));
    form->addRow(tr("&k"), m_kSpin);
    m_treesSpin = intSpin(1, 64, kTreesKey, defaults.trees,
                          tr("Most random-projection trees to build: more trees, higher recall"));
    form->addRow(tr("&Trees"), m_treesSpin);
    // The lower bound 2 (k + 1) depends on k: the spin box keeps the absolute range and a run
    // with a leaf too small for k reports it, rather than changing the leaf size behind the
    // user's back.
    m_leafSpin = intSpin(2, kKnnMaxLeafSize, kLeafSizeKey, defaults.leafSize,
                         tr("Largest leaf of a tree, from 2 (k + 1) to %1: inside a leaf every "
                            "pair of points is compared")
                             .arg(kKnnMaxLeafSize));
    form->addRow(tr("&Leaf size"), m_leafSpin);
    m_recallSpin = new QDoubleSpinBox;
    m_recallSpin->setRange(0.0, 1.0);
    m_recallSpin->setDecimals(3);
    m_recallSpin->setSingleStep(0.01);
    m_recallSpin->setValue(settings.value(kRecallKey, defaults.targetRecall).toDouble());
    m_recallSpin->setKeyboardTracking(false);
    m_recallSpin->setToolTip(
        tr("Stop adding trees once the sampled recall reaches this (0: build all trees)"));
    form->addRow(tr("Target &recall"), m_recallSpin);
    m_seedSpin = intSpin(0, kMaxSeed, kSeedKey, int(defaults.seed),
                         tr("Seed of the random directions and the recall sample"));
    form->addRow(tr("S&eed"), m_seedSpin);
    m_runButton = new QPushButton(tr("&Run"));
    m_runButton->setToolTip(tr("Build the kNN graph now (parameter changes re-run it too)"));
    form->addRow(m_runButton);
    layout->addWidget(params);

    auto* show = new QGroupBox(tr("Edges"));
    auto* showLayout = new QFormLayout(show);
    m_showEdges = new QCheckBox(tr("&Show edges"));
    m_showEdges->setChecked(settings.value(kShowEdgesKey, true).toBool());
    showLayout->addRow(m_showEdges);
    m_opacity = new QSlider(Qt::Horizontal);
    m_opacity->setRange(0, 100);
    m_opacity->setValue(
        settings
            .value(kOpacityKey,
                   int(std::lround(PointCloudView::kDefaultEdgeOpacity * m_opacity->maximum())))
            .toInt());
    m_opacity->setToolTip(tr("Edge opacity"));
    m_opacity->setMinimumWidth(40);
    showLayout->addRow(tr("&Opacity"), m_opacity);
    layout->addWidget(show);

    // The result box, as the DBSCAN panel's: statistics, the recall after each tree, the
    // warning (icon + text), the backend and one line per stage, the export button.
    auto* result = new QGroupBox(tr("Result"));
    auto* resultLayout = new QVBoxLayout(result);
    m_stats = new QLabel(tr("No graph yet"));
    m_stats->setObjectName(QStringLiteral("knnStatistics"));
    m_stats->setWordWrap(true);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_recall = new QLabel;
    m_recall->setObjectName(QStringLiteral("knnRecall"));
    m_recall->setWordWrap(true);
    m_recall->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_recall->hide();
    m_warningRow = new WarningRow(QStringLiteral("knn"));
    m_timings = new QLabel;
    m_timings->setObjectName(QStringLiteral("knnTimings"));
    m_timings->setWordWrap(true);
    m_timings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_timings->setForegroundRole(QPalette::PlaceholderText);
    m_timings->hide();
    m_exportButton = new QPushButton(tr("Export edges…"));
    m_exportButton->setToolTip(tr("Write the graph as CSV: source,target,distance"));
    m_exportButton->setEnabled(false);
    resultLayout->addWidget(m_stats);
    resultLayout->addWidget(m_recall);
    resultLayout->addWidget(m_warningRow);
    resultLayout->addWidget(m_timings);
    resultLayout->addWidget(m_exportButton);
    layout->addWidget(result);
    layout->addStretch(1);

    for (auto [spin, key] : {std::pair{m_kSpin, kKKey}, std::pair{m_treesSpin, kTreesKey},
                             std::pair{m_leafSpin, kLeafSizeKey}, std::pair{m_seedSpin, kSeedKey}})
        connect(spin, &QSpinBox::valueChanged, this, [this, key](int v) {
            QSettings().setValue(key, v);
            parametersChanged();
        });
    connect(m_recallSpin, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        QSettings().setValue(kRecallKey, v);
        parametersChanged();
    });
    connect(m_runButton, &QPushButton::clicked, this, &KnnPanel::run);
    connect(m_showEdges, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kShowEdgesKey, on);
        applyEdgeStyle();
    });
    connect(m_opacity, &QSlider::valueChanged, this, [this](int v) {
        QSettings().setValue(kOpacityKey, v);
        applyEdgeStyle();
    });
    // The export dialog belongs to the main window (File ▸ Export… offers the edges too).
    connect(m_exportButton, &QPushButton::clicked, this, &KnnPanel::exportRequested);
}

void KnnPanel::applyEdgeStyle() {
    m_view.setEdgesVisible(m_showEdges->isChecked());
    m_view.setEdgeOpacity(float(m_opacity->value()) / float(m_opacity->maximum()));
    m_opacity->setEnabled(m_showEdges->isChecked());
}

void KnnPanel::setPointSet(std::shared_ptr<const PointSet> points) {
    m_live.reset();
    m_points = std::move(points);
    m_run.reset();
    setWarning({});
    m_recall->clear();
    m_recall->hide();
    m_timings->clear();
    m_timings->hide();
    m_exportButton->setEnabled(false);
    setEnabled(m_points && m_points->n > 0);
    m_stats->setText(isEnabled() ? tr("No graph yet: press Run or change a parameter")
                                 : tr("No points loaded"));
}

KnnParams KnnPanel::params() const {
    KnnParams p;
    p.k = m_kSpin->value();
    p.trees = m_treesSpin->value();
    p.leafSize = m_leafSpin->value();
    p.targetRecall = m_recallSpin->value();
    p.seed = std::uint64_t(m_seedSpin->value());
    return p;
}

void KnnPanel::setK(int k) {
    m_kSpin->setValue(k);
}

void KnnPanel::setTrees(int trees) {
    m_treesSpin->setValue(trees);
}

void KnnPanel::setLeafSize(int leafSize) {
    m_leafSpin->setValue(leafSize);
}

void KnnPanel::setTargetRecall(double recall) {
    m_recallSpin->setValue(recall);
}

void KnnPanel::setSeed(std::uint64_t seed) {
    m_seedSpin->setValue(int(std::min<std::uint64_t>(seed, std::uint64_t(kMaxSeed))));
}

void KnnPanel::parametersChanged() {
    if (!m_points || m_points->n == 0) return;
    m_live.schedule();
}

void KnnPanel::run() {
    if (!m_points || m_points->n == 0) return;
    m_live.runNow();
}

void KnnPanel::submitRun() {
    m_live.beginSubmit();
    if (!m_points) return;
    const KnnParams p = params();
    QString problem;
    try {
        // validateKnnInput also scans every coordinate for NaN: the backend does that on the
        // worker; only the O(1) checks run here.
        validateKnnParams(p);
        if (m_points->n < std::size_t(p.k) + 1)
            problem = tr("the kNN graph needs at least k + 1 = %1 points, these are %2")
                          .arg(p.k + 1)
                          .arg(count(m_points->n));
    } catch (const Error& e) {
        problem = QString::fromUtf8(e.what());
    }
    if (!problem.isEmpty()) {
        const QString message = tr("kNN graph: %1").arg(problem);
        logError(message);
        emit statusMessage(message + tr(" — the previous graph is kept"), 8000);
        setWarning(tr("%1. The previous graph is kept.").arg(message));
        return;
    }
    // A CUDA graph is written into the element buffer on the GPU when the view can: no index
    // array on the host then.
    const bool onDevice = m_view.mayPaintOnDevice();
    m_runner.submit<KnnRun>(
        kKnn, [points = m_points, p, onDevice](Backend& backend, JobControl& job) {
            KnnRun run;
            run.params = p;
            run.points = points;
            auto graph = std::make_shared<KnnGraph>(backend.knnGraph(*points, p, job));
            job.checkpoint();
            const auto k = std::size_t(std::max(graph->k, 0));
            if (k > 0 && graph->n > 0 && graph->distances.size() == graph->n * k) {
                double sum = 0.0;
                float largest = 0.0f;
                for (std::size_t i = 0; i < graph->n; ++i) {
                    const float d = graph->distances[i * k + k - 1];
                    sum += double(d);
                    largest = std::max(largest, d);
                }
                run.meanKthDistance = sum / double(graph->n);
                run.maxKthDistance = double(largest);
            }
            if (!(onDevice && graph->device)) {
                const auto stage = job.stage("edge indices");
                run.edgeIndices =
                    std::make_shared<const std::vector<std::uint32_t>>(knnEdgeIndices(*graph));
            }
            run.graph = std::move(graph);
            return run;
        });
}

bool KnnPanel::isBusy() const {
    return m_live.isBusy();
}

void KnnPanel::onFinished(const JobOutcome& outcome) {
    if (outcome.kind != kKnn) return;
    m_live.finished(outcome);
    auto run = std::static_pointer_cast<const KnnRun>(outcome.result);
    // A graph of points no longer loaded is dropped (setPointSet cancels, but it may have
    // finished first).
    if (run->points == m_points) showRun(std::move(run), outcome);
    m_live.runPending();
}

void KnnPanel::onFailed(const JobOutcome& outcome) {
    if (outcome.kind != kKnn) return;
    // The window logs the error and shows it in the status bar.
    setWarning(tr("The kNN graph failed: %1. The previous graph is kept.").arg(outcome.error));
    m_live.failed(outcome);
}

void KnnPanel::onCancelled(const JobOutcome& outcome) {
    m_live.cancelled(outcome);
}

void KnnPanel::showRun(std::shared_ptr<const KnnRun> run, const JobOutcome& outcome) {
    if (!m_view.setKnnEdges(run->graph, run->edgeIndices)) {
        setWarning(tr("The kNN graph does not match the points on screen; it is not shown."));
        return;
    }
    // The view uploads the index array once and drops it; the panel keeps the graph only.
    auto kept = std::make_shared<KnnRun>(*run);
    kept->edgeIndices.reset();
    m_run = std::move(kept);
    const KnnGraph& g = *m_run->graph;
    m_stats->setText(statisticsText(*m_run));
    m_recall->setText(recallText(g));
    m_recall->setVisible(!g.recallByTree.empty());
    // One stage per line: a single joined line is wider than the dock.
    m_timings->setText(timingText(outcome));
    m_timings->show();
    setWarning({});
    m_exportButton->setEnabled(true);
    logInfo(tr("kNN graph (k = %1) of %2 points in %3 ms on %4: %5 trees, sampled recall %6")
                .arg(g.k)
                .arg(count(g.n))
                .arg(outcome.milliseconds, 0, 'f', 0)
                .arg(outcome.backend)
                .arg(g.treesBuilt)
                .arg(g.recall(), 0, 'f', 3));
    emit resultChanged();
}

QLabel* KnnPanel::warningLabel() const {
    return m_warningRow->label();
}

void KnnPanel::setWarning(const QString& text) {
    m_warningRow->setText(text);
}

QString KnnPanel::statisticsText(const KnnRun& run) {
    const KnnGraph& g = *run.graph;
    QString trees = tr("Trees built: %1 of %2").arg(g.treesBuilt).arg(run.params.trees);
    if (g.treesBuilt < run.params.trees)
        trees += tr(" (target recall %1 reached)").arg(number(run.params.targetRecall, 3));
    return tr("%1\nSampled recall: %2\nEdges: %3 (%4 points × k = %5)\n"
              "k-th neighbour distance: mean %6, max %7")
        .arg(trees, QLocale().toString(g.recall(), 'f', 3), count(g.indices.size()), count(g.n))
        .arg(g.k)
        .arg(number(run.meanKthDistance), number(run.maxKthDistance));
}

QString KnnPanel::recallText(const KnnGraph& g) {
    QStringList steps;
    for (std::size_t t = 0; t < g.recallByTree.size(); ++t)
        steps << tr("%1: %2").arg(t + 1).arg(QLocale().toString(g.recallByTree[t], 'f', 3));
    return tr("Recall after each tree: %1").arg(steps.join(QStringLiteral(" · ")));
}

QString KnnPanel::parameterText() const {
    const KnnParams p = m_run ? m_run->params : params();
    QString text = QStringLiteral("knn k=%1 trees=%2 leafSize=%3 targetRecall=%4 seed=%5")
                       .arg(p.k)
                       .arg(p.trees)
                       .arg(p.leafSize)
                       .arg(p.targetRecall, 0, 'g', 9)
                       .arg(qulonglong(p.seed));
    if (m_run)
        text += QStringLiteral(" treesBuilt=%1 recall=%2")
                    .arg(m_run->graph->treesBuilt)
                    .arg(m_run->graph->recall(), 0, 'g', 6);
    return text + QStringLiteral(" backend=%1")
                      .arg(m_runner.backendName().isEmpty() ? QStringLiteral("auto")
                                                            : m_runner.backendName());
}

QString KnnPanel::exportEdges(const QString& path) const {
    if (!m_run) return tr("no kNN graph to export yet");
    const KnnGraph& g = *m_run->graph;
    const auto k = std::size_t(g.k);
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    if (!out) return tr("cannot write %1").arg(path);
    out << "# " << parameterText().toStdString() << "\nsource,target,distance\n";
    // Formatted by hand into a buffer: ten million lines through iostreams take ages.
    std::string buffer;
    buffer.reserve(1 << 20);
    char field[64];
    auto append = [&](auto value) {
        const auto r = std::to_chars(field, field + sizeof field, value);
        buffer.append(field, r.ptr);
    };
    for (std::size_t i = 0; i < g.n; ++i) {
        for (std::size_t c = 0; c < k; ++c) {
            append(i);
            buffer.push_back(',');
            append(g.indices[i * k + c]);
            buffer.push_back(',');
            append(g.distances[i * k + c]);  // shortest text that reads back to the same float
            buffer.push_back('\n');
        }
        if (buffer.size() > (1 << 20) - 4096) {
            out.write(buffer.data(), std::streamsize(buffer.size()));
            buffer.clear();
        }
    }
    out.write(buffer.data(), std::streamsize(buffer.size()));
    out.close();
    if (!out) return tr("cannot write %1").arg(path);
    logInfo(tr("kNN graph (%1 edges) written to %2").arg(count(g.indices.size()), path));
    return {};
}

Algorithm KnnPanel::algorithm() {
    using Type = AlgorithmParameter::Type;
    const KnnParams defaults;
    Algorithm a;
    a.name = kKnn;
    a.title = tr("kNN graph");
    a.parameters = {{QStringLiteral("k"),
                     Type::Int,
                     1,
                     double(kKnnMaxK),
                     {},
                     defaults.k,
                     tr("neighbours per point, itself not counted")},
                    {QStringLiteral("trees"),
                     Type::Int,
                     1,
                     64,
                     {},
                     defaults.trees,
                     tr("most random-projection trees to build")},
                    {QStringLiteral("leafSize"),
                     Type::Int,
                     2,
                     double(kKnnMaxLeafSize),
                     {},
                     defaults.leafSize,
                     tr("largest leaf, at least 2 (k + 1)")},
                    {QStringLiteral("targetRecall"),
                     Type::Double,
                     0,
                     1,
                     {},
                     defaults.targetRecall,
                     tr("stop once the sampled recall reaches it (0: all trees)")},
                    {QStringLiteral("seed"),
                     Type::Int,
                     0,
                     double(kMaxSeed),
                     {},
                     qulonglong(defaults.seed),
                     tr("seed of the random directions and the recall sample")}};
    a.setParameter = [this](const QString& name, const QVariant& value) {
        if (name == QLatin1String("k"))
            setK(value.toInt());
        else if (name == QLatin1String("trees"))
            setTrees(value.toInt());
        else if (name == QLatin1String("leafSize"))
            setLeafSize(value.toInt());
        else if (name == QLatin1String("targetRecall"))
            setTargetRecall(value.toDouble());
        else if (name == QLatin1String("seed"))
            setSeed(value.toULongLong());
    };
    a.run = [this] { run(); };
    a.isBusy = [this] { return isBusy(); };
    return a;
}

}  // namespace cs::ui
