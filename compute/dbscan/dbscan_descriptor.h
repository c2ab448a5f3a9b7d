// SPDX-License-Identifier: MIT
#pragma once

#include "compute/core/algorithm_descriptor.h"
#include "compute/dbscan/dbscan.h"

namespace cs {

/// DBSCAN's parameters (eps, minPts, path, star) and exports (labels CSV), declared once.
/// @code
/// const AlgorithmDescriptor& d = dbscanDescriptor();
/// DbscanParams p = dbscanParams(d.defaults());
/// @endcode
const AlgorithmDescriptor& dbscanDescriptor();

/// The id of the sweep table among dbscanDescriptor()'s exports (ending "_sweep.csv").
inline constexpr const char* kDbscanSweepExport = "sweep-csv";
/// The parameters for a full set of DBSCAN values (as checked by the descriptor).
DbscanParams dbscanParams(const ParameterValues& values);
/// The values of p.
ParameterValues dbscanValues(const DbscanParams& p);
/// The host memory of a k-distance curve on points of this shape, about (kd-tree, curve, the
/// coordinates twice), for the same checks and messages as a method's.
MemoryNeed kDistanceMemoryNeed(const DataShape& data);

}  // namespace cs
