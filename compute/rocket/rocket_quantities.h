// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "compute/core/series_quantities.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/ridge.h"
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

/// How much the ridge classifier weighs each feature: the root of the sum over classes of its
/// squared weight on the standardised feature (RidgeModel::weights). One value per feature, in
/// the features' order, which is FeatureMatrix::weights's: column-major over the layers.
/// @code matrix.weights = cs::ridgeWeightMagnitudes(model); @endcode
std::vector<double> ridgeWeightMagnitudes(const RidgeModel& model);

/// One feature's part in a series' score for one class.
struct FeatureContribution {
    std::size_t feature = 0;    ///< index into the features (column * layers + layer)
    double contribution = 0.0;  ///< weight x (value - mean) x scale: its term in the score
    double value = 0.0;         ///< the series' feature value
};

/// The features that weigh most in row's score for class cls: each feature's term of the ridge
/// score, weight_f,cls x (x_f - mean_f) x scale_f, the `count` largest by magnitude, largest
/// first (ties: the lower feature). row: the series' p features. Throws cs::Error when row or
/// cls do not fit the model.
/// @code auto top = cs::topContributions(model, features.row(i), predicted[i], 5); @endcode
std::vector<FeatureContribution> topContributions(const RidgeModel& model,
                                                  std::span<const float> row, int cls,
                                                  std::size_t count);

}  // namespace cs
