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

FeatureMatrix miniRocketFeatureMatrix(std::shared_ptr<const RocketFeatures> features,
                                      std::shared_ptr<const MiniRocketModel> model) {
    FeatureMatrix m;
    if (!features) return m;
    const bool multi = features->layers == 8;
    m.rows = features->n;
    m.columns = features->kernels;
    m.layers = features->layers;
    m.values = features->values;
    m.device = features->device;
    m.name = multi ? "MultiRocket features" : "MiniRocket features";
    m.columnName = "feature";
    if (multi) {
        m.layerNames = {"PPV",
                        "MPV",
                        "MIPV",
                        "LSPV",
                        "PPV (difference)",
                        "MPV (difference)",
                        "MIPV (difference)",
                        "LSPV (difference)"};
        m.layerHelp =
            "Pooled outputs of each kernel, dilation and bias on the series or its first "
            "difference: proportion of positive values (PPV), mean of positive values (MPV), "
            "mean of their indices (MIPV), longest stretch of positive values (LSPV)";
    } else {
        m.layerNames = {"PPV"};
        m.layerHelp = "The proportion of positive values (PPV) of each kernel, dilation and bias";
    }
    if (model)
        m.describeColumn = [model](std::size_t f) -> std::string {
            if (model->representations.empty() || f >= model->featureCount()) return {};
            const MiniRocketRepresentation& rep = model->representations.front();
            std::size_t di = 0;
            while (di + 1 < rep.dilations.size() && std::size_t(rep.featureStart[di + 1]) <= f)
                ++di;
            const std::size_t per = std::size_t(std::max(rep.featuresPerDilation[di], 1));
            const std::size_t k = (f - std::size_t(rep.featureStart[di])) / per;
            const auto& taps = kMiniRocketTaps[k % 84];
            std::string text = "dilation " + std::to_string(rep.dilations[di]) + ", kernel " +
                               std::to_string(k) + " (taps " + std::to_string(taps[0]) + " " +
                               std::to_string(taps[1]) + " " + std::to_string(taps[2]) + "), " +
                               ((di + k) % 2 == 0 ? "padded" : "unpadded");
            if (f < rep.biases.size()) text += ", bias " + std::to_string(rep.biases[f]);
            return text;
        };
    m.owner = std::move(features);
    return m;
}

FeatureMatrix rocketFeatureMatrix(std::shared_ptr<const RocketFeatures> features,
                                  const RocketTransform& transform) {
    if (transform.model) return miniRocketFeatureMatrix(std::move(features), transform.model);
    return rocketFeatureMatrix(std::move(features), transform.kernels);
}

}  // namespace cs
