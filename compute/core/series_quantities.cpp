// SPDX-License-Identifier: MIT
#include "compute/core/series_quantities.h"

#include <cmath>

#include "compute/core/error.h"

namespace cs {
namespace {

std::string num(std::size_t v) {
    return std::to_string(v);
}

void checkShape(const FeatureMatrix& m) {
    if (m.values.size() != m.rows * m.columns * m.layers)
        throw Error("the " + m.name + " hold " + num(m.values.size()) + " values, expected " +
                    num(m.rows) + " x " + num(m.columns) + " x " + num(m.layers));
}

}  // namespace

ColumnStatistics columnStatistics(const FeatureMatrix& matrix, std::size_t column,
                                  std::size_t layer) {
    ColumnStatistics s;
    const std::size_t n = matrix.rows;
    if (n == 0) return s;
    double sum = 0.0;
    for (std::size_t r = 0; r < n; ++r)
        sum += double(matrix.value(r, column, layer));
    s.mean = sum / double(n);
    double squares = 0.0;
    for (std::size_t r = 0; r < n; ++r) {
        const double d = double(matrix.value(r, column, layer)) - s.mean;
        squares += d * d;
    }
    s.deviation = std::sqrt(squares / double(n));
    return s;
}

std::vector<float> columnZScores(const FeatureMatrix& matrix, std::span<const std::uint32_t> order,
                                 std::size_t layer, std::size_t columns) {
    checkShape(matrix);
    if (columns > matrix.columns)
        throw Error("a map of " + num(columns) + " columns of the " + matrix.name +
                    ", which have " + num(matrix.columns));
    if (layer >= matrix.layers)
        throw Error("no layer " + num(layer) + " in the " + matrix.name + " (" +
                    num(matrix.layers) + " layers)");
    for (auto r : order)
        if (r >= matrix.rows)
            throw Error("the map's row order names series " + num(r) + " of " + num(matrix.rows));
    std::vector<ColumnStatistics> stats(columns);
    for (std::size_t c = 0; c < columns; ++c)
        stats[c] = columnStatistics(matrix, c, layer);
    std::vector<float> out(order.size() * columns);
    for (std::size_t r = 0; r < order.size(); ++r)
        for (std::size_t c = 0; c < columns; ++c)
            out[r * columns + c] = float(stats[c].zScore(double(matrix.value(order[r], c, layer))));
    return out;
}

std::vector<std::vector<std::size_t>> SeriesGroups::membersByGroup() const {
    std::vector<std::vector<std::size_t>> out(groups);
    for (std::size_t i = 0; i < groupOf.size(); ++i)
        if (groupOf[i] >= 0 && std::size_t(groupOf[i]) < groups)
            out[std::size_t(groupOf[i])].push_back(i);
    return out;
}

}  // namespace cs
