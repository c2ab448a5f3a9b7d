// SPDX-License-Identifier: MIT
#include "ui/panels/knn/knn_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "compute/core/error.h"
#include "compute/io/knn_npy_reader.h"
#include "compute/io/writers.h"
#include "compute/knn/knn_descriptor.h"
#include "compute/knn/knn_quantities.h"
#include "compute/knn/knn_subset.h"
#include "ui/panels/parameter_store.h"
#include "ui/panels/warning_row.h"
#include "ui/shell/logger.h"
#include "ui/views/colour_maps.h"
#include "ui/views/points/point_cloud_view.h"

namespace cs::ui {
namespace {

const QString kShowEdgesKey = QStringLiteral("knn/showEdges");
const QString kOpacityKey = QStringLiteral("knn/edgeOpacity");
const QString kAutoOpacityKey = QStringLiteral("knn/autoOpacity");
const QString kByLengthKey = QStringLiteral("knn/edgesByLength");
const QString kEdgeMapKey = QStringLiteral("knn/edgeMap");
const QString kOverPointsKey = QStringLiteral("knn/edgesOverPoints");
constexpr int kLengthSteps = 1000;  // the length sliders' per mille of the longest edge

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString number(double v, int precision = 4) {
    return QLocale().toString(v, 'g', precision);
}

// The mean and largest distance to the k-th neighbour of run.graph, into run.
void setKthDistances(KnnRun& run) {
    const KnnGraph& g = *run.graph;
    const auto k = std::size_t(std::max(g.k, 0));
    if (k == 0 || g.n == 0 || g.distances.size() != g.n * k) return;
    double sum = 0.0;
    float largest = 0.0f;
    for (std::size_t i = 0; i < g.n; ++i) {
        const float d = g.distances[i * k + k - 1];
        sum += double(d);
        largest = std::max(largest, d);
    }
    run.meanKthDistance = sum / double(g.n);
    run.maxKthDistance = double(largest);
}

// The lengths the view's length colours, filter and legend read, measured off the GUI thread.
void setEdgeLengths(KnnRun& run) {
    run.edgeLengths = std::make_shared<const std::vector<float>>(
        edgeLengthSample(knnEdges(run.graph), *run.points));
}

}  // namespace

KnnPanel::KnnPanel(JobRunner& runner, PointCloudView& view, QWidget* parent)
    : AlgorithmPanel(runner, knnDescriptor(), parent), m_view(view) {
    // The leaf size's lower bound 2 (k + 1) depends on k: the spin box keeps the absolute range
    // and a run with a leaf too small for k reports it, rather than changing the leaf size
    // behind the user's back.
    m_kSpin = addIntParameter("k");
    m_exactBox = addBoolParameter("exact", tr("E&xact: every pair of points, no trees"));
    m_treesSpin = addIntParameter("trees");
    m_leafSpin = addIntParameter("leafSize");
    m_recallSpin = addDoubleParameter("targetRecall");
    m_recallSpin->setSingleStep(0.01);
    m_seedSpin = addIntParameter("seed");
    // The exact graph has no trees: their parameters are greyed out, not hidden, so the form
    // does not jump when the box is ticked.
    const auto treesApply = [this](bool exact) {
        for (QWidget* w : std::initializer_list<QWidget*>{m_treesSpin, m_leafSpin, m_recallSpin})
            w->setEnabled(!exact);
    };
    connect(m_exactBox, &QCheckBox::toggled, this, treesApply);
    treesApply(m_exactBox->isChecked());
    m_importButton = new QPushButton(tr("&Import graph…"));
    m_importButton->setObjectName(QStringLiteral("knnImport"));
    m_importButton->setToolTip(
        tr("Show a kNN graph built elsewhere (clusterscope-cli knn --out graph.npy, also under "
           "mpirun) for the points loaded; changing a parameter builds one here again"));
    parameterForm()->addRow(m_importButton);
    connect(m_importButton, &QPushButton::clicked, this, &KnnPanel::importInteractively);

    QSettings settings;
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
    m_autoOpacity = new QCheckBox(tr("&Auto"));
    m_autoOpacity->setToolTip(
        tr("Set the opacity from the number of edges and the view's size, for each new graph "
           "(moving the slider turns this off)"));
    m_autoOpacity->setChecked(settings.value(kAutoOpacityKey, true).toBool());
    auto* opacityRow = new QHBoxLayout;
    opacityRow->addWidget(m_opacity, 1);
    opacityRow->addWidget(m_autoOpacity);
    // A row of two widgets gets no buddy from the form, and its "&" would show: the slider is it.
    auto* opacityLabel = new QLabel(tr("&Opacity"));
    opacityLabel->setBuddy(m_opacity);
    showLayout->addRow(opacityLabel, opacityRow);
    m_byLength = new QCheckBox(tr("Colour by &length"));
    m_byLength->setToolTip(
        tr("Colour each edge by its length with a colour map of its own; off: "
           "in the colours of the points it joins"));
    m_byLength->setChecked(settings.value(kByLengthKey, true).toBool());
    m_edgeMap = new QComboBox;
    for (ColourMaps::Map map : ColourMaps::kMaps)
        m_edgeMap->addItem(ColourMaps::mapName(map), int(map));
    m_edgeMap->setCurrentIndex(std::max(
        0,
        m_edgeMap->findText(
            settings.value(kEdgeMapKey, ColourMaps::mapName(ColourMaps::Map::Magma)).toString())));
    m_edgeMap->setToolTip(tr("The edges' colour map (the legend under the points' shows it)"));
    auto* colourRow = new QHBoxLayout;
    colourRow->addWidget(m_byLength);
    colourRow->addWidget(m_edgeMap, 1);
    showLayout->addRow(colourRow);
    m_overPoints = new QCheckBox(tr("Draw o&ver the points"));
    m_overPoints->setChecked(settings.value(kOverPointsKey, false).toBool());
    showLayout->addRow(m_overPoints);
    m_minLength = new QSlider(Qt::Horizontal);
    m_minLength->setRange(0, kLengthSteps);
    m_minLength->setValue(0);
    m_minLength->setToolTip(tr("Shortest edge drawn (per mille of the longest)"));
    m_maxLength = new QSlider(Qt::Horizontal);
    m_maxLength->setRange(0, kLengthSteps);
    m_maxLength->setValue(kLengthSteps);
    m_maxLength->setToolTip(tr("Longest edge drawn (per mille of the longest)"));
    m_minLength->setMinimumWidth(40);
    m_maxLength->setMinimumWidth(40);
    showLayout->addRow(tr("Shor&test"), m_minLength);
    showLayout->addRow(tr("Lon&gest"), m_maxLength);
    m_lengthLabel = new QLabel;
    m_lengthLabel->setObjectName(QStringLiteral("knnLengthFilter"));
    m_lengthLabel->setWordWrap(true);
    showLayout->addRow(m_lengthLabel);
    addBox(show);

    m_recall = new QLabel;
    m_recall->setObjectName(QStringLiteral("knnRecall"));
    m_recall->setWordWrap(true);
    m_recall->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_recall->hide();
    addResultWidget(m_recall);
    statisticsLabel()->setText(tr("No graph yet"));

    connect(m_showEdges, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kShowEdgesKey, on);
        applyEdgeStyle();
    });
    connect(m_opacity, &QSlider::valueChanged, this, [this](int v) {
        // applyAutoOpacity blocks this signal: only a chosen opacity is remembered.
        QSettings().setValue(kOpacityKey, v);
        applyEdgeStyle();
    });
    // A hand on the slider (drag, keys, clicks; not a session or an undo step) ends Auto.
    connect(m_opacity, &QSlider::actionTriggered, this,
            [this] { m_autoOpacity->setChecked(false); });
    connect(m_autoOpacity, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kAutoOpacityKey, on);
        if (on) applyAutoOpacity();
    });
    connect(m_byLength, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kByLengthKey, on);
        applyEdgeStyle();
    });
    connect(m_edgeMap, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(kEdgeMapKey, m_edgeMap->currentText());
        applyEdgeStyle();
    });
    connect(m_overPoints, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kOverPointsKey, on);
        applyEdgeStyle();
    });
    // One state: the view set from elsewhere (the automation's --edges) ticks the box, which
    // sessions read. Silently: a program's change is not the user's preference.
    connect(&m_view, &PointCloudView::edgesOverPointsChanged, this, [this](bool over) {
        const QSignalBlocker block(m_overPoints);
        m_overPoints->setChecked(over);
    });
    connect(m_minLength, &QSlider::valueChanged, this, [this](int v) {
        if (m_maxLength->value() < v) m_maxLength->setValue(v);
        applyEdgeStyle();
    });
    connect(m_maxLength, &QSlider::valueChanged, this, [this](int v) {
        if (m_minLength->value() > v) m_minLength->setValue(v);
        applyEdgeStyle();
    });
    addViewOption(QStringLiteral("showEdges"), m_showEdges);
    addViewOption(QStringLiteral("edgeOpacity"), m_opacity);
    addViewOption(QStringLiteral("autoOpacity"), m_autoOpacity);
    addViewOption(QStringLiteral("edgesByLength"), m_byLength);
    addViewOption(QStringLiteral("edgesOverPoints"), m_overPoints);
    addViewOption(QStringLiteral("minEdgeLength"), m_minLength);
    addViewOption(QStringLiteral("maxEdgeLength"), m_maxLength);
    applyEdgeStyle();
}

KnnPanel::~KnnPanel() = default;

void KnnPanel::applyEdgeStyle() {
    const bool shown = m_showEdges->isChecked();
    m_view.setEdgesVisible(shown);
    m_view.setEdgeOpacity(float(m_opacity->value()) / float(m_opacity->maximum()));
    m_view.setEdgeColouring(m_byLength->isChecked() ? PointCloudView::EdgeColouring::Length
                                                    : PointCloudView::EdgeColouring::Points);
    m_view.setEdgeMap(ColourMaps::Map(m_edgeMap->currentData().toInt()));
    m_view.setEdgesOverPoints(m_overPoints->isChecked());
    // The sliders are fractions of the longest edge on screen; at their ends they filter
    // nothing, whatever edges come next.
    const double longest = m_view.edgeLengthBounds()[1];
    const double lo =
        m_minLength->value() == 0 ? 0.0 : longest * m_minLength->value() / double(kLengthSteps);
    const double hi = m_maxLength->value() == kLengthSteps
                          ? std::numeric_limits<double>::infinity()
                          : longest * m_maxLength->value() / double(kLengthSteps);
    m_view.setEdgeLengthFilter(lo, hi);
    const bool styled = m_view.edgeLengthStyleSupported();
    for (QWidget* w : std::initializer_list<QWidget*>{m_opacity, m_autoOpacity, m_overPoints})
        w->setEnabled(shown);
    m_byLength->setEnabled(shown && styled);
    m_edgeMap->setEnabled(shown && styled && m_byLength->isChecked());
    m_minLength->setEnabled(shown && styled);
    m_maxLength->setEnabled(shown && styled);
    if (!styled)
        m_lengthLabel->setText(tr("Length colours and filter need OpenGL 3.3 geometry shaders"));
    else if (!m_view.edges())
        m_lengthLabel->setText(tr("Lengths: no graph yet"));
    else
        m_lengthLabel->setText(tr("Lengths %1 to %2; drawn %3 to %4")
                                   .arg(number(m_view.edgeLengthBounds()[0]), number(longest),
                                        number(lo),
                                        std::isinf(hi) ? tr("the longest") : number(hi)));
}

void KnnPanel::applyAutoOpacity() {
    if (!m_autoOpacity->isChecked() || !m_view.edges()) return;
    const float opacity =
        PointCloudView::suggestedEdgeOpacity(m_view.edges().edgeCount(), m_view.size());
    // Not the user's choice: no setting stored, no undo step.
    const QSignalBlocker block(m_opacity);
    m_opacity->setValue(int(std::lround(opacity * float(m_opacity->maximum()))));
    applyEdgeStyle();
}

void KnnPanel::setPointSet(std::shared_ptr<const PointSet> points) {
    m_points = std::move(points);
    ++m_importGeneration;  // a graph being read is of the points before
    m_importing = false;
    m_run.reset();
    m_recall->clear();
    m_recall->hide();
    setEnabled(hasInput());
    resetResult(hasInput() ? tr("No graph yet: press Run or change a parameter")
                           : tr("No points loaded"));
}

bool KnnPanel::hasInput() const {
    return m_points && m_points->n > 0;
}

KnnParams KnnPanel::params() const {
    return knnParams(parameterValues());
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
    m_seedSpin->setValue(int(std::min<std::uint64_t>(seed, std::uint64_t(m_seedSpin->maximum()))));
}

void KnnPanel::submitRun() {
    ++m_importGeneration;  // a graph being read was asked for before this run
    m_importing = false;
    const KnnParams p = params();
    QString problem;
    try {
        // validateKnnInput also scans every coordinate for NaN: the backend does that on the
        // worker; only the O(1) checks run here.
        validateKnnParams(p);
        const std::size_t n = runSubset() ? runSubset()->size() : m_points->n;
        if (runSubset() && runSubset()->total != m_points->n)
            problem = tr("the selection to run on is of other points");
        else if (n < std::size_t(p.k) + 1)
            problem = tr("the kNN graph needs at least k + 1 = %1 points, these are %2")
                          .arg(p.k + 1)
                          .arg(count(n));
    } catch (const Error& e) {
        problem = QString::fromUtf8(e.what());
    }
    if (!problem.isEmpty()) {
        refuse(problem);
        return;
    }
    // A CUDA graph is written into the element buffer on the GPU when the view can: no index
    // array on the host then.
    const bool onDevice = m_view.mayPaintOnDevice();
    const auto subset = runSubset();
    submitMethodRun<KnnRun>(
        {.items = subset ? subset->size() : m_points->n, .dims = m_points->dims},
        [points = m_points, subset, p, onDevice](Backend& backend, JobControl& job) {
            KnnRun run;
            run.params = p;
            run.points = points;
            auto graph = std::make_shared<KnnGraph>(
                subset ? backend.knnGraph(subsetOf(*points, *subset), p, job)
                       : backend.knnGraph(*points, p, job));
            job.checkpoint();
            run.graph = graph;
            setKthDistances(run);  // of the graph as built: on a selection, its points alone
            // On a selection: the graph of the selected points alone, in the set's indices.
            if (subset) graph = std::make_shared<KnnGraph>(expandKnnGraph(*graph, *subset));
            if (!(onDevice && graph->device)) {
                const auto stage = job.stage("edge indices");
                run.edgeIndices = std::make_shared<const std::vector<std::uint32_t>>(
                    edgeIndexPairs(knnEdges(graph)));
            }
            run.graph = std::move(graph);
            {
                const auto stage = job.stage("edge lengths");
                setEdgeLengths(run);
            }
            return run;
        });
}

void KnnPanel::showOutcome(const JobOutcome& outcome) {
    showRun(std::static_pointer_cast<const KnnRun>(outcome.result), outcome);
}

bool KnnPanel::showRun(const std::shared_ptr<const KnnRun>& run, const JobOutcome& outcome) {
    // A graph of points no longer loaded is dropped (setPointSet cancels, but it may have
    // finished first).
    if (run->points != m_points) return false;
    PointEdges edges = knnEdges(run->graph);
    edges.lengthSample = run->edgeLengths;
    if (!m_view.setEdges(std::move(edges), run->edgeIndices)) {
        setWarning(tr("The kNN graph does not match the points on screen; it is not shown."));
        return false;
    }
    applyAutoOpacity();
    applyEdgeStyle();  // the length filter follows the new graph's longest edge
    // The view uploads the index array once and drops it; the panel keeps the graph only.
    auto kept = std::make_shared<KnnRun>(*run);
    kept->edgeIndices.reset();
    m_run = std::move(kept);
    const KnnGraph& g = *m_run->graph;
    statisticsLabel()->setText(statisticsText(*m_run));
    m_recall->setText(recallText(g));
    m_recall->setVisible(!g.recallByTree.empty());
    showTimings(outcome);
    setWarning({});
    if (!m_run->importedFrom.isEmpty())
        logInfo(tr("kNN graph (k = %1) of %2 points imported from %3 in %4 ms")
                    .arg(g.k)
                    .arg(count(g.n))
                    .arg(m_run->importedFrom)
                    .arg(outcome.milliseconds, 0, 'f', 0));
    else if (g.exact)
        logInfo(tr("Exact kNN graph (k = %1) of %2 points in %3 ms on %4: every pair met")
                    .arg(g.k)
                    .arg(count(g.n))
                    .arg(outcome.milliseconds, 0, 'f', 0)
                    .arg(outcome.backend));
    else
        logInfo(tr("kNN graph (k = %1) of %2 points in %3 ms on %4: %5 trees, sampled recall %6")
                    .arg(g.k)
                    .arg(count(g.n))
                    .arg(outcome.milliseconds, 0, 'f', 0)
                    .arg(outcome.backend)
                    .arg(g.treesBuilt)
                    .arg(g.recall(), 0, 'f', 3));
    emit resultChanged();
    return true;
}

QString KnnPanel::importFailed(const QString& name, const QString& problem) {
    const QString message =
        tr("Importing the kNN graph %1 failed: %2. The previous graph is kept.").arg(name, problem);
    logError(message);
    emit statusMessage(message, 8000);
    setWarning(message);
    return problem;
}

QString KnnPanel::importGraph(const QString& path) {
    const QString name = QFileInfo(path).fileName();
    if (!hasInput()) return importFailed(name, tr("load the points the graph is of first"));
    if (!QFileInfo(path).isFile()) return importFailed(name, tr("there is no such file"));
    // The file is read, checked against the points and turned into edges on a worker thread:
    // a million points' graph took 2.4 s there, which froze the window. New points, a later
    // import or a run asked for meanwhile supersede it (the generation); a run in flight or
    // pending now would land over it.
    live().reset();
    const int generation = ++m_importGeneration;
    m_importing = true;
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    struct Read {
        std::shared_ptr<KnnRun> run;
        QString error;
    };
    auto* watcher = new QFutureWatcher<Read>(this);
    connect(watcher, &QFutureWatcher<Read>::finished, this, [=, this] {
        const Read read = watcher->result();
        watcher->deleteLater();
        if (generation != m_importGeneration) return;
        m_importing = false;
        if (!read.error.isEmpty()) {
            emit importFinished(importFailed(name, read.error));
            return;
        }
        // k shows the graph's, so that the next change builds a graph like it here; as the
        // program's change, it runs nothing (applyParameters holds the runs).
        const int k = read.run->graph->k;
        ParameterValues values;
        values.set("k", std::int64_t(k));
        applyParameters(values, false);
        read.run->params = params();
        read.run->params.k = k;  // a k the spin box does not hold is still the graph's
        JobOutcome outcome;
        outcome.kind = kind();
        outcome.backend = tr("file");
        outcome.milliseconds = double(clock->nsecsElapsed()) / 1e6;
        outcome.timings = {{"read graph", outcome.milliseconds}};
        emit importFinished(showRun(read.run, outcome) ? QString() : warningLabel()->text());
    });
    watcher->setFuture(QtConcurrent::run([points = m_points, path]() -> Read {
        Read read;
        try {
            const std::filesystem::path indices = path.toStdString();
            const std::filesystem::path distances = io::knnDistancesPath(indices);
            std::error_code ec;
            // Without its distances file the reader measures them as the graph did.
            auto graph = std::make_shared<const KnnGraph>(io::readKnnNpy(
                indices,
                std::filesystem::exists(distances, ec) ? distances : std::filesystem::path(),
                *points));
            read.run = std::make_shared<KnnRun>();
            read.run->points = points;
            read.run->graph = graph;
            read.run->importedFrom = path;
            setKthDistances(*read.run);
            read.run->edgeIndices =
                std::make_shared<const std::vector<std::uint32_t>>(edgeIndexPairs(knnEdges(graph)));
            setEdgeLengths(*read.run);
        } catch (const std::bad_alloc&) {
            read.error = tr("not enough memory to read it");
        } catch (const std::exception& e) {
            read.error = QString::fromUtf8(e.what());
        }
        return read;
    }));
    return {};
}

bool KnnPanel::isBusy() const {
    return AlgorithmPanel::isBusy() || m_importing;
}

void KnnPanel::importInteractively() {
    if (!hasInput()) {
        emit statusMessage(tr("Load the points the kNN graph is of first"), 5000);
        return;
    }
    const QString folder = m_points->source.empty()
                               ? QString()
                               : QFileInfo(QString::fromStdString(m_points->source)).absolutePath();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import a kNN graph"), folder,
                                     tr("kNN graph, as clusterscope-cli knn --out writes it "
                                        "(*.npy)"));
    if (!path.isEmpty()) importGraph(path);
}

QString KnnPanel::statisticsText(const KnnRun& run) {
    const KnnGraph& g = *run.graph;
    const QString rest =
        tr("Edges: %1 (%2 points × k = %3)\nk-th neighbour distance: mean %4, max %5")
            .arg(count(g.indices.size()), count(g.n))
            .arg(g.k)
            .arg(number(run.meanKthDistance), number(run.maxKthDistance));
    // Built elsewhere: no trees or recall known here, and 0 would read as a bad graph.
    if (!run.importedFrom.isEmpty())
        return tr("Imported from %1 (built elsewhere: trees and recall unknown)\n%2")
            .arg(QFileInfo(run.importedFrom).fileName(), rest);
    if (g.exact) return tr("Exact: every pair of points met (recall 1)\n%1").arg(rest);
    QString trees = tr("Trees built: %1 of %2").arg(g.treesBuilt).arg(run.params.trees);
    if (g.treesBuilt < run.params.trees)
        trees += tr(" (target recall %1 reached)").arg(number(run.params.targetRecall, 3));
    return tr("%1\nSampled recall: %2\n%3")
        .arg(trees, QLocale().toString(g.recall(), 'f', 3), rest);
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
    if (m_run && !m_run->importedFrom.isEmpty())
        return QStringLiteral("knn k=%1 imported=%2").arg(p.k).arg(m_run->importedFrom);
    if (p.exact) text = QStringLiteral("knn k=%1 exact seed=%2").arg(p.k).arg(qulonglong(p.seed));
    if (m_run)
        text += QStringLiteral(" treesBuilt=%1 recall=%2")
                    .arg(m_run->graph->treesBuilt)
                    .arg(m_run->graph->recall(), 0, 'g', 6);
    return text + QStringLiteral(" backend=%1")
                      .arg(runner().backendName().isEmpty() ? QStringLiteral("auto")
                                                            : runner().backendName());
}

QString KnnPanel::exportEdges(const QString& path) const {
    if (!m_run) return tr("no kNN graph to export yet");
    const KnnGraph& g = *m_run->graph;
    try {
        io::writeKnnEdgesCsv(path.toStdString(), g.n, std::size_t(g.k), g.indices, g.distances,
                             parameterText().toStdString(),
                             m_run->points ? io::fileRowsOf(*m_run->points) : io::FileRows{});
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("kNN graph (%1 edges) written to %2").arg(count(g.indices.size()), path));
    return {};
}

void KnnPanel::setParameter(const QString& name, const ParameterValue& value) {
    if (name == QLatin1String("k"))
        setK(int(std::get<std::int64_t>(value)));
    else if (name == QLatin1String("exact"))
        m_exactBox->setChecked(std::get<bool>(value));
    else if (name == QLatin1String("trees"))
        setTrees(int(std::get<std::int64_t>(value)));
    else if (name == QLatin1String("leafSize"))
        setLeafSize(int(std::get<std::int64_t>(value)));
    else if (name == QLatin1String("targetRecall"))
        setTargetRecall(std::get<double>(value));
    else if (name == QLatin1String("seed"))
        setSeed(std::uint64_t(std::get<std::int64_t>(value)));
}

QString KnnPanel::exportResult(const std::string&, const QString& path) {
    return exportEdges(path);
}

}  // namespace cs::ui
