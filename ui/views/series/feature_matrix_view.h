// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/series_quantities.h"
#include "compute/core/series_set.h"
#include "ui/views/series/matrix_heatmap_view.h"

namespace cs::ui {

/// A feature matrix of a series set (ROCKET's features): one row per series (grouped by class,
/// the class band at the left, as in the series heat map), one column per feature column, one
/// layer (PPV or MAX) each column z-scored over all series (columnZScores) and coloured by
/// viridis over ±3. With a matrix on the device (FeatureMatrix::device) and GL interop, a kernel
/// writes the pixel buffer (GlBufferLink::writeColumnZScores); else the host computes the map
/// and uploads it. Columns beyond the largest texture are left out, and the title says so.
/// The columns can be ordered by how well they separate the classes (setOrder: the F statistic,
/// or a classifier's weights), the most separating at the left; an ordered map goes through GL
/// interop too (GlBufferLink::writeOrderedColumnZScores). Above the map, the mean z-score of each
/// class in each column (classMeanZScores).
/// @code
/// view.setMatrix(series, cs::rocketFeatureMatrix(features, kernels));
/// view.setRows(cs::heatmapRows(*series, {}, std::size_t(view.maxRows())));
/// view.setLayer(1);
/// @endcode
class FeatureMatrixView : public MatrixHeatmapView {
    Q_OBJECT
public:
    explicit FeatureMatrixView(QWidget* parent = nullptr);
    ~FeatureMatrixView() override;

    /// The matrix of series to show; an empty matrix clears the map. The layer stays when the
    /// new matrix has it, else it is 0.
    void setMatrix(std::shared_ptr<const SeriesSet> series, FeatureMatrix matrix);
    /// The series shown, top to bottom (indices into the set: heatmapRows()).
    void setRows(std::vector<std::uint32_t> order);
    /// Which layer the columns show (out of range: ignored).
    void setLayer(std::size_t layer);
    /// How the columns are ordered (default: as computed). FStatistic needs labels of two
    /// classes or more, Weight the matrix's weights; without them the map falls back to the
    /// next (Weight to FStatistic, FStatistic to Index): orderShown() says which is in use.
    void setOrder(FeatureOrder order);
    FeatureOrder order() const { return m_orderAsked; }
    FeatureOrder orderShown() const { return m_orderShown; }
    /// The matrix columns drawn, left to right (all of them, of which the first shownColumns()).
    const std::vector<std::uint32_t>& columnOrder() const { return m_columns; }
    /// The scores the columns are ordered by (one per matrix column; empty for Index).
    const std::vector<double>& columnScores() const { return m_scores; }

    std::size_t layer() const { return m_layer; }
    std::size_t rowCount() const { return m_order.size(); }
    const std::vector<std::uint32_t>& rows() const { return m_order; }
    const FeatureMatrix& matrix() const { return m_matrix; }
    const std::shared_ptr<const SeriesSet>& series() const { return m_series; }

private:
    void refill();

    std::shared_ptr<const SeriesSet> m_series;
    FeatureMatrix m_matrix;
    std::vector<std::uint32_t> m_order;
    std::size_t m_layer = 0;
    FeatureOrder m_orderAsked = FeatureOrder::Index;
    FeatureOrder m_orderShown = FeatureOrder::Index;
    std::vector<std::uint32_t> m_columns;
    std::vector<double> m_scores;
    struct ScoreCache {
        std::shared_ptr<const void> owner;  // the matrix's result
        std::shared_ptr<const SeriesSet> series;
        std::vector<double> weights;
        std::size_t layer = 0;
        FeatureOrder order = FeatureOrder::Index;
        std::vector<double> scores;
        std::vector<std::uint32_t> columns;
    };
    ScoreCache m_cache;
    struct MeansCache {
        std::shared_ptr<const void> owner;
        std::shared_ptr<const SeriesSet> series;
        std::size_t layer = 0;
        std::shared_ptr<const std::vector<float>> values;  // classes x all columns
    };
    MeansCache m_means;
};

}  // namespace cs::ui
