// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <memory>

#include "app/cli/cli_common.h"
#include "compute/backend/backend.h"
#include "compute/rocket/rocket_pipeline.h"

namespace cs::cli {

/// The number of ranks when mpirun (Open MPI, MPICH's Hydra or a PMIx launcher) started this
/// process, else 0: only then do the subcommands that can run distributed do so.
int launchedRanks();
/// This process's rank under mpirun (0 otherwise).
int launchedRank();

/// MPI for one subcommand run under mpirun. The constructor initialises MPI (throws cs::Error
/// when this clusterscope-cli was built without MPI); the destructor finalises it after
/// succeeded(), and otherwise aborts the whole run, so that no rank waits for ever on one that
/// gave up (mpirun then exits non-zero).
class MpiSession {
public:
    MpiSession();
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return m_rank; }
    int ranks() const { return m_ranks; }
    /// This rank among the ranks on its host.
    int hostRank() const { return m_hostRank; }
    void succeeded() { m_succeeded = true; }

    /// Runs body, then agrees over all ranks: when it threw on some rank, the lowest such rank
    /// rethrows and the others throw AlreadyReported (one message). Every rank must reach it
    /// or a checkpoint(): failing before the first collective is safe. Collective.
    void agree(const std::function<void()>& body);
    /// The point where ranks that did not fail meet agree()'s of those that did: throws
    /// AlreadyReported when one failed. Collective.
    void checkpoint();

    /// ROCKET's features of `series`, each rank transforming its share of the series (in
    /// chunks, rank order) and every rank getting all rows: the one-process features, row for
    /// row. Starts with checkpoint(); a failure after it aborts the run. Throws cs::Error (on
    /// every rank alike) when there are fewer series than ranks.
    RocketFeatures rocketFeatures(Backend& backend, const RocketTransform& transform,
                                  const SeriesSet& series, JobControl& job);

private:
    int m_rank = 0, m_ranks = 1, m_hostRank = 0;
    bool m_succeeded = false;
    bool m_agreed = false;  // every rank knows of the failure: finalise, no abort
};

/// Under mpirun: the device of the rank hostRank (its rank among the ranks on its host). The
/// ranks of a host take the devices (--devices, else all of the backend's) in turn: one each
/// when there are as many as ranks, shared otherwise. Throws as applyDevices does (the CPU
/// backend refuses --devices).
void chooseRankDevice(Backend& backend, const DevicesOption& devices, int hostRank);

/// An MpiSession when launched by mpirun, else null.
std::unique_ptr<MpiSession> mpiSessionIfLaunched();

}  // namespace cs::cli
