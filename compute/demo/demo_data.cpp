// SPDX-License-Identifier: MIT
#include "compute/demo/demo_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/parallel.h"
#include "compute/core/random.h"

namespace cs::demo {
namespace {

using Rng = cs::Random;

// Seed of an independent stream: the points of a chunk do not depend on how many threads ran.
std::uint64_t streamSeed(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t s = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
    return splitMix64(s);
}

// ---- the point scene ------------------------------------------------------------------------

enum class Shape { Blob, Ring, Spiral, Plane };

struct Part {
    const char* name;
    Shape shape;
    double share;  // fraction of n
    double cx, cy, cz;
    double size;  // blob: sigma; ring: major radius; spiral: a in r = a * theta; plane: half width
};

// Laid out in a ±100 box so that every pair of shapes is at least ~10 units apart, surface to
// surface (3 sigma for the blobs); the shares make the sparsest part (the spiral sheet) still
// hold ~50 points per eps = 2.5 ball at n = 200k, while the noise holds ~0.08.
constexpr double kNoiseShare = 0.05;
constexpr double kBox = 100.0;
constexpr std::array<Part, 7> kParts = {{
    {"blob 1", Shape::Blob, 0.20, -60, -55, -50, 6.0},
    {"blob 2", Shape::Blob, 0.10, 60, 60, 55, 3.0},
    {"blob 3", Shape::Blob, 0.12, 60, -55, -45, 8.0},
    {"blob 4", Shape::Blob, 0.05, -70, 65, -65, 1.5},
    {"ring", Shape::Ring, 0.15, 0, 0, 0, 28.0},
    {"spiral", Shape::Spiral, 0.18, -50, 45, 50, 2.5},
    {"plane", Shape::Plane, 0.15, 20, 55, -50, 30.0},
}};
static_assert([] {
    double total = kNoiseShare;
    for (const auto& p : kParts)
        total += p.share;
    return total > 0.999999 && total < 1.000001;
}());

constexpr std::size_t kChunk = std::size_t(1) << 16;
constexpr std::size_t kMaxPoints = 200'000'000;  // 3.2 GB: beyond that it is not a demo

void generatePoint(Rng& rng, const Part& p, float* xyz) {
    double x = 0, y = 0, z = 0;
    switch (p.shape) {
        case Shape::Blob:
            x = p.cx + p.size * rng.normal();
            y = p.cy + p.size * rng.normal();
            z = p.cz + p.size * rng.normal();
            break;
        case Shape::Ring: {
            // Torus with a Gaussian tube (sigma 1.5), its plane tilted 30 degrees about x.
            const double phi = rng.uniform(0, 2 * std::numbers::pi);
            const double r = p.size + 1.5 * rng.normal();
            const double h = 1.5 * rng.normal();
            const double lx = r * std::cos(phi), ly = r * std::sin(phi);
            constexpr double c = 0.8660254037844386, s = 0.5;  // cos, sin of 30 degrees
            x = p.cx + lx;
            y = p.cy + c * ly - s * h;
            z = p.cz + s * ly + c * h;
            break;
        }
        case Shape::Spiral: {
            // Archimedean spiral sheet (a "Swiss roll") around the z axis, 40 high. Turns lie
            // 2 pi a = 15.7 apart. Sampling theta with density ~ theta keeps the sheet's density
            // even along its length (arc length grows with theta).
            constexpr double t0 = std::numbers::pi, t1 = 5 * std::numbers::pi;
            const double theta = std::sqrt(t0 * t0 + (t1 * t1 - t0 * t0) * rng.uniform());
            const double r = p.size * theta + 0.6 * rng.normal();
            x = p.cx + r * std::cos(theta);
            y = p.cy + r * std::sin(theta);
            z = p.cz + rng.uniform(-20, 20);
            break;
        }
        case Shape::Plane: {
            // A 60 x 40 rectangle, tilted, 0.5 thick (sigma).
            const double u = rng.uniform(-p.size, p.size);
            const double v = rng.uniform(-20, 20);
            const double w = 0.5 * rng.normal();
            // Orthonormal frame: e1 = (1, 0, .3)/n1, e2 = (0, 1, -.2) made orthogonal to e1.
            constexpr double e1[3] = {0.9578262852211514, 0.0, 0.2873478855663454};
            constexpr double e2[3] = {0.05406283048763259, 0.9821414205253255, -0.1802094349587753};
            constexpr double e3[3] = {-0.2822162605150791, 0.1881441736767195, 0.9407208683835971};
            x = p.cx + u * e1[0] + v * e2[0] + w * e3[0];
            y = p.cy + u * e1[1] + v * e2[1] + w * e3[1];
            z = p.cz + u * e1[2] + v * e2[2] + w * e3[2];
            break;
        }
    }
    xyz[0] = float(x);
    xyz[1] = float(y);
    xyz[2] = float(z);
}

void generateChunk(std::uint64_t seed, std::size_t chunk, std::size_t n, float* coords,
                   std::int32_t* labels) {
    // Cumulative shares as 64-bit thresholds: one draw picks the part of a point.
    std::array<std::uint64_t, kParts.size()> upTo{};
    double cumulative = 0;
    for (std::size_t k = 0; k < kParts.size(); ++k) {
        cumulative += kParts[k].share;
        upTo[k] = std::uint64_t(cumulative * 0x1.0p64);  // cumulative <= 0.95: no overflow
    }
    Rng rng(streamSeed(seed, chunk));
    const std::size_t begin = chunk * kChunk, end = std::min(n, begin + kChunk);
    for (std::size_t i = begin; i < end; ++i) {
        const std::uint64_t pick = rng.next();
        std::size_t k = 0;
        while (k < kParts.size() && pick >= upTo[k])
            ++k;
        float* xyz = coords + 3 * i;
        if (k == kParts.size()) {
            for (int j = 0; j < 3; ++j)
                xyz[j] = float(rng.uniform(-kBox, kBox));
            labels[i] = -1;
        } else {
            generatePoint(rng, kParts[k], xyz);
            labels[i] = std::int32_t(k);
        }
    }
}

// ---- the series set -------------------------------------------------------------------------

constexpr std::array<const char*, 8> kSeriesShapes = {
    "sine", "square", "sawtooth", "bump", "chirp", "triangle", "step", "damped sine"};
constexpr std::size_t kMaxSeriesValues = std::size_t(1) << 30;

// One period of a periodic shape at phase p in [0, 1), amplitude about 1.
double periodic(std::size_t shape, double p) {
    switch (shape) {
        case 0:
            return std::sin(2 * std::numbers::pi * p);
        case 1:
            return p < 0.5 ? 1.0 : -1.0;
        case 2:
            return 2 * p - 1;
        default:
            return p < 0.5 ? 4 * p - 1 : 3 - 4 * p;  // triangle
    }
}

// Value at t in [0, 1) of shape `shape` at variant `variant` (0, 1, ... for the n-th reuse of
// the same shape), shifted by `shift` (fraction of the length).
double seriesValue(std::size_t shape, std::size_t variant, double t, double shift) {
    const double f = double(variant + 1);
    shift /= f;  // the same shift in periods (widths) at every frequency, so classes stay alike
    switch (shape) {
        case 0:
        case 1:
        case 2:
        case 5: {
            // Periodic shapes: the shift is circular, 2 to 3 cycles per series.
            const double cycles = (shape == 0 ? 2.0 : shape == 5 ? 2.5 : 3.0) * f;
            const double p = (t + shift) * cycles;
            return periodic(shape == 5 ? 3 : shape, p - std::floor(p));
        }
        case 3: {  // Gaussian bump, narrower for later variants; shifted linearly
            const double width = 0.08 / f, d = (t - 0.5 - shift) / width;
            return 2.5 * std::exp(-0.5 * d * d) - 0.5;
        }
        case 4: {  // linear chirp, frequency rising from f to 8f cycles per series
            const double u = t - shift;
            return std::sin(2 * std::numbers::pi * f * (u + 3.5 * u * u));
        }
        case 6: {  // step up, or a staircase for later variants
            const double u = std::clamp(t - shift, 0.0, 0.999999);
            const double steps = double(variant + 1);
            return 2 * std::floor((u * (steps + 1))) / steps - 1;
        }
        default: {  // damped sine
            const double u = std::max(0.0, t - shift);
            return std::exp(-4 * u) * std::sin(2 * std::numbers::pi * 4 * f * u) * 1.5;
        }
    }
}

}  // namespace

PointSet makeDemoPoints(std::size_t n, std::uint64_t seed) {
    if (n == 0) throw Error("the demo scene needs at least one point");
    if (n > kMaxPoints)
        throw Error("the demo scene is limited to " + std::to_string(kMaxPoints) + " points, not " +
                    std::to_string(n));
    PointSet s;
    s.n = n;
    s.dims = 3;
    s.dimNames = {"x", "y", "z"};
    s.coords.resize(3 * n);
    PointAttribute truth;
    truth.name = "truth";
    truth.kind = PointAttribute::Kind::Label;
    truth.labels.resize(n);
    for (const auto& p : kParts)
        truth.categories.emplace_back(p.name);

    // Chunks own their generator, so the split between threads changes nothing but the time.
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    parallelFor(chunks, nullptr, {.threads = std::min(threadsFor(n, kChunk), 16u)},
                [&](std::size_t c, unsigned) {
                    generateChunk(seed, c, n, s.coords.data(), truth.labels.data());
                });
    s.attributes.push_back(std::move(truth));
    s.source = "demo:points n=" + std::to_string(n) + " seed=" + std::to_string(seed);
    return s;
}

SeriesSet makeDemoSeries(std::size_t n, std::size_t length, std::size_t classes,
                         std::uint64_t seed) {
    if (n == 0) throw Error("the demo series set needs at least one series (n = 0)");
    if (length < 8)
        throw Error("demo series need a length of at least 8 samples, not " +
                    std::to_string(length));
    if (classes == 0) throw Error("the demo series set needs at least one class");
    if (classes > n)
        throw Error("the demo series set cannot have more classes (" + std::to_string(classes) +
                    ") than series (" + std::to_string(n) + ")");
    if (length > kMaxSeriesValues / n)
        throw Error("the demo series set is limited to " + std::to_string(kMaxSeriesValues) +
                    " values, not " + std::to_string(n) + " x " + std::to_string(length));

    SeriesSet s;
    s.n = n;
    s.channels = 1;
    s.length = length;
    s.values.resize(n * length);
    s.lengths.assign(n, static_cast<std::uint32_t>(length));
    s.labels.resize(n);
    s.isTest.resize(n);
    for (std::size_t c = 0; c < classes; ++c) {
        const std::size_t variant = c / kSeriesShapes.size();
        std::string name = kSeriesShapes[c % kSeriesShapes.size()];
        if (variant > 0) name += " " + std::to_string(variant + 1);
        s.classNames.push_back(std::move(name));
    }

    Rng rng(streamSeed(seed, 0x5E41E5));
    for (std::size_t i = 0; i < n; ++i) {
        // Pairs of neighbours share a class, one in train and one in test, so that every class
        // lands on both sides of the split whatever the parity of `classes`.
        const std::size_t c = (i / 2) % classes;
        s.labels[i] = static_cast<std::int32_t>(c);
        s.isTest[i] = static_cast<std::uint8_t>(i % 2);
        const std::size_t shape = c % kSeriesShapes.size(), variant = c / kSeriesShapes.size();
        const double shift = rng.uniform(-0.06, 0.06);
        const double amplitude = rng.uniform(0.8, 1.2);
        const double offset = rng.uniform(-0.2, 0.2);
        float* x = s.values.data() + i * length;
        for (std::size_t t = 0; t < length; ++t) {
            const double v = seriesValue(shape, variant, double(t) / double(length), shift);
            x[t] = float(offset + amplitude * v + 0.1 * rng.normal());
        }
    }
    s.source = "demo:series n=" + std::to_string(n) + " length=" + std::to_string(length) +
               " classes=" + std::to_string(classes) + " seed=" + std::to_string(seed);
    return s;
}

}  // namespace cs::demo
