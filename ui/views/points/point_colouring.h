// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "compute/core/point_set.h"
#include "ui/views/colour_maps.h"
#include "ui/views/legend.h"

namespace cs::ui {

/// How scalars (a scalar attribute, a coordinate, a kNN distance) become colours: the map, and
/// the range of values spread over it. By default a robust range, the 2nd to the 98th
/// percentile, so that a few outliers do not squeeze every other value into one colour; values
/// outside take the end colours.
struct ScalarStyle {
    ColourMaps::Map map = ColourMaps::Map::Viridis;
    double lowPercentile = 2.0;     ///< in [0, 100]
    double highPercentile = 98.0;   ///< in [lowPercentile, 100]
    std::optional<double> minimum;  ///< a value given: replaces the low percentile
    std::optional<double> maximum;  ///< a value given: replaces the high percentile
    /// Bins of the legend's histogram.
    static constexpr int kHistogramBins = 32;
    /// Most values a percentile reads exactly; larger sets are sampled evenly.
    static constexpr std::size_t kPercentileSample = std::size_t(1) << 22;

    /// The p-th percentile (0-100) of the finite values, linear between ranks as numpy's
    /// default; NaN when none is finite.
    static double percentile(std::span<const float> values, double p);
    /// Parses "pLOW:pHIGH" (percentiles, "p2:p98") or "MIN:MAX" (values, "0.1:2.5"); false
    /// with a message in *error otherwise.
    bool parseRange(const QString& text, QString* error);
    /// The range in parseRange's syntax.
    QString rangeText() const;
    bool operator==(const ScalarStyle&) const = default;
};

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
    /// categorical palette (noise grey), scalars and coordinates style's map over style's
    /// range (a colour bar with a histogram), colour attributes are used as they are. Noise labels
    /// and non-finite values get noiseRgba.
    static std::optional<PointColouring> compute(const PointSet& points, const QString& id,
                                                 std::uint32_t uniformRgba, std::uint32_t noiseRgba,
                                                 const ScalarStyle& style = {});
    /// Colours for one value per point (values[i * stride + offset] for point i of n, e.g. the
    /// k-th neighbour distance of a kNN graph), as for a scalar attribute: the viridis map over
    /// the finite range, a colour bar titled title, noiseRgba for non-finite values.
    static PointColouring fromScalars(std::span<const float> values, std::size_t n,
                                      std::size_t stride, std::size_t offset, const QString& title,
                                      std::uint32_t noiseRgba, const ScalarStyle& style = {});
};

}  // namespace cs::ui
