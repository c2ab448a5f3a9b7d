// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <memory>

#include "compute/core/series_quantities.h"
#include "compute/kshape/kshape.h"

namespace cs {

/// A k-Shape clustering as the series view draws it: one group per cluster, the centroid as its
/// summary, each member as k-Shape saw it (kshapeInput: z-normalised, zero after its end)
/// shifted by its best shift onto the centroid. channel: the one that was clustered. The groups
/// keep the result alive.
/// @code view.setGroups(series, cs::kshapeGroups(*series, result, params.channel)); @endcode
SeriesGroups kshapeGroups(const SeriesSet& series, std::shared_ptr<const KShapeResult> result,
                          std::size_t channel);

}  // namespace cs
