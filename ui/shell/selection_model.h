// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cs::ui {

/// The one selection every view shares: point indices of the point set on screen and series
/// indices of the series set on screen, each sorted and without repeats. Views and panels
/// write it (box selection, legend clicks, heat-map rows, --select) and redraw from changed();
/// none keeps a selection of its own, so selecting in one view highlights in all.
class SelectionModel : public QObject {
    Q_OBJECT
public:
    explicit SelectionModel(QObject* parent = nullptr) : QObject(parent) {}

    /// How a new set of indices combines with the selection.
    enum class Mode { Replace, Add, Remove };

    /// Everything selected, of both kinds (undo steps and sessions keep these).
    struct State {
        std::vector<std::uint32_t> points;  ///< ascending, no repeats
        std::vector<std::uint32_t> series;  ///< ascending, no repeats
        bool operator==(const State&) const = default;
    };
    State state() const { return {m_points, m_series}; }
    /// Sets both kinds at once (one changed()); indices past the counts are dropped and
    /// counted in the return value, so that a caller can say so.
    std::size_t setState(const State& state);

    const std::vector<std::uint32_t>& points() const { return m_points; }
    const std::vector<std::uint32_t>& series() const { return m_series; }
    bool hasPoints() const { return !m_points.empty(); }

    /// Selects these points (any order, repeats allowed); indices >= m_pointCount are dropped.
    void selectPoints(std::span<const std::uint32_t> indices, Mode mode = Mode::Replace);
    /// Selects these series, as selectPoints.
    void selectSeries(std::span<const std::uint32_t> indices, Mode mode = Mode::Replace);
    /// Selects every point that is not selected, and only those.
    void invertPoints();
    void clear();

    /// New data: the sizes the indices must stay below; clears the selection of that kind.
    void setPointCount(std::size_t n);
    void setSeriesCount(std::size_t n);
    std::size_t pointCount() const { return m_pointCount; }
    std::size_t seriesCount() const { return m_seriesCount; }

signals:
    void changed();

private:
    static void combine(std::vector<std::uint32_t>& into, std::span<const std::uint32_t> indices,
                        Mode mode, std::size_t limit);

    std::vector<std::uint32_t> m_points;
    std::vector<std::uint32_t> m_series;
    std::size_t m_pointCount = 0;
    std::size_t m_seriesCount = 0;
};

}  // namespace cs::ui
