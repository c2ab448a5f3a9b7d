// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>

#include <mpi.h>

#include "compute/distributed/knn_mpi.h"

namespace cs::mpi {

/// What a parallel write cost this rank.
struct ParallelWriteStats {
    std::uint64_t bytesSent = 0;     ///< the dropped rows' exchange (0 when no row was dropped)
    std::uint64_t bytesWritten = 0;  ///< this rank's bytes of both files, the headers included
};

/// Writes the distributed graph as io::writeKnnNpy writes the gathered one, byte for byte,
/// without gathering it: every rank writes its file rows [slice.fileRowBegin,
/// slice.fileRowEnd) of both files with MPI-IO (collective writes at header + row x k x 4),
/// rank 0 the headers. Neighbours are written as file rows: with no dropped row a point's
/// index is its row; otherwise the ranks exchange their dropped rows (8 bytes each) and every
/// rank maps indices to rows from them. Each file is written under a temporary name beside it
/// and renamed when every rank has written its part (io::AtomicOutput), so a failure leaves
/// no partial file. Errors are agreed (agree()): one rank throws cs::Error naming the file,
/// the others ReportedElsewhere. Collective.
/// @code
/// mpi::writeKnnNpyParallel(MPI_COMM_WORLD, "graph.npy", "graph_distances.npy", slice, local, k);
/// @endcode
ParallelWriteStats writeKnnNpyParallel(MPI_Comm comm, const std::filesystem::path& indicesFile,
                                       const std::filesystem::path& distancesFile,
                                       const PointSlice& slice, const KnnSlice& local, int k);

}  // namespace cs::mpi
