// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/series_quantities.h"
#include "compute/core/series_set.h"

class QChart;
class QChartView;
class QComboBox;
class QGridLayout;
class QLabel;
class QLineSeries;
class QScrollArea;
class QStackedWidget;

namespace cs::ui {

class FeatureMatrixView;
class SeriesHeatmapView;

/// The time-series view: series as lines coloured by class (the categorical palette of the
/// point view), one legend entry per class with its count, a channel selector for multivariate
/// sets, and the train/test split (test series dashed; a filter shows either part alone).
/// At most maxDrawn() series are drawn, sampled evenly across classes, and long series are
/// decimated (min/max per bucket) so that large sets stay responsive; a note says so.
/// Variable-length series are drawn to their true length. Once a feature matrix of the set
/// exists (setFeatureMatrix: ROCKET's features), a third style shows it (FeatureMatrixView) with
/// a layer selector (PPV/MAX), its rows in the heat map's order. Once groups of the set exist
/// (setGroups: k-Shape's clusters), a fourth style shows them as small multiples: one chart per
/// group with a sample of its members, each aligned to the summary line, and that line bold.
class SeriesView : public QWidget {
    Q_OBJECT
public:
    /// Which part of a train/test split is shown.
    enum class Split { All, Train, Test };
    /// Lines (a sample of the series), a heat map of all of them (SeriesHeatmapView), the
    /// feature map of all of them (FeatureMatrixView; offered once a feature matrix exists), or
    /// the groups as small multiples (offered once groups exist).
    enum class Style { Lines, Heatmap, FeatureMap, Clusters };

    explicit SeriesView(QWidget* parent = nullptr);
    ~SeriesView() override;

    /// Shows series (nullptr clears the view), channel 0, both parts of a split. name titles
    /// the chart (default: the file name of the series' source).
    void setSeriesSet(std::shared_ptr<const SeriesSet> series, const QString& name = {});
    std::shared_ptr<const SeriesSet> seriesSet() const { return m_series; }

    /// Channel shown (0-based).
    int channel() const { return m_channel; }
    void setChannel(int channel);
    Split split() const { return m_split; }
    void setSplit(Split split);
    Style style() const { return m_style; }
    /// Style::FeatureMap is refused (false) while there is no feature matrix, Style::Clusters
    /// while there are no groups.
    bool setStyle(Style style);
    /// The device copy of the series shown (Backend::keepSeriesResident), for the heat map.
    void setDeviceSeries(std::shared_ptr<const SeriesSet> series,
                         std::shared_ptr<const DeviceResident> copy);
    SeriesHeatmapView* heatmapView() const { return m_heatmap; }
    /// The selected series (sorted indices of the set shown): the heat map and the feature map
    /// highlight their rows, the lines chart draws them bold over the others (fainter), the
    /// cluster charts draw them in the highlight colour.
    void setSelectedSeries(std::vector<std::uint32_t> selected);
    const std::vector<std::uint32_t>& selectedSeries() const { return m_selected; }
    /// How a request changes the shared selection (SelectionModel::Mode's cases).
    enum class SelectAction { Replace, Add, Remove };
    /// Asks for a selection change (emits seriesSelectionRequested): for panels that select
    /// series (a confusion-matrix cell).
    void requestSelection(std::vector<std::uint32_t> indices, SelectAction action);
    /// The order of the feature map's columns (default: by the F statistic of the classes).
    FeatureOrder featureOrder() const;
    void setFeatureOrder(FeatureOrder order);
    /// The line of series index on the Lines chart, or nullptr when it is not drawn.
    QLineSeries* lineOf(std::size_t index) const;
    /// A feature matrix of the set shown, for the feature map; an empty one clears it (the view
    /// leaves the feature map). A matrix of another set is refused (false). A new set clears it.
    bool setFeatureMatrix(std::shared_ptr<const SeriesSet> series, FeatureMatrix matrix);
    bool hasFeatureMatrix() const;
    /// The layer the feature map shows (PPV or MAX of ROCKET's features).
    std::size_t featureLayer() const;
    void setFeatureLayer(std::size_t layer);
    FeatureMatrixView* featureMatrixView() const { return m_featureMap; }
    /// Groups of the set shown, for the Clusters style; empty ones clear them (the view leaves
    /// the Clusters style). Groups of another set are refused (false). A new set clears them.
    bool setGroups(std::shared_ptr<const SeriesSet> series, SeriesGroups groups);
    bool hasGroups() const { return bool(m_groups); }
    const SeriesGroups& groups() const { return m_groups; }
    /// The group charts (Clusters style), one per group in group order; empty until the style
    /// has been shown with groups. Each holds the sampled members (faint) and, last, the
    /// summary line (named SeriesGroups::summaryName: "centroid").
    const std::vector<QChart*>& clusterCharts() const { return m_clusterCharts; }
    /// Members drawn per group chart at most.
    int maxMembersPerCluster() const;
    /// The style selector and the layer selector (for tests).
    QComboBox* styleBox() const { return m_styleBox; }
    QComboBox* featureBox() const { return m_featureBox; }
    QComboBox* orderBox() const { return m_orderBox; }
    /// True when the visible heat map (if any) shows its latest content, or cannot draw; in the
    /// Clusters style, once the cluster charts have painted.
    bool isContentDrawn() const;
    /// The cap on drawn series.
    int maxDrawn() const { return m_maxDrawn; }
    void setMaxDrawn(int count);

    /// Series on the chart now.
    int drawnSeriesCount() const { return int(m_drawn.size()); }
    /// Indices (into the SeriesSet) of the series on the chart, in drawing order.
    const std::vector<std::size_t>& drawnSeries() const { return m_drawn; }
    /// Series that pass the split filter (drawn or not).
    int shownSeriesCount() const { return m_shownCount; }
    /// Legend texts, one per class: "name (count)".
    QStringList legendEntries() const;
    /// The note above the chart (what is shown, what was left out).
    QString note() const;
    QChart* chart() const { return m_chart; }
    QChartView* chartView() const { return m_chartView; }

    /// Picks at most cap of candidates, spread evenly over the classes (classOf[i] is the class
    /// of candidates[i]): every class gets an equal share, classes smaller than their share
    /// give the rest to the others; within a class the picks are evenly spaced. The result
    /// interleaves the classes so that no class is drawn entirely on top of another.
    static std::vector<std::size_t> sampleAcrossClasses(std::span<const std::size_t> candidates,
                                                        std::span<const int> classOf, int cap);

    static constexpr int kDefaultMaxDrawn = 300;
    /// Longer series are decimated to about this many points.
    static constexpr int kMaxPointsPerSeries = 1000;
    /// Members drawn per cluster chart at most (fewer when k is large).
    static constexpr int kMaxMembersPerCluster = 30;
    /// Member lines over all cluster charts at most.
    static constexpr int kMaxClusterMembersTotal = 640;
    /// Series in the small cluster charts are decimated to about this many points.
    static constexpr int kMaxPointsPerClusterSeries = 300;
    /// Selected series drawn at most (on the lines chart, and per cluster chart).
    static constexpr int kMaxSelectedDrawn = 100;
    /// The pen width of a selected series' line.
    static constexpr double kSelectedLineWidth = 2.6;

signals:
    /// The chart was rebuilt (new data, channel or filter).
    void chartUpdated();
    /// A click on a series: a line, a heat-map row or a member in a cluster chart.
    void seriesClicked(qint64 index, Qt::KeyboardModifiers modifiers);
    /// What a click asks of the shared selection: a plain click selects the series alone,
    /// Ctrl+click adds it or takes it out, Shift+click on a heat-map or feature-map row selects
    /// the rows from the last clicked one to it (on a line: adds it).
    void seriesSelectionRequested(const std::vector<std::uint32_t>& indices,
                                  cs::ui::SeriesView::SelectAction action);
    /// The user chose another feature order.
    void featureOrderChanged(cs::FeatureOrder order);

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    void markSelectedRows();
    /// A click on series index; rows: the matrix rows it was clicked in (for Shift ranges).
    void clickSeries(std::size_t index, Qt::KeyboardModifiers modifiers,
                     const std::vector<std::uint32_t>* rows);
    void rebuildClusters();
    void clearClusters();
    void applyPalette();
    void applyChartPalette(QChart* chart) const;
    void updateControls();

    std::shared_ptr<const SeriesSet> m_series;
    QString m_name;
    int m_channel = 0;
    Split m_split = Split::All;
    int m_maxDrawn = kDefaultMaxDrawn;
    std::vector<std::size_t> m_drawn;
    int m_shownCount = 0;

    Style m_style = Style::Lines;
    std::vector<std::uint32_t> m_selected;  // sorted series indices
    std::optional<std::uint32_t> m_anchor;  // the series a Shift+click range starts from
    bool m_rebuildQueued = false;           // a rebuild for a new selection is on its way
    QComboBox* m_orderBox = nullptr;
    SeriesHeatmapView* m_heatmap = nullptr;
    FeatureMatrixView* m_featureMap = nullptr;
    QStackedWidget* m_stack = nullptr;
    QComboBox* m_styleBox = nullptr;
    QComboBox* m_featureBox = nullptr;
    SeriesGroups m_groups;
    bool m_clustersDirty = true;  // the group charts do not show m_groups yet
    std::vector<QChart*> m_clusterCharts;
    QWidget* m_firstClusterViewport = nullptr;  // its first paint means the charts are drawn
    bool m_clustersPainted = false;
    QScrollArea* m_clusterArea = nullptr;
    QWidget* m_clusterGrid = nullptr;
    QGridLayout* m_clusterLayout = nullptr;
    QChart* m_chart = nullptr;
    QChartView* m_chartView = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_note = nullptr;
    QLabel* m_channelLabel = nullptr;
    QComboBox* m_channelBox = nullptr;
    QLabel* m_splitLabel = nullptr;
    QComboBox* m_splitBox = nullptr;
};

}  // namespace cs::ui
