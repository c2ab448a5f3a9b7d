// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "compute/core/series_quantities.h"
#include "compute/rocket/rocket.h"

namespace cs {

/// ROCKET features as the series view draws them: one row per series, one column per kernel,
/// layers PPV and MAX; on the device too when the backend left the features there. A column's
/// description names its kernel's length, dilation and padding (when kernels are given). The
/// matrix keeps the features and kernels alive.
/// @code view.setFeatureMatrix(series, cs::rocketFeatureMatrix(features, kernels)); @endcode
FeatureMatrix rocketFeatureMatrix(std::shared_ptr<const RocketFeatures> features,
                                  std::shared_ptr<const RocketKernels> kernels = nullptr);

}  // namespace cs
