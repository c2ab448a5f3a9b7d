// SPDX-License-Identifier: MIT
#include "compute/rocket/rocket_descriptor.h"

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
                                  "random convolution kernels, two features each (PPV and "
                                  "MAX)"};
        const ParameterSpec seed = seedParameter(defaults.seed, "seed of the random kernels");
        d.parameters = {kernels, seed};
        d.exports = {
            {"features", "ROCKET features as an n × 2K float32 NumPy array", "_rocket.npy"},
            {"predictions", "ROCKET predictions as CSV (index,split,label,predicted)",
             "_rocket.csv"}};
        return d;
    }();
    return descriptor;
}

RocketParams rocketParams(const ParameterValues& values) {
    RocketParams p;
    p.kernels = int(values.integer("kernels"));
    p.seed = std::uint64_t(values.integer("seed"));
    return p;
}

ParameterValues rocketValues(const RocketParams& p) {
    ParameterValues v;
    v.set("kernels", std::int64_t(p.kernels));
    v.set("seed", std::int64_t(p.seed));
    return v;
}

}  // namespace cs
