// SPDX-License-Identifier: MIT
#include "compute/rocket/rocket_descriptor.h"

#include <algorithm>

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
            const double p = 2.0 * double(values.integer("kernels"));
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
