// SPDX-License-Identifier: MIT
#include "ui/panels/algorithm_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <utility>

#include "ui/panels/parameter_store.h"
#include "ui/panels/warning_row.h"
#include "ui/shell/logger.h"

namespace cs::ui {
namespace {

QLabel* selectableLabel(const QString& objectName) {
    auto* label = new QLabel;
    label->setObjectName(objectName);
    // Labels wrap rather than widen the dock; the scroll area around the panel follows their
    // height.
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

}  // namespace

AlgorithmPanel::AlgorithmPanel(JobRunner& runner, const AlgorithmDescriptor& descriptor,
                               QWidget* parent, double longJobMs, int longJobDebounceMs)
    : QWidget(parent),
      m_runner(runner),
      m_descriptor(descriptor),
      m_kind(QString::fromStdString(descriptor.name)),
      m_live(
          runner, m_kind,
          [this] {
              m_live.beginSubmit();
              m_runValues = parameterValues();
              m_runSubset = m_subset;
              if (!hasInput()) return;
              const std::uint64_t before = m_runner.latestGeneration(m_kind);
              submitRun();
              // A refused run submits nothing: only a job's values may stand for it.
              if (m_runner.latestGeneration(m_kind) != before)
                  m_submitted = {m_runner.latestGeneration(m_kind), m_runValues};
          },
          longJobMs, longJobDebounceMs) {
    setObjectName(m_kind + QStringLiteral("Panel"));
    m_layout = new QVBoxLayout(this);
    m_layout->setContentsMargins(6, 6, 6, 6);
    // Never squeezed below its contents: the dock's scroll area scrolls instead, so a short dock
    // cannot stack labels on top of each other.
    m_layout->setSizeConstraint(QLayout::SetMinimumSize);

    auto* params = new QGroupBox(tr("Parameters"));
    auto* paramsLayout = new QVBoxLayout(params);
    m_form = new QFormLayout;
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    paramsLayout->addLayout(m_form);
    m_runButton = new QPushButton(tr("&Run"));
    m_runButton->setObjectName(m_kind + QStringLiteral("Run"));
    m_runButton->setToolTip(tr("Run %1 now (parameter changes re-run it too)")
                                .arg(QString::fromStdString(descriptor.title)));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName(m_kind + QStringLiteral("Cancel"));
    m_cancelButton->setToolTip(tr("Stop the run in progress; the result on screen stays"));
    m_cancelButton->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton, 1);
    buttons->addWidget(m_cancelButton);
    paramsLayout->addLayout(buttons);
    m_progressBar = new QProgressBar;
    m_progressBar->setObjectName(m_kind + QStringLiteral("Progress"));
    m_progressBar->setRange(0, 1000);
    m_progressBar->setTextVisible(false);
    m_progressBar->setMaximumHeight(8);
    m_progressBar->hide();
    m_progressLabel = selectableLabel(m_kind + QStringLiteral("Stage"));
    m_progressLabel->setForegroundRole(QPalette::PlaceholderText);
    m_progressLabel->hide();
    paramsLayout->addWidget(m_progressBar);
    paramsLayout->addWidget(m_progressLabel);
    m_progressDelay.setSingleShot(true);
    connect(&m_progressDelay, &QTimer::timeout, this, &AlgorithmPanel::showProgressRow);
    m_layout->addWidget(params);

    auto* result = new QGroupBox(tr("Result"));
    m_resultLayout = new QVBoxLayout(result);
    m_summary = selectableLabel(m_kind + QStringLiteral("Statistics"));
    m_warningRow = new WarningRow(m_kind);
    m_timings = selectableLabel(m_kind + QStringLiteral("Timings"));
    m_timings->setForegroundRole(QPalette::PlaceholderText);
    m_timings->hide();
    m_exportButton = new QPushButton(tr("Export…"));
    m_exportButton->setObjectName(m_kind + QStringLiteral("Export"));
    QStringList exports;
    for (const ExportSpec& e : descriptor.exports)
        exports << QString::fromStdString(e.what);
    m_exportButton->setToolTip(tr("Write %1").arg(exports.join(tr(", or "))));
    m_exportButton->setEnabled(false);
    m_resultLayout->addWidget(m_summary);
    m_resultLayout->addWidget(m_warningRow);
    // The export before the timings: on a small screen the timings are what falls below the
    // fold, not the button.
    m_resultLayout->addWidget(m_exportButton);
    m_resultLayout->addWidget(m_timings);
    m_layout->addWidget(result);
    // The result comes right under the parameters, so that it is on screen at the default
    // window size; a panel's own boxes (DBSCAN's k-distance chart) follow it.
    m_boxInsertAt = m_layout->count();
    m_layout->addStretch(1);

    connect(m_runButton, &QPushButton::clicked, this, &AlgorithmPanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &AlgorithmPanel::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, &AlgorithmPanel::exportRequested);
    connect(&m_runner, &JobRunner::finished, this, &AlgorithmPanel::onFinished);
    connect(&m_runner, &JobRunner::failed, this, &AlgorithmPanel::onFailed);
    connect(&m_runner, &JobRunner::cancelled, this, &AlgorithmPanel::onCancelled);
    connect(&m_runner, &JobRunner::progress, this,
            [this](const QString& kind, std::uint64_t, double fraction, const QString& stage) {
                onProgress(kind, fraction, stage);
            });
    connect(&m_runner, &JobRunner::busyChanged, this, &AlgorithmPanel::updateRunning);
    setEnabled(false);
}

AlgorithmPanel::~AlgorithmPanel() = default;

void AlgorithmPanel::setPointSet(std::shared_ptr<const PointSet>) {}

void AlgorithmPanel::setSeriesSet(std::shared_ptr<const SeriesSet>) {}

void AlgorithmPanel::run() {
    if (!hasInput() || !mayRun()) return;
    if (isUpToDate()) {
        // Run right after an edit that re-ran live (ROCKET's Kernels typed, then Run): the same
        // parameters again would only cancel that run and start it over.
        emit statusMessage(tr("%1: the run for these parameters is in progress")
                               .arg(QString::fromStdString(m_descriptor.title)),
                           4000);
        return;
    }
    m_live.runNow();
    updateRunning();
}

QString AlgorithmPanel::importResult(const QString& path) {
    return tr("%1: %2 imports no results").arg(path, QString::fromStdString(descriptor().title));
}

bool AlgorithmPanel::isUpToDate() const {
    // A finished run may be asked for again (Run re-runs what is on screen); one in flight not.
    if (!m_submitted || m_live.isPending() || !m_runner.isBusy(m_kind)) return false;
    return m_submitted->generation == m_runner.latestGeneration(m_kind) &&
           m_submitted->values == parameterValues();
}

void AlgorithmPanel::cancel() {
    m_live.reset();
    updateRunning();
}

bool AlgorithmPanel::isBusy() const {
    return m_live.isBusy();
}

void AlgorithmPanel::parametersChanged() {
    const ParameterValues now = parameterValues();
    if (m_programChanges == 0 && m_editedValues && *m_editedValues != now)
        emit parametersEdited(*m_editedValues, now);
    m_editedValues = now;
    if (m_holdRuns || !hasInput() || !mayRun()) return;
    m_live.schedule();
    updateRunning();
}

void AlgorithmPanel::changeByProgram(const std::function<void()>& change) {
    ++m_programChanges;
    change();
    --m_programChanges;
    m_editedValues = parameterValues();
}

void AlgorithmPanel::applyParameters(const ParameterValues& values, bool rerun) {
    const bool held = m_holdRuns;
    m_holdRuns = !rerun;
    changeByProgram([&] {
        for (const ParameterSpec& spec : m_descriptor.parameters)
            if (const ParameterValue* value = values.find(spec.name))
                setParameter(QString::fromStdString(spec.name), *value);
    });
    m_holdRuns = held;
}

QVariantMap AlgorithmPanel::viewOptions() const {
    QVariantMap options;
    for (const auto& [name, widget] : m_viewOptionWidgets) {
        if (auto* box = qobject_cast<QCheckBox*>(widget)) options[name] = box->isChecked();
        if (auto* slider = qobject_cast<QSlider*>(widget)) options[name] = slider->value();
    }
    return options;
}

void AlgorithmPanel::setViewOptions(const QVariantMap& options) {
    m_settingViewOptions = true;
    for (const auto& [name, widget] : m_viewOptionWidgets) {
        const QVariant value = options.value(name);
        if (auto* box = qobject_cast<QCheckBox*>(widget); box && value.typeId() == QMetaType::Bool)
            box->setChecked(value.toBool());
        if (auto* slider = qobject_cast<QSlider*>(widget); slider && numberOf(value))
            slider->setValue(int(*numberOf(value)));
    }
    m_settingViewOptions = false;
    m_editedViewOptions = viewOptions();
    setSweepRange(options);
}

std::optional<double> AlgorithmPanel::numberOf(const QVariant& value) {
    switch (value.typeId()) {
        case QMetaType::Int:
        case QMetaType::UInt:
        case QMetaType::LongLong:
        case QMetaType::ULongLong:
        case QMetaType::Double:
            return value.toDouble();
        default:
            return std::nullopt;
    }
}

QVariantMap AlgorithmPanel::sessionViewOptions() const {
    QVariantMap options = viewOptions();
    options.insert(sweepRange());
    return options;
}

void AlgorithmPanel::addViewOption(const QString& name, QCheckBox* box) {
    m_viewOptionWidgets[name] = box;
    m_editedViewOptions[name] = box->isChecked();
    connect(box, &QCheckBox::toggled, this, &AlgorithmPanel::viewOptionChanged);
}

void AlgorithmPanel::addViewOption(const QString& name, QSlider* slider) {
    m_viewOptionWidgets[name] = slider;
    m_editedViewOptions[name] = slider->value();
    connect(slider, &QSlider::valueChanged, this, &AlgorithmPanel::viewOptionChanged);
}

void AlgorithmPanel::viewOptionChanged() {
    const QVariantMap now = viewOptions();
    if (!m_settingViewOptions && now != m_editedViewOptions)
        emit viewOptionsEdited(m_editedViewOptions, now);
    m_editedViewOptions = now;
}

void AlgorithmPanel::setRunSubset(std::shared_ptr<const ItemSubset> subset) {
    if (subset == m_subset) return;
    m_subset = std::move(subset);
    emit runSubsetChanged();
}

Algorithm AlgorithmPanel::algorithm() {
    Algorithm a;
    a.descriptor = &m_descriptor;
    a.setParameter = [this](const QString& name, const ParameterValue& value) {
        setParameter(name, value);
    };
    a.run = [this] { run(); };
    if (hasSweep()) a.sweep = [this] { sweep(); };
    a.isBusy = [this] { return isBusy(); };
    a.exportTo = [this](const std::string& id, const QString& path) {
        return exportResult(id, path);
    };
    return a;
}

QLabel* AlgorithmPanel::warningLabel() const {
    return m_warningRow->label();
}

// After parametersChanged(): the run starts first, and writing the settings file (a millisecond,
// more on a slow disk) overlaps it.
void AlgorithmPanel::store(const char* name, const ParameterValue& value, bool stored) {
    if (stored) ParameterStore::save(m_descriptor, parameterSpec(m_descriptor, name), value);
}

QSpinBox* AlgorithmPanel::addIntParameter(const char* name, bool stored) {
    const ParameterSpec& spec = parameterSpec(m_descriptor, name);
    auto* spin = new QSpinBox;
    ParameterStore::configure(spin, spec);
    const ParameterValue value =
        stored ? ParameterStore::load(m_descriptor, spec) : spec.defaultValue;
    spin->setValue(int(std::get<std::int64_t>(value)));
    spin->setObjectName(m_kind + QLatin1Char('_') + QString::fromStdString(spec.name));
    m_form->addRow(QString::fromStdString(spec.label), spin);
    m_parameterWidgets[spec.name] = spin;
    connect(spin, &QSpinBox::valueChanged, this, [this, name, stored](int v) {
        parametersChanged();
        store(name, std::int64_t(v), stored);
    });
    return spin;
}

QDoubleSpinBox* AlgorithmPanel::addDoubleParameter(const char* name, bool stored) {
    const ParameterSpec& spec = parameterSpec(m_descriptor, name);
    auto* spin = new QDoubleSpinBox;
    ParameterStore::configure(spin, spec);
    const ParameterValue value =
        stored ? ParameterStore::load(m_descriptor, spec) : spec.defaultValue;
    spin->setValue(std::get<double>(value));
    spin->setObjectName(m_kind + QLatin1Char('_') + QString::fromStdString(spec.name));
    m_form->addRow(QString::fromStdString(spec.label), spin);
    m_parameterWidgets[spec.name] = spin;
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, name, stored](double v) {
        parametersChanged();
        store(name, v, stored);
    });
    return spin;
}

QCheckBox* AlgorithmPanel::addBoolParameter(const char* name, const QString& text, bool stored) {
    const ParameterSpec& spec = parameterSpec(m_descriptor, name);
    auto* box = new QCheckBox(text);
    ParameterStore::configure(box, spec);
    const ParameterValue value =
        stored ? ParameterStore::load(m_descriptor, spec) : spec.defaultValue;
    box->setChecked(std::get<bool>(value));
    box->setObjectName(m_kind + QLatin1Char('_') + QString::fromStdString(spec.name));
    m_form->addRow(box);
    m_parameterWidgets[spec.name] = box;
    connect(box, &QCheckBox::toggled, this, [this, name, stored](bool on) {
        parametersChanged();
        store(name, on, stored);
    });
    return box;
}

ParameterValues AlgorithmPanel::parameterValues() const {
    ParameterValues values = m_descriptor.defaults();
    for (const auto& [name, widget] : m_parameterWidgets) {
        if (auto* spin = qobject_cast<QSpinBox*>(widget))
            values.set(name, std::int64_t(spin->value()));
        else if (auto* real = qobject_cast<QDoubleSpinBox*>(widget))
            values.set(name, real->value());
        else if (auto* box = qobject_cast<QCheckBox*>(widget))
            values.set(name, box->isChecked());
    }
    return values;
}

void AlgorithmPanel::addBox(QWidget* box) {
    m_layout->insertWidget(m_boxInsertAt++, box);
}

void AlgorithmPanel::addResultWidget(QWidget* widget, ResultPlace place) {
    QWidget* before = place == ResultPlace::Summary ? static_cast<QWidget*>(m_warningRow)
                                                    : static_cast<QWidget*>(m_timings);
    m_resultLayout->insertWidget(m_resultLayout->indexOf(before), widget);
}

void AlgorithmPanel::resetResult(const QString& summary) {
    m_live.reset();
    // Not kept for the next result: new data must not hold the old result's memory (device
    // memory too) until then.
    releaseOffGuiThread(std::move(m_shownResult));
    m_resultSubset.reset();
    m_submitted.reset();
    // New data: an edit from here on starts from what the panel shows now.
    m_editedValues = parameterValues();
    setWarning({});
    m_timings->clear();
    m_timings->hide();
    m_exportButton->setEnabled(false);
    m_summary->setText(summary);
    updateRunning();
}

void AlgorithmPanel::refuse(const QString& problem) {
    const QString message = tr("%1: %2").arg(QString::fromStdString(m_descriptor.title), problem);
    logError(message);
    emit statusMessage(message + tr(" — the previous result is kept"), 8000);
    setWarning(tr("%1. The previous result is kept.").arg(message));
}

void AlgorithmPanel::setWarning(const QString& text) {
    m_warningRow->setText(text);
}

void AlgorithmPanel::showTimings(const JobOutcome& outcome, const QString& detail) {
    // One stage per line: a single joined line is wider than the dock.
    QString text = timingText(outcome);
    if (!detail.isEmpty()) {
        const qsizetype end = text.indexOf(QLatin1Char('\n'));
        text.insert(end < 0 ? text.size() : end, QStringLiteral(" · ") + detail);
    }
    if (!outcome.note.isEmpty()) text += QLatin1Char('\n') + outcome.note;
    m_timings->setText(text);
    m_timings->show();
    m_exportButton->setEnabled(true);
}

void AlgorithmPanel::onFinished(const JobOutcome& outcome) {
    if (outcome.kind != m_kind) return;
    m_live.finished(outcome);
    const QString items = m_descriptor.input == InputKind::Series ? tr("series") : tr("points");
    const QString on = m_runSubset
                           ? tr(" on %1 of %2 %3 (a selection)")
                                 .arg(QLocale().toString(qulonglong(m_runSubset->size())),
                                      QLocale().toString(qulonglong(m_runSubset->total)), items)
                           : QString();
    // A panel emits resultChanged() when it shows the outcome (not for a stale one it drops).
    bool shown = false;
    const auto connection =
        connect(this, &AlgorithmPanel::resultChanged, this, [&shown] { shown = true; });
    showOutcome(outcome);
    disconnect(connection);
    // Every run in the log with what it ran with, so that a result seen once can be found again;
    // logged after the view's frame with the result (a log line is laid out and repainted).
    logInfo(tr("run %1%2 (%3 ms on %4)")
                .arg(QString::fromStdString(m_descriptor.describe(m_runValues)), on)
                .arg(outcome.milliseconds, 0, 'f', 0)
                .arg(outcome.backend));
    if (shown) {
        // The panel and the view dropped the result shown before: this is likely its last
        // reference.
        releaseOffGuiThread(std::exchange(m_shownResult, outcome.result));
        m_resultSubset = m_runSubset;
        if (m_resultSubset)
            m_summary->setText(tr("Ran%1; the others were not run\n%2").arg(on, m_summary->text()));
    }
    m_live.runPending();
    updateRunning();
}

void AlgorithmPanel::onFailed(const JobOutcome& outcome) {
    if (outcome.kind != m_kind) return;
    // The window logs the error and shows it in the status bar.
    setWarning(tr("%1 failed: %2. The previous result is kept.")
                   .arg(QString::fromStdString(m_descriptor.title), outcome.error));
    m_live.failed(outcome);
    updateRunning();
}

void AlgorithmPanel::onCancelled(const JobOutcome& outcome) {
    if (outcome.kind != m_kind) return;
    m_live.cancelled(outcome);
    updateRunning();
}

void AlgorithmPanel::onProgress(const QString& kind, double fraction, const QString& stage) {
    if (kind != m_kind) return;
    // Hidden widgets keep their values without relayouting the panel.
    m_progressBar->setValue(int(fraction * m_progressBar->maximum()));
    m_progressLabel->setText(stage);
    if (!m_progressBar->isHidden())
        showProgressRow();
    else if (!m_progressDelay.isActive())
        m_progressDelay.start(kProgressDelayMs);
}

void AlgorithmPanel::showProgressRow() {
    if (!m_runner.isBusy(m_kind)) return;
    m_progressBar->show();
    m_progressLabel->setVisible(!m_progressLabel->text().isEmpty());
}

void AlgorithmPanel::updateRunning() {
    // Cancel also reaches a panel's side jobs (DBSCAN's k-distance curve).
    m_cancelButton->setEnabled(isBusy());
    if (!m_runner.isBusy(m_kind)) {
        m_progressDelay.stop();
        m_progressBar->hide();
        m_progressLabel->hide();
        m_progressBar->setValue(0);
    }
}

}  // namespace cs::ui
