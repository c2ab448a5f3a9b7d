// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/device_resident.h"
#include "compute/core/series_set.h"
#include "ui/views/series/matrix_heatmap_view.h"

namespace cs::ui {

/// A heat map of a series set: one row per series (grouped by class, a band of class colours at
/// the left), one column per sample, each row z-normalised (compute/core/series_matrix.h) and
/// coloured by viridis over ±3 standard deviations; samples past a series' end are background.
/// A MatrixHeatmapView whose fill is the series matrix: with a device copy of the series
/// (Backend::keepSeriesResident) and GL interop, a CUDA kernel writes the pixel buffer
/// (GlBufferLink::writeSeriesMatrix); else the host computes the matrix and uploads it.
class SeriesHeatmapView : public MatrixHeatmapView {
    Q_OBJECT
public:
    explicit SeriesHeatmapView(QWidget* parent = nullptr);
    ~SeriesHeatmapView() override;

    /// Shows channel `channel` of series order[0], order[1], ... (heatmapRows()); nullptr
    /// clears. A device copy given before stays in use when it is of the same set.
    void setRows(std::shared_ptr<const SeriesSet> series, std::vector<std::uint32_t> order,
                 std::size_t channel);
    /// The device copy of the series shown (or about to be), or nullptr.
    void setDeviceSeries(std::shared_ptr<const SeriesSet> series,
                         std::shared_ptr<const DeviceResident> copy);

    std::size_t rowCount() const { return m_order.size(); }
    const std::vector<std::uint32_t>& rows() const { return m_order; }

private:
    void refill();

    std::shared_ptr<const SeriesSet> m_series;
    std::vector<std::uint32_t> m_order;
    std::size_t m_channel = 0;
    std::shared_ptr<const SeriesSet> m_deviceOf;  // the set m_device copies
    std::shared_ptr<const DeviceResident> m_device;
};

}  // namespace cs::ui
