// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "compute/core/point_set.h"
#include "ui/views/legend.h"

namespace cs::ui {

/// Something a point cloud can be coloured by, as offered in View ▸ Colour by.
struct ColourOption {
    QString id;     ///< "uniform", "dim:<j>" (coordinate j), "attr:<name>" (an attribute)
    QString title;  ///< menu text: "Uniform", "Coordinate z", "intensity (scalar)"
};

/// Per-point colours (packed RGBA8, ColourMaps) and the legend that explains them.
/// @code
/// auto c = cs::ui::PointColouring::compute(points, "attr:truth", uniform);
/// if (c) view->setColours(c->rgba, c->legend);
/// @endcode
struct PointColouring {
    std::vector<std::uint32_t> rgba;  ///< one per point
    Legend legend;                    ///< categories with counts, or a colour bar

    /// What points can be coloured by: uniform, each coordinate, each attribute.
    static std::vector<ColourOption> options(const PointSet& points);
    /// The most telling option for a freshly loaded set: its colours, else its first label
    /// attribute, else its first scalar attribute, else the last of up to three coordinates
    /// (height for x y z), else uniform.
    static QString defaultOption(const PointSet& points);
    /// Colours for option id (nullopt when points has no such option). Labels take the
    /// categorical palette (noise grey), scalars and coordinates the viridis map over their
    /// finite range, colour attributes are used as they are. Noise labels and non-finite
    /// values get noiseRgba.
    static std::optional<PointColouring> compute(const PointSet& points, const QString& id,
                                                 std::uint32_t uniformRgba,
                                                 std::uint32_t noiseRgba);
    /// Colours for one value per point (values[i * stride + offset] for point i of n, e.g. the
    /// k-th neighbour distance of a kNN graph), as for a scalar attribute: the viridis map over
    /// the finite range, a colour bar titled title, noiseRgba for non-finite values.
    static PointColouring fromScalars(std::span<const float> values, std::size_t n,
                                      std::size_t stride, std::size_t offset, const QString& title,
                                      std::uint32_t noiseRgba);
};

}  // namespace cs::ui
