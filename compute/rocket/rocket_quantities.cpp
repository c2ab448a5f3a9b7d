// SPDX-License-Identifier: MIT
#include "compute/rocket/rocket_quantities.h"

namespace cs {

FeatureMatrix rocketFeatureMatrix(std::shared_ptr<const RocketFeatures> features,
                                  std::shared_ptr<const RocketKernels> kernels) {
    FeatureMatrix m;
    if (!features) return m;
    // RocketFeatures holds [PPV, MAX] per kernel: the interleaved layout of FeatureMatrix.
    m.rows = features->n;
    m.columns = features->kernels;
    m.layers = 2;
    m.values = features->values;
    m.device = features->device;
    m.name = "ROCKET features";
    m.columnName = "kernel";
    m.layerNames = {"PPV", "MAX"};
    m.layerHelp =
        "The proportion of positive values (PPV) or the maximum (MAX) of each kernel's "
        "output";
    if (kernels)
        m.describeColumn = [kernels](std::size_t w) -> std::string {
            if (w >= kernels->count()) return {};
            return "length " + std::to_string(kernels->lengths[w]) + ", dilation " +
                   std::to_string(kernels->dilations[w]) + ", padding " +
                   std::to_string(kernels->paddings[w]);
        };
    m.owner = std::move(features);
    return m;
}

}  // namespace cs
