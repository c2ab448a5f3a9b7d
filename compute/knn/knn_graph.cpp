// SPDX-License-Identifier: MIT
// The host helpers every kNN-graph backend shares: parameter checks, the tree shape, the random
// directions and the recall sample. Everything random is drawn here, on the host, so the CPU and
// CUDA backends build the same trees from the same numbers.
#include "compute/knn/knn_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <sstream>
#include <string>

#include "compute/core/error.h"
#include "compute/core/finite.h"
#include "compute/core/random.h"

namespace cs {
namespace {

std::string number(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

}  // namespace

void validateKnnParams(const KnnParams& params) {
    if (params.k < 1 || params.k > kKnnMaxK)
        throw Error("k must be in [1, " + std::to_string(kKnnMaxK) + "], got " +
                    std::to_string(params.k));
    if (params.trees < 1)
        throw Error("trees must be at least 1, got " + std::to_string(params.trees));
    const int minLeaf = 2 * (params.k + 1);
    if (params.leafSize < minLeaf || params.leafSize > kKnnMaxLeafSize)
        throw Error("leafSize must be in [2 (k + 1) = " + std::to_string(minLeaf) + ", " +
                    std::to_string(kKnnMaxLeafSize) + "], got " + std::to_string(params.leafSize));
    if (!std::isfinite(params.targetRecall) || params.targetRecall < 0.0 ||
        params.targetRecall > 1.0)
        throw Error("targetRecall must be in [0, 1], got " + number(params.targetRecall));
    if (params.recallSample < 1)
        throw Error("recallSample must be at least 1, got " + std::to_string(params.recallSample));
}

void validateKnnInput(const PointSet& points, const KnnParams& params, const JobControl* job) {
    validateKnnParams(params);
    if (points.coords.size() != points.n * points.dims)
        throw Error("point set holds " + std::to_string(points.coords.size()) +
                    " coordinates, expected n * d = " + std::to_string(points.n * points.dims));
    if (points.n > 0 && points.dims == 0)
        throw Error("the kNN graph needs points with at least 1 dimension");
    // Indices are int32 with INT32_MAX reserved, and tree positions uint32.
    if (points.n >= std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw Error("the kNN graph supports fewer than 2^31 - 1 points, the set has " +
                    std::to_string(points.n));
    if (points.n < std::size_t(params.k) + 1)
        throw Error("the kNN graph needs at least k + 1 = " + std::to_string(params.k + 1) +
                    " points, the set has " + std::to_string(points.n));
    // In blocks of 2^26 coordinates, a few ms each: 10M points of 128 dimensions would go too
    // long without a checkpoint.
    constexpr std::size_t kBlock = std::size_t(1) << 26;
    const std::span<const float> coords = points.coords;
    for (std::size_t b = 0; b < coords.size(); b += kBlock) {
        if (job) job->checkpoint();
        const auto block = coords.subspan(b, std::min(kBlock, coords.size() - b));
        if (const std::size_t i = firstNonFinite(block); i < block.size())
            throw Error("point " + std::to_string((b + i) / points.dims) +
                        " has a non-finite coordinate; drop NaN/Inf points first");
    }
}

int knnLevels(std::size_t n, int leafSize) {
    const std::size_t leaf = std::size_t(std::max(leafSize, 1));
    int levels = 0;
    // ceil(n / 2^L), computed by halving with ceil (ceil(ceil(n / 2) / 2) = ceil(n / 4)).
    for (std::size_t largest = n; largest > leaf; largest = (largest + 1) / 2)
        ++levels;
    return levels;
}

std::uint64_t knnTreeSeed(std::uint64_t seed, int tree) {
    std::uint64_t state = seed;
    std::uint64_t mixed = splitMix64(state) ^ std::uint64_t(std::uint32_t(tree));
    return splitMix64(mixed);
}

std::vector<float> knnTreeDirections(std::uint64_t seed, int tree, int levels, std::size_t dims) {
    Random rng(knnTreeSeed(seed, tree));
    std::vector<float> directions(std::size_t(std::max(levels, 0)) * dims);
    for (auto& v : directions)
        v = float(rng.normal());
    return directions;
}

std::vector<std::uint32_t> knnNodeOffsets(std::size_t n, int level) {
    std::vector<std::uint32_t> offsets{0, std::uint32_t(n)};
    for (int l = 0; l < level; ++l) {
        std::vector<std::uint32_t> next;
        next.reserve(offsets.size() * 2 - 1);
        for (std::size_t j = 0; j + 1 < offsets.size(); ++j) {
            next.push_back(offsets[j]);
            next.push_back(offsets[j] + (offsets[j + 1] - offsets[j]) / 2);
        }
        next.push_back(offsets.back());
        offsets = std::move(next);
    }
    return offsets;
}

std::vector<std::int32_t> knnRecallSample(std::size_t n, int recallSample, std::uint64_t seed) {
    const std::size_t m = std::min(n, std::size_t(std::max(recallSample, 0)));
    std::vector<std::int32_t> sample;
    sample.reserve(m);
    if (m == n) {
        for (std::size_t i = 0; i < n; ++i)
            sample.push_back(std::int32_t(i));
        return sample;
    }
    // Floyd's algorithm: m distinct draws with exactly m random numbers.
    Random rng(seed ^ 0x5EED5A3B1Eull);
    std::set<std::size_t> chosen;
    for (std::size_t j = n - m; j < n; ++j) {
        const std::size_t t = std::size_t(rng.below(j + 1));
        chosen.insert(chosen.count(t) ? j : t);
    }
    for (auto i : chosen)
        sample.push_back(std::int32_t(i));
    return sample;
}

double knnRecall(std::span<const float> listDist2, int k, std::span<const std::int32_t> sample,
                 std::span<const float> exactDist2) {
    if (sample.empty() || k < 1) return 0.0;
    const auto kk = std::size_t(k);
    if (exactDist2.size() != sample.size() * kk)
        throw Error("knnRecall: " + std::to_string(exactDist2.size()) + " exact distances for " +
                    std::to_string(sample.size()) + " sample points of k = " + std::to_string(k));
    std::vector<float> rows(sample.size() * kk);
    for (std::size_t s = 0; s < sample.size(); ++s) {
        const std::size_t p = std::size_t(sample[s]);
        if (sample[s] < 0 || (p + 1) * kk > listDist2.size())
            throw Error("knnRecall: sample point " + std::to_string(sample[s]) +
                        " is not in the graph");
        std::copy_n(listDist2.begin() + std::ptrdiff_t(p * kk), kk,
                    rows.begin() + std::ptrdiff_t(s * kk));
    }
    return knnRecallOfRows(rows, exactDist2, k);
}

}  // namespace cs
