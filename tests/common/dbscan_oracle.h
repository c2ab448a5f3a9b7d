// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

#include "compute/core/point_set.h"
#include "compute/dbscan/dbscan.h"

namespace cs::test {

/// DBSCAN straight from the definition in compute/dbscan/dbscan.h, O(n^2) time, for small n:
/// counts over all pairs, core components by a plain union-find, a border point to its nearest
/// core point (lowest index on ties), ids numbered by smallest member index. Written without
/// the backends' code (not even canonicalizeDbscanResult), so it can referee them.
struct DbscanOracle {
    std::vector<std::int32_t> labels;  ///< canonical ids, -1 noise
    std::vector<std::uint8_t> isCore;  ///< 1 for core points
};

inline DbscanOracle oracleDbscan(const PointSet& points, float eps, int minPts, bool star) {
    const std::size_t n = points.n, d = points.dims;
    const RecentredCoords frame = recentredCoords(points);
    const std::vector<float>& x = frame.coords;
    const float eps2 = epsSquared(toRecentred(eps, frame.scale));
    auto within = [&](std::size_t a, std::size_t b) {
        return canonicalDist2(&x[a * d], &x[b * d], d) <= eps2;
    };
    DbscanOracle o;
    o.isCore.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t count = 0;
        for (std::size_t j = 0; j < n; ++j)
            count += within(i, j);
        o.isCore[i] = count >= std::size_t(minPts);
    }
    std::vector<std::size_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](std::size_t a) {
        while (parent[a] != a)
            a = parent[a] = parent[parent[a]];
        return a;
    };
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if (o.isCore[i] && o.isCore[j] && within(i, j)) {
                const auto a = find(i), b = find(j);
                if (a != b) parent[std::max(a, b)] = std::min(a, b);
            }
    std::vector<std::int64_t> root(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        if (o.isCore[i]) {
            root[i] = std::int64_t(find(i));
        } else if (!star) {
            float best = std::numeric_limits<float>::infinity();
            std::int64_t bestCore = -1;
            for (std::size_t j = 0; j < n; ++j) {
                if (!o.isCore[j] || !within(i, j)) continue;
                const float d2 = canonicalDist2(&x[i * d], &x[j * d], d);
                if (d2 < best) {  // j ascending: the first of equal distances is the lowest index
                    best = d2;
                    bestCore = std::int64_t(j);
                }
            }
            if (bestCore >= 0) root[i] = std::int64_t(find(std::size_t(bestCore)));
        }
    }
    std::map<std::int64_t, std::int32_t> ids;  // scanned in index order: smallest member first
    o.labels.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i)
        if (root[i] >= 0) {
            auto it = ids.find(root[i]);
            if (it == ids.end()) it = ids.emplace(root[i], std::int32_t(ids.size())).first;
            o.labels[i] = it->second;
        }
    return o;
}

}  // namespace cs::test
