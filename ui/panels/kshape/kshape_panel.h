// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/series_set.h"
#include "compute/kshape/kshape.h"
#include "ui/panels/algorithm_panel.h"

class QLabel;
class QSpinBox;

namespace cs::ui {

class KShapeSweepBox;
class SeriesView;

/// One finished k-Shape run as the panel shows it: the clustering, the cluster sizes and, when
/// the set has class labels, the agreement of the clusters with the classes.
struct KShapeRun {
    KShapeParams params;
    std::shared_ptr<const SeriesSet> series;  ///< the set that was clustered
    std::shared_ptr<const KShapeResult> result;
    std::vector<std::size_t> sizes;  ///< series per cluster, k entries
    std::size_t emptyClusters = 0;   ///< clusters without series
    bool hasAgreement = false;       ///< the set has class labels to compare with
    ClusterAgreement agreement;      ///< against the class labels (when hasAgreement)
};

/// The k-Shape panel for time-series sets: k (1 .. 64; the set's class count when it has
/// labels, else 3), max iterations (1 .. 1000), seed and, for multivariate sets, the channel
/// clustered: "all" (every channel together, the default; the view then stacks the channels of
/// each centroid and its members) or one. Run, and every change re-runs through the JobRunner (kind
/// "kshape", latest wins, LiveRun's scheduling). A run calls Backend::kshape and, with class
/// labels, clusterAgreement. Shows the iterations and whether it converged, the cluster sizes,
/// RI/ARI/NMI against the classes, the backend and each stage's time; the series view offers its
/// Clusters style (the first result brings it to the front). A refused or failed run is reported
/// (log, status bar, panel) and leaves the previous result on screen.
/// @code
/// KShapePanel panel(runner, seriesView);
/// panel.setSeriesSet(series);
/// panel.setK(4);  // runs; panel.lastRun() holds the result once resultChanged() fires
/// @endcode
class KShapePanel : public AlgorithmPanel {
    Q_OBJECT
public:
    KShapePanel(JobRunner& runner, SeriesView& view, QWidget* parent = nullptr);
    ~KShapePanel() override;

    /// New data: forgets the result (and the view's clusters), cancels a run for the previous
    /// set and sets k to the set's class count (3 without labels). Nothing runs until run()
    /// or a parameter change.
    void setSeriesSet(std::shared_ptr<const SeriesSet> series) override;

    /// The parameters as the widgets show them.
    KShapeParams params() const;
    /// Setters as the widgets: each re-runs when series are loaded. A channel the set does not
    /// have is reported (as a refused run) and not set; kKShapeAllChannels is all of them.
    void setK(int k);
    void setMaxIterations(int iterations);
    void setSeed(std::uint64_t seed);
    void setChannel(int channel);

    /// The run on screen (nullptr before the first, and after new data).
    std::shared_ptr<const KShapeRun> lastRun() const { return m_run; }
    /// Writes the labels as CSV: a "# kshape k=..." parameter line, the header
    /// "index,label,distance,shift", one line per series. Returns the error, or empty.
    QString exportLabels(const QString& path) const;
    /// Writes the centroids as .npy: k x m float32 (one channel) or k x C x m (all). Returns the
    /// error, or empty.
    QString exportCentroids(const QString& path) const;
    /// The parameter line written to label files ("kshape k=3 maxIterations=100 ...").
    QString parameterText() const;

    // The widgets, for tests and the automation.
    QSpinBox* kSpin() const { return m_kSpin; }
    QSpinBox* iterationsSpin() const { return m_iterationsSpin; }
    QSpinBox* seedSpin() const { return m_seedSpin; }
    QSpinBox* channelSpin() const { return m_channelSpin; }
    QLabel* agreementLabel() const { return m_agreement; }

    /// The statistics text for a run (shown in statisticsLabel()).
    static QString statisticsText(const KShapeRun& run);
    /// The agreement text for a run (shown in agreementLabel()).
    static QString agreementText(const KShapeRun& run);
    /// The panel's job: k-Shape, the sizes and the agreement (on the worker thread).
    static KShapeRun compute(std::shared_ptr<const SeriesSet> series, const KShapeParams& params,
                             Backend& backend, JobControl& job);

    bool hasResult() const override { return m_run != nullptr; }
    QKeySequence viewShortcut() const override { return QKeySequence(tr("Ctrl+Shift+K")); }

    /// The sweep over k (KShapeSweepBox) with the seed, iterations and channel in use; a k
    /// clicked on its chart becomes the panel's k (an edit, so it re-runs and can be undone).
    bool hasSweep() const override { return true; }
    void sweep() override;
    bool isBusy() const override;
    void cancel() override;
    KShapeSweepBox* sweepBox() const { return m_sweepBox; }
    /// sweepKFrom and sweepKTo: the sweep box's range of k.
    QVariantMap sweepRange() const override;
    void setSweepRange(const QVariantMap& range) override;

protected:
    bool hasInput() const override;
    void submitRun() override;
    void showOutcome(const JobOutcome& outcome) override;
    void setParameter(const QString& name, const ParameterValue& value) override;
    QString exportResult(const std::string& exportId, const QString& path) override;

private:
    SeriesView& m_view;
    std::shared_ptr<const SeriesSet> m_series;
    std::shared_ptr<const KShapeRun> m_run;

    QSpinBox* m_kSpin = nullptr;
    QSpinBox* m_iterationsSpin = nullptr;
    QSpinBox* m_seedSpin = nullptr;
    QSpinBox* m_channelSpin = nullptr;
    QLabel* m_agreement = nullptr;
    KShapeSweepBox* m_sweepBox = nullptr;
};

}  // namespace cs::ui
