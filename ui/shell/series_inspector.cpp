// SPDX-License-Identifier: MIT
#include "ui/shell/series_inspector.h"

#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>
#include <limits>

#include "compute/kshape/kshape.h"
#include "compute/rocket/rocket_quantities.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/kshape/kshape_panel.h"
#include "ui/panels/rocket/rocket_panel.h"

namespace cs::ui {
namespace {

QJsonValue orNull(const QString& text) {
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

QString classNameOf(const SeriesSet& s, std::int32_t label) {
    if (label < 0) return {};
    return std::size_t(label) < s.classNames.size()
               ? QString::fromStdString(s.classNames[std::size_t(label)])
               : QString::number(label);
}

}  // namespace

QJsonObject SeriesInspection::toJson() const {
    QJsonObject o{
        {QStringLiteral("index"), qint64(index)},
        {QStringLiteral("class"), orNull(className)},
        {QStringLiteral("split"), orNull(split)},
        {QStringLiteral("cluster"), cluster ? QJsonValue(*cluster) : QJsonValue()},
        {QStringLiteral("centroid_sbd"), cluster ? QJsonValue(double(centroidSbd)) : QJsonValue()},
        {QStringLiteral("centroid_shift"), cluster ? QJsonValue(centroidShift) : QJsonValue()},
        {QStringLiteral("prediction"), orNull(prediction)}};
    if (prediction.isEmpty()) {
        o[QStringLiteral("top_features")] = QJsonValue();
    } else {
        QJsonArray features;
        for (const Feature& f : topFeatures)
            features.append(QJsonObject{{QStringLiteral("column"), qint64(f.column)},
                                        {QStringLiteral("layer"), f.layer},
                                        {QStringLiteral("contribution"), f.contribution},
                                        {QStringLiteral("value"), f.value},
                                        {QStringLiteral("parameters"), f.parameters}});
        o[QStringLiteral("top_features")] = features;
    }
    o[QStringLiteral("nearest")] =
        nearest ? QJsonValue(QJsonObject{{QStringLiteral("index"), qint64(*nearest)},
                                         {QStringLiteral("sbd"), nearestSbd},
                                         {QStringLiteral("shift"), nearestShift}})
                : QJsonValue();
    return o;
}

SeriesInspector::SeriesInspector(JobRunner& runner, const KShapePanel* kshape,
                                 const RocketPanel* rocket, QWidget* parent)
    : QWidget(parent), m_runner(runner), m_kshape(kshape), m_rocket(rocket) {
    setObjectName(QStringLiteral("seriesInspector"));
    m_hint =
        new QLabel(tr("Click a series (a line, a heat-map row or a cluster chart's member) "
                      "to inspect it."));
    m_hint->setWordWrap(true);
    m_facts = new QWidget;
    auto* form = new QFormLayout(m_facts);
    form->setContentsMargins(0, 0, 0, 0);
    for (const QString& name :
         {tr("Series"), tr("Class"), tr("Split"), tr("k-Shape cluster"), tr("SBD to centroid"),
          tr("Nearest by SBD"), tr("ROCKET predicts"), tr("Weigh most")}) {
        auto* value = new QLabel;
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setWordWrap(true);
        m_values.push_back(value);
        form->addRow(name, value);
    }
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_hint);
    // The facts scroll in a short dock (the kernels that weigh most take several lines).
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("seriesInspectorScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_facts);
    layout->addWidget(scroll, 1);
    connect(&m_runner, &JobRunner::finished, this, [this](const JobOutcome& o) {
        if (o.kind != QLatin1String(kJobKind) || o.generation != m_generation) return;
        showInspection(*std::static_pointer_cast<const SeriesInspection>(o.result));
    });
    for (const AlgorithmPanel* panel : {static_cast<const AlgorithmPanel*>(m_kshape),
                                        static_cast<const AlgorithmPanel*>(m_rocket)})
        if (panel)
            connect(panel, &AlgorithmPanel::resultChanged, this, [this] {
                if (!m_inspection) return;
                fillFromResults(*m_inspection);
                render();
                emit inspected();
            });
    render();
}

void SeriesInspector::setSeriesSet(std::shared_ptr<const SeriesSet> series) {
    m_series = std::move(series);
    clear();
}

void SeriesInspector::clear() {
    m_runner.cancel(QLatin1String(kJobKind));
    m_generation = 0;
    m_inspection.reset();
    render();
}

bool SeriesInspector::isBusy() const {
    return m_runner.isBusy(QLatin1String(kJobKind));
}

void SeriesInspector::fillFromResults(SeriesInspection& p) const {
    p.cluster.reset();
    p.prediction.clear();
    p.topFeatures.clear();
    if (m_kshape)
        if (const auto run = m_kshape->lastRun();
            run && run->series == m_series && run->result && p.index < run->result->labels.size()) {
            const KShapeResult& r = *run->result;
            p.cluster = r.labels[p.index];
            p.centroidSbd = p.index < r.distances.size() ? r.distances[p.index] : 0.0f;
            p.centroidShift = p.index < r.shifts.size() ? r.shifts[p.index] : 0;
        }
    if (m_rocket)
        if (const auto run = m_rocket->lastRun();
            run && run->series == m_series && p.index < run->predictions.size()) {
            p.prediction = classNameOf(*m_series, run->predictions[p.index]);
            if (run->model && run->features) {
                const RocketFeatures& f = *run->features;
                const FeatureMatrix matrix = rocketFeatureMatrix(
                    run->features, RocketTransform{run->params, run->kernels, run->miniModel});
                const std::span<const float> row(f.values.data() + p.index * f.columns(),
                                                 f.columns());
                for (const FeatureContribution& c :
                     topContributions(*run->model, row, run->predictions[p.index], kTopFeatures)) {
                    SeriesInspection::Feature out;
                    out.column = c.feature / f.layers;
                    const std::size_t layer = c.feature % f.layers;
                    out.layer = layer < matrix.layerNames.size()
                                    ? QString::fromStdString(matrix.layerNames[layer])
                                    : QString::number(layer);
                    out.contribution = c.contribution;
                    out.value = c.value;
                    if (matrix.describeColumn)
                        out.parameters = QString::fromStdString(matrix.describeColumn(out.column));
                    p.topFeatures.push_back(std::move(out));
                }
            }
        }
}

void SeriesInspector::inspect(std::size_t index) {
    if (!m_series || index >= m_series->n) return;
    const SeriesSet& s = *m_series;
    SeriesInspection base;
    base.index = index;
    if (!s.labels.empty()) base.className = classNameOf(s, s.labels[index]);
    if (!s.isTest.empty()) base.split = s.isTest[index] ? tr("test") : tr("train");
    // The channel(s) k-Shape clusters, so that the nearest series is measured as its SBDs are.
    const std::optional<std::size_t> channel =
        m_kshape ? m_kshape->params().channel : std::optional<std::size_t>{};
    m_generation = m_runner.submit<SeriesInspection>(
        QLatin1String(kJobKind),
        [series = m_series, base = std::move(base), channel](Backend&, JobControl& job) {
            SeriesInspection out = base;
            const SeriesSet& s = *series;
            const std::optional<std::size_t> clustered =
                channel ? std::optional<std::size_t>(std::min(*channel, s.channels - 1))
                        : std::nullopt;
            const std::vector<float> rows = kshapeInput(s, clustered);
            const std::size_t channels = clustered ? 1 : s.channels;
            const std::size_t m = s.length * channels;
            const std::span<const float> x(rows.data() + out.index * m, m);
            double best = std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < s.n; ++j) {
                if (j == out.index) continue;
                job.checkpoint();
                int shift = 0;
                const double d = sbdDirect(x, {rows.data() + j * m, m}, &shift, channels);
                if (d < best) {
                    best = d;
                    out.nearest = j;
                    out.nearestSbd = d;
                    out.nearestShift = shift;
                }
            }
            return out;
        });
}

void SeriesInspector::showInspection(SeriesInspection inspection) {
    fillFromResults(inspection);
    m_inspection = std::move(inspection);
    render();
    emit inspected();
}

void SeriesInspector::render() {
    m_hint->setVisible(!m_inspection);
    m_facts->setVisible(m_inspection.has_value());
    if (!m_inspection) return;
    const SeriesInspection& p = *m_inspection;
    const QString none = QStringLiteral("—");
    m_values[0]->setText(QString::number(p.index));
    m_values[1]->setText(p.className.isEmpty() ? none : p.className);
    m_values[2]->setText(p.split.isEmpty() ? tr("no split") : p.split);
    m_values[3]->setText(p.cluster ? QString::number(*p.cluster) : tr("— (run k-Shape)"));
    m_values[4]->setText(
        p.cluster ? tr("%1 at shift %2").arg(double(p.centroidSbd), 0, 'g', 5).arg(p.centroidShift)
                  : none);
    m_values[5]->setText(p.nearest ? tr("series %1 (SBD %2 at shift %3)")
                                         .arg(*p.nearest)
                                         .arg(p.nearestSbd, 0, 'g', 5)
                                         .arg(p.nearestShift)
                                   : none);
    m_values[6]->setText(p.prediction.isEmpty() ? tr("— (run ROCKET)") : p.prediction);
    QStringList features;
    const bool rocket = !m_rocket || !m_rocket->lastRun() ||
                        m_rocket->lastRun()->params.variant == RocketVariant::Rocket;
    for (const SeriesInspection::Feature& f : p.topFeatures)
        features << tr("%1 %2 %3: %4 (value %5; %6)", "kernel 59 MAX: +0.05 (value 4.7; length …)")
                        .arg(rocket ? tr("kernel") : tr("feature"))
                        .arg(f.column)
                        .arg(f.layer)
                        .arg(f.contribution >= 0
                                 ? QStringLiteral("+%1").arg(f.contribution, 0, 'g', 3)
                                 : QString::number(f.contribution, 'g', 3))
                        .arg(f.value, 0, 'g', 4)
                        .arg(f.parameters);
    m_values[7]->setText(features.isEmpty()
                             ? none
                             : tr("for %1, by weight × (value − mean):\n%2")
                                   .arg(p.prediction, features.join(QLatin1Char('\n'))));
}

}  // namespace cs::ui
