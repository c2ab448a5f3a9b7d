// SPDX-License-Identifier: MIT
#include "compute/rocket/rocket_descriptor.h"

#include <algorithm>

#include "compute/rocket/rocket_pipeline.h"

namespace cs {

const AlgorithmDescriptor& rocketDescriptor() {
    static const AlgorithmDescriptor descriptor = [] {
        using Type = ParameterSpec::Type;
        const RocketParams defaults;
        AlgorithmDescriptor d;
        d.name = "rocket";
        d.title = "ROCKET";
        d.input = InputKind::Series;
        ParameterSpec kernels{.name = "kernels",
                              .option = "kernels",
                              .label = "&Kernels",
                              .type = Type::Int,
                              .minimum = 1,
                              .maximum = kRocketMaxKernels,
                              .defaultValue = std::int64_t(defaults.kernels),
                              .unit = "kernels",
                              .help =
                                  "rocket: random convolution kernels, two features each (PPV "
                                  "and MAX); minirocket: features (a multiple of 84); "
                                  "multirocket: features per pooling and representation"};
        const ParameterSpec seed = seedParameter(defaults.seed, "seed of the random kernels");
        ParameterSpec variant{.name = "variant",
                              .option = "variant",
                              .label = "&Variant",
                              .type = Type::Choice,
                              .choices = {"rocket", "minirocket", "multirocket"},
                              .defaultValue = std::string(rocketVariantName(defaults.variant)),
                              .help =
                                  "rocket: random kernels, PPV and MAX; minirocket: 84 fixed "
                                  "kernels, fitted biases, PPV (kernels = features); "
                                  "multirocket: MiniRocket's kernels on the series and its "
                                  "difference, PPV, MPV, MIPV and LSPV (8 x kernels features)"};
        ParameterSpec normalise{.name = "normalise",
                                .option = "normalise",
                                .label = "&Normalise",
                                .type = Type::Bool,
                                .defaultValue = defaults.normalise,
                                .help =
                                    "rocket: z-normalise every channel of every series "
                                    "first (the paper's way); false keeps the channels' "
                                    "levels. MiniRocket and MultiRocket never normalise"};
        // How the GUI's feature map orders the columns, and which features the CLI's --json
        // summary lists first: a view of the result, so changing it runs nothing again.
        ParameterSpec featureOrder{
            .name = "featureOrder",
            .option = "feature-order",
            .label = "Feature &order",
            .type = Type::Choice,
            .choices = {"f-statistic", "weight", "index"},
            .defaultValue = std::string("f-statistic"),
            .help =
                "how the feature map orders the features: f-statistic (one-way ANOVA F of "
                "the classes), weight (|ridge weight| over the classes) or index; the CLI's "
                "--json summary lists the ten first as top_features"};
        d.parameters = {kernels, seed, variant, normalise, featureOrder};
        // The series (n x channels x m floats), the features (n x 2K floats), and the ridge
        // fit on the smaller side (compute/rocket/ridge.h): the standardised features in
        // double (n x 2K), a product of the same size in batches, and a min(n, 2K)^2 matrix
        // with its eigenvectors. Every series is counted as a training one (the upper bound).
        // (Measured, peak resident memory of bench rocket --fit, 20,000 series of 150 with
        // 1,000 kernels: 750 MB; this says 720 MB.)
        d.memory = [](const DataShape& data, const ParameterValues& values) {
            const double n = double(data.items);
            const double series =
                n * double(std::max<std::size_t>(data.channels, 1)) * double(data.length) * 4.0;
            RocketParams rp;
            rp.kernels = int(values.integer("kernels"));
            if (values.has("variant")) rp.variant = rocketVariantFromName(values.word("variant"));
            const double p = double(rocketFeatureCount(rp));
            const double side = std::min(n, p);
            const double features = n * p * 4.0, standardised = n * p * 12.0;
            const double square = 2.0 * side * side * 8.0;
            return MemoryNeed{series + features + standardised + square,
                              square > standardised
                                  ? "the ridge fit's min(series, features)^2 matrix (doubles, "
                                    "twice)"
                                  : "the features (series x 2 x kernels), in float and in double",
                              "use fewer kernels or fewer series"};
        };
        d.exports = {
            {"features", "ROCKET features as an n × features float32 NumPy array (2K for ROCKET)",
             "_rocket.npy"},
            {"predictions", "ROCKET predictions as CSV (index,split,label,predicted)",
             "_rocket.csv"},
            {kRocketSweepExport,
             "ROCKET accuracy by kernel count as CSV (kernels,features,accuracy,test_accuracy,"
             "loo_accuracy,alpha,transform_ms,fit_ms,ms)",
             "_rocket_sweep.csv"}};
        return d;
    }();
    return descriptor;
}

RocketParams rocketParams(const ParameterValues& values) {
    RocketParams p;
    p.kernels = int(values.integer("kernels"));
    p.seed = std::uint64_t(values.integer("seed"));
    if (values.has("variant")) p.variant = rocketVariantFromName(values.word("variant"));
    if (values.has("normalise")) p.normalise = values.flag("normalise");
    return p;
}

ParameterValues rocketValues(const RocketParams& p) {
    ParameterValues v;
    v.set("kernels", std::int64_t(p.kernels));
    v.set("seed", std::int64_t(p.seed));
    v.set("variant", std::string(rocketVariantName(p.variant)));
    v.set("normalise", p.normalise);
    return v;
}

}  // namespace cs
