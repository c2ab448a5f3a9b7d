// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace cs::ui {

/// Data colours (not widget chrome): the categorical palette for labels and classes, shared by
/// the point and series views so that a class has one colour everywhere, and a viridis-like
/// colour map for scalars.
///
/// Per-point colours are packed RGBA8 in memory order R, G, B, A, i.e. the uint32 value
/// r | g << 8 | b << 16 | a << 24 on little-endian machines: the layout the GL colour buffer
/// uses, so that CUDA kernels can later write it directly. Alpha 0 hides a point, alpha in
/// (0, 255) puts it behind the opaque ones (PointCloudView::setColours).
class ColourMaps {
public:
    /// Alpha of de-emphasised points (noise): drawn behind all opaque points by the point view.
    static constexpr std::uint32_t kBehindAlpha = 128;

    /// Packs 8-bit channels.
    static constexpr std::uint32_t packRgba(std::uint32_t r, std::uint32_t g, std::uint32_t b,
                                            std::uint32_t a = 255) {
        return r | (g << 8) | (b << 16) | (a << 24);
    }
    /// Packs a QColor.
    static std::uint32_t packRgba(const QColor& c) {
        return packRgba(c.red(), c.green(), c.blue(), c.alpha());
    }
    /// Unpacks to a QColor.
    static QColor toColor(std::uint32_t rgba) {
        return QColor(rgba & 0xff, (rgba >> 8) & 0xff, (rgba >> 16) & 0xff, rgba >> 24);
    }
    /// Converts 0xRRGGBB (PointAttribute::Kind::Colour) to packed RGBA8, opaque.
    static std::uint32_t fromRgb24(std::uint32_t rgb) {
        return packRgba((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
    }

    /// Colour of category index (0, 1, 2 ...): ten hand-picked, then golden-angle hues.
    /// Negative indices (noise, unknown) give noiseColour().
    static QColor categorical(int index);
    /// Packed categorical(0) .. categorical(count - 1), from a table kept between calls
    /// (thread-safe): the DBSCAN worker needs tens of thousands of them after every run.
    /// @code std::vector<std::uint32_t> slotColours = ColourMaps::categoricalRgba(maxSlot + 1);
    /// @endcode
    static std::vector<std::uint32_t> categoricalRgba(int count);
    /// The grey of noise and unknown labels; mid-grey so it reads on light and dark backgrounds.
    static QColor noiseColour();
    /// Noise grey drawn a third of the way toward background, so that noise recedes behind
    /// the clusters in a dense view, whatever the theme.
    static QColor noiseColour(const QColor& background);
    /// The scalar colour map at t in [0, 1] (clamped; NaN gives noiseColour()).
    static QColor viridis(double t);
    /// Packed viridis from a 256-entry table (fast path for millions of points).
    static std::uint32_t viridisRgba(float t);

    /// The scalar maps offered for quantities (View ▸ Colour map) and for kNN edges.
    enum class Map {
        Viridis,      ///< perceptually uniform, dark blue to yellow (the default)
        Magma,        ///< perceptually uniform, black to pale yellow (the edges' default)
        Diverging,    ///< blue, grey-white at the middle, red (coolwarm): values around a centre
        Categorical,  ///< ten steps of the categorical palette: bands of equal width
    };
    static constexpr std::array<Map, 4> kMaps = {Map::Viridis, Map::Magma, Map::Diverging,
                                                 Map::Categorical};
    /// "viridis", "magma", "diverging", "categorical".
    static QString mapName(Map map);
    static QStringList mapNames();
    /// The map of a name (case-insensitive), or nullopt.
    static std::optional<Map> mapFromName(const QString& name);
    /// Map at t in [0, 1] (clamped; NaN gives noiseColour()).
    static QColor colour(Map map, double t);
    /// Packed, from the map's 256-entry table.
    static std::uint32_t rgba(Map map, float t);
    /// The map's 256-entry table (packed RGBA8, opaque), e.g. for a GL texture.
    static const std::array<std::uint32_t, 256>& table(Map map);
};

}  // namespace cs::ui
