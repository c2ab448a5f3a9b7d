// SPDX-License-Identifier: MIT
#pragma once

#include <QTimer>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/point_set.h"
#include "compute/dbscan/dbscan.h"
#include "ui/panels/algorithm_panel.h"
#include "ui/panels/dbscan/cluster_colours.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace cs::ui {

class KDistanceChart;
class PointCloudView;
struct KDistanceSummary;
class SweepHeatmap;
class WarningRow;

/// One finished DBSCAN run as the panel shows it: the result (its statistics always hold the
/// members per cluster), the parameters it ran with, and its cluster colours (matched to the
/// previous run's on the worker thread).
struct DbscanRun {
    DbscanResult result;
    DbscanParams params;
    std::vector<int> slotOf;                 ///< palette slot per cluster id
    std::vector<std::uint32_t> rgba;         ///< host colours (all classes shown); empty when
                                             ///< the view paints the device result itself
    std::vector<std::uint32_t> slotColours;  ///< packed colour per slot
};

/// The DBSCAN panel: eps (log slider, spin box and the k-distance chart's line, all linked),
/// MinPts, neighbour-search path, DBSCAN*, core/border/noise visibility, statistics, stage
/// timings, warnings for degenerate parameters and label export. Every change re-runs DBSCAN
/// through the JobRunner and recolours the point view by cluster. Jobs shorter than a second
/// are coalesced (the newest parameters run as soon as the current run ends, so a drag
/// streams results); longer ones are debounced and cancel the run they supersede.
class DbscanPanel : public AlgorithmPanel {
    Q_OBJECT
public:
    DbscanPanel(JobRunner& runner, PointCloudView& view, QWidget* parent = nullptr);
    ~DbscanPanel() override;

    /// New data: clears the result, computes the k-distance curve and, unless eps was set
    /// explicitly, runs DBSCAN with the knee of the curve as eps.
    void setPointSet(std::shared_ptr<const PointSet> points) override;

    /// The parameters as the widgets show them.
    DbscanParams params() const;
    /// The generic rows' values with eps and the path, whose widgets are the panel's own.
    ParameterValues parameterValues() const override;
    void setEps(double eps);
    void setMinPts(int minPts);
    void setStar(bool star);
    void setPath(DbscanPath path);
    /// Recolours the point view by the clusters on screen (no recomputation); false when there
    /// is no run for the points the view shows.
    bool showClusters();
    /// True when a run for the points the view shows can colour them (showClusters()).
    bool hasClusters() const;
    QString pointColouringTitle() const override;
    bool showPointColouring() override { return showClusters(); }
    /// True while a run or the k-distance curve is pending or computing, or its colours are
    /// not yet applied.
    bool isBusy() const override;
    /// Cancels DBSCAN and the k-distance curve.
    void cancel() override;
    /// The button that computes an expensive k-distance curve when the user asks (hidden
    /// otherwise).
    QPushButton* kDistanceConfirmButton() const { return m_kdistConfirm; }

    /// The run on screen (nullptr before the first).
    std::shared_ptr<const DbscanRun> lastRun() const { return m_run; }
    /// The suggested eps (0 before it is known): the middle of the plateau of a sweep of eps
    /// around the knee of the k-distance curve (compute/dbscan/eps_suggestion.h), else the knee.
    /// The sweep comes with the curve on an accelerator; on the CPU it runs when the user asks
    /// (useSuggestedEps()), and until then this is the knee.
    double suggestedEps() const { return m_suggestedEps; }
    /// True once suggestedEps() is the sweep's, not only the knee.
    bool isSuggestionSwept() const { return m_suggestionSwept; }
    /// "Use suggested eps": applies the suggestion, sweeping for it first where it is not yet
    /// known (a job of its own kind; eps is set, and DBSCAN runs, when it ends).
    void useSuggestedEps();
    QPushButton* suggestButton() const { return m_suggestButton; }
    /// Runs the eps x MinPts sweep (defaultDbscanSweep around the eps in use, MinPts 3 to 20
    /// or up to n) as a job of its own kind; its heat maps replace the last ones when it ends.
    void sweep() override;
    bool hasSweep() const override { return true; }
    /// True while a sweep is pending or computing, or its heat maps are not yet in view.
    bool isSweeping() const;
    /// The grid of the heat maps on screen (sweepEpsFrom, sweepEpsTo, sweepEpsCount: log-spaced;
    /// sweepMinPtsFrom, sweepMinPtsTo), empty before a sweep. A session restores it by
    /// sweeping that grid again: the heat maps come back as they were, whatever eps is now.
    QVariantMap sweepRange() const override;
    void setSweepRange(const QVariantMap& range) override;
    /// Writes the last sweep's table (dbscanSweepCsv); the error, or empty.
    QString exportSweep(const QString& path) const;
    /// Writes the labels on screen: .npy (int32, n) or CSV (index,label,core with a parameter
    /// header). Returns the error, or an empty string.
    QString exportLabels(const QString& path) const;
    /// The header line written to label files ("dbscan eps=2.5 minPts=10 ...").
    QString parameterText() const;

    // The widgets, for tests and the automation.
    QSlider* epsSlider() const { return m_epsSlider; }
    QDoubleSpinBox* epsSpin() const { return m_epsSpin; }
    QSpinBox* minPtsSpin() const { return m_minPtsSpin; }
    QComboBox* pathBox() const { return m_pathBox; }
    QCheckBox* starBox() const { return m_starBox; }
    KDistanceChart* chart() const { return m_chart; }
    QCheckBox* logScaleBox() const { return m_logScaleBox; }
    SweepHeatmap* sweepHeatmap() const { return m_sweepMap; }
    QComboBox* sweepMeasureBox() const { return m_sweepMeasure; }
    QPushButton* sweepButton() const { return m_sweepButton; }
    QLabel* plateauLabel() const { return m_plateauLabel; }

    /// Slider steps across the eps range.
    static constexpr int kSliderSteps = 1000;
    /// Slider position of eps, and the reverse (log scale over the data-derived range).
    int sliderPosition(double eps) const;
    double sliderEps(int position) const;
    /// The statistics text for a run (shown in statisticsLabel()).
    static QString statisticsText(const DbscanResult& result);
    /// A warning for degenerate results (almost all noise, one cluster holding almost all), or
    /// empty.
    static QString degenerateWarning(const DbscanResult& result);

    bool hasResult() const override { return m_run != nullptr; }
    QKeySequence viewShortcut() const override { return QKeySequence(tr("Ctrl+D")); }

protected:
    bool hasInput() const override;
    bool mayRun() override;
    void submitRun() override;
    void showOutcome(const JobOutcome& outcome) override;
    void setParameter(const QString& name, const ParameterValue& value) override;
    QString exportResult(const std::string& exportId, const QString& path) override;

private:
    void savePath();
    void clampMinPtsToData();
    enum class Source { Code, Spin, Slider, Chart };
    void buildUi();
    void applyEps(double eps, Source source);
    void submitKDistance();
    void onKDistanceFinished(const JobOutcome& outcome);
    void onKDistanceFailed(const JobOutcome& outcome);
    void onKDistanceCancelled(const JobOutcome& outcome);
    void onSweepFinished(const JobOutcome& outcome);
    void onSuggestionFinished(const JobOutcome& outcome);
    /// Submits the sweep of this grid (checked) as the sweep job.
    void submitSweep(const DbscanSweepParams& grid);
    void updateSuggestButton();
    /// With no result on screen: what the user can do next (replaces "Computing…").
    void showNextStep();
    static QString suggestionReason(int clusters, double low, double high);
    void updateSweepMarks();
    void repaint();
    void updatePathChoices();
    ClusterVisibility visibility() const;

    PointCloudView& m_view;
    std::shared_ptr<const PointSet> m_points;
    std::shared_ptr<const DbscanRun> m_run;

    double m_eps = 1.0;
    double m_epsMin = 1e-3;
    double m_epsMax = 10.0;
    bool m_epsChosen = false;       // set by the user or the automation: the knee must not override
    bool m_waitingForKnee = false;  // run() before the knee was known: run when it arrives
    bool m_sweepAfterKnee = false;  // sweep() before the suggestion: it centres the sweep
    double m_suggestedEps = 0.0;
    double m_kneeEps = 0.0;
    bool m_suggestionSwept = false;  // m_suggestedEps is the sweep's (else the knee)
    bool m_applySuggestion = false;  // the user asked: apply it when the sweep ends
    bool m_revealingSweep = false;   // a finished sweep's heat maps are yet to be scrolled to
    std::shared_ptr<const KDistanceSummary> m_kdist;  // the curve on the chart
    int m_kdistK = 0;
    int m_kdistConfirmedK = 0;  // the expensive k the user asked the curve for

    QTimer m_kdistDebounce;

    QSlider* m_epsSlider = nullptr;
    QDoubleSpinBox* m_epsSpin = nullptr;
    QSpinBox* m_minPtsSpin = nullptr;
    QComboBox* m_pathBox = nullptr;
    QCheckBox* m_starBox = nullptr;
    QCheckBox* m_showCore = nullptr;
    QCheckBox* m_showBorder = nullptr;
    QCheckBox* m_showNoise = nullptr;
    QPushButton* m_suggestButton = nullptr;
    QPushButton* m_kdistConfirm = nullptr;
    QCheckBox* m_logScaleBox = nullptr;
    KDistanceChart* m_chart = nullptr;
    SweepHeatmap* m_sweepMap = nullptr;
    QComboBox* m_sweepMeasure = nullptr;
    QPushButton* m_sweepButton = nullptr;
    QLabel* m_plateauLabel = nullptr;
};

}  // namespace cs::ui
