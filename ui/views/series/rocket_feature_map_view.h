// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/series_set.h"
#include "compute/rocket/rocket.h"
#include "ui/views/series/matrix_heatmap_view.h"

namespace cs::ui {

/// The ROCKET feature map: one row per series (grouped by class, the class band at the left, as
/// in the series heat map), one column per kernel, one feature (PPV or MAX) each column z-scored
/// over all series (rocketFeatureMap) and coloured by viridis over ±3. With features the CUDA
/// backend left on the device (RocketFeatures::device) and GL interop, a kernel writes the pixel
/// buffer (GlBufferLink::writeRocketFeatureMap); else the host computes the map and uploads it.
/// Columns beyond the largest texture are left out, and the title says so.
/// @code
/// view.setFeatures(series, features, kernels);
/// view.setRows(cs::heatmapRows(*series, {}, std::size_t(view.maxRows())));
/// view.setFeature(cs::RocketFeature::Max);
/// @endcode
class RocketFeatureMapView : public MatrixHeatmapView {
    Q_OBJECT
public:
    explicit RocketFeatureMapView(QWidget* parent = nullptr);
    ~RocketFeatureMapView() override;

    /// The features of series (from kernels) to show; nullptr features clear the map.
    void setFeatures(std::shared_ptr<const SeriesSet> series,
                     std::shared_ptr<const RocketFeatures> features,
                     std::shared_ptr<const RocketKernels> kernels);
    /// The series shown, top to bottom (indices into the set: heatmapRows()).
    void setRows(std::vector<std::uint32_t> order);
    /// Which feature the columns show.
    void setFeature(RocketFeature feature);

    RocketFeature feature() const { return m_feature; }
    std::size_t rowCount() const { return m_order.size(); }
    const std::vector<std::uint32_t>& rows() const { return m_order; }
    const std::shared_ptr<const RocketFeatures>& features() const { return m_features; }
    const std::shared_ptr<const SeriesSet>& series() const { return m_series; }

private:
    void refill();

    std::shared_ptr<const SeriesSet> m_series;
    std::shared_ptr<const RocketFeatures> m_features;
    std::shared_ptr<const RocketKernels> m_kernels;
    std::vector<std::uint32_t> m_order;
    RocketFeature m_feature = RocketFeature::Ppv;
};

}  // namespace cs::ui
