// SPDX-License-Identifier: MIT
#include "ui/panels/rocket/rocket_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "compute/core/error.h"
#include "compute/io/npy.h"
#include "compute/io/writers.h"
#include "compute/rocket/rocket_descriptor.h"
#include "compute/rocket/rocket_quantities.h"
#include "compute/rocket/rocket_subset.h"
#include "ui/panels/parameter_store.h"
#include "ui/panels/rocket/rocket_sweep_box.h"
#include "ui/panels/warning_row.h"
#include "ui/shell/logger.h"
#include "ui/views/series/series_view.h"

namespace cs::ui {
namespace {

// LiveRun thresholds, lower than its defaults: jobs at least this long are debounced and cancel
// the run they supersede; shorter ones are coalesced.
constexpr double kLongJobMs = 400.0;
// Spin-box steps on long jobs settle for this long before a run starts.
constexpr int kLongJobDebounceMs = 250;

QString count(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString percent(double fraction) {
    return QLocale().toString(100.0 * fraction, 'f', 2) + QStringLiteral(" %");
}

QString className(const SeriesSet& s, int label) {
    if (label < 0) return {};
    return std::size_t(label) < s.classNames.size()
               ? QString::fromStdString(s.classNames[std::size_t(label)])
               : QString::number(label);
}

}  // namespace

RocketPanel::RocketPanel(JobRunner& runner, SeriesView& view, QWidget* parent)
    : AlgorithmPanel(runner, rocketDescriptor(), parent, kLongJobMs, kLongJobDebounceMs),
      m_view(view) {
    m_kernelsSpin = addIntParameter("kernels");
    m_kernelsSpin->setSingleStep(1000);
    m_kernelsSpin->setGroupSeparatorShown(true);
    m_seedSpin = addIntParameter("seed");

    // The variant: a combo box of the descriptor's choices, stored like the generic rows.
    const AlgorithmDescriptor& d = rocketDescriptor();
    const ParameterSpec& variant = *d.parameter("variant");
    m_variantBox = new QComboBox;
    m_variantBox->setObjectName(QStringLiteral("rocketVariant"));
    m_variantBox->addItem(tr("ROCKET (random kernels; PPV, MAX)"), QStringLiteral("rocket"));
    m_variantBox->addItem(tr("MiniRocket (84 kernels; PPV)"), QStringLiteral("minirocket"));
    m_variantBox->addItem(tr("MultiRocket (series + difference; 4 poolings)"),
                          QStringLiteral("multirocket"));
    const auto stored = std::get<std::string>(ParameterStore::load(d, variant));
    m_variantBox->setCurrentIndex(
        std::max(0, m_variantBox->findData(QString::fromStdString(stored))));
    ParameterStore::configure(m_variantBox, variant);
    parameterForm()->addRow(QString::fromStdString(variant.label), m_variantBox);
    connect(m_variantBox, &QComboBox::activated, this, [this] {
        saveVariant();
        parametersChanged();
    });
    m_normaliseBox = addBoolParameter("normalise", tr("&Normalise each series (ROCKET)"));
    // MiniRocket and MultiRocket read the raw series whatever the box says.
    auto rocketOnly = [this] {
        m_normaliseBox->setEnabled(m_variantBox->currentData().toString() ==
                                   QLatin1String(rocketVariantName(RocketVariant::Rocket)));
    };
    connect(m_variantBox, &QComboBox::currentIndexChanged, this, rocketOnly);
    rocketOnly();

    // The classifier and its confusion matrix, under the summary.
    m_classifier = new QLabel;
    m_classifier->setObjectName(QStringLiteral("rocketClassifier"));
    m_classifier->setWordWrap(true);
    m_classifier->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_classifier->hide();
    m_confusion = new QTableWidget;
    m_confusion->setObjectName(QStringLiteral("rocketConfusion"));
    m_confusion->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_confusion->setSelectionMode(QAbstractItemView::NoSelection);
    m_confusion->setFocusPolicy(Qt::NoFocus);
    m_confusion->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_confusion->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_confusion->setToolTip(tr("Test series by true class (rows) and predicted class (columns)"));
    m_confusion->hide();
    buildConfusionBox();
    addResultWidget(m_classifier);
    // The matrix grows with the classes: under Export, which must stay in sight.
    addResultWidget(m_confusionBox, ResultPlace::Details);
    // The feature map's order is the series view's; the descriptor's featureOrder sets it.
    // A view choice: stored, not an edit to undo (nor one a later undo would revert).
    connect(&m_view, &SeriesView::featureOrderChanged, this,
            [this] { changeByProgram([this] { saveFeatureOrder(); }); });
    {
        const AlgorithmDescriptor& d = rocketDescriptor();
        const auto stored =
            std::get<std::string>(ParameterStore::load(d, *d.parameter("featureOrder")));
        try {
            m_view.setFeatureOrder(featureOrderFromName(stored));
        } catch (const Error&) {
            // A stored word of another version: keep the view's default.
        }
    }
    statisticsLabel()->setText(tr("No features yet"));
    m_sweepBox = new RocketSweepBox(runner);
    addBox(m_sweepBox);
    connect(m_sweepBox, &RocketSweepBox::sweepRequested, this, &RocketPanel::sweep);
    connect(m_sweepBox, &RocketSweepBox::valueChosen, this, [this](int kernels) {
        logInfo(tr("ROCKET: %1 kernels from the sweep").arg(kernels));
        setKernels(kernels);
    });
    connect(m_kernelsSpin, &QSpinBox::valueChanged, m_sweepBox, &RocketSweepBox::setCurrentKernels);
    m_sweepBox->setCurrentKernels(m_kernelsSpin->value());
}

RocketPanel::~RocketPanel() = default;

void RocketPanel::setSeriesSet(std::shared_ptr<const SeriesSet> series) {
    m_series = std::move(series);
    m_run.reset();
    m_view.setFeatureMatrix(nullptr, {});
    m_classifier->clear();
    m_classifier->hide();
    m_confusion->clear();
    m_confusionBox->hide();
    m_sweepBox->setSeriesSet(m_series);
    setEnabled(hasInput());
    resetResult(hasInput() ? tr("No features yet: press Run or change a parameter")
                           : tr("No time series loaded"));
}

bool RocketPanel::hasInput() const {
    return m_series && m_series->n > 0;
}

ParameterValues RocketPanel::parameterValues() const {
    ParameterValues values = AlgorithmPanel::parameterValues();
    values.set("variant", m_variantBox->currentData().toString().toStdString());
    values.set("featureOrder", std::string(featureOrderName(m_view.featureOrder())));
    return values;
}

RocketParams RocketPanel::params() const {
    return rocketParams(parameterValues());
}

void RocketPanel::setVariant(RocketVariant variant) {
    const int index = m_variantBox->findData(QString::fromLatin1(rocketVariantName(variant)));
    if (index < 0 || index == m_variantBox->currentIndex()) return;
    m_variantBox->setCurrentIndex(index);
    saveVariant();
    parametersChanged();
}

void RocketPanel::saveFeatureOrder() {
    const AlgorithmDescriptor& d = rocketDescriptor();
    ParameterStore::save(d, *d.parameter("featureOrder"),
                         std::string(featureOrderName(m_view.featureOrder())));
}

void RocketPanel::saveVariant() {
    const AlgorithmDescriptor& d = rocketDescriptor();
    ParameterStore::save(d, *d.parameter("variant"),
                         m_variantBox->currentData().toString().toStdString());
}

void RocketPanel::setKernels(int kernels) {
    m_kernelsSpin->setValue(kernels);
}

void RocketPanel::setSeed(std::uint64_t seed) {
    m_seedSpin->setValue(int(std::min<std::uint64_t>(seed, std::uint64_t(m_seedSpin->maximum()))));
}

void RocketPanel::submitRun() {
    const RocketParams p = params();
    QString problem;
    try {
        // Only the O(1) checks here; the backend validates the values on the worker.
        validateRocketParams(p);
        const std::size_t shortest = p.variant == RocketVariant::Rocket       ? 2
                                     : p.variant == RocketVariant::MiniRocket ? 9
                                                                              : 10;
        if (m_series->length < shortest)
            problem = tr("%1 needs series of at least %2 samples, these have %3")
                          .arg(QString::fromLatin1(rocketVariantTitle(p.variant)))
                          .arg(shortest)
                          .arg(m_series->length);
    } catch (const Error& e) {
        problem = QString::fromUtf8(e.what());
    }
    if (!problem.isEmpty()) {
        refuse(problem);
        return;
    }
    const auto subset = runSubset();
    if (subset && subset->total != m_series->n) {
        refuse(tr("the selection to run on is of other series"));
        return;
    }
    submitMethodRun<RocketRun>(
        {.items = subset ? subset->size() : m_series->n,
         .length = m_series->length,
         .channels = m_series->channels},
        [series = m_series, subset, p](Backend& backend, JobControl& job) {
            if (!subset) return compute(series, p, backend, job);
            // On a selection: kernels, features and classifier of the selected series alone
            // (its train rows fit, its test rows score), mapped back to the set.
            RocketRun run = compute(std::make_shared<const SeriesSet>(subsetOf(*series, *subset)),
                                    p, backend, job);
            run.features = std::make_shared<const RocketFeatures>(
                expandRocketFeatures(*run.features, *subset));
            if (!run.predictions.empty())
                run.predictions = scatterRows<std::int32_t>(run.predictions, *subset, kNotRun);
            run.series = series;
            return run;
        });
}

RocketRun RocketPanel::compute(std::shared_ptr<const SeriesSet> series, const RocketParams& params,
                               Backend& backend, JobControl& job) {
    const SeriesSet& s = *series;
    RocketRun run;
    run.params = params;
    run.series = series;
    const RocketTransform transform = fitRocketTransform(backend, params, s, job);
    run.kernels = transform.kernels;
    run.miniModel = transform.model;
    job.checkpoint();
    auto features =
        std::make_shared<const RocketFeatures>(applyRocketTransform(backend, transform, s, job));
    run.features = features;
    job.checkpoint();

    // Training rows: the train part of a split, or every labelled row without one.
    run.classes = int(s.classCount());
    const bool split = !s.isTest.empty();
    std::vector<std::int32_t> fitLabels(s.n, -1);
    std::vector<char> present(std::size_t(std::max(run.classes, 0)), 0);
    for (std::size_t i = 0; i < s.n && i < s.labels.size(); ++i) {
        const std::int32_t label = s.labels[i];
        if (label < 0 || label >= run.classes || (split && s.isTest[i])) continue;
        fitLabels[i] = label;
        present[std::size_t(label)] = 1;
        ++run.trainCount;
    }
    const auto classesPresent = std::count(present.begin(), present.end(), char(1));
    if (s.labels.empty() || run.classes == 0) {
        run.classifierNote = QObject::tr("the set has no class labels");
    } else if (run.trainCount < 2) {
        run.classifierNote =
            QObject::tr(
                "the classifier needs at least two labelled training series, the set "
                "has %1")
                .arg(run.trainCount);
    } else if (classesPresent < 2) {
        run.classifierNote = QObject::tr("the labelled training series are all of one class");
    }
    if (!run.classifierNote.isEmpty()) {
        run.trainCount = 0;
        return run;
    }
    auto model = std::make_shared<const RidgeModel>(
        backend.ridgeFit(*features, fitLabels, run.classes, RidgeParams{}, job));
    job.checkpoint();
    {
        const auto stage = job.stage("predict");
        run.predictions = ridgePredict(*model, features->values, features->n);
    }
    run.model = std::move(model);
    if (split) {
        const auto k = std::size_t(run.classes);
        run.confusion.assign(k * k, 0);
        std::size_t correct = 0;
        for (std::size_t i = 0; i < s.n && i < s.labels.size(); ++i) {
            const std::int32_t label = s.labels[i];
            if (!s.isTest[i] || label < 0 || label >= run.classes) continue;
            const std::int32_t predicted = run.predictions[i];
            ++run.testCount;
            correct += predicted == label;
            if (predicted >= 0 && predicted < run.classes)
                ++run.confusion[std::size_t(label) * k + std::size_t(predicted)];
        }
        if (run.testCount > 0)
            run.testAccuracy = double(correct) / double(run.testCount);
        else
            run.confusion.clear();
    }
    return run;
}

void RocketPanel::showOutcome(const JobOutcome& outcome) {
    auto run = std::static_pointer_cast<const RocketRun>(outcome.result);
    // Features of a set no longer loaded are dropped (setSeriesSet cancels, but the run may
    // have finished first).
    if (run->series != m_series) return;
    const bool first = !m_run;
    const RocketTransform transform{run->params, run->kernels, run->miniModel};
    FeatureMatrix matrix = rocketFeatureMatrix(run->features, transform);
    if (run->model) {
        // The classifier's weights, for ordering the map by them (and in the read-out).
        matrix.weights = ridgeWeightMagnitudes(*run->model);
        matrix.weightName = "ridge weight";
    }
    if (!m_view.setFeatureMatrix(run->series, std::move(matrix))) {
        setWarning(tr("The features do not match the series on screen; they are not shown."));
        return;
    }
    m_run = std::move(run);
    // The first features of a set bring their map to the front; later runs leave the style
    // the user chose.
    if (first) m_view.setStyle(SeriesView::Style::FeatureMap);
    statisticsLabel()->setText(statisticsText(*m_run));
    m_classifier->setText(classifierText(*m_run));
    m_classifier->show();
    showConfusion(*m_run);
    showTimings(outcome);
    setWarning({});
    const RocketRun& r = *m_run;
    QString summary =
        tr("%1 (%2 %3, seed %4) of %5 series in %6 ms on %7")
            .arg(QString::fromLatin1(rocketVariantTitle(r.params.variant)))
            .arg(count(r.params.variant == RocketVariant::Rocket ? std::size_t(r.params.kernels)
                                                                 : r.features->columns()))
            .arg(r.params.variant == RocketVariant::Rocket ? tr("kernels") : tr("features"))
            .arg(qulonglong(r.params.seed))
            .arg(count(r.features->n))
            .arg(outcome.milliseconds, 0, 'f', 0)
            .arg(outcome.backend);
    if (r.model && r.testAccuracy >= 0)
        summary +=
            tr(": test accuracy %1, alpha %2").arg(percent(r.testAccuracy)).arg(r.model->alpha);
    else if (r.model)
        summary += tr(": leave-one-out accuracy %1, alpha %2")
                       .arg(percent(r.model->looAccuracy))
                       .arg(r.model->alpha);
    else
        summary += tr(": no classifier (%1)").arg(r.classifierNote);
    logInfo(summary);
    emit resultChanged();
}

void RocketPanel::buildConfusionBox() {
    m_confusionBox = new QWidget;
    m_confusionBox->setObjectName(QStringLiteral("rocketConfusionBox"));
    auto* grid = new QGridLayout(m_confusionBox);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(4);
    grid->setVerticalSpacing(2);
    auto* predicted = new QLabel(tr("Predicted class →"));
    predicted->setObjectName(QStringLiteral("confusionPredictedAxis"));
    predicted->setAlignment(Qt::AlignCenter);
    auto* truth = new QLabel(tr("True\nclass\n↓"));
    truth->setObjectName(QStringLiteral("confusionTrueAxis"));
    truth->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    grid->addWidget(predicted, 0, 1);
    grid->addWidget(truth, 1, 0);
    grid->addWidget(m_confusion, 1, 1);
    m_confusion->show();
    m_confusion->viewport()->setCursor(Qt::PointingHandCursor);
    m_confusion->setToolTip(
        tr("Test series by true class (rows) and predicted class (columns); the darker, the "
           "more. Click a cell to select its series (Ctrl+click: add them)."));
    connect(m_confusion, &QTableWidget::cellClicked, this, &RocketPanel::selectConfusionCell);
    m_confusionBox->hide();
}

std::vector<std::uint32_t> RocketPanel::confusionMembers(int trueClass, int predictedClass) const {
    std::vector<std::uint32_t> out;
    if (!m_run || m_run->predictions.empty()) return out;
    const SeriesSet& s = *m_run->series;
    for (std::size_t i = 0; i < s.n && i < s.labels.size() && i < m_run->predictions.size(); ++i)
        if (!s.isTest.empty() && s.isTest[i] && s.labels[i] == trueClass &&
            m_run->predictions[i] == predictedClass)
            out.push_back(std::uint32_t(i));
    return out;
}

void RocketPanel::selectConfusionCell(int row, int column) {
    std::vector<std::uint32_t> members = confusionMembers(row, column);
    const bool add = QGuiApplication::keyboardModifiers() & Qt::ControlModifier;
    logInfo(tr("%1 test series of class %2 predicted as %3 selected")
                .arg(count(members.size()), className(*m_run->series, row),
                     className(*m_run->series, column)));
    m_view.requestSelection(std::move(members), add ? SeriesView::SelectAction::Add
                                                    : SeriesView::SelectAction::Replace);
}

double RocketPanel::confusionShade(std::size_t count, std::size_t most) {
    // Square-root scale: the off-diagonal cells (few) stay visible next to the diagonal (many).
    return most == 0 ? 0.0 : 0.85 * std::sqrt(double(count) / double(most));
}

void RocketPanel::showConfusion(const RocketRun& run) {
    m_confusion->clear();
    const auto k = std::size_t(std::max(run.classes, 0));
    if (run.confusion.empty() || k == 0) {
        m_confusionBox->hide();
        return;
    }
    const std::size_t most = *std::max_element(run.confusion.begin(), run.confusion.end());
    const QPalette pal = palette();
    const QColor base = pal.color(QPalette::Base), ink = pal.color(QPalette::Highlight);
    const SeriesSet& s = *run.series;
    m_confusion->setRowCount(int(k));
    m_confusion->setColumnCount(int(k));
    QStringList names;
    for (std::size_t c = 0; c < k; ++c)
        names << className(s, int(c));
    m_confusion->setVerticalHeaderLabels(names);
    m_confusion->setHorizontalHeaderLabels(names);
    for (std::size_t t = 0; t < k; ++t) {
        for (std::size_t p = 0; p < k; ++p) {
            const std::size_t n = run.confusion[t * k + p];
            auto* item = new QTableWidgetItem(count(n));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            const double a = confusionShade(n, most);
            item->setBackground(
                QColor::fromRgbF(float((1.0 - a) * base.redF() + a * ink.redF()),
                                 float((1.0 - a) * base.greenF() + a * ink.greenF()),
                                 float((1.0 - a) * base.blueF() + a * ink.blueF())));
            item->setForeground(pal.color(a > 0.45 ? QPalette::HighlightedText : QPalette::Text));
            item->setToolTip(tr("%1 test series of class %2 predicted as %3; click to select them")
                                 .arg(count(n), names[int(t)], names[int(p)]));
            if (t == p) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            m_confusion->setItem(int(t), int(p), item);
        }
    }
    // Small class counts fit without scrolling; many classes scroll inside the table, their
    // columns too as a rule: room is kept for the horizontal scroll bar, which otherwise
    // covered most of the last row shown (11 classes at 1400 x 900).
    m_confusion->resizeColumnsToContents();
    m_confusion->resizeRowsToContents();
    const int rowsShown = int(std::min<std::size_t>(k, 8));
    int height =
        m_confusion->horizontalHeader()->sizeHint().height() + 2 * m_confusion->frameWidth();
    for (int r = 0; r < rowsShown; ++r)
        height += m_confusion->rowHeight(r);
    int width = m_confusion->verticalHeader()->sizeHint().width() + 2 * m_confusion->frameWidth();
    for (int c = 0; c < int(k); ++c)
        width += m_confusion->columnWidth(c);
    if (k > 8 || width > m_confusion->width())
        height += m_confusion->horizontalScrollBar()->sizeHint().height();
    m_confusion->setFixedHeight(height + (k > 8 ? 4 : 0));
    m_confusionBox->show();
}

QString RocketPanel::statisticsText(const RocketRun& run) {
    const RocketFeatures& f = *run.features;
    switch (run.params.variant) {
        case RocketVariant::MiniRocket:
            return tr("Features: %1 series × %2 (PPV of 84 kernels at fitted dilations and biases)")
                .arg(count(f.n), count(f.columns()));
        case RocketVariant::MultiRocket:
            return tr("Features: %1 series × %2 (PPV, MPV, MIPV, LSPV of %3 kernel, dilation and "
                      "bias combinations, on the series and its difference)")
                .arg(count(f.n), count(f.columns()), count(f.kernels));
        case RocketVariant::Rocket:
            break;
    }
    return tr("Features: %1 series × %2 (PPV and MAX of %3 kernels)")
        .arg(count(f.n), count(f.columns()), count(f.kernels));
}

QString RocketPanel::classifierText(const RocketRun& run) {
    if (!run.model)
        return tr("No classifier: %1. The features and the feature map are shown.")
            .arg(run.classifierNote);
    const RidgeModel& m = *run.model;
    QStringList lines;
    if (run.testAccuracy >= 0) {
        const auto correct = std::size_t(std::llround(run.testAccuracy * double(run.testCount)));
        lines << tr("Test accuracy: %1 (%2 of %3 test series)")
                     .arg(percent(run.testAccuracy), count(correct), count(run.testCount));
        lines << tr("Leave-one-out accuracy (train): %1").arg(percent(m.looAccuracy));
    } else {
        lines << tr("Leave-one-out accuracy: %1 (no test split)").arg(percent(m.looAccuracy));
    }
    lines << tr("Alpha: %1 (of %2 candidates, by leave-one-out error)")
                 .arg(QLocale().toString(m.alpha, 'g', 4))
                 .arg(m.alphas.size());
    lines << tr("Trained on %1 series, %2 classes; %3 test series")
                 .arg(count(run.trainCount))
                 .arg(run.classes)
                 .arg(count(run.testCount));
    return lines.join(QLatin1Char('\n'));
}

QString RocketPanel::parameterText() const {
    const RocketParams p = m_run ? m_run->params : params();
    QString text = QStringLiteral("rocket kernels=%1 seed=%2 variant=%3")
                       .arg(p.kernels)
                       .arg(qulonglong(p.seed))
                       .arg(QString::fromLatin1(rocketVariantName(p.variant)));
    if (m_run && m_run->model) {
        text += QStringLiteral(" alpha=%1 looAccuracy=%2")
                    .arg(m_run->model->alpha, 0, 'g', 9)
                    .arg(m_run->model->looAccuracy, 0, 'g', 6);
        if (m_run->testAccuracy >= 0)
            text += QStringLiteral(" testAccuracy=%1").arg(m_run->testAccuracy, 0, 'g', 6);
    }
    return text + QStringLiteral(" backend=%1")
                      .arg(runner().backendName().isEmpty() ? QStringLiteral("auto")
                                                            : runner().backendName());
}

QString RocketPanel::exportFeatures(const QString& path) const {
    if (!m_run) return tr("no ROCKET features to export yet");
    const RocketFeatures& f = *m_run->features;
    try {
        io::writeNpy(path.toStdString(), std::span<const float>(f.values), {f.n, f.columns()});
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("%1 features (%2 series × %3, %4) written to %5")
                .arg(QString::fromLatin1(rocketVariantTitle(m_run->params.variant)))
                .arg(count(f.n), count(f.columns()))
                .arg(m_run->params.variant == RocketVariant::Rocket ? tr("[PPV, MAX] per kernel")
                     : m_run->params.variant == RocketVariant::MiniRocket
                         ? tr("PPV per feature")
                         : tr("[PPV, MPV, MIPV, LSPV] of the series then of its difference, "
                              "per feature"))
                .arg(path));
    return {};
}

QString RocketPanel::exportPredictions(const QString& path) const {
    if (!m_run) return tr("no ROCKET result to export yet");
    if (!m_run->model) return tr("no ROCKET predictions: %1").arg(m_run->classifierNote);
    const SeriesSet& s = *m_run->series;
    try {
        io::writePredictionsCsv(path.toStdString(), s.isTest, s.labels, m_run->predictions,
                                s.classNames, parameterText().toStdString());
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    logInfo(tr("ROCKET predictions (%1 series) written to %2").arg(count(s.n), path));
    return {};
}

void RocketPanel::setParameter(const QString& name, const ParameterValue& value) {
    if (name == QLatin1String("kernels"))
        setKernels(int(std::get<std::int64_t>(value)));
    else if (name == QLatin1String("seed"))
        setSeed(std::uint64_t(std::get<std::int64_t>(value)));
    else if (name == QLatin1String("variant"))
        setVariant(rocketVariantFromName(std::get<std::string>(value)));
    else if (name == QLatin1String("featureOrder")) {
        // Only the view changes: the features stay as they are.
        m_view.setFeatureOrder(featureOrderFromName(std::get<std::string>(value)));
        saveFeatureOrder();
    }
}

QVariantMap RocketPanel::sweepRange() const {
    return {{QStringLiteral("sweepKernels"), m_sweepBox->kernelsEdit()->text()}};
}

void RocketPanel::setSweepRange(const QVariantMap& range) {
    // Taken as text: a list that does not parse says so when the sweep is pressed, as typed.
    const QVariant kernels = range.value(QStringLiteral("sweepKernels"));
    if (kernels.typeId() == QMetaType::QString)
        m_sweepBox->kernelsEdit()->setText(kernels.toString());
}

void RocketPanel::sweep() {
    if (hasInput()) m_sweepBox->sweep(params());
}

bool RocketPanel::isBusy() const {
    return AlgorithmPanel::isBusy() || m_sweepBox->isBusy();
}

void RocketPanel::cancel() {
    m_sweepBox->cancel();
    AlgorithmPanel::cancel();
}

QString RocketPanel::exportResult(const std::string& exportId, const QString& path) {
    if (exportId == kRocketSweepExport) return m_sweepBox->exportCsv(path);
    return exportId == "features" ? exportFeatures(path) : exportPredictions(path);
}

}  // namespace cs::ui
