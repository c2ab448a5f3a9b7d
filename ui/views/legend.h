// SPDX-License-Identifier: MIT
#pragma once

#include <QPalette>
#include <QRect>
#include <QString>
#include <QStringList>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ui/views/colour_maps.h"

class QFont;
class QPainter;

namespace cs::ui {

/// What a colouring means, for the overlay in a view's corner: a list of categories with their
/// colours and counts, or a colour bar from minimum to maximum.
struct Legend {
    enum class Kind { None, Categories, ColourBar };

    /// One category of a Kind::Categories legend.
    struct Entry {
        QString name;            ///< category name as in the data ("blob 1", "noise")
        std::uint32_t rgba = 0;  ///< packed RGBA8 (ColourMaps)
        std::size_t count = 0;   ///< points of that category
        /// The category's id in its result (a DBSCAN cluster id, -1 for noise), for clicks on
        /// the entry; none for rows that stand for no one category ("… 3 more clusters").
        std::optional<std::int32_t> category;
    };

    Kind kind = Kind::None;
    QString title;               ///< what is coloured ("truth", "intensity", "z")
    std::vector<Entry> entries;  ///< Kind::Categories, in index order (noise last)
    double minimum = 0.0;        ///< Kind::ColourBar: value at the bottom of the bar
    double maximum = 0.0;        ///< Kind::ColourBar: value at the top of the bar
    ColourMaps::Map map = ColourMaps::Map::Viridis;  ///< Kind::ColourBar: the bar's colours
    /// Kind::ColourBar: how many values fall in each of equal bins from minimum to maximum
    /// (bottom to top), drawn beside the bar; empty draws none.
    std::vector<std::size_t> histogram;
    std::size_t below = 0;  ///< Kind::ColourBar: values under minimum (drawn in its colour)
    std::size_t above = 0;  ///< Kind::ColourBar: values over maximum
    QString rangeNote;      ///< Kind::ColourBar: how the range was chosen ("2–98th percentile")
    /// Kind::ColourBar: below, above and the histogram were counted on an even sample and scaled
    /// to all values (the notes say "about").
    bool estimated = false;

    /// Most rows drawn; the rest are summarised in one "+ n more" line.
    static constexpr int kMaxRows = 16;

    /// The lines under a colour bar: rangeNote, and how many values lie outside the range.
    QStringList notes() const;
    /// Size the overlay needs with font metrics of painter's font.
    QSize sizeHint(const QPainter& painter) const;
    QSize sizeHint(const QFont& font) const;
    /// The entry whose row holds pos, for a legend painted with font at topRight; -1 for none.
    int entryAt(const QFont& font, const QPoint& topRight, const QPoint& pos) const;
    /// Draws the overlay with its top-right corner at topRight, in palette's colours (window
    /// colour, translucent, as the box; text colour for the words).
    /// highlighted: categories whose rows are marked (selected clusters), by Entry::category.
    void paint(QPainter& painter, const QPoint& topRight, const QPalette& palette,
               const std::vector<std::int32_t>& highlighted = {}) const;
};

}  // namespace cs::ui
