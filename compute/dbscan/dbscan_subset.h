// SPDX-License-Identifier: MIT
#pragma once

#include "compute/core/item_subset.h"
#include "compute/dbscan/dbscan.h"

namespace cs {

/// A DBSCAN result of subsetOf(points, subset) as a result for the whole set: each run point
/// keeps its label and core flag at its index in the set, the others are kNotRun and not core.
/// The clusters, their canonical order (the subset keeps the set's order) and the statistics
/// are the subset's; the device copy is dropped (it holds the subset's labels).
inline DbscanResult expandDbscanResult(const DbscanResult& r, const ItemSubset& subset) {
    DbscanResult out;
    out.labels = scatterRows<std::int32_t>(r.labels, subset, kNotRun);
    out.isCore = scatterRows<std::uint8_t>(r.isCore, subset, 0);
    out.clusterCount = r.clusterCount;
    out.stats = r.stats;
    out.pathUsed = r.pathUsed;
    return out;
}

}  // namespace cs
