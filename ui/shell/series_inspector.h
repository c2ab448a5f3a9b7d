// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QWidget>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "compute/core/series_set.h"

class QLabel;

namespace cs::ui {

class JobRunner;
class KShapePanel;
class RocketPanel;

/// Everything the inspector says about one series; toJson() is what --inspect series=I prints.
struct SeriesInspection {
    std::size_t index = 0;
    QString className;  ///< the class's name; empty when the series has none
    QString split;      ///< "train", "test", or empty without a split
    /// k-Shape's cluster of the series and its SBD and shift to that centroid (none without a
    /// k-Shape run on this set).
    std::optional<std::int32_t> cluster;
    float centroidSbd = 0.0f;
    int centroidShift = 0;
    /// The series nearest by SBD (sbdDirect over the channel k-Shape clusters), none in a set
    /// of one series.
    std::optional<std::size_t> nearest;
    double nearestSbd = 0.0;
    int nearestShift = 0;
    QString prediction;  ///< ROCKET's predicted class, empty without a fitted ROCKET run
    /// One of the features that weigh most in ROCKET's score of the predicted class.
    struct Feature {
        std::size_t column = 0;     ///< the kernel (ROCKET) or feature (the others)
        QString layer;              ///< "PPV", "MAX", ...
        double contribution = 0.0;  ///< its term of the score (rocket topContributions)
        double value = 0.0;         ///< the series' feature value
        QString parameters;  ///< the kernel's: length, dilation, padding, bias (or combination)
    };
    /// The features that weigh most for the predicted class, largest |term| first (empty
    /// without a fitted ROCKET run).
    std::vector<Feature> topFeatures;

    /// {"index", "class", "split", "cluster", "centroid_sbd", "centroid_shift", "nearest":
    /// {"index", "sbd", "shift"}, "prediction", "top_features": [{"column", "layer",
    /// "contribution", "value", "parameters"}]}; what is unknown is null.
    QJsonObject toJson() const;
};

/// The series inspector (a page of the Inspector dock): a clicked series' class and split,
/// k-Shape cluster with SBD and shift to its centroid, its nearest series by SBD (computed on a
/// worker, JobRunner kind "inspect-series") and ROCKET's prediction. It follows the k-Shape and
/// ROCKET results as they change; with a fitted ROCKET run, the kernels that weigh most in the
/// score of the predicted class (weight x (feature - mean) x scale) with their parameters.
class SeriesInspector : public QWidget {
    Q_OBJECT
public:
    SeriesInspector(JobRunner& runner, const KShapePanel* kshape, const RocketPanel* rocket,
                    QWidget* parent = nullptr);

    void setSeriesSet(std::shared_ptr<const SeriesSet> series);
    /// Inspects series index (ignored when out of range); inspected() follows.
    void inspect(std::size_t index);
    void clear();
    const std::optional<SeriesInspection>& inspection() const { return m_inspection; }
    bool isBusy() const;

    static constexpr const char* kJobKind = "inspect-series";

signals:
    void inspected();

private:
    void showInspection(SeriesInspection inspection);
    /// Fills the fields that come from the panels' results (cluster, prediction).
    void fillFromResults(SeriesInspection& inspection) const;
    void render();

    JobRunner& m_runner;
    const KShapePanel* m_kshape;
    const RocketPanel* m_rocket;
    std::shared_ptr<const SeriesSet> m_series;
    std::optional<SeriesInspection> m_inspection;
    std::uint64_t m_generation = 0;
    QLabel* m_hint = nullptr;
    QWidget* m_facts = nullptr;
    /// Features listed under "Weigh most".
    static constexpr std::size_t kTopFeatures = 5;

    // The values of the facts' form, in its order: series, class, split, cluster, SBD to the
    // centroid, nearest series, prediction, the features that weigh most.
    std::vector<QLabel*> m_values;
};

}  // namespace cs::ui
