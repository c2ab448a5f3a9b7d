// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "compute/core/point_quantities.h"
#include "compute/knn/knn_graph.h"

namespace cs {

/// A kNN graph as the point view draws it: an edge from every point to each of its k
/// neighbours, the distance as the edge's value; on the device too when the graph left its
/// indices there. The edges keep the graph alive.
/// @code view.setEdges(cs::knnEdges(graph)); @endcode
PointEdges knnEdges(std::shared_ptr<const KnnGraph> graph);

}  // namespace cs
