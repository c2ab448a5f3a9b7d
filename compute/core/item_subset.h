// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compute/core/point_set.h"
#include "compute/core/series_set.h"

namespace cs {

/// The label a run on a subset gives the items it did not run on (DBSCAN's noise is -1, a file
/// row dropped on reading is io::kNotRead, -2).
inline constexpr std::int32_t kNotRun = -3;

/// Some items of a set of `total` (points or series) that a method runs on instead of all of
/// them: indices into the set, ascending and without repeats. Results are computed on the
/// extracted items (subsetOf) and mapped back to the set's indices by each algorithm's
/// expand*() (dbscan_subset.h, knn_subset.h, kshape_subset.h, rocket_subset.h), so that views
/// and exports see one entry per item of the set, kNotRun where the run did not reach.
/// @code
/// const cs::ItemSubset s = cs::ItemSubset::of({3, 1, 3, 7}, points.n);  // {1, 3, 7}
/// const cs::PointSet part = cs::subsetOf(points, s);                     // 3 points
/// @endcode
struct ItemSubset {
    std::vector<std::uint32_t> indices;  ///< ascending, no repeats, each < total
    std::size_t total = 0;               ///< items in the whole set

    /// The subset of these indices (any order, repeats allowed); throws cs::Error for an index
    /// >= total or an empty list.
    static ItemSubset of(std::vector<std::uint32_t> indices, std::size_t total);
    /// Parses "0-99,120,200-299" (ranges inclusive, any order); throws cs::Error naming the
    /// bad part, an index >= total, or an empty list.
    static ItemSubset parse(std::string_view text, std::size_t total);
    /// Indices as ranges, the form parse() reads ("0-99,120").
    std::string text() const;
    std::size_t size() const { return indices.size(); }
    bool empty() const { return indices.empty(); }
    /// Where each item of the set is in the subset: total entries, -1 for those outside.
    std::vector<std::int64_t> positions() const;
};

/// Ascending indices as ranges: {0, 1, 2, 5} -> "0-2,5".
std::string indexRangesText(std::span<const std::uint32_t> sorted);
/// Parses ranges as ItemSubset::parse does but with no upper bound; sorted, no repeats. Throws
/// cs::Error naming the bad part.
std::vector<std::uint32_t> parseIndexRanges(std::string_view text);

/// The subset's points, attributes included; their file rows stay those of the whole set, so
/// that exports of a run on them name the rows of the file.
PointSet subsetOf(const PointSet& points, const ItemSubset& subset);
/// The subset's series with their labels, split, targets and class names.
SeriesSet subsetOf(const SeriesSet& series, const ItemSubset& subset);

/// values (subset.size() rows of width entries) spread over the whole set: row j goes to row
/// subset.indices[j]; the other rows are fill.
template <class T>
std::vector<T> scatterRows(std::span<const T> values, const ItemSubset& subset, T fill,
                           std::size_t width = 1) {
    std::vector<T> out(subset.total * width, fill);
    for (std::size_t j = 0; j < subset.indices.size() && (j + 1) * width <= values.size(); ++j)
        std::copy(values.begin() + std::ptrdiff_t(j * width),
                  values.begin() + std::ptrdiff_t((j + 1) * width),
                  out.begin() + std::ptrdiff_t(std::size_t(subset.indices[j]) * width));
    return out;
}

}  // namespace cs
