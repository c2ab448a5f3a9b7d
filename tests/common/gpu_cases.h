// SPDX-License-Identifier: MIT
#pragma once

// What the GPU suites share: the first difference of two kNN graphs that must be identical, and
// noisy series of several channels and ragged lengths.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "compute/core/random.h"
#include "compute/core/series_set.h"
#include "compute/knn/knn_graph.h"

namespace cs::test {

/// Where two graphs that must be identical first differ (indices, distances bit for bit, trees
/// built, recall after every tree), or "" when they do not.
inline std::string firstDifference(const KnnGraph& a, const KnnGraph& b) {
    if (a.n != b.n || a.k != b.k) return "shapes differ";
    if (a.indices.size() != b.indices.size() || a.distances.size() != b.distances.size())
        return "array sizes differ";
    for (std::size_t s = 0; s < a.indices.size(); ++s)
        if (a.indices[s] != b.indices[s] ||
            std::memcmp(&a.distances[s], &b.distances[s], sizeof(float)) != 0) {
            std::ostringstream out;
            out.precision(9);
            out << "point " << s / std::size_t(a.k) << " slot " << s % std::size_t(a.k)
                << ": neighbour " << a.indices[s] << " at " << a.distances[s] << " vs "
                << b.indices[s] << " at " << b.distances[s];
            return out.str();
        }
    if (a.treesBuilt != b.treesBuilt)
        return "trees built " + std::to_string(a.treesBuilt) + " vs " +
               std::to_string(b.treesBuilt);
    if (a.recallByTree != b.recallByTree) return "recall by tree differs";
    return {};
}

/// n noisy sines of `length` samples and `channels` channels; when ragged, every third series
/// is shorter (at least 12 samples).
inline SeriesSet noisySeries(std::size_t n, std::size_t channels, std::size_t length,
                             std::uint64_t seed, bool ragged) {
    Random rng(seed);
    SeriesSet s;
    s.n = n;
    s.channels = channels;
    s.length = length;
    s.values.assign(n * channels * length, 0.0f);
    s.lengths.assign(n, std::uint32_t(length));
    for (std::size_t i = 0; i < n; ++i) {
        if (ragged && i % 3 == 1) s.lengths[i] = std::uint32_t(12 + rng.below(length - 12));
        const double f = 0.01 + 0.05 * rng.uniform();
        for (std::size_t c = 0; c < channels; ++c)
            for (std::size_t t = 0; t < s.lengths[i]; ++t)
                s.values[(i * channels + c) * length + t] =
                    float(std::sin(f * double(t) + double(c)) + 0.3 * rng.normal());
    }
    return s;
}

}  // namespace cs::test
