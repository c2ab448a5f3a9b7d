// SPDX-License-Identifier: MIT
#pragma once

#include "compute/core/algorithm_descriptor.h"
#include "compute/rocket/rocket.h"

namespace cs {

/// ROCKET's parameters (kernels, seed) and exports (features .npy, predictions CSV), declared
/// once.
/// @code RocketParams p = rocketParams(rocketDescriptor().defaults()); @endcode
const AlgorithmDescriptor& rocketDescriptor();
/// The id of the sweep table among its exports (ending "_rocket_sweep.csv"; --export NAME_sweep.csv
/// after --sweep reaches it too).
inline constexpr const char* kRocketSweepExport = "sweep-csv";
/// The parameters for a full set of ROCKET values.
RocketParams rocketParams(const ParameterValues& values);
/// The values of p.
ParameterValues rocketValues(const RocketParams& p);

}  // namespace cs
