// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/series_set.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_pipeline.h"
#include "ui/panels/algorithm_panel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace cs::ui {

class RocketSweepBox;
class SeriesView;
class WarningRow;

/// One finished ROCKET run as the panel shows it: the kernels and features of the series, and,
/// when the set has labels to learn from, the ridge classifier and its scores.
struct RocketRun {
    RocketParams params;
    std::shared_ptr<const SeriesSet> series;           ///< the set the features are of
    std::shared_ptr<const RocketKernels> kernels;      ///< ROCKET's kernels (null for the others)
    std::shared_ptr<const MiniRocketModel> miniModel;  ///< MiniRocket's / MultiRocket's fit
    std::shared_ptr<const RocketFeatures> features;
    /// The classifier, fitted on the training rows (isTest == 0 and a label; every labelled row
    /// when the set has no split); null when there is nothing to fit (classifierNote says why).
    std::shared_ptr<const RidgeModel> model;
    QString classifierNote;
    std::vector<std::int32_t> predictions;  ///< predicted class per series (with a model)
    std::size_t trainCount = 0;             ///< rows the classifier was fitted on
    std::size_t testCount = 0;              ///< labelled test rows it was scored on
    double testAccuracy = -1.0;             ///< on the labelled test rows; -1 without them
    /// Test rows by true class (rows) and predicted class (columns), classes x classes.
    std::vector<std::size_t> confusion;
    int classes = 0;
};

/// The ROCKET panel for time-series sets: the variant (ROCKET, MiniRocket, MultiRocket), kernels
/// (100 .. 100,000) and seed; Run, and every
/// change re-runs through the JobRunner (kind "rocket", latest wins, debounced: 10,000 kernels
/// take about a second on the CPU). A run draws the kernels for the set's length and channels
/// (fitRocketTransform: ROCKET's kernels, or MiniRocket's model fitted on the training rows),
/// computes the features (applyRocketTransform), fits the ridge
/// classifier on the training rows (Backend::ridgeFit) and predicts the test rows
/// (ridgePredict). Shows the test accuracy (the leave-one-out accuracy without a split), the
/// leave-one-out accuracy, the chosen alpha, a confusion matrix of the test rows, the row and
/// class counts, the backend and each stage's time; the series view shows the features as a
/// feature map, ordered by featureOrder (the F statistic or the ridge weights; a view parameter
/// that re-runs nothing). A click on a confusion-matrix cell selects its test series. A set without
/// labels gets features and the map, and the panel says why there is no classifier. A failed run is
/// reported and leaves the previous result on screen.
/// @code
/// RocketPanel panel(runner, seriesView);
/// panel.setSeriesSet(series);
/// panel.setKernels(2000);  // runs; panel.lastRun() holds the result once resultChanged() fires
/// @endcode
class RocketPanel : public AlgorithmPanel {
    Q_OBJECT
public:
    RocketPanel(JobRunner& runner, SeriesView& view, QWidget* parent = nullptr);
    ~RocketPanel() override;

    /// New data: forgets the result (and the view's features) and cancels a run for the
    /// previous set. Nothing runs until run() or a parameter change.
    void setSeriesSet(std::shared_ptr<const SeriesSet> series) override;

    /// The parameters as the widgets show them.
    RocketParams params() const;
    /// The generic rows' values with the variant, whose combo box is the panel's own.
    ParameterValues parameterValues() const override;
    /// Setters as the widgets: each re-runs when series are loaded.
    void setKernels(int kernels);
    void setSeed(std::uint64_t seed);
    void setVariant(RocketVariant variant);

    /// The run on screen (nullptr before the first, and after new data).
    std::shared_ptr<const RocketRun> lastRun() const { return m_run; }
    /// Writes the features on screen as .npy: n x 2K float32, [PPV, MAX] per kernel. Returns
    /// the error, or an empty string.
    QString exportFeatures(const QString& path) const;
    /// Writes the predictions as CSV: a "# rocket kernels=..." parameter line, the header
    /// "index,split,label,predicted" (class names; split train, test or all), one line per
    /// series. Returns the error, or an empty string.
    QString exportPredictions(const QString& path) const;
    /// The parameter line written to prediction files ("rocket kernels=10000 seed=1 ...").
    QString parameterText() const;

    // The widgets, for tests and the automation.
    QSpinBox* kernelsSpin() const { return m_kernelsSpin; }
    QSpinBox* seedSpin() const { return m_seedSpin; }
    QComboBox* variantBox() const { return m_variantBox; }
    QCheckBox* normaliseBox() const { return m_normaliseBox; }
    QLabel* classifierLabel() const { return m_classifier; }
    QTableWidget* confusionTable() const { return m_confusion; }
    /// The confusion matrix with its axis captions (true class down, predicted across).
    QWidget* confusionBox() const { return m_confusionBox; }
    /// The test series of the run on screen with this true and predicted class (ascending):
    /// what a click on that confusion-matrix cell selects.
    std::vector<std::uint32_t> confusionMembers(int trueClass, int predictedClass) const;
    /// The confusion-matrix cell shading: the share (0 .. 1) of the highlight colour mixed into
    /// the base colour for a cell of count items when the largest cell holds most.
    static double confusionShade(std::size_t count, std::size_t most);

    /// The statistics text for a run (shown in statisticsLabel()).
    static QString statisticsText(const RocketRun& run);
    /// The classifier text for a run (shown in classifierLabel()).
    static QString classifierText(const RocketRun& run);
    /// The panel's job: kernels, features, classifier, scores (on the worker thread).
    static RocketRun compute(std::shared_ptr<const SeriesSet> series, const RocketParams& params,
                             Backend& backend, JobControl& job);

    bool hasResult() const override { return m_run != nullptr; }
    QKeySequence viewShortcut() const override { return QKeySequence(tr("Ctrl+Shift+R")); }

    /// Accuracy by number of kernels (RocketSweepBox) with the variant, seed and normalisation
    /// in use; a count clicked on its chart becomes the panel's kernels (an edit: it re-runs
    /// and can be undone).
    bool hasSweep() const override { return true; }
    void sweep() override;
    bool isBusy() const override;
    void cancel() override;
    RocketSweepBox* sweepBox() const { return m_sweepBox; }
    /// sweepKernels: the sweep box's kernel counts, as typed ("100,200,500").
    QVariantMap sweepRange() const override;
    void setSweepRange(const QVariantMap& range) override;

protected:
    bool hasInput() const override;
    void submitRun() override;
    void showOutcome(const JobOutcome& outcome) override;
    void setParameter(const QString& name, const ParameterValue& value) override;
    QString exportResult(const std::string& exportId, const QString& path) override;

private:
    void showConfusion(const RocketRun& run);
    void buildConfusionBox();
    void selectConfusionCell(int row, int column);
    void saveVariant();
    void saveFeatureOrder();

    SeriesView& m_view;
    std::shared_ptr<const SeriesSet> m_series;
    std::shared_ptr<const RocketRun> m_run;

    QSpinBox* m_kernelsSpin = nullptr;
    QSpinBox* m_seedSpin = nullptr;
    QComboBox* m_variantBox = nullptr;
    QCheckBox* m_normaliseBox = nullptr;
    QLabel* m_classifier = nullptr;
    QTableWidget* m_confusion = nullptr;
    RocketSweepBox* m_sweepBox = nullptr;
    QWidget* m_confusionBox = nullptr;
};

}  // namespace cs::ui
