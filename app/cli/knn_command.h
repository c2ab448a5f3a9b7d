// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compute/core/point_set.h"
#include "compute/knn/knn_graph.h"

namespace cs::cli {

/// `knn FILE [--k 10] [--trees 8] [--leaf-size 512] [--target-recall 0.95]
/// [--recall-sample 256] [--seed 1] [--backend cpu|cuda|auto] [--out edges.csv|graph.npy]
/// [--json]`: the approximate kNN graph of a point cloud (random-projection forest). --out
/// .csv writes `source,target,distance` rows (k per point, row by row); .npy writes the n x k
/// int32 indices there and the n x k float32 distances beside it (`graph_distances.npy`).
/// Prints a JSON summary (--json) or one line of text. Errors name the file and exit 2.
void addKnnCommand(CLI::App& app, int& exitCode);

/// The parameters as JSON: k, trees, leaf_size, target_recall, recall_sample, seed.
nlohmann::json knnParamsJson(const KnnParams& params);

/// What a graph reports: trees_built, recall_by_tree, recall, mean_kth_distance,
/// max_kth_distance (the k-th neighbour's distance over all points).
nlohmann::json knnSummary(const KnnGraph& graph);

}  // namespace cs::cli
