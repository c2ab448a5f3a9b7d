// SPDX-License-Identifier: MIT
#include "compute/knn/knn_quantities.h"

namespace cs {

PointEdges knnEdges(std::shared_ptr<const KnnGraph> graph) {
    PointEdges e;
    if (!graph) return e;
    e.n = graph->n;
    e.k = graph->k;
    e.targets = graph->indices;
    e.values = graph->distances;
    e.valueName = "kNN distance";
    e.device = graph->device;
    e.owner = std::move(graph);
    return e;
}

}  // namespace cs
