// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>

#include "compute/core/point_set.h"
#include "compute/knn/knn_graph.h"

namespace cs::io {

/// The distances file clusterscope-cli knn --out writes beside the indices: graph.npy ->
/// graph_distances.npy.
std::filesystem::path knnDistancesPath(const std::filesystem::path& indicesFile);

/// Reads a kNN graph written by writeKnnNpy (clusterscope-cli knn --out, also under mpirun with
/// --write parallel) back onto the points it was computed from: indicesFile is int32, one row
/// per row of the points' file, k columns of neighbours' file rows, -1 in the rows dropped on
/// reading for NaN/Inf; distancesFile is float32 of the same shape, NaN in those rows. The
/// file rows become point indices through points.fileRow(). An empty distancesFile computes
/// the distances from the coordinates as the graph does (sqrt of canonicalDist2 on
/// recentredCoords, back in the data's units), so they equal the written ones bit for bit.
/// The graph has treesBuilt 0 and no recallByTree: it was not built here.
/// Throws cs::Error naming the file and the problem: not int32 / float32, not 2-D, a row count
/// other than points.fileRowCount(), k outside [1, kKnnMaxK], a neighbour outside [0, rows),
/// at a dropped row or at its own row, a dropped row that lists neighbours, distances of
/// another shape, NaN distances in a kept row.
/// @code
/// const KnnGraph g = cs::io::readKnnNpy("graph.npy", "graph_distances.npy", points);
/// @endcode
KnnGraph readKnnNpy(const std::filesystem::path& indicesFile,
                    const std::filesystem::path& distancesFile, const PointSet& points);

}  // namespace cs::io
