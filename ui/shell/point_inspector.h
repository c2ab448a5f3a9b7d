// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QWidget>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "compute/core/point_set.h"
#include "compute/knn/point_neighbours.h"

class QLabel;
class QTableWidget;

namespace cs::ui {

class DbscanPanel;
class JobRunner;
class KnnPanel;

/// Everything the inspector says about one point; toJson() is what --inspect prints.
struct PointInspection {
    std::size_t index = 0;                ///< among the points kept
    std::size_t fileRow = 0;              ///< among the file's points, NaN ones included
    std::vector<float> coordinates;       ///< all dimensions
    std::optional<std::int32_t> cluster;  ///< DBSCAN's id (-1 noise), as legend and CSV; none
                                          ///< without a DBSCAN run for these points
    QString role;                         ///< "core", "border", "noise", or empty without DBSCAN
    int minPts = 0;                       ///< the k of kDistance (DBSCAN's MinPts)
    float kDistance = 0.0f;               ///< distance to the minPts-th nearest point, itself first
    int k = 0;                            ///< neighbours listed (the kNN graph's k)
    std::vector<Neighbour> neighbours;    ///< the exact k nearest, nearest first
    std::vector<std::size_t> neighbourRows;  ///< their file rows

    /// {"index", "original_index", "coordinates", "cluster" (null without DBSCAN), "role",
    /// "min_pts", "k_distance", "k", "neighbours": [{"index", "original_index", "distance"}]}.
    QJsonObject toJson() const;
};

/// The point inspector (a dock's widget): a clicked point's index, row in the file,
/// coordinates, DBSCAN cluster and role, k-distance and its exact k nearest neighbours with
/// distances. The neighbours are found on a worker (JobRunner kind "inspect"), never on the
/// GUI thread; the cluster and role follow DBSCAN's result on screen as it changes. Clicking a
/// neighbour in the table inspects it.
class PointInspector : public QWidget {
    Q_OBJECT
public:
    /// dbscan and knn give the cluster, MinPts and k; either may be null (then no cluster, and
    /// their parameters' defaults).
    PointInspector(JobRunner& runner, const DbscanPanel* dbscan, const KnnPanel* knn,
                   QWidget* parent = nullptr);

    /// New points: forgets the inspected one.
    void setPointSet(std::shared_ptr<const PointSet> points);
    /// Inspects point index (ignored when out of range); the content follows when the worker
    /// is done (inspected()).
    void inspect(std::size_t index);
    /// Forgets the inspected point.
    void clear();
    /// The inspection shown (nullopt before the first or while none).
    const std::optional<PointInspection>& inspection() const { return m_inspection; }
    /// True while the neighbours are being computed.
    bool isBusy() const;
    /// A line for the hover tooltip of point index: index, file row, cluster and role.
    QString tooltip(std::size_t index) const;

    QTableWidget* neighbourTable() const { return m_table; }

    static constexpr const char* kJobKind = "inspect";

signals:
    /// A new inspection is shown.
    void inspected();
    /// The inspector was cleared.
    void cleared();

private:
    void showInspection(PointInspection inspection);
    void refreshClusters();
    void render();
    /// The cluster and role of point i from the DBSCAN run on screen, if any.
    void clusterOf(std::size_t i, std::optional<std::int32_t>& cluster, QString& role) const;

    JobRunner& m_runner;
    const DbscanPanel* m_dbscan;
    const KnnPanel* m_knn;
    std::shared_ptr<const PointSet> m_points;
    std::optional<PointInspection> m_inspection;
    std::uint64_t m_generation = 0;
    QLabel* m_hint = nullptr;
    QWidget* m_facts = nullptr;
    // The values of the facts' form, in its order: point, row, coordinates, cluster, role,
    // k-distance.
    std::vector<QLabel*> m_values;
    QLabel* m_kDistanceLabel = nullptr;
    QTableWidget* m_table = nullptr;
};

}  // namespace cs::ui
