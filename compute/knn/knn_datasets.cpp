// SPDX-License-Identifier: MIT
#include "compute/knn/knn_datasets.h"

#include <cmath>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/random.h"
#include "compute/dbscan/dbscan_datasets.h"

namespace cs {

std::string_view toString(KnnDistribution dist) {
    switch (dist) {
        case KnnDistribution::Blobs:
            return "blobs";
        case KnnDistribution::Uniform:
            return "uniform";
        case KnnDistribution::Embed:
            break;
    }
    return "embed";
}

KnnDistribution parseKnnDistribution(std::string_view text) {
    for (auto d : {KnnDistribution::Blobs, KnnDistribution::Uniform, KnnDistribution::Embed})
        if (text == toString(d)) return d;
    throw Error("unknown distribution '" + std::string(text) + "' (use blobs, uniform or embed)");
}

PointSet makeEmbedPoints(std::size_t n, std::size_t dims, std::uint64_t seed) {
    if (dims == 0) throw Error("a generated point set needs at least 1 dimension");
    if (n > (std::size_t(1) << 31) || dims > 4096 || n * dims > (std::size_t(1) << 33))
        throw Error("a generated point set of " + std::to_string(n) + " x " + std::to_string(dims) +
                    " is too large");
    constexpr std::size_t kIntrinsic = kKnnEmbedIntrinsicDims, kBlobs = 20;
    constexpr double kCentreRange = 10.0, kSd = 1.0, kNoise = 0.1;
    Random rng(seed);
    std::vector<double> map(dims * kIntrinsic);
    const double scale = 1.0 / std::sqrt(double(kIntrinsic));
    for (auto& a : map)
        a = rng.normal() * scale;
    std::vector<double> centres(kBlobs * kIntrinsic);
    for (auto& c : centres)
        c = rng.uniform(-kCentreRange, kCentreRange);
    std::vector<double> z(kIntrinsic);
    std::vector<float> coords(n * dims);
    for (std::size_t i = 0; i < n; ++i) {
        const double* c = &centres[rng.below(kBlobs) * kIntrinsic];
        for (std::size_t q = 0; q < kIntrinsic; ++q)
            z[q] = c[q] + kSd * rng.normal();
        for (std::size_t j = 0; j < dims; ++j) {
            double v = 0.0;
            for (std::size_t q = 0; q < kIntrinsic; ++q)
                v += map[j * kIntrinsic + q] * z[q];
            coords[i * dims + j] = float(v + rng.uniform(-kNoise, kNoise));
        }
    }
    PointSet s = PointSet::fromCoords(dims, std::move(coords));
    s.source = "knn:embed n=" + std::to_string(n) + " d=" + std::to_string(dims) +
               " seed=" + std::to_string(seed);
    return s;
}

PointSet makeKnnDataset(KnnDistribution dist, std::size_t n, std::size_t dims, std::uint64_t seed) {
    switch (dist) {
        case KnnDistribution::Blobs:
            return makeBlobPoints(n, dims, seed);
        case KnnDistribution::Uniform:
            return makeUniformPoints(n, dims, seed);
        case KnnDistribution::Embed:
            break;
    }
    return makeEmbedPoints(n, dims, seed);
}

}  // namespace cs
