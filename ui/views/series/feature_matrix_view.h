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
};

}  // namespace cs::ui
