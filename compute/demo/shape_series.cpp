// SPDX-License-Identifier: MIT
#include "compute/demo/shape_series.h"

#include <cmath>
#include <numbers>
#include <string>

#include "compute/core/error.h"
#include "compute/core/random.h"

namespace cs::demo {

SeriesSet makeShapeSeries(std::size_t n, std::size_t length, std::size_t channels,
                          std::uint64_t seed) {
    if (length < 2 || channels < 1)
        throw Error("generated series need length >= 2 and at least 1 channel");
    if (n > (std::size_t(1) << 28) || channels > 4096 ||
        double(n) * double(channels) * double(length) > double(std::size_t(1) << 32))
        throw Error("a generated series set of " + std::to_string(n) + " x " +
                    std::to_string(channels) + " x " + std::to_string(length) + " is too large");
    constexpr double kNoise = 0.3, kTwoPi = 2.0 * std::numbers::pi;
    SeriesSet s;
    s.n = n;
    s.channels = channels;
    s.length = length;
    s.values.resize(n * channels * length);
    s.lengths.assign(n, std::uint32_t(length));
    s.labels.resize(n);
    s.classNames = {"sine", "square", "bump", "walk"};
    s.source = "generated:shapes";
    Random rng(seed);
    const double len = double(length);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t cls = i % kShapeSeriesClasses;
        s.labels[i] = std::int32_t(cls);
        const double periods = rng.uniform(2.0, 4.0);
        const double phase = rng.uniform(0.0, kTwoPi);
        const double centre = rng.uniform(0.15, 0.85) * len;
        const double width = rng.uniform(0.03, 0.1) * len;
        const double amplitude = rng.uniform(0.5, 2.0);
        const double offset = rng.uniform(-1.0, 1.0);
        for (std::size_t c = 0; c < channels; ++c) {
            const double shift = rng.uniform(0.0, 0.5);
            float* x = s.values.data() + (i * channels + c) * length;
            double walk = 0.0;
            for (std::size_t t = 0; t < length; ++t) {
                const double a = kTwoPi * periods * double(t) / len + phase + shift;
                double v = 0.0;
                switch (cls) {
                    case 0:
                        v = std::sin(a);
                        break;
                    case 1:
                        v = std::sin(a) >= 0.0 ? 1.0 : -1.0;
                        break;
                    case 2: {
                        const double z = (double(t) - centre - shift * width) / width;
                        v = 2.0 * std::exp(-0.5 * z * z);
                        break;
                    }
                    default:
                        walk += rng.normal() * 0.3;
                        v = walk;
                        break;
                }
                x[t] = float(offset + amplitude * v + kNoise * rng.normal());
            }
        }
    }
    return s;
}

}  // namespace cs::demo
