// SPDX-License-Identifier: MIT
#include "ui/shell/point_inspector.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "compute/core/item_subset.h"
#include "compute/dbscan/dbscan.h"
#include "compute/knn/knn_graph.h"
#include "ui/jobs/job_runner.h"
#include "ui/panels/dbscan/dbscan_panel.h"
#include "ui/panels/knn/knn_panel.h"

namespace cs::ui {
namespace {

QString number(double v) {
    return QLocale().toString(v, 'g', 7);
}

}  // namespace

QJsonObject PointInspection::toJson() const {
    QJsonArray coords;
    for (float c : coordinates)
        coords.append(double(c));
    QJsonArray near;
    for (std::size_t i = 0; i < neighbours.size(); ++i)
        near.append(QJsonObject{{QStringLiteral("index"), qint64(neighbours[i].index)},
                                {QStringLiteral("original_index"), qint64(neighbourRows[i])},
                                {QStringLiteral("distance"), double(neighbours[i].distance)}});
    return {{QStringLiteral("index"), qint64(index)},
            {QStringLiteral("original_index"), qint64(fileRow)},
            {QStringLiteral("coordinates"), coords},
            {QStringLiteral("cluster"), cluster ? QJsonValue(*cluster) : QJsonValue()},
            {QStringLiteral("role"), role.isEmpty() ? QJsonValue() : QJsonValue(role)},
            {QStringLiteral("min_pts"), minPts},
            {QStringLiteral("k_distance"), double(kDistance)},
            {QStringLiteral("k"), k},
            {QStringLiteral("neighbours"), near}};
}

PointInspector::PointInspector(JobRunner& runner, const DbscanPanel* dbscan, const KnnPanel* knn,
                               QWidget* parent)
    : QWidget(parent), m_runner(runner), m_dbscan(dbscan), m_knn(knn) {
    setObjectName(QStringLiteral("pointInspector"));
    m_hint = new QLabel(tr("Click a point in the view to inspect it."));
    m_hint->setWordWrap(true);
    m_facts = new QWidget;
    auto* form = new QFormLayout(m_facts);
    form->setContentsMargins(0, 0, 0, 0);
    m_kDistanceLabel = new QLabel;
    const QString names[] = {tr("Point"),   tr("Row in file"), tr("Coordinates"),
                             tr("Cluster"), tr("Role"),        QString()};
    for (const QString& name : names) {
        auto* value = new QLabel;
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setWordWrap(false);
        m_values.push_back(value);
        if (name.isEmpty())
            form->addRow(m_kDistanceLabel, value);
        else
            form->addRow(name, value);
    }
    m_table = new QTableWidget(0, 3);
    m_table->setHorizontalHeaderLabels({tr("Index"), tr("Row in file"), tr("Distance")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->setMinimumHeight(4 * m_table->verticalHeader()->defaultSectionSize());
    m_table->setToolTip(
        tr("The exact k nearest points (k from the kNN graph's parameters); "
           "double-click one to inspect it"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_hint);
    layout->addWidget(m_facts);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (m_inspection && std::size_t(row) < m_inspection->neighbours.size())
            inspect(m_inspection->neighbours[std::size_t(row)].index);
    });
    connect(&m_runner, &JobRunner::finished, this, [this](const JobOutcome& o) {
        if (o.kind != QLatin1String(kJobKind) || o.generation != m_generation) return;
        showInspection(*std::static_pointer_cast<const PointInspection>(o.result));
    });
    if (m_dbscan)
        connect(m_dbscan, &AlgorithmPanel::resultChanged, this, &PointInspector::refreshClusters);
    render();
}

void PointInspector::setPointSet(std::shared_ptr<const PointSet> points) {
    m_points = std::move(points);
    clear();
}

void PointInspector::clear() {
    m_runner.cancel(QLatin1String(kJobKind));
    m_generation = 0;
    const bool had = m_inspection.has_value();
    m_inspection.reset();
    render();
    if (had) emit cleared();
}

bool PointInspector::isBusy() const {
    return m_runner.isBusy(QLatin1String(kJobKind));
}

void PointInspector::clusterOf(std::size_t i, std::optional<std::int32_t>& cluster,
                               QString& role) const {
    cluster.reset();
    role.clear();
    if (!m_dbscan || !m_dbscan->hasClusters() || !m_dbscan->lastRun()) return;
    const DbscanResult& r = m_dbscan->lastRun()->result;
    if (i >= r.labels.size()) return;
    if (r.labels[i] == kNotRun) {  // outside a run on a selection: in no cluster, not noise
        role = QStringLiteral("not run");
        return;
    }
    cluster = r.labels[i];
    const bool core = i < r.isCore.size() && r.isCore[i];
    role = r.labels[i] < 0 ? QStringLiteral("noise")
           : core          ? QStringLiteral("core")
                           : QStringLiteral("border");
}

void PointInspector::inspect(std::size_t index) {
    if (!m_points || index >= m_points->n) return;
    const int k = m_knn ? m_knn->params().k : KnnParams{}.k;
    const int minPts = m_dbscan ? m_dbscan->params().minPts : DbscanParams{}.minPts;
    PointInspection base;
    base.index = index;
    base.fileRow = m_points->fileRow(index);
    const auto coords = m_points->point(index);
    base.coordinates.assign(coords.begin(), coords.end());
    base.k = k;
    base.minPts = minPts;
    m_generation = m_runner.submit<PointInspection>(
        QLatin1String(kJobKind),
        [points = m_points, base = std::move(base)](Backend&, JobControl& job) {
            PointInspection out = base;
            // The point itself is the first of its minPts nearest: minPts - 1 others reach
            // the k-distance.
            const std::size_t others = std::size_t(std::max(out.minPts - 1, 0));
            auto near =
                nearestNeighbours(*points, out.index, std::max(std::size_t(out.k), others), &job);
            out.kDistance = others == 0 || near.size() < others ? 0.0f : near[others - 1].distance;
            near.resize(std::min(near.size(), std::size_t(out.k)));
            for (const Neighbour& n : near)
                out.neighbourRows.push_back(points->fileRow(n.index));
            out.neighbours = std::move(near);
            return out;
        });
}

void PointInspector::showInspection(PointInspection inspection) {
    clusterOf(inspection.index, inspection.cluster, inspection.role);
    m_inspection = std::move(inspection);
    render();
    emit inspected();
}

void PointInspector::refreshClusters() {
    if (!m_inspection) return;
    clusterOf(m_inspection->index, m_inspection->cluster, m_inspection->role);
    render();
    emit inspected();
}

QString PointInspector::tooltip(std::size_t index) const {
    if (!m_points || index >= m_points->n) return {};
    QString text = tr("point %1").arg(index);
    if (m_points->fileRow(index) != index)
        text += tr(" (row %1 in the file)").arg(m_points->fileRow(index));
    std::optional<std::int32_t> cluster;
    QString role;
    clusterOf(index, cluster, role);
    if (cluster) {
        text += *cluster < 0 ? tr(" · noise") : tr(" · cluster %1 (%2)").arg(*cluster).arg(role);
    }
    return text + tr(" · click to inspect");
}

void PointInspector::render() {
    m_table->setRowCount(0);
    m_hint->setVisible(!m_inspection);
    m_facts->setVisible(m_inspection.has_value());
    m_table->setVisible(m_inspection.has_value());
    if (!m_inspection) return;
    const PointInspection& p = *m_inspection;
    QStringList coords;
    for (std::size_t j = 0; j < p.coordinates.size(); ++j) {
        const QString name = m_points && j < m_points->dimNames.size()
                                 ? QString::fromStdString(m_points->dimNames[j])
                                 : QStringLiteral("c%1").arg(j);
        coords << QStringLiteral("%1 = %2").arg(name, number(p.coordinates[j]));
    }
    QString cluster = tr("— (run DBSCAN)");
    if (p.cluster) cluster = *p.cluster < 0 ? tr("none (noise)") : QString::number(*p.cluster);
    m_values[0]->setText(QString::number(p.index));
    m_values[1]->setText(QString::number(p.fileRow));
    m_values[2]->setText(coords.join(QStringLiteral(", ")));
    m_values[3]->setText(cluster);
    m_values[4]->setText(p.role.isEmpty() ? QStringLiteral("—") : p.role);
    m_kDistanceLabel->setText(tr("k-distance (MinPts %1)").arg(p.minPts));
    m_values[5]->setText(number(p.kDistance));
    m_table->setRowCount(int(p.neighbours.size()));
    for (std::size_t i = 0; i < p.neighbours.size(); ++i) {
        const int row = int(i);
        m_table->setItem(row, 0, new QTableWidgetItem(QString::number(p.neighbours[i].index)));
        m_table->setItem(row, 1, new QTableWidgetItem(QString::number(p.neighbourRows[i])));
        m_table->setItem(row, 2, new QTableWidgetItem(number(p.neighbours[i].distance)));
    }
}

}  // namespace cs::ui
