// SPDX-License-Identifier: MIT
#include "compute/core/series_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "compute/core/error.h"

namespace cs {

std::vector<std::uint32_t> heatmapRows(const SeriesSet& series, std::span<const std::uint8_t> keep,
                                       std::size_t maxRows) {
    // Unlabelled series sort after every class.
    std::map<std::int64_t, std::vector<std::uint32_t>> byClass;
    for (std::size_t i = 0; i < series.n; ++i) {
        if (!keep.empty() && (i >= keep.size() || !keep[i])) continue;
        const std::int64_t label = i < series.labels.size() && series.labels[i] >= 0
                                       ? series.labels[i]
                                       : std::numeric_limits<std::int64_t>::max();
        byClass[label].push_back(std::uint32_t(i));
    }
    std::size_t total = 0;
    for (const auto& [label, rows] : byClass)
        total += rows.size();
    std::vector<std::uint32_t> out;
    out.reserve(std::min(total, maxRows));
    for (const auto& [label, rows] : byClass) {
        // Each class keeps its share of the rows, evenly spaced, at least one.
        const std::size_t share = total <= maxRows
                                      ? rows.size()
                                      : std::max<std::size_t>(1, rows.size() * maxRows / total);
        for (std::size_t k = 0; k < share && k < rows.size(); ++k)
            out.push_back(rows[k * rows.size() / share]);
    }
    if (out.size() > maxRows) out.resize(maxRows);
    return out;
}

SeriesMatrix seriesMatrix(const SeriesSet& series, std::span<const std::uint32_t> order,
                          std::size_t channel) {
    if (channel >= std::max<std::size_t>(series.channels, 1) && series.n > 0)
        throw Error("series heat map: channel " + std::to_string(channel) + " of " +
                    std::to_string(series.channels));
    SeriesMatrix m;
    m.rows = order.size();
    m.cols = series.length;
    m.values.assign(m.rows * m.cols, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t r = 0; r < m.rows; ++r) {
        const std::size_t i = order[r];
        if (i >= series.n) throw Error("series heat map: no series " + std::to_string(i));
        const std::span<const float> x = series.channel(i, channel);
        const std::size_t len =
            i < series.lengths.size() ? std::min<std::size_t>(series.lengths[i], m.cols) : m.cols;
        double sum = 0.0;
        for (std::size_t t = 0; t < len; ++t)
            sum += x[t];
        const double mean = len ? sum / double(len) : 0.0;
        double squares = 0.0;
        for (std::size_t t = 0; t < len; ++t)
            squares += (x[t] - mean) * (x[t] - mean);
        const double sd = len ? std::sqrt(squares / double(len)) : 0.0;
        const double scale = sd > 0.0 ? 1.0 / sd : 0.0;
        float* row = m.values.data() + r * m.cols;
        for (std::size_t t = 0; t < len; ++t)
            row[t] = float((x[t] - mean) * scale);
    }
    return m;
}

}  // namespace cs
