// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>

#include "compute/backend/backend.h"
#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/knn/knn_graph.h"

// The kNN graph over MPI ranks (PyRKNN's distributed forest, Xiao, Chen, Biros, ACM TOPC,
// section 4), built so that the graph is the one knnGraphCpu builds, bit for bit, for any
// number of ranks:
//  - rank r holds the points [first_r, first_{r+1}) (chunks of the file's rows); nobody holds
//    the whole set;
//  - the recentring box, the recall sample's exact lists and the sampled recall are reduced
//    over all ranks exactly (min/max, k-smallest merges, gathers), so every rank takes the
//    same stopping decision after every tree;
//  - every rank draws the same directions from the shared seed (knnTreeDirections): no
//    direction is ever sent;
//  - the first levels, until there are at least as many nodes as ranks, are split where the
//    points live: only order statistics travel: each node's split (the median of knnSortKey
//    over its members, wherever they are) is found by a radix selection on histograms summed
//    over the ranks, so each node gets exactly the members the one-process sort gives it;
//  - then each point (coordinates and list) moves to the rank that owns its node (nodes dealt
//    out in blocks), which splits its subtrees down to the leaves alone, exactly as the
//    one-process tree does, and searches the leaves on its backend (Backend::knnSearchLeaves:
//    the CPU code, or the CUDA leaf kernel, which gives the same lists); the lists go back to
//    their points' home ranks.
// A leaf's lists do not depend on the order its members are visited in (each list is the k
// smallest distinct (squared distance, index) pairs met), so the graph is the same.
namespace cs::mpi {

/// This process's rank in comm, and the number of ranks in comm.
int rankOf(MPI_Comm comm);
int sizeOf(MPI_Comm comm);
/// This process's rank among comm's ranks on its host, and their number.
struct HostRanks {
    int rank = 0;
    int size = 1;
};
HostRanks hostRanks(MPI_Comm comm);

/// Thrown on the ranks that did not fail when another rank's error is the one reported (by
/// that rank, alone), so the run ends on all ranks with one message and no hang.
class ReportedElsewhere : public std::runtime_error {
public:
    ReportedElsewhere() : std::runtime_error("reported by another rank") {}
};

/// Runs body on every rank of comm, then agrees: when it threw on some rank, the lowest such
/// rank rethrows its exception and the others throw ReportedElsewhere. Collective.
void agree(MPI_Comm comm, const std::function<void()>& body);

/// This rank's share of a point cloud.
struct PointSlice {
    PointSet points;                    ///< this rank's points (finite rows), in file order
    std::size_t first = 0;              ///< the index of points' first point among all ranks'
    std::size_t total = 0;              ///< points over all ranks
    std::size_t fileRowCount = 0;       ///< the file's rows, kept and dropped
    std::vector<std::size_t> fileRows;  ///< the file row of each of this rank's points
    std::vector<std::size_t> firsts;    ///< first of every rank, and total last (size P + 1)
    /// The file rows [fileRowBegin, fileRowEnd) this rank owns, dropped rows included: its
    /// points' rows and the dropped rows among them; the ranks' ranges are contiguous, in rank
    /// order, from 0 to fileRowCount (each rank writes its own rows of a parallel output).
    std::size_t fileRowBegin = 0, fileRowEnd = 0;
};

/// Reads this rank's share of `file`. A `.npy` is read by range: each rank reads its chunk of
/// the rows (io::readNpyRows) and drops rows with NaN/Inf as the one-process reader does.
/// Other formats are parsed whole by every rank, which keeps its chunk of the points. Throws
/// the reader's errors (the same on every rank); call it inside agree(). Collective.
PointSlice readPointSlice(MPI_Comm comm, const std::string& file);

/// Throws cs::Error (the same on every rank) when the parameters are bad (validateKnnParams) or
/// the set is too small: fewer than k + 1 points, or fewer points than ranks.
void checkKnnMpi(std::size_t total, const KnnParams& params, int ranks);

/// This rank's rows of the distributed graph: the one-process graph's rows [first, first + n).
struct KnnSlice {
    std::vector<std::int32_t> indices;  ///< n x k, point indices among all ranks' points
    std::vector<float> distances;       ///< n x k, in the data's units
    int treesBuilt = 0;
    std::vector<double> recallByTree;  ///< the same on every rank
    std::uint64_t bytesSent = 0;       ///< bytes this rank sent (all collectives' payloads)
    double commMs = 0.0;  ///< time this rank spent in collectives, waiting for others included
};

/// The distributed kNN graph (see above) of the slices' points; params as knnGraphCpu (checked
/// by validateKnnParams; the total must be at least k + 1 and at least the number of ranks).
/// backend: where this rank searches its leaves (Backend::knnSearchLeaves; ranks may share a
/// GPU). threads: this rank's host workers (<= 0: one per hardware thread).
/// Stages in job's timings: "exact sample", then per tree "projection", "tree", "exchange",
/// "leaf search", "recall", and "finish". Per tree a rank sends about (its points) x (d + 2k + 3)
/// x 4 bytes, and 16 KB x 2^level per shared level in histograms. Collective; throws cs::Error on
/// bad parameters on every rank alike.
KnnSlice knnGraphMpi(MPI_Comm comm, const PointSlice& slice, const KnnParams& params,
                     Backend& backend, JobControl& job, int threads = 0);

/// The whole graph at rank root (n = slice.total rows; fileRows the file row of every point),
/// empty elsewhere. Collective.
struct GatheredKnn {
    KnnGraph graph;
    std::vector<std::size_t> fileRows;
};
GatheredKnn gatherKnn(MPI_Comm comm, const PointSlice& slice, const KnnSlice& local,
                      const KnnParams& params, int root = 0);

}  // namespace cs::mpi
