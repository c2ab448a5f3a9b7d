// SPDX-License-Identifier: MIT
#include "app/cli/mpi_cli.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "app/cli/cli_common.h"
#include "compute/backend/device_set.h"
#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/parallel.h"

#ifdef CS_HAVE_MPI
#include <mpi.h>

#include "compute/distributed/knn_mpi.h"
#endif

namespace cs::cli {

int launchedRanks() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
        if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
    return 0;
}

int launchedRank() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
        if (const char* value = std::getenv(name)) return std::atoi(value);
    return 0;
}

void chooseRankDevice(Backend& backend, const DevicesOption& devices, int hostRank) {
    applyDevices(backend, devices);
    std::vector<int> list = backend.devices();
    if (!devices.given && backend.deviceCount() > 1)
        list = parseDeviceList("all", backend.deviceCount(), false);
    if (list.size() > 1) backend.setDevices({list[std::size_t(hostRank) % list.size()]});
}

std::unique_ptr<MpiSession> mpiSessionIfLaunched() {
    return launchedRanks() > 0 ? std::make_unique<MpiSession>() : nullptr;
}

#ifdef CS_HAVE_MPI

MpiSession::MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_ranks);
    m_hostRank = mpi::hostRanks(MPI_COMM_WORLD).rank;
}

MpiSession::~MpiSession() {
    if (m_succeeded || m_agreed)
        MPI_Finalize();
    else
        MPI_Abort(MPI_COMM_WORLD, kExitError);
}

void MpiSession::agree(const std::function<void()>& body) {
    std::exception_ptr failure;
    try {
        body();
    } catch (const AlreadyReported&) {
        throw;  // agreed at a checkpoint already
    } catch (...) {
        failure = std::current_exception();
    }
    int first = failure ? m_rank : std::numeric_limits<int>::max();
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == std::numeric_limits<int>::max()) return;
    m_agreed = true;
    if (first == m_rank) std::rethrow_exception(failure);
    throw AlreadyReported();
}

void MpiSession::checkpoint() {
    int first = std::numeric_limits<int>::max();
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == std::numeric_limits<int>::max()) return;
    m_agreed = true;
    throw AlreadyReported();
}

RocketFeatures MpiSession::rocketFeatures(Backend& backend, const RocketTransform& transform,
                                          const SeriesSet& series, JobControl& job) {
    checkpoint();
    if (series.n < std::size_t(m_ranks))
        throw Error("under mpirun ROCKET needs at least one series per rank: " +
                    std::to_string(m_ranks) + " ranks for " + std::to_string(series.n) + " series");
    if (series.n > std::size_t(std::numeric_limits<int>::max()))
        throw Error("under mpirun ROCKET takes fewer than 2^31 series");
    const auto [b, e] = chunkRange(series.n, std::size_t(m_ranks), std::size_t(m_rank));
    std::vector<std::uint32_t> rows(e - b);
    std::iota(rows.begin(), rows.end(), std::uint32_t(b));
    const SeriesSet mine = subsetOf(series, ItemSubset::of(rows, series.n));
    RocketFeatures part;
    try {
        part = applyRocketTransform(backend, transform, mine, job);
    } catch (const std::exception& e) {
        // The other ranks are on their way to the gather: only an abort ends them.
        std::cerr << "clusterscope-cli: rank " << m_rank << ": " << e.what() << '\n';
        MPI_Abort(MPI_COMM_WORLD, kExitError);
    }
    auto stage = job.stage("gather");
    const std::size_t columns = part.columns();
    MPI_Datatype row;
    MPI_Type_contiguous(int(columns), MPI_FLOAT, &row);
    MPI_Type_commit(&row);
    std::vector<int> counts(static_cast<std::size_t>(m_ranks)), displs(counts.size());
    for (int r = 0; r < m_ranks; ++r) {
        const auto [rb, re] = chunkRange(series.n, std::size_t(m_ranks), std::size_t(r));
        counts[std::size_t(r)] = int(re - rb);
        displs[std::size_t(r)] = int(rb);
    }
    RocketFeatures all;
    all.n = series.n;
    all.kernels = part.kernels;
    all.layers = part.layers;
    all.values.resize(series.n * columns);
    MPI_Allgatherv(part.values.data(), int(e - b), row, all.values.data(), counts.data(),
                   displs.data(), row, MPI_COMM_WORLD);
    MPI_Type_free(&row);
    return all;
}

#else

void MpiSession::agree(const std::function<void()>& body) {
    body();
}
void MpiSession::checkpoint() {}

MpiSession::MpiSession() {
    throw Error(
        "this clusterscope-cli was built without MPI (CS_WITH_MPI), so under mpirun "
        "every rank would run the whole job alone; run it without mpirun, or build "
        "with Open MPI installed");
}

MpiSession::~MpiSession() = default;

RocketFeatures MpiSession::rocketFeatures(Backend&, const RocketTransform&, const SeriesSet&,
                                          JobControl&) {
    return {};
}

#endif

}  // namespace cs::cli
