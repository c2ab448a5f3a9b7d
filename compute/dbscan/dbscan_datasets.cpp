// SPDX-License-Identifier: MIT
#include "compute/dbscan/dbscan_datasets.h"

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "compute/core/error.h"

namespace cs {
namespace {

void checkShape(std::size_t n, std::size_t dims) {
    if (dims == 0) throw Error("a generated point set needs at least 1 dimension");
    if (n > (std::size_t(1) << 31) || dims > 4096 || n * dims > (std::size_t(1) << 33))
        throw Error("a generated point set of " + std::to_string(n) + " x " + std::to_string(dims) +
                    " is too large");
}

PointSet finish(std::size_t dims, std::vector<float> coords, std::string source) {
    PointSet s = PointSet::fromCoords(dims, std::move(coords));
    s.source = std::move(source);
    return s;
}

// A uniformly random unit vector: normalised Gaussian coordinates.
void unitDirection(Random& rng, std::size_t dims, double* out) {
    double norm2 = 0.0;
    do {
        norm2 = 0.0;
        for (std::size_t j = 0; j < dims; ++j) {
            out[j] = rng.normal();
            norm2 += out[j] * out[j];
        }
    } while (norm2 == 0.0);
    const double scale = 1.0 / std::sqrt(norm2);
    for (std::size_t j = 0; j < dims; ++j)
        out[j] *= scale;
}

// A point uniform in the unit d-ball: a random direction, radius U^(1/d).
void unitBall(Random& rng, std::size_t dims, double* out) {
    unitDirection(rng, dims, out);
    const double radius = std::pow(rng.uniform(), 1.0 / double(dims));
    for (std::size_t j = 0; j < dims; ++j)
        out[j] *= radius;
}

std::string describe(std::string_view kind, std::size_t n, std::size_t dims, std::uint64_t seed) {
    return "dbscan:" + std::string(kind) + " n=" + std::to_string(n) +
           " d=" + std::to_string(dims) + " seed=" + std::to_string(seed);
}

}  // namespace

std::string_view toString(DbscanDistribution dist) {
    switch (dist) {
        case DbscanDistribution::Uniform:
            return "uniform";
        case DbscanDistribution::Blobs:
            return "blobs";
        case DbscanDistribution::Dense:
            return "dense";
        case DbscanDistribution::SeedSpreader:
            break;
    }
    return "seed-spreader";
}

DbscanDistribution parseDbscanDistribution(std::string_view text) {
    for (auto d : {DbscanDistribution::Uniform, DbscanDistribution::Blobs,
                   DbscanDistribution::Dense, DbscanDistribution::SeedSpreader})
        if (text == toString(d)) return d;
    throw Error("unknown distribution '" + std::string(text) +
                "' (use uniform, blobs, dense or seed-spreader)");
}

PointSet makeUniformPoints(std::size_t n, std::size_t dims, std::uint64_t seed,
                           double meanNeighbours) {
    checkShape(n, dims);
    if (!(meanNeighbours > 0.0)) throw Error("uniform points need a positive mean neighbour count");
    const double d = double(dims);
    const double ballVolume =
        std::exp(0.5 * d * std::log(std::numbers::pi) - std::lgamma(0.5 * d + 1.0));
    const double side =
        std::pow(double(std::max<std::size_t>(n, 1)) * ballVolume / meanNeighbours, 1.0 / d);
    Random rng(seed);
    std::vector<float> coords(n * dims);
    for (auto& c : coords)
        c = float(rng.uniform(0.0, side));
    return finish(dims, std::move(coords), describe("uniform", n, dims, seed));
}

PointSet makeBlobPoints(std::size_t n, std::size_t dims, std::uint64_t seed) {
    checkShape(n, dims);
    constexpr std::size_t kBlobs = 50;
    constexpr double kSd = 2.0, kCentreRange = 100.0, kNoiseRange = 110.0;
    Random rng(seed);
    std::vector<double> centres(kBlobs * dims);
    for (auto& c : centres)
        c = rng.uniform(-kCentreRange, kCentreRange);
    const std::size_t noise = n / 20;  // floor(0.05 n)
    std::vector<float> coords(n * dims);
    for (std::size_t i = 0; i < n; ++i) {
        float* p = &coords[i * dims];
        if (i < noise) {
            for (std::size_t j = 0; j < dims; ++j)
                p[j] = float(rng.uniform(-kNoiseRange, kNoiseRange));
        } else {
            const double* c = &centres[rng.below(kBlobs) * dims];
            for (std::size_t j = 0; j < dims; ++j)
                p[j] = float(c[j] + kSd * rng.normal());
        }
    }
    return finish(dims, std::move(coords), describe("blobs", n, dims, seed));
}

PointSet makeDenseBall(std::size_t n, std::size_t dims, float eps, std::uint64_t seed) {
    checkShape(n, dims);
    if (!std::isfinite(eps) || eps < 0.0f) throw Error("a dense ball needs a finite eps >= 0");
    Random rng(seed);
    std::vector<double> u(dims);
    std::vector<float> coords(n * dims);
    const double radius = 2.0 * double(eps);
    for (std::size_t i = 0; i < n; ++i) {
        unitBall(rng, dims, u.data());
        for (std::size_t j = 0; j < dims; ++j)
            coords[i * dims + j] = float(radius * u[j]);
    }
    return finish(dims, std::move(coords), describe("dense", n, dims, seed));
}

PointSet makeSeedSpreaderPoints(std::size_t n, std::size_t dims, std::uint64_t seed,
                                const SeedSpreaderParams& params) {
    checkShape(n, dims);
    if (!(params.domain > 0.0) || !(params.vicinity >= 0.0) || params.resetEvery == 0 ||
        !(params.noise >= 0.0 && params.noise < 1.0) || !(params.restarts >= 0.0))
        throw Error("invalid seed-spreader parameters");
    Random rng(seed);
    const double shift = params.shift > 0.0 ? params.shift : 50.0 * double(dims);
    const auto clustered = std::size_t(double(n) * (1.0 - params.noise));
    const double restartProbability =
        clustered > 0 ? params.restarts / (double(n) * (1.0 - params.noise)) : 0.0;
    std::vector<double> seedAt(dims), u(dims);
    auto restart = [&] {
        for (auto& s : seedAt)
            s = rng.uniform(0.0, params.domain);
    };
    restart();
    std::size_t sinceMove = 0;
    std::vector<float> coords(n * dims);
    for (std::size_t i = 0; i < n; ++i) {
        float* p = &coords[i * dims];
        if (i >= clustered) {
            for (std::size_t j = 0; j < dims; ++j)
                p[j] = float(rng.uniform(0.0, params.domain));
            continue;
        }
        if (rng.uniform() < restartProbability) {
            restart();
            sinceMove = 0;
        }
        if (sinceMove >= params.resetEvery) {
            unitDirection(rng, dims, u.data());
            for (std::size_t j = 0; j < dims; ++j)
                seedAt[j] += shift * u[j];
            sinceMove = 0;
        }
        unitBall(rng, dims, u.data());
        for (std::size_t j = 0; j < dims; ++j)
            p[j] = float(seedAt[j] + params.vicinity * u[j]);
        ++sinceMove;
    }
    return finish(dims, std::move(coords), describe("seed-spreader", n, dims, seed));
}

DbscanDatasetDefaults dbscanDatasetDefaults(DbscanDistribution dist) {
    if (dist == DbscanDistribution::SeedSpreader) return {5000.0f, 100};
    return {1.0f, 10};
}

PointSet makeDbscanDataset(DbscanDistribution dist, std::size_t n, std::size_t dims, float eps,
                           std::uint64_t seed) {
    switch (dist) {
        case DbscanDistribution::Uniform:
            return makeUniformPoints(n, dims, seed);
        case DbscanDistribution::Blobs:
            return makeBlobPoints(n, dims, seed);
        case DbscanDistribution::Dense:
            return makeDenseBall(n, dims, eps, seed);
        case DbscanDistribution::SeedSpreader:
            break;
    }
    return makeSeedSpreaderPoints(n, dims, seed);
}

}  // namespace cs
