// SPDX-License-Identifier: MIT
#include "compute/core/series_quantities.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "compute/core/error.h"
#include "compute/core/parallel.h"

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

std::vector<float> columnZScores(const FeatureMatrix& matrix, std::span<const std::uint32_t> order,
                                 std::size_t layer, std::span<const std::uint32_t> columns) {
    checkShape(matrix);
    if (layer >= matrix.layers)
        throw Error("no layer " + num(layer) + " in the " + matrix.name + " (" +
                    num(matrix.layers) + " layers)");
    for (auto c : columns)
        if (c >= matrix.columns)
            throw Error("the map's column order names column " + num(c) + " of " +
                        num(matrix.columns));
    for (auto r : order)
        if (r >= matrix.rows)
            throw Error("the map's row order names series " + num(r) + " of " + num(matrix.rows));
    const std::size_t k = columns.size();
    std::vector<ColumnStatistics> stats(k);
    for (std::size_t c = 0; c < k; ++c)
        stats[c] = columnStatistics(matrix, columns[c], layer);
    std::vector<float> out(order.size() * k);
    for (std::size_t r = 0; r < order.size(); ++r)
        for (std::size_t c = 0; c < k; ++c)
            out[r * k + c] =
                float(stats[c].zScore(double(matrix.value(order[r], columns[c], layer))));
    return out;
}

const char* featureOrderName(FeatureOrder order) {
    switch (order) {
        case FeatureOrder::FStatistic:
            return "f-statistic";
        case FeatureOrder::Weight:
            return "weight";
        case FeatureOrder::Index:
            break;
    }
    return "index";
}

FeatureOrder featureOrderFromName(const std::string& name) {
    for (FeatureOrder o : {FeatureOrder::Index, FeatureOrder::FStatistic, FeatureOrder::Weight})
        if (name == featureOrderName(o)) return o;
    throw Error("unknown feature order '" + name + "' (index, f-statistic or weight)");
}

std::vector<double> featureFStatistics(const FeatureMatrix& matrix,
                                       std::span<const std::int32_t> labels, std::size_t layer) {
    checkShape(matrix);
    if (labels.size() != matrix.rows)
        throw Error(num(labels.size()) + " labels for " + num(matrix.rows) + " rows of the " +
                    matrix.name);
    if (layer >= matrix.layers) throw Error("no layer " + num(layer) + " in the " + matrix.name);
    std::vector<double> out(matrix.columns, 0.0);
    std::int32_t top = -1;
    for (auto l : labels)
        top = std::max(top, l);
    std::vector<std::size_t> counts(std::size_t(top + 1), 0);
    std::size_t n = 0;
    for (auto l : labels)
        if (l >= 0) {
            ++counts[std::size_t(l)];
            ++n;
        }
    const auto k = std::size_t(
        std::count_if(counts.begin(), counts.end(), [](std::size_t c) { return c > 0; }));
    if (k < 2 || n <= k) return out;
    // Blocks of columns, each pass going down the rows: the matrix is row-major, so a column at a
    // time would stride through all of it (a 100,000 x 20,000 ROCKET map: seconds). Each
    // column's sums still run over the rows in order, so the numbers do not depend on the blocks.
    constexpr std::size_t kBlock = 256;
    const std::size_t groups = counts.size();
    parallelFor((matrix.columns + kBlock - 1) / kBlock, nullptr,
                {.threads = threadsFor(matrix.rows * matrix.columns, std::size_t(1) << 22)},
                [&](std::size_t block, unsigned) {
                    const std::size_t first = block * kBlock;
                    const std::size_t width = std::min(kBlock, matrix.columns - first);
                    std::vector<double> sums(groups * width, 0.0), total(width, 0.0),
                        within(width, 0.0);
                    for (std::size_t r = 0; r < matrix.rows; ++r) {
                        if (labels[r] < 0) continue;
                        double* groupSums = sums.data() + std::size_t(labels[r]) * width;
                        for (std::size_t j = 0; j < width; ++j) {
                            const double v = double(matrix.value(r, first + j, layer));
                            groupSums[j] += v;
                            total[j] += v;
                        }
                    }
                    for (std::size_t r = 0; r < matrix.rows; ++r) {
                        if (labels[r] < 0) continue;
                        const auto g = std::size_t(labels[r]);
                        const double* groupSums = sums.data() + g * width;
                        for (std::size_t j = 0; j < width; ++j) {
                            const double d = double(matrix.value(r, first + j, layer)) -
                                             groupSums[j] / double(counts[g]);
                            within[j] += d * d;
                        }
                    }
                    for (std::size_t j = 0; j < width; ++j) {
                        const double mean = total[j] / double(n);
                        double between = 0.0;
                        for (std::size_t g = 0; g < groups; ++g)
                            if (counts[g] > 0) {
                                const double d = sums[g * width + j] / double(counts[g]) - mean;
                                between += double(counts[g]) * d * d;
                            }
                        // Rounding leaves a tiny between-class sum on constant columns: relative
                        // to the values' scale it is zero.
                        const double scale = between + within[j];
                        double& f = out[first + j];
                        if (!(between > 1e-12 * scale) || scale == 0.0)
                            f = 0.0;
                        else if (!(within[j] > 1e-12 * scale))
                            f = std::numeric_limits<double>::infinity();
                        else
                            f = (between / double(k - 1)) / (within[j] / double(n - k));
                    }
                });
    return out;
}

std::vector<double> featureScores(const FeatureMatrix& matrix, std::span<const std::int32_t> labels,
                                  std::size_t layer, FeatureOrder order) {
    switch (order) {
        case FeatureOrder::FStatistic:
            return featureFStatistics(matrix, labels, layer);
        case FeatureOrder::Weight: {
            if (matrix.weights.size() != matrix.columns * matrix.layers || layer >= matrix.layers)
                return {};
            std::vector<double> out(matrix.columns);
            for (std::size_t c = 0; c < matrix.columns; ++c)
                out[c] = matrix.weights[c * matrix.layers + layer];
            return out;
        }
        case FeatureOrder::Index:
            break;
    }
    return {};
}

std::vector<std::uint32_t> columnOrderByScore(std::span<const double> scores, std::size_t columns) {
    std::vector<std::uint32_t> order(columns);
    std::iota(order.begin(), order.end(), std::uint32_t(0));
    if (scores.size() != columns) return order;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const double x = scores[a], y = scores[b];
        if (std::isnan(y)) return !std::isnan(x);
        if (std::isnan(x)) return false;
        return x > y;
    });
    return order;
}

std::vector<float> classMeanZScores(const FeatureMatrix& matrix,
                                    std::span<const std::int32_t> labels, int classes,
                                    std::size_t layer, std::span<const std::uint32_t> columns) {
    checkShape(matrix);
    if (labels.size() != matrix.rows)
        throw Error(num(labels.size()) + " labels for " + num(matrix.rows) + " rows of the " +
                    matrix.name);
    const auto k = std::size_t(std::max(classes, 0));
    std::vector<std::size_t> counts(k, 0);
    for (auto l : labels)
        if (l >= 0 && std::size_t(l) < k) ++counts[std::size_t(l)];
    std::vector<float> out(k * columns.size(), std::numeric_limits<float>::quiet_NaN());
    std::vector<double> sums(k);
    for (std::size_t j = 0; j < columns.size(); ++j) {
        if (columns[j] >= matrix.columns)
            throw Error("no column " + num(columns[j]) + " in the " + matrix.name);
        const ColumnStatistics stats = columnStatistics(matrix, columns[j], layer);
        std::fill(sums.begin(), sums.end(), 0.0);
        for (std::size_t r = 0; r < matrix.rows; ++r)
            if (labels[r] >= 0 && std::size_t(labels[r]) < k)
                sums[std::size_t(labels[r])] +=
                    stats.zScore(double(matrix.value(r, columns[j], layer)));
        for (std::size_t g = 0; g < k; ++g)
            if (counts[g] > 0) out[g * columns.size() + j] = float(sums[g] / double(counts[g]));
    }
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
