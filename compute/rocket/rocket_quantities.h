// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "compute/core/series_quantities.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/rocket.h"
#include "compute/rocket/rocket_pipeline.h"

namespace cs {

/// ROCKET features as the series view draws them: one row per series, one column per kernel,
/// layers PPV and MAX; on the device too when the backend left the features there. A column's
/// description names its kernel's length, dilation and padding (when kernels are given). The
/// matrix keeps the features and kernels alive.
/// @code view.setFeatureMatrix(series, cs::rocketFeatureMatrix(features, kernels)); @endcode
FeatureMatrix rocketFeatureMatrix(std::shared_ptr<const RocketFeatures> features,
                                  std::shared_ptr<const RocketKernels> kernels = nullptr);

/// MiniRocket or MultiRocket features: one column per feature (a kernel, dilation and bias),
/// layers PPV (MiniRocket) or PPV, MPV, MIPV, LSPV of the series and of its difference
/// (MultiRocket); a column's description names its dilation, kernel taps, padding and bias.
FeatureMatrix miniRocketFeatureMatrix(std::shared_ptr<const RocketFeatures> features,
                                      std::shared_ptr<const MiniRocketModel> model);

/// The feature map of any variant's features under the transform they came from.
/// @code view.setFeatureMatrix(series, cs::rocketFeatureMatrix(features, transform)); @endcode
FeatureMatrix rocketFeatureMatrix(std::shared_ptr<const RocketFeatures> features,
                                  const RocketTransform& transform);

}  // namespace cs
