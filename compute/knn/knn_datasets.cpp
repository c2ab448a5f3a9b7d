// SPDX-License-Identifier: MIT
#include "compute/knn/knn_datasets.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/random.h"
#include "compute/core/sparse_pca.h"
#include "compute/dbscan/dbscan_datasets.h"

namespace cs {

std::string_view toString(KnnDistribution dist) {
    switch (dist) {
        case KnnDistribution::Blobs:
            return "blobs";
        case KnnDistribution::Uniform:
            return "uniform";
        case KnnDistribution::Embed:
            return "embed";
        case KnnDistribution::Sparse:
            break;
    }
    return "sparse";
}

KnnDistribution parseKnnDistribution(std::string_view text) {
    for (auto d : {KnnDistribution::Blobs, KnnDistribution::Uniform, KnnDistribution::Embed,
                   KnnDistribution::Sparse})
        if (text == toString(d)) return d;
    throw Error("unknown distribution '" + std::string(text) +
                "' (use blobs, uniform, embed or sparse)");
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

SparseSet makeSparseKnnRows(std::size_t n, std::size_t dims, std::uint64_t seed) {
    constexpr std::size_t kEntries = kKnnSparseRowEntries, kCopies = 20, kExtra = 4;
    constexpr double kKeep = 0.9, kScaleSd = 0.2, kExtraMax = 0.5;
    if (dims < 2 * kEntries || dims > (std::size_t(1) << 31) - 1)
        throw Error("generated sparse rows need between " + std::to_string(2 * kEntries) +
                    " and 2^31 - 1 columns, not " + std::to_string(dims));
    if (n == 0 || n > (std::size_t(1) << 28))
        throw Error("generated sparse rows: " + std::to_string(n) + " rows is not in [1, 2^28]");
    Random rng(seed);
    const std::size_t prototypes = std::max<std::size_t>(1, n / kCopies);
    std::vector<std::int32_t> protoCols(prototypes * kEntries);
    std::vector<float> protoValues(prototypes * kEntries);
    std::vector<std::int32_t> cols;
    for (std::size_t p = 0; p < prototypes; ++p) {
        cols.clear();
        while (cols.size() < kEntries) {
            const auto c = std::int32_t(rng.below(dims));
            if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
        }
        std::sort(cols.begin(), cols.end());
        std::copy(cols.begin(), cols.end(), protoCols.begin() + std::ptrdiff_t(p * kEntries));
        for (std::size_t e = 0; e < kEntries; ++e)
            protoValues[p * kEntries + e] = float(0.5 + std::fabs(rng.normal()));
    }
    SparseSet s;
    s.n = n;
    s.dims = dims;
    s.indptr.reserve(n + 1);
    s.indptr.push_back(0);
    s.indices.reserve(n * (kEntries + kExtra));
    s.values.reserve(n * (kEntries + kExtra));
    std::vector<std::pair<std::int32_t, float>> row;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t p = rng.below(prototypes);
        row.clear();
        for (std::size_t e = 0; e < kEntries; ++e) {
            const bool keep = rng.uniform() < kKeep;
            const double scale = 1.0 + kScaleSd * rng.normal();
            if (keep)
                row.emplace_back(protoCols[p * kEntries + e],
                                 float(protoValues[p * kEntries + e] * scale));
        }
        for (std::size_t e = 0; e < kExtra; ++e) {
            const auto c = std::int32_t(rng.below(dims));
            const auto v = float(rng.uniform(0.0, kExtraMax));
            if (std::none_of(row.begin(), row.end(), [c](const auto& rv) { return rv.first == c; }))
                row.emplace_back(c, v);
        }
        std::sort(row.begin(), row.end());
        for (const auto& [c, v] : row) {
            s.indices.push_back(c);
            s.values.push_back(v);
        }
        s.indptr.push_back(std::int64_t(s.indices.size()));
    }
    s.validate();  // cheap beside the rows' drawing, and the benchmark trusts them
    s.source = "knn:sparse n=" + std::to_string(n) + " d=" + std::to_string(dims) +
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
            return makeEmbedPoints(n, dims, seed);
        case KnnDistribution::Sparse:
            break;
    }
    auto rows = std::make_shared<SparseSet>(makeSparseKnnRows(n, dims, seed));
    PointSet p;
    p.n = rows->n;
    p.dims = 3;
    p.coords = sparsePcaCoords(*rows, seed);
    p.dimNames = {"pc1", "pc2", "pc3"};
    p.source = rows->source;
    p.sparse = std::move(rows);
    return p;
}

}  // namespace cs
