// SPDX-License-Identifier: MIT
#include "compute/dbscan/dbscan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "compute/core/error.h"
#include "compute/dbscan/cluster_overlap.h"

namespace cs {

void validateDbscanParams(const DbscanParams& params) {
    if (!std::isfinite(params.eps) || params.eps < 0.0f)
        throw Error("DBSCAN eps must be a finite number >= 0 (got " + std::to_string(params.eps) +
                    ")");
    if (params.minPts < 1)
        throw Error("DBSCAN minPts must be at least 1 (got " + std::to_string(params.minPts) + ")");
}

void canonicalizeDbscanResult(DbscanResult& result) {
    // Scanning points in index order meets every cluster first at its smallest member.
    std::int32_t maxId = -1;
    for (auto l : result.labels)
        maxId = std::max(maxId, l);
    std::vector<std::int32_t> remap(static_cast<std::size_t>(maxId + 1), -1);
    std::vector<std::size_t> sizes;
    std::int32_t next = 0;
    DbscanStats stats;
    for (std::size_t i = 0; i < result.labels.size(); ++i) {
        std::int32_t& label = result.labels[i];
        const bool core = !result.isCore.empty() && result.isCore[i];
        if (label < 0) {
            label = -1;
            ++stats.noisePoints;
        } else {
            auto& id = remap[static_cast<std::size_t>(label)];
            if (id < 0) {
                id = next++;
                sizes.push_back(0);
            }
            label = id;
            ++sizes[static_cast<std::size_t>(id)];
            if (!core) ++stats.borderPoints;
        }
        if (core) ++stats.corePoints;
    }
    for (auto s : sizes)
        stats.largestCluster = std::max(stats.largestCluster, s);
    stats.clusterSizes = std::move(sizes);
    result.clusterCount = next;
    result.stats = stats;
}

void fillClusterSizes(DbscanResult& result) {
    std::vector<std::size_t>& sizes = result.stats.clusterSizes;
    if (sizes.size() != std::size_t(std::max(result.clusterCount, 0)))
        sizes = clusterSizes(result.labels, result.clusterCount);
}

std::string_view toString(DbscanPath path) {
    switch (path) {
        case DbscanPath::Grid:
            return "grid";
        case DbscanPath::Brute:
            return "brute";
        case DbscanPath::KdTree:
            return "kdtree";
        case DbscanPath::Auto:
            break;
    }
    return "auto";
}

DbscanPath parseDbscanPath(std::string_view text) {
    for (auto p : {DbscanPath::Auto, DbscanPath::Grid, DbscanPath::Brute, DbscanPath::KdTree})
        if (text == toString(p)) return p;
    throw Error("unknown DBSCAN path '" + std::string(text) +
                "' (use auto, grid, brute or kdtree)");
}

}  // namespace cs
