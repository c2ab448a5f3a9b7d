// SPDX-License-Identifier: MIT
#pragma once

#include "compute/core/algorithm_descriptor.h"
#include "compute/kshape/kshape.h"

namespace cs {

/// k-Shape's parameters (k, maxIterations, seed, channel: a number or "all") and exports (labels
/// CSV, centroids .npy), declared once.
/// @code KShapeParams p = kshapeParams(kshapeDescriptor().defaults()); @endcode
const AlgorithmDescriptor& kshapeDescriptor();
/// The id of the sweep table among its exports (ending "_kshape_sweep.csv"; --export NAME_sweep.csv
/// after --sweep reaches it too).
inline constexpr const char* kKShapeSweepExport = "sweep-csv";
/// The parameters for a full set of k-Shape values.
KShapeParams kshapeParams(const ParameterValues& values);
/// The values of p.
ParameterValues kshapeValues(const KShapeParams& p);

}  // namespace cs
