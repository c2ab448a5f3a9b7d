// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/point_set.h"
#include "compute/knn/knn_graph.h"
#include "ui/panels/algorithm_panel.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace cs::ui {

class PointCloudView;

/// One finished kNN-graph run as the panel shows it: the graph, the parameters it ran with, the
/// points it belongs to, and what the worker worked out for the panel and the view.
struct KnnRun {
    std::shared_ptr<const KnnGraph> graph;
    KnnParams params;
    std::shared_ptr<const PointSet> points;  ///< the set the graph is of
    double meanKthDistance = 0.0;            ///< mean distance to the k-th neighbour
    double maxKthDistance = 0.0;             ///< largest distance to the k-th neighbour
    /// edgeIndexPairs(knnEdges(graph)), built on the worker for the view's upload; null when the
    /// view writes the edges on the GPU itself (a CUDA graph with interop), and after hand-over.
    std::shared_ptr<const std::vector<std::uint32_t>> edgeIndices;
    /// edgeLengthSample() of the graph's edges over `points`, measured on the worker for the
    /// view's length colours, filter and legend.
    std::shared_ptr<const std::vector<float>> edgeLengths;
    /// The indices file an imported graph was read from (KnnPanel::importGraph); empty for a
    /// graph built here.
    QString importedFrom;
};

/// The kNN-graph panel (an AlgorithmPanel): k, trees, leaf size, target recall and seed from
/// the descriptor; every change re-runs the random-projection forest (Backend::knnGraph, kind
/// "knn") and draws the graph's edges in the point view. Shows the trees built, the sampled
/// recall after each tree, the edge count, the mean and largest k-th neighbour distance, the
/// backend and each stage's time; "Show edges", the opacity (by default set from the number of
/// edges and the view's size), colour by length (a map of the edges' own) or by the points'
/// colours, edges over or under the points, and a length filter drive the view. A failed
/// run (bad parameters, too few points, a GPU fault) is reported and leaves the previous graph
/// on screen. "Import graph…" (importGraph) shows a graph built elsewhere instead, e.g. by
/// `mpirun ... clusterscope-cli knn --out graph.npy`, through the same path as a run's.
/// @code
/// KnnPanel panel(runner, view);
/// panel.setPointSet(points);
/// panel.setK(15);  // runs; panel.lastRun() holds the graph once resultChanged() fires
/// @endcode
class KnnPanel : public AlgorithmPanel {
    Q_OBJECT
public:
    KnnPanel(JobRunner& runner, PointCloudView& view, QWidget* parent = nullptr);
    ~KnnPanel() override;

    /// New data: forgets the graph (the view clears its edges itself) and cancels a run for the
    /// previous points. Nothing runs until run() or a parameter change.
    void setPointSet(std::shared_ptr<const PointSet> points) override;

    /// The parameters as the widgets show them.
    KnnParams params() const;
    /// Setters as the widgets: each re-runs when points are loaded.
    void setK(int k);
    void setTrees(int trees);
    void setLeafSize(int leafSize);
    void setTargetRecall(double recall);
    void setSeed(std::uint64_t seed);

    /// The run on screen (nullptr before the first, and after new points).
    std::shared_ptr<const KnnRun> lastRun() const { return m_run; }
    /// Writes the graph on screen as CSV: a "# knn k=... " parameter line, the header
    /// "source,target,distance", then one line per edge (point, neighbour, Euclidean distance),
    /// nearest neighbour first. Returns the error, or an empty string.
    QString exportEdges(const QString& path) const;
    /// Reads a graph written by clusterscope-cli knn --out (io::readKnnNpy: path the int32
    /// indices, its *_distances.npy beside it used when present) onto the points loaded, on a
    /// worker thread, then shows it as a run's: the view draws its edges, the statistics say it
    /// was imported. A run in flight is cancelled; a parameter change afterwards runs and
    /// replaces it; new points, a later import or a run asked for meanwhile drop it unread. On
    /// failure the previous graph stays and the error goes to the warning row and the log. Returns
    /// at once: the error that stopped it before reading (no points, no such file), or an empty
    /// string; importFinished() follows once the file is read, and isBusy() holds until then.
    QString importGraph(const QString& path);
    /// Asks for a .npy file and imports it (the Import graph… button, File ▸ Import kNN graph…).
    void importInteractively();
    /// The parameter line written to edge files ("knn k=10 trees=8 ...").
    QString parameterText() const;

    // The widgets, for tests and the automation.
    QSpinBox* kSpin() const { return m_kSpin; }
    QSpinBox* treesSpin() const { return m_treesSpin; }
    QSpinBox* leafSizeSpin() const { return m_leafSpin; }
    QDoubleSpinBox* recallSpin() const { return m_recallSpin; }
    QSpinBox* seedSpin() const { return m_seedSpin; }
    QCheckBox* showEdgesBox() const { return m_showEdges; }
    QSlider* opacitySlider() const { return m_opacity; }
    QCheckBox* autoOpacityBox() const { return m_autoOpacity; }
    QCheckBox* byLengthBox() const { return m_byLength; }
    QComboBox* edgeMapBox() const { return m_edgeMap; }
    QCheckBox* overPointsBox() const { return m_overPoints; }
    /// The length filter: per mille of the longest edge, shortest and longest drawn.
    QSlider* minLengthSlider() const { return m_minLength; }
    QSlider* maxLengthSlider() const { return m_maxLength; }
    QLabel* lengthLabel() const { return m_lengthLabel; }
    QLabel* recallLabel() const { return m_recall; }
    QPushButton* importButton() const { return m_importButton; }

    /// The statistics text for a run (shown in statisticsLabel()).
    static QString statisticsText(const KnnRun& run);
    /// The recall after each tree (shown in recallLabel()).
    static QString recallText(const KnnGraph& graph);

    bool isBusy() const override;
    bool hasResult() const override { return m_run != nullptr; }
    QString importedFrom() const override { return m_run ? m_run->importedFrom : QString(); }
    QString importResult(const QString& path) override { return importGraph(path); }
    QKeySequence viewShortcut() const override { return QKeySequence(tr("Ctrl+K")); }

signals:
    /// An import (importGraph) is over: the error, or an empty string when the graph is shown.
    void importFinished(const QString& error);

protected:
    bool hasInput() const override;
    void submitRun() override;
    void showOutcome(const JobOutcome& outcome) override;
    void setParameter(const QString& name, const ParameterValue& value) override;
    QString exportResult(const std::string& exportId, const QString& path) override;

private:
    /// Shows a finished run (built here or imported): the view's edges, the statistics, the
    /// log line; false when the graph is not of the points on screen.
    bool showRun(const std::shared_ptr<const KnnRun>& run, const JobOutcome& outcome);
    /// An import's failure: to the log, the status bar and the warning row; returns problem.
    QString importFailed(const QString& name, const QString& problem);
    void applyEdgeStyle();
    void applyAutoOpacity();

    PointCloudView& m_view;
    std::shared_ptr<const PointSet> m_points;
    std::shared_ptr<const KnnRun> m_run;
    int m_importGeneration = 0;  // the latest importGraph (new points count as one too)
    bool m_importing = false;    // its file is being read

    QSpinBox* m_kSpin = nullptr;
    QCheckBox* m_exactBox = nullptr;
    QSpinBox* m_treesSpin = nullptr;
    QSpinBox* m_leafSpin = nullptr;
    QDoubleSpinBox* m_recallSpin = nullptr;
    QSpinBox* m_seedSpin = nullptr;
    QCheckBox* m_showEdges = nullptr;
    QSlider* m_opacity = nullptr;
    QCheckBox* m_autoOpacity = nullptr;
    QCheckBox* m_byLength = nullptr;
    QComboBox* m_edgeMap = nullptr;
    QCheckBox* m_overPoints = nullptr;
    QSlider* m_minLength = nullptr;
    QSlider* m_maxLength = nullptr;
    QLabel* m_lengthLabel = nullptr;
    QLabel* m_recall = nullptr;
    QPushButton* m_importButton = nullptr;
};

}  // namespace cs::ui
