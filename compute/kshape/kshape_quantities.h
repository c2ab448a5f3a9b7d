// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "compute/core/series_quantities.h"
#include "compute/kshape/kshape.h"

namespace cs {

/// A k-Shape clustering as the series view draws it: one group per cluster, the centroid as its
/// summary, each member as k-Shape saw it (kshapeInput: z-normalised, zero after its end)
/// shifted by its best shift onto the centroid (all channels by the one shift when they were
/// clustered together); validBegin/validEnd mark the samples that hold the member's values,
/// leaving out the zeros the shift brought in and those past a short series' end. channel:
/// params.channel of the run (empty: all channels). The groups keep the result alive. Throws
/// cs::Error when the result is not of this set and channel.
/// @code view.setGroups(series, cs::kshapeGroups(*series, result, params.channel)); @endcode
SeriesGroups kshapeGroups(const SeriesSet& series, std::shared_ptr<const KShapeResult> result,
                          std::optional<std::size_t> channel);

}  // namespace cs
