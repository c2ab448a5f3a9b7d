// SPDX-License-Identifier: MIT
#pragma once

#include <limits>

#include "compute/core/item_subset.h"
#include "compute/kshape/kshape.h"

namespace cs {

/// A k-Shape result of subsetOf(series, subset) as a result for the whole set: the run series
/// keep their label, distance and shift at their index in the set; the others are kNotRun
/// (in no cluster), distance NaN, shift 0. Centroids are the subset's. The device copy is
/// dropped.
inline KShapeResult expandKShapeResult(const KShapeResult& r, const ItemSubset& subset) {
    KShapeResult out;
    out.labels = scatterRows<std::int32_t>(r.labels, subset, kNotRun);
    out.distances =
        scatterRows<float>(r.distances, subset, std::numeric_limits<float>::quiet_NaN());
    out.shifts = scatterRows<std::int32_t>(r.shifts, subset, 0);
    out.centroids = r.centroids;
    out.length = r.length;
    out.channels = r.channels;
    out.k = r.k;
    out.iterations = r.iterations;
    out.converged = r.converged;
    return out;
}

}  // namespace cs
