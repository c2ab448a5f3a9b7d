// SPDX-License-Identifier: MIT
#include "compute/rocket/rocket_quantities.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "compute/core/error.h"

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
            std::string text = "length " + std::to_string(kernels->lengths[w]) + ", dilation " +
                               std::to_string(kernels->dilations[w]) + ", padding " +
                               std::to_string(kernels->paddings[w]);
            if (w < kernels->biases.size()) {
                char bias[32];
                std::snprintf(bias, sizeof bias, ", bias %.4g", double(kernels->biases[w]));
                text += bias;
            }
            return text;
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

std::vector<double> ridgeWeightMagnitudes(const RidgeModel& model) {
    const std::size_t p = model.features, k = std::size_t(std::max(model.classes, 0));
    std::vector<double> out(p, 0.0);
    if (model.weights.size() != p * k) return out;
    for (std::size_t f = 0; f < p; ++f) {
        double sum = 0.0;
        for (std::size_t c = 0; c < k; ++c)
            sum += model.weights[f * k + c] * model.weights[f * k + c];
        out[f] = std::sqrt(sum);
    }
    return out;
}

std::vector<FeatureContribution> topContributions(const RidgeModel& model,
                                                  std::span<const float> row, int cls,
                                                  std::size_t count) {
    const std::size_t p = model.features, k = std::size_t(std::max(model.classes, 0));
    if (row.size() != p)
        throw Error("a row of " + std::to_string(row.size()) + " features for a classifier of " +
                    std::to_string(p));
    if (cls < 0 || std::size_t(cls) >= k)
        throw Error("no class " + std::to_string(cls) + " in a classifier of " + std::to_string(k));
    if (model.weights.size() != p * k || model.mean.size() != p || model.scale.size() != p)
        throw Error("the classifier is incomplete");
    std::vector<FeatureContribution> all(p);
    for (std::size_t f = 0; f < p; ++f) {
        const double x = double(row[f]);
        all[f] = {f, model.weights[f * k + std::size_t(cls)] * (x - model.mean[f]) * model.scale[f],
                  x};
    }
    const std::size_t n = std::min(count, p);
    std::partial_sort(all.begin(), all.begin() + std::ptrdiff_t(n), all.end(),
                      [](const FeatureContribution& a, const FeatureContribution& b) {
                          const double x = std::abs(a.contribution), y = std::abs(b.contribution);
                          return x != y ? x > y : a.feature < b.feature;
                      });
    all.resize(n);
    return all;
}

}  // namespace cs
