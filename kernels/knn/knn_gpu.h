// SPDX-License-Identifier: MIT
#pragma once

// The kNN graph from a random-projection tree forest on the GPU, bit-identical to the CPU
// backend (the spec is compute/knn/knn_graph.h). Host-only header (g++ with the CUDA include
// path). Per tree: the projections on its directions; per level one stable radix sort (CUB) of
// (node, projection) keys laid out by point index, which orders every node by (projection,
// index) as the spec does; the points gathered in tree order into a structure of arrays; and the
// leaf search: a block of rows of one leaf against tiles of the leaf's points in shared memory,
// each thread keeping its point's list. The recall sample's exact neighbours come from the same
// tiles over all points, in chunks merged afterwards. Stages (CUDA events): "upload",
// "recentre" (without resident points), "exact sample", "projection", "tree", "leaf search",
// "recall", "finish".

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "compute/core/device_resident.h"
#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/knn/knn_graph.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/device_points.h"
#include "kernels/common/device_quantities.h"

namespace cs::kernels {

class StreamHandles;

/// A KnnGraph's neighbour indices kept on the device (KnnGraph::device): n x k int32, row by row,
/// for the point view's edges through GL interop. Holds its context, whose stream frees them.
struct KnnDeviceGraph final : DeviceEdges {
    DeviceBuffer<std::int32_t> indices;  ///< n x k
    std::size_t n = 0;
    int k = 0;
    const std::int32_t* targets() const override { return indices.data(); }
    std::size_t points() const override { return n; }
    int edgesPerPoint() const override { return k; }
};

/// The trees of a forest (each tree's point order and its points gathered in that order) and the
/// recall sample's exact neighbours, kept from one graph to the next on the same device
/// coordinates (the GUI's live runs on resident points): a run that changes only k or the target
/// recall builds no tree it has kept (5 ms of 29 at 1M points on an H200), and one whose k the
/// kept sample reaches searches no exact neighbours (4 ms): the sample's exact lists for k are the
/// first k of a larger k's. Host lists for the next graph are filled while the user looks at this
/// one (spareListSlots). A run with other coordinates, seed, leaf size or sample frees what is
/// kept. Trees are kept while the whole takes at most limitBytes of device memory. The owner keeps
/// one per coordinate array and drops it with the array (an address can be reused).
struct KnnForestReuse {
    struct Kept;       ///< knn_gpu.cpp
    KnnForestReuse();  ///< keeps nothing until limitBytes is set
    explicit KnnForestReuse(std::size_t limitBytes);
    ~KnnForestReuse();
    KnnForestReuse(const KnnForestReuse&) = delete;
    KnnForestReuse& operator=(const KnnForestReuse&) = delete;
    /// Device memory held (0 while nothing is kept).
    std::size_t bytes() const;
    /// Trees kept.
    int trees() const;
    /// Entries of the spare host lists filled for the next graph (0 when none): n * (k + 2)
    /// after a graph of k whose lists take at most 512 MiB; the next graph takes them when it
    /// needs between half of them and all.
    std::size_t spareListSlots() const;

    std::size_t limitBytes = 0;
    std::unique_ptr<Kept> kept;
};

/// Device memory the build needs for n points of `dims` with these parameters, besides the
/// input coordinates: an upper bound used to refuse problems that do not fit.
std::size_t knnDeviceBytes(std::size_t n, std::size_t dims, const KnnParams& params);

/// The kNN graph of a host point set, identical to knnGraphCpu. With keepIndices, the device
/// neighbour indices are moved there. With resident (uploadRecentred() of these very points, on
/// ctx's device), the upload is skipped. Throws cs::Error on bad parameters or input, too many
/// points (>= 2^31 - 1) or too little free device memory; cs::Cancelled when the job is
/// cancelled (checked between trees and levels). reuse (optional, with resident): see
/// KnnForestReuse; a tree taken from it has no "projection" nor "tree" stage, a sample taken
/// from it no "exact sample".
/// @code cs::KnnGraph g = cs::kernels::knnGraphCuda(ctx, points, {.k = 10}, job); @endcode
KnnGraph knnGraphCuda(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                      JobControl& job, DeviceBuffer<std::int32_t>* keepIndices = nullptr,
                      const DevicePoints* resident = nullptr, KnnForestReuse* reuse = nullptr);

/// The same graph with every tree's leaves spread over several devices (contexts, one per
/// worker; the same device may appear more than once, for testing): identical to knnGraphCuda
/// on one device. Each worker holds the whole set and builds every tree; the lists are merged
/// on the host, and with keepIndices the merged indices are uploaded to contexts[0]'s device.
/// resident, when given, must be on contexts[0]'s device. The exact graph (params.exact) runs on
/// contexts[0] alone. reuse is passed to knnGraphCuda on one device (several keep nothing).
/// Throws as knnGraphCuda does.
/// @code cs::KnnGraph g = cs::kernels::knnGraphMultiCuda(contexts, points, {.k = 10}, job);
/// @endcode
KnnGraph knnGraphMultiCuda(std::span<StreamHandles* const> contexts, const PointSet& points,
                           const KnnParams& params, JobControl& job,
                           DeviceBuffer<std::int32_t>* keepIndices = nullptr,
                           const DevicePoints* resident = nullptr, KnnForestReuse* reuse = nullptr);

/// One tree's leaves of a share of the points searched into their lists (KnnLeafSearch, the
/// distributed graph's per-rank work): the lists knn_parts::searchLeaves gives, bit for bit.
/// Stages "upload", "leaf search", "download". Throws cs::Error when the share does not fit in
/// free device memory; cs::Cancelled between launches.
void knnSearchLeavesCuda(StreamHandles& ctx, const KnnLeafSearch& leaves, JobControl& job);

}  // namespace cs::kernels
