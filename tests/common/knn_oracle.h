// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/geometry.h"
#include "compute/dbscan/dbscan.h"
#include "compute/knn/knn_graph.h"

namespace cs::test {

// Plain C++ (no Qt), shared by tests/compute/tst_knn.cpp and the GPU suite. Written from the
// definitions in compute/knn/knn_graph.h without the backends' code, so it can referee them.

/// The exact kNN graph by brute force, O(n^2 d): for every point the k smallest
/// (canonicalDist2, index) pairs over all other points, from the recentred coords (row-major
/// n x dims). distances are the float sqrt of canonicalDist2 in the data's units
/// (fromRecentred); treesBuilt and recallByTree stay empty. Needs k < n.
inline KnnGraph oracleKnnGraph(const RecentredCoords& frame, std::size_t n, std::size_t dims,
                               int k) {
    const std::vector<float>& x = frame.coords;
    KnnGraph g;
    g.n = n;
    g.k = k;
    const std::size_t kk = std::size_t(k);
    g.indices.resize(n * kk);
    g.distances.resize(n * kk);
    // The k best so far, kept sorted by plain insertion (a scan over j in index order never
    // meets a pair twice); `filled` grows to k.
    std::vector<float> best(kk);
    std::vector<std::int32_t> who(kk);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t filled = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const float d2 = canonicalDist2(&x[i * dims], &x[j * dims], dims);
            // j only grows, so among equal distances the earlier entry already has the lower
            // index: j goes after them, and in a full list an equal last entry beats it.
            if (filled == kk && !(d2 < best[kk - 1])) continue;
            std::size_t p = filled < kk ? filled++ : kk - 1;
            for (; p > 0 && best[p - 1] > d2; --p) {
                best[p] = best[p - 1];
                who[p] = who[p - 1];
            }
            best[p] = d2;
            who[p] = std::int32_t(j);
        }
        for (std::size_t q = 0; q < kk; ++q) {
            g.indices[i * kk + q] = who[q];
            g.distances[i * kk + q] = std::sqrt(best[q]);
        }
    }
    fromRecentred(g.distances, frame.scale);
    return g;
}

/// The oracle's rows for the listed points only (sample.size() * k indices): what a backend
/// measures its recall against.
inline std::vector<std::int32_t> oracleRows(const KnnGraph& oracle,
                                            const std::vector<std::int32_t>& sample) {
    const std::size_t kk = std::size_t(oracle.k);
    std::vector<std::int32_t> rows;
    rows.reserve(sample.size() * kk);
    for (auto s : sample)
        for (std::size_t q = 0; q < kk; ++q)
            rows.push_back(oracle.indices[std::size_t(s) * kk + q]);
    return rows;
}

/// The squared distances (canonicalDist2) of every listed pair of a graph, n x k as its indices:
/// what a backend keeps with its lists and measures the recall with (+inf for an empty slot).
inline std::vector<float> listDist2(const KnnGraph& g, const std::vector<float>& x,
                                    std::size_t dims) {
    std::vector<float> d2(g.indices.size(), std::numeric_limits<float>::infinity());
    const std::size_t kk = std::size_t(g.k);
    for (std::size_t e = 0; e < g.indices.size(); ++e) {
        const auto j = g.indices[e];
        if (j >= 0 && std::size_t(j) < g.n)
            d2[e] =
                canonicalDist2(x.data() + (e / kk) * dims, x.data() + std::size_t(j) * dims, dims);
    }
    return d2;
}

/// The rows of the listed points (sample.size() x k) of per-pair values laid out n x k.
inline std::vector<float> sampleRows(const std::vector<float>& lists, int k,
                                     const std::vector<std::int32_t>& sample) {
    const std::size_t kk = std::size_t(k);
    std::vector<float> rows;
    rows.reserve(sample.size() * kk);
    for (auto s : sample)
        rows.insert(rows.end(), lists.begin() + std::ptrdiff_t(std::size_t(s) * kk),
                    lists.begin() + std::ptrdiff_t((std::size_t(s) + 1) * kk));
    return rows;
}

/// The fraction of the exact neighbours (oracle rows, as sets) found in the graph's rows, over
/// all points: the recall of the whole graph, counted independently of cs::knnRecall.
inline double oracleRecall(const KnnGraph& graph, const KnnGraph& oracle) {
    const std::size_t kk = std::size_t(oracle.k);
    std::size_t found = 0;
    for (std::size_t i = 0; i < oracle.n; ++i)
        for (std::size_t q = 0; q < kk; ++q) {
            const auto want = oracle.indices[i * kk + q];
            for (std::size_t r = 0; r < kk; ++r)
                if (graph.indices[i * kk + r] == want) {
                    ++found;
                    break;
                }
        }
    return oracle.n == 0 ? 0.0 : double(found) / double(oracle.n * kk);
}

/// Checks a graph's invariants against x (recentred coords, row-major n x dims): sizes, every
/// index in [0, n) and not the point itself, no repeats in a row, rows strictly increasing in
/// (canonicalDist2, index), and distances exactly the float sqrt of canonicalDist2 of the pair.
/// Returns a description of the first violation, or an empty string.
inline std::string checkKnnGraph(const KnnGraph& g, const RecentredCoords& frame,
                                 std::size_t dims) {
    const std::vector<float>& x = frame.coords;
    const std::size_t n = g.n, kk = std::size_t(g.k);
    if (g.k < 1) return "k = " + std::to_string(g.k);
    if (x.size() != n * dims) return "coords do not match n";
    if (g.indices.size() != n * kk || g.distances.size() != n * kk)
        return "indices/distances hold " + std::to_string(g.indices.size()) + "/" +
               std::to_string(g.distances.size()) +
               " entries, expected n k = " + std::to_string(n * kk);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string at = "point " + std::to_string(i) + ": ";
        float previous = -1.0f;
        std::int32_t previousIndex = -1;
        for (std::size_t q = 0; q < kk; ++q) {
            const std::int32_t j = g.indices[i * kk + q];
            const std::string slot =
                at + "neighbour " + std::to_string(q) + " (" + std::to_string(j) + ")";
            if (j < 0 || std::size_t(j) >= n) return slot + " is out of range";
            if (std::size_t(j) == i) return slot + " is the point itself";
            const float d2 = canonicalDist2(&x[i * dims], &x[std::size_t(j) * dims], dims);
            std::vector<float> distance{std::sqrt(d2)};
            fromRecentred(distance, frame.scale);
            if (g.distances[i * kk + q] != distance[0])
                return slot + " has distance " + std::to_string(g.distances[i * kk + q]) +
                       ", expected sqrt(" + std::to_string(d2) + ")";
            if (q > 0 && !(previous < d2 || (previous == d2 && previousIndex < j)))
                return slot + " is not after the previous one in (distance, index) order" +
                       (previous == d2 && previousIndex == j ? " (a repeat)" : "");
            previous = d2;
            previousIndex = j;
        }
        // Strict (dist2, index) order already rules repeats out; say so plainly anyway.
        std::vector<std::int32_t> row(g.indices.begin() + std::ptrdiff_t(i * kk),
                                      g.indices.begin() + std::ptrdiff_t((i + 1) * kk));
        std::sort(row.begin(), row.end());
        if (std::adjacent_find(row.begin(), row.end()) != row.end()) return at + "repeats";
    }
    return {};
}

}  // namespace cs::test
