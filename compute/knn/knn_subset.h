// SPDX-License-Identifier: MIT
#pragma once

#include <limits>

#include "compute/core/item_subset.h"
#include "compute/knn/knn_graph.h"

namespace cs {

/// A kNN graph of subsetOf(points, subset) as a graph of the whole set: each run point's row
/// goes to its index in the set with its neighbours' indices in the set; the rows of the other
/// points have no neighbours (index -1, distance NaN: writers skip them, the view draws
/// nothing). The device copy is dropped (it holds the subset's indices).
inline KnnGraph expandKnnGraph(const KnnGraph& g, const ItemSubset& subset) {
    KnnGraph out;
    out.n = subset.total;
    out.k = g.k;
    out.treesBuilt = g.treesBuilt;
    out.recallByTree = g.recallByTree;
    const auto k = std::size_t(std::max(g.k, 0));
    std::vector<std::int32_t> mapped(g.indices.size());
    for (std::size_t e = 0; e < g.indices.size(); ++e) {
        const std::int32_t t = g.indices[e];
        mapped[e] = t >= 0 && std::size_t(t) < subset.size()
                        ? std::int32_t(subset.indices[std::size_t(t)])
                        : -1;
    }
    out.indices = scatterRows<std::int32_t>(mapped, subset, -1, k);
    out.distances =
        scatterRows<float>(g.distances, subset, std::numeric_limits<float>::quiet_NaN(), k);
    return out;
}

}  // namespace cs
