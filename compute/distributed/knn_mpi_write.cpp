// SPDX-License-Identifier: MIT
// The parallel write of the distributed kNN graph: every rank writes its own file rows of the
// two .npy files with MPI-IO, so the graph never gathers on one rank (8 GB at 100M points).
#include "compute/distributed/knn_mpi_write.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/io/atomic_output.h"
#include "compute/io/npy.h"

namespace cs::mpi {
namespace {

// What one rank hands to one collective write: MPI counts are int, and some MPI-IO layers
// mishandle single requests near 2 GiB; the ranks agree on the number of rounds.
constexpr std::size_t kWriteRound = std::size_t(64) << 20;

std::string mpiMessage(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return std::string(text, std::size_t(length));
}

// The kept rows before each dropped row of the file, ascending: the m-th dropped row D[m] has
// D[m] - m kept rows before it, so point i (the i-th kept row) is file row
// i + #{m : D[m] - m <= i}. Empty when no row was dropped (point i is row i). Every rank sends
// its own dropped rows, 8 bytes each. Throws the same error on every rank.
std::vector<std::uint64_t> keptBeforeDropped(MPI_Comm comm, const PointSlice& slice,
                                             std::uint64_t& bytesSent) {
    if (slice.total == slice.fileRowCount) return {};
    std::vector<std::uint64_t> mine;
    std::size_t q = 0;
    for (std::size_t row = slice.fileRowBegin; row < slice.fileRowEnd; ++row) {
        if (q < slice.fileRows.size() && slice.fileRows[q] == row)
            ++q;
        else
            mine.push_back(row);
    }
    const int ranks = sizeOf(comm);
    const std::uint64_t count = mine.size();
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(ranks));
    MPI_Allgather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, comm);
    std::vector<int> sizes(counts.size()), displs(counts.size());
    std::uint64_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        displs[r] = int(std::min<std::uint64_t>(total, std::numeric_limits<int>::max()));
        sizes[r] = int(std::min<std::uint64_t>(counts[r], std::numeric_limits<int>::max()));
        total += counts[r];
    }
    if (total > std::uint64_t(std::numeric_limits<int>::max()))
        throw Error("the parallel write cannot exchange " + std::to_string(total) +
                    " dropped rows; use --write gather");
    std::vector<std::uint64_t> dropped(total);
    MPI_Allgatherv(mine.data(), int(count), MPI_UINT64_T, dropped.data(), sizes.data(),
                   displs.data(), MPI_UINT64_T, comm);
    bytesSent += count * sizeof(std::uint64_t) * std::uint64_t(ranks - 1);
    for (std::size_t m = 0; m < dropped.size(); ++m)
        dropped[m] -= m;
    return dropped;
}

// Throws (the same on every rank) unless the ranks' file rows tile [0, fileRowCount) in order.
void checkTiling(MPI_Comm comm, const PointSlice& slice) {
    const std::uint64_t mine[2] = {slice.fileRowBegin, slice.fileRowEnd};
    std::vector<std::uint64_t> all(2 * std::size_t(sizeOf(comm)));
    MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, comm);
    std::uint64_t next = 0;
    for (std::size_t r = 0; r < all.size() / 2; ++r) {
        if (all[2 * r] != next || all[2 * r + 1] < all[2 * r])
            throw Error("the parallel write's file rows do not tile the file: rank " +
                        std::to_string(r) + " holds [" + std::to_string(all[2 * r]) + ", " +
                        std::to_string(all[2 * r + 1]) + "), expected from " +
                        std::to_string(next));
        next = all[2 * r + 1];
    }
    if (next != slice.fileRowCount)
        throw Error("the parallel write's file rows end at " + std::to_string(next) + " of " +
                    std::to_string(slice.fileRowCount));
}

template <typename T>
void toLittleEndian(std::vector<T>& values) {
    if constexpr (std::endian::native != std::endian::little) {
        for (T& v : values) {
            char bytes[sizeof(T)];
            std::memcpy(bytes, &v, sizeof(T));
            std::reverse(bytes, bytes + sizeof(T));
            std::memcpy(&v, bytes, sizeof(T));
        }
    }
}

// Writes one .npy: rank 0 its header, every rank `bytes` at header + offset, into a temporary
// beside `file` (io::AtomicOutput on rank 0) renamed over it once every rank has written.
void writeParts(MPI_Comm comm, const std::filesystem::path& file, const std::string& header,
                const char* bytes, std::size_t size, std::uint64_t offset) {
    const int rank = rankOf(comm);
    std::optional<io::AtomicOutput> output;
    std::string path;
    agree(comm, [&] {
        if (rank != 0) return;
        output.emplace(file);
        // Absolute: the ranks on other hosts need not share this one's working directory.
        path = std::filesystem::absolute(output->path()).string();
    });
    std::uint64_t length = path.size();
    MPI_Bcast(&length, 1, MPI_UINT64_T, 0, comm);
    path.resize(length);
    MPI_Bcast(path.data(), int(length), MPI_CHAR, 0, comm);

    MPI_File handle = MPI_FILE_NULL;
    agree(comm, [&] {
        const int rc = MPI_File_open(comm, path.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &handle);
        if (rc != MPI_SUCCESS)
            throw Error(file.string() +
                        ": cannot be opened for writing (MPI-IO): " + mpiMessage(rc));
    });
    // Every rank takes part in every round, with nothing left to write or after a failure, so
    // that no rank waits in a collective; the failure is agreed on after the close.
    int failure = MPI_SUCCESS;
    bool shortWrite = false;
    const auto check = [&](int rc, MPI_Status& status, std::size_t expected) {
        int written = 0;
        if (rc == MPI_SUCCESS) MPI_Get_count(&status, MPI_BYTE, &written);
        if (failure == MPI_SUCCESS && rc != MPI_SUCCESS) failure = rc;
        shortWrite = shortWrite || (rc == MPI_SUCCESS && std::size_t(written) != expected);
    };
    if (rank == 0) {
        MPI_Status status;
        check(MPI_File_write_at(handle, 0, header.data(), int(header.size()), MPI_BYTE, &status),
              status, header.size());
    }
    std::uint64_t rounds = (size + kWriteRound - 1) / kWriteRound;
    MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_UINT64_T, MPI_MAX, comm);
    for (std::uint64_t t = 0; t < rounds; ++t) {
        const std::size_t b = std::min(std::size_t(t) * kWriteRound, size);
        const std::size_t e = std::min(b + kWriteRound, size);
        MPI_Status status;
        const MPI_Offset at = MPI_Offset(header.size() + offset + b);
        check(MPI_File_write_at_all(handle, at, bytes + b, int(e - b), MPI_BYTE, &status), status,
              e - b);
    }
    const int closed = MPI_File_close(&handle);
    if (failure == MPI_SUCCESS) failure = closed;
    agree(comm, [&] {
        if (failure != MPI_SUCCESS)
            throw Error(file.string() + ": could not be written (MPI-IO): " + mpiMessage(failure));
        if (shortWrite) throw Error(file.string() + ": could not be written (MPI-IO): short write");
    });
    agree(comm, [&] {
        if (rank == 0) output->commit();
    });
}

}  // namespace

ParallelWriteStats writeKnnNpyParallel(MPI_Comm comm, const std::filesystem::path& indicesFile,
                                       const std::filesystem::path& distancesFile,
                                       const PointSlice& slice, const KnnSlice& local, int k) {
    ParallelWriteStats stats;
    const std::size_t kk = std::size_t(k), n = slice.points.n;
    std::vector<std::int32_t> indices;
    std::vector<float> distances;
    std::string indicesHeader, distancesHeader;
    agree(comm, [&] {
        checkTiling(comm, slice);
        const auto kept = keptBeforeDropped(comm, slice, stats.bytesSent);
        const std::vector<std::size_t> shape{slice.fileRowCount, kk};
        indicesHeader = io::npyHeader(indicesFile, "<i4", shape);
        distancesHeader = io::npyHeader(distancesFile, "<f4", shape);
        if (local.indices.size() != n * kk || local.distances.size() != n * kk ||
            slice.fileRows.size() != n)
            throw Error(indicesFile.string() + ": cannot write " + std::to_string(n) + " x " +
                        std::to_string(kk) + " rows from " + std::to_string(local.indices.size()) +
                        " indices, " + std::to_string(local.distances.size()) + " distances and " +
                        std::to_string(slice.fileRows.size()) + " file rows");
        const auto rowOf = [&](std::int64_t point) -> std::int64_t {
            return point + (std::upper_bound(kept.begin(), kept.end(), std::uint64_t(point)) -
                            kept.begin());
        };
        // Rows dropped on reading keep -1 and NaN, as writeKnnNpy writes them.
        const std::size_t rows = slice.fileRowEnd - slice.fileRowBegin;
        indices.assign(rows * kk, -1);
        distances.assign(rows * kk, std::numeric_limits<float>::quiet_NaN());
        for (std::size_t q = 0; q < n; ++q) {
            const std::size_t row = slice.fileRows[q];
            if (row < slice.fileRowBegin || row >= slice.fileRowEnd ||
                rowOf(std::int64_t(slice.first + q)) != std::int64_t(row))
                throw Error(indicesFile.string() + ": point " + std::to_string(slice.first + q) +
                            " has the file row " + std::to_string(row) + ", outside this rank's [" +
                            std::to_string(slice.fileRowBegin) + ", " +
                            std::to_string(slice.fileRowEnd) + ") or not where the others put it");
            std::int32_t* to = indices.data() + (row - slice.fileRowBegin) * kk;
            for (std::size_t j = 0; j < kk; ++j) {
                const std::int32_t target = local.indices[q * kk + j];
                if (target < 0) continue;
                if (std::size_t(target) >= slice.total)
                    throw Error(indicesFile.string() + ": neighbour " + std::to_string(target) +
                                " is not one of the " + std::to_string(slice.total) + " points");
                const std::int64_t targetRow = rowOf(target);
                if (targetRow > std::numeric_limits<std::int32_t>::max())
                    throw Error(indicesFile.string() + ": file row " + std::to_string(targetRow) +
                                " does not fit the int32 indices");
                to[j] = std::int32_t(targetRow);
            }
            std::copy_n(local.distances.data() + q * kk, kk,
                        distances.data() + (row - slice.fileRowBegin) * kk);
        }
        toLittleEndian(indices);
        toLittleEndian(distances);
    });
    const std::uint64_t offset = std::uint64_t(slice.fileRowBegin) * kk * 4;
    stats.bytesWritten = (indices.size() + distances.size()) * 4;
    if (rankOf(comm) == 0) stats.bytesWritten += indicesHeader.size() + distancesHeader.size();
    writeParts(comm, indicesFile, indicesHeader, reinterpret_cast<const char*>(indices.data()),
               indices.size() * sizeof(std::int32_t), offset);
    indices = {};
    writeParts(comm, distancesFile, distancesHeader,
               reinterpret_cast<const char*>(distances.data()), distances.size() * sizeof(float),
               offset);
    return stats;
}

}  // namespace cs::mpi
