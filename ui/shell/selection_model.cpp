// SPDX-License-Identifier: MIT
#include "ui/shell/selection_model.h"

#include <algorithm>
#include <iterator>

namespace cs::ui {

void SelectionModel::combine(std::vector<std::uint32_t>& into,
                             std::span<const std::uint32_t> indices, Mode mode, std::size_t limit) {
    std::vector<std::uint32_t> given;
    given.reserve(indices.size());
    for (std::uint32_t i : indices)
        if (i < limit) given.push_back(i);
    std::sort(given.begin(), given.end());
    given.erase(std::unique(given.begin(), given.end()), given.end());
    std::vector<std::uint32_t> out;
    switch (mode) {
        case Mode::Replace:
            out = std::move(given);
            break;
        case Mode::Add:
            std::set_union(into.begin(), into.end(), given.begin(), given.end(),
                           std::back_inserter(out));
            break;
        case Mode::Remove:
            std::set_difference(into.begin(), into.end(), given.begin(), given.end(),
                                std::back_inserter(out));
            break;
    }
    into = std::move(out);
}

void SelectionModel::selectPoints(std::span<const std::uint32_t> indices, Mode mode) {
    combine(m_points, indices, mode, m_pointCount);
    emit changed();
}

void SelectionModel::selectSeries(std::span<const std::uint32_t> indices, Mode mode) {
    combine(m_series, indices, mode, m_seriesCount);
    emit changed();
}

std::size_t SelectionModel::setState(const State& state) {
    std::vector<std::uint32_t> points, series;
    combine(points, state.points, Mode::Replace, m_pointCount);
    combine(series, state.series, Mode::Replace, m_seriesCount);
    std::size_t dropped = 0;
    for (std::uint32_t i : state.points)
        dropped += i >= m_pointCount;
    for (std::uint32_t i : state.series)
        dropped += i >= m_seriesCount;
    if (points == m_points && series == m_series) return dropped;
    m_points = std::move(points);
    m_series = std::move(series);
    emit changed();
    return dropped;
}

void SelectionModel::invertPoints() {
    std::vector<std::uint32_t> out;
    out.reserve(m_pointCount - m_points.size());
    auto next = m_points.begin();
    for (std::uint32_t i = 0; i < m_pointCount; ++i) {
        if (next != m_points.end() && *next == i)
            ++next;
        else
            out.push_back(i);
    }
    m_points = std::move(out);
    emit changed();
}

void SelectionModel::clear() {
    if (m_points.empty() && m_series.empty()) return;
    m_points.clear();
    m_series.clear();
    emit changed();
}

void SelectionModel::setPointCount(std::size_t n) {
    m_pointCount = n;
    if (m_points.empty()) return;
    m_points.clear();
    emit changed();
}

void SelectionModel::setSeriesCount(std::size_t n) {
    m_seriesCount = n;
    if (m_series.empty()) return;
    m_series.clear();
    emit changed();
}

}  // namespace cs::ui
