// SPDX-License-Identifier: MIT
#pragma once

// What the series view draws besides the series themselves, whichever algorithm made it (the
// point quantities' model, compute/core/point_quantities.h): a matrix of values per series
// (ROCKET's features, drawn as a heat map with the rows grouped by class) and series in groups
// (k-Shape's clusters, drawn as small multiples with a bold summary line each). An algorithm
// adapts its result to these in its own folder (rocket_quantities.h, kshape_quantities.h); the
// views and the GL interop know only these.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/device_resident.h"

namespace cs {

/// Values per series of a set: one row per series (in the set's order), `columns` columns and
/// `layers` values per cell, interleaved: value(r, c, l) = values[(r columns + c) layers + l].
/// A view shows one layer at a time, each column z-scored over all rows (columnZScores).
struct FeatureMatrix {
    std::size_t rows = 0;
    std::size_t columns = 0;
    std::size_t layers = 1;
    std::span<const float> values;  ///< rows x columns x layers
    /// The same values on the accelerator (a backend's device matrix), for writing the map
    /// through GL interop; null when they are on the host only.
    std::shared_ptr<const DeviceResident> device;
    std::string name;                     ///< what the matrix is: "ROCKET features"
    std::string columnName;               ///< what a column is: "kernel"
    std::vector<std::string> layerNames;  ///< one per layer: "PPV", "MAX"
    std::string layerHelp;                ///< what the layers are, for a tooltip
    /// A column's own parameters for a read-out ("length 9, dilation 4, padding 0"); may be
    /// empty.
    std::function<std::string(std::size_t column)> describeColumn;
    /// How much a classifier of the rows weighs each value (|ridge weights| over the classes),
    /// columns x layers interleaved as the values; empty without a classifier.
    std::vector<double> weights;
    std::string weightName;             ///< what the weights are: "ridge weight"
    std::shared_ptr<const void> owner;  ///< keeps values alive; the result it came from

    float value(std::size_t row, std::size_t column, std::size_t layer) const {
        return values[(row * columns + column) * layers + layer];
    }
    explicit operator bool() const { return owner != nullptr; }
};

/// The mean and population standard deviation (in double) of one column of one layer over all
/// rows: what columnZScores centres and scales by.
struct ColumnStatistics {
    double mean = 0.0;
    double deviation = 0.0;
    /// (value - mean) / deviation; 0 for a constant column.
    double zScore(double value) const { return deviation > 0.0 ? (value - mean) / deviation : 0.0; }
};
ColumnStatistics columnStatistics(const FeatureMatrix& matrix, std::size_t column,
                                  std::size_t layer);

/// A heat map of the matrix: order.size() rows (row order[r]) x its first `columns` columns of
/// one layer, each column z-scored over all rows (columnStatistics; a constant column is 0).
/// What GlBufferLink::writeColumnZScores writes on the device (equal within float rounding).
/// Throws cs::Error when the values do not match the shape, a row or column is out of range.
std::vector<float> columnZScores(const FeatureMatrix& matrix, std::span<const std::uint32_t> order,
                                 std::size_t layer, std::size_t columns);

/// The same for an explicit list of columns: order.size() x columns.size() values, column
/// columns[k] in place k (a map ordered by featureColumnOrder).
std::vector<float> columnZScores(const FeatureMatrix& matrix, std::span<const std::uint32_t> order,
                                 std::size_t layer, std::span<const std::uint32_t> columns);

/// How a feature map orders its columns: as computed, by the one-way ANOVA F statistic of the
/// classes, or by the classifier's weight (FeatureMatrix::weights).
enum class FeatureOrder { Index, FStatistic, Weight };
/// "index", "f-statistic", "weight" (the words of --param rocket.featureOrder).
const char* featureOrderName(FeatureOrder order);
/// The order of a word of featureOrderName; throws cs::Error for another word.
FeatureOrder featureOrderFromName(const std::string& name);

/// The one-way ANOVA F statistic of each column of one layer: between-class over within-class
/// mean squares, (SSB / (k - 1)) / (SSW / (N - k)), over the rows with a label >= 0 (k classes
/// present among N such rows). 0 for every column when k < 2 or N <= k; a column whose classes
/// are each constant but differ gets +infinity, a constant column 0. labels: one per row.
/// Throws cs::Error when the labels or the values do not fit the matrix.
/// @code auto f = cs::featureFStatistics(matrix, series.labels, 0); @endcode
std::vector<double> featureFStatistics(const FeatureMatrix& matrix,
                                       std::span<const std::int32_t> labels, std::size_t layer);
/// The column scores an order ranks by in one layer: F statistics, the weights, or nothing
/// (Index). Empty for Weight when the matrix has no weights.
std::vector<double> featureScores(const FeatureMatrix& matrix, std::span<const std::int32_t> labels,
                                  std::size_t layer, FeatureOrder order);
/// Column indices by descending score (ties and NaN: the lower index first, NaN last); the
/// identity for empty scores and for Index.
std::vector<std::uint32_t> columnOrderByScore(std::span<const double> scores, std::size_t columns);

/// Per class, the mean over its rows of each listed column's z-score (columnStatistics over
/// all rows): classes x columns.size(), row-major; NaN for a class without rows. Rows with a
/// label outside [0, classes) are left out.
std::vector<float> classMeanZScores(const FeatureMatrix& matrix,
                                    std::span<const std::int32_t> labels, int classes,
                                    std::size_t layer, std::span<const std::uint32_t> columns);

/// Series in groups (clusters), drawn as small multiples: one chart per group holding a sample of
/// its members (faint), each aligned to the group's summary line (bold).
struct SeriesGroups {
    std::size_t groups = 0;
    std::size_t length = 0;    ///< values per channel of a member and of a summary
    std::vector<int> groupOf;  ///< per series of the set: its group, -1 none
    /// series x channels x length: each series as drawn (e.g. z-normalised), already aligned
    /// to its group's summary.
    std::vector<float> members;
    std::vector<float> summaries;  ///< groups x channels x length
    /// Channels per member and summary: 1 (the set's `channel`), or all of the set's when they
    /// were grouped together.
    std::size_t channels = 1;
    std::size_t channel = 0;  ///< the channel of the set that was grouped (channels == 1)
    std::string method;       ///< what made the groups: "k-Shape"
    std::string groupName;    ///< what a group is: "cluster"
    std::string summaryName;  ///< what the bold line is: "centroid"
    /// How the members are drawn: "z-normalised and shifted onto the centroid".
    std::string memberNote;
    /// Per series, the samples [validBegin, validEnd) of its member that hold its values; the
    /// rest is padding (zeros a shift brought in, or past a short series' end), not drawn.
    /// Empty: every sample is valid.
    std::vector<std::uint32_t> validBegin, validEnd;
    std::shared_ptr<const void> owner;  ///< the result it came from

    /// Channel d (0 .. channels - 1) of a member and of a summary.
    std::span<const float> member(std::size_t series, std::size_t d = 0) const {
        return {members.data() + (series * channels + d) * length, length};
    }
    std::span<const float> summary(std::size_t group, std::size_t d = 0) const {
        return {summaries.data() + (group * channels + d) * length, length};
    }
    /// The valid samples of a member: [first, second).
    std::pair<std::size_t, std::size_t> validRange(std::size_t series) const {
        if (series >= validBegin.size() || series >= validEnd.size()) return {0, length};
        return {validBegin[series], validEnd[series]};
    }
    /// The members of each group, in the set's order.
    std::vector<std::vector<std::size_t>> membersByGroup() const;
    explicit operator bool() const { return owner != nullptr; }
};

}  // namespace cs
