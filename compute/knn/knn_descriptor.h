// SPDX-License-Identifier: MIT
#pragma once

#include "compute/core/algorithm_descriptor.h"
#include "compute/knn/knn_graph.h"

namespace cs {

/// The kNN graph's parameters (k, trees, leafSize, targetRecall, recallSample, seed) and
/// exports (edges CSV), declared once.
/// @code KnnParams p = knnParams(knnDescriptor().defaults()); @endcode
const AlgorithmDescriptor& knnDescriptor();
/// The parameters for a full set of kNN values.
KnnParams knnParams(const ParameterValues& values);
/// The values of p.
ParameterValues knnValues(const KnnParams& p);

}  // namespace cs
