// SPDX-License-Identifier: MIT
#pragma once

#include "compute/core/item_subset.h"
#include "compute/rocket/rocket.h"

namespace cs {

/// Features of subsetOf(series, subset) as features of the whole set: each run series' row at
/// its index in the set, zeros for the others (they were not transformed). The device copy is
/// dropped.
inline RocketFeatures expandRocketFeatures(const RocketFeatures& f, const ItemSubset& subset) {
    RocketFeatures out;
    out.n = subset.total;
    out.kernels = f.kernels;
    out.layers = f.layers;
    const std::vector<float> rows = scatterRows<float>(f.values, subset, 0.0f, f.columns());
    out.values.assign(rows.begin(), rows.end());
    return out;
}

}  // namespace cs
