// SPDX-License-Identifier: MIT
#include "app/cli/knn_command.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <variant>

#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/mpi_cli.h"
#include "app/cli/parameter_options.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/io/dataset.h"
#include "compute/io/writers.h"
#include "compute/knn/knn_descriptor.h"

#ifdef CS_HAVE_MPI
#include <mpi.h>

#include <thread>

#include "compute/distributed/knn_mpi.h"
#include "compute/distributed/knn_mpi_write.h"
#endif

namespace cs::cli {
namespace {

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           std::equal(suffix.rbegin(), suffix.rend(), text.rbegin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           });
}

/// graph.npy -> graph_distances.npy
std::string distancesPath(const std::string& out) {
    return out.substr(0, out.size() - 4) + "_distances.npy";
}

struct Options {
    std::string file, backend = "auto", out, rows;
    DevicesOption devices;
    KnnParams params;
    std::shared_ptr<ParameterOptions> options;
    bool json = false;
    int rankThreads = 0;           // under mpirun; 0: the host's cores shared by the ranks on it
    std::string write = "gather";  // under mpirun: gather at rank 0, or parallel (MPI-IO)
};

// The --out checks every run makes before any work.
void checkOut(const Options& o) {
    const bool csv = endsWith(o.out, ".csv"), npy = endsWith(o.out, ".npy");
    if (!o.out.empty() && !csv && !npy) throw Error(o.out + ": --out must end in .csv or .npy");
    if (o.write == "parallel" && !npy)
        throw Error("--write parallel writes .npy files: --out must end in .npy" +
                    (o.out.empty() ? std::string(" (no --out given)") : ", not " + o.out));
    checkOutputs({o.out, npy ? distancesPath(o.out) : std::string()});
}

// Writes the graph where --out says (nothing without --out).
void writeGraph(const Options& o, const KnnGraph& g, const std::string& backendName,
                io::FileRows rows) {
    if (endsWith(o.out, ".csv")) {
        std::ostringstream header;
        header << "knn k=" << o.params.k << (g.exact ? " exact" : "") << " trees=" << g.treesBuilt
               << " leafSize=" << o.params.leafSize << " seed=" << o.params.seed
               << " recall=" << g.recall() << " backend=" << backendName << " file=" << o.file;
        io::writeKnnEdgesCsv(o.out, g.n, std::size_t(g.k), g.indices, g.distances, header.str(),
                             rows);
    } else if (endsWith(o.out, ".npy")) {
        io::writeKnnNpy(o.out, distancesPath(o.out), g.n, std::size_t(g.k), g.indices, g.distances,
                        rows);
    }
}

// The run's report: JSON (--json) or one line of text.
void report(const Options& o, const KnnGraph& g, nlohmann::json extra, std::size_t d,
            std::size_t droppedNan, std::size_t total, const std::string& backendName,
            double totalMs, const std::string& on) {
    if (o.json) {
        nlohmann::json j = knnSummary(g);
        j.update({{"algorithm", "knn"},
                  {"file", o.file},
                  {"backend", backendName},
                  {"n", g.n},
                  {"dropped_nan", droppedNan},
                  {"d", d},
                  {"k", o.params.k},
                  {"params", knnParamsJson(o.params)},
                  {"total_ms", totalMs}});
        j.update(extra);
        if (!o.rows.empty()) j["of"] = total;
        if (!o.out.empty()) j["out"] = o.out;
        if (endsWith(o.out, ".npy")) j["out_distances"] = distancesPath(o.out);
        printJson(j);
        return;
    }
    std::ostringstream line;
    line << fileName(o.file) << ": kNN graph of " << g.n << " points"
         << droppedText(droppedNan, g.n, total) << ", k " << g.k << ", ";
    if (g.exact)
        line << "exact (every pair)";
    else
        line << g.treesBuilt << (g.treesBuilt == 1 ? " tree" : " trees") << ", sampled recall "
             << g.recall();
    line << "; " << backendName << on << ' ';
    line.precision(3);
    line << std::fixed << totalMs << " ms";
    if (!o.out.empty()) line << "; graph in " << o.out;
    printLine(line.str());
}

#ifdef CS_HAVE_MPI
// The body of `mpirun -np P clusterscope-cli knn`: every error is agreed on (mpi::agree), so
// one rank reports it and all ranks exit 2; a failure inside the collective build, where the
// other ranks cannot be told, aborts the whole run (mpirun exits non-zero).
int runDistributed(Options& o, MPI_Comm comm) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    // The cores (and GPUs) of this host are shared by the ranks on it.
    const mpi::HostRanks host = mpi::hostRanks(comm);
    const int threads = o.rankThreads > 0
                            ? o.rankThreads
                            : std::max(1, int(std::thread::hardware_concurrency()) / host.size);

    mpi::PointSlice slice;
    std::shared_ptr<Backend> backend;
    const auto start = std::chrono::steady_clock::now();
    // Apart from the reading: a rank throwing beside it would leave the others waiting in its
    // collectives (a bad --out on rank 0 hung the run).
    mpi::agree(comm, [&] {
        if (rank == 0) checkOut(o);
        if (!o.rows.empty()) throw Error("--rows is not available under mpirun");
        backend = backendRegistry().get(o.backend);
        chooseRankDevice(*backend, o.devices, host.rank);
    });
    mpi::agree(comm, [&] {
        slice = mpi::readPointSlice(comm, o.file);
        const DataShape shape{.items = slice.total, .dims = slice.points.dims};
        try {
            const ParameterValues values = o.options->values(&shape);
            o.params = knnParams(values);
            mpi::checkKnnMpi(slice.total, o.params, ranks);
        } catch (const Error& e) {
            throw Error(o.file + ": " + e.what());
        }
    });
    JobControl job;
    mpi::GatheredKnn gathered;
    mpi::KnnSlice local;
    double gatherMs = 0.0;
    try {
        local = mpi::knnGraphMpi(comm, slice, o.params, *backend, job, threads);
        const double gatherStart = MPI_Wtime();
        // A parallel write needs no gather: each rank writes its own rows.
        if (o.write != "parallel") gathered = mpi::gatherKnn(comm, slice, local, o.params);
        gatherMs = o.write != "parallel" ? (MPI_Wtime() - gatherStart) * 1e3 : 0.0;
    } catch (const std::exception& e) {
        std::cerr << "clusterscope-cli: rank " << rank << ": " << e.what() << '\n';
        MPI_Abort(comm, kExitError);
    }
    const double totalMs = millisecondsSince(start);
    std::uint64_t bytesMax = local.bytesSent, bytesTotal = local.bytesSent;
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &bytesMax, &bytesMax, 1, MPI_UINT64_T, MPI_MAX, 0, comm);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &bytesTotal, &bytesTotal, 1, MPI_UINT64_T, MPI_SUM, 0,
               comm);
    // Communication time: the graph's collectives on each rank, and the gather to rank 0.
    double commMax = local.commMs, commSum = local.commMs;
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &commMax, &commMax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &commSum, &commSum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &gatherMs, &gatherMs, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    const double commShare = totalMs > 0.0 ? (commSum / ranks + gatherMs) / totalMs : 0.0;
    const bool parallel = o.write == "parallel";
    const double writeStart = MPI_Wtime();
    mpi::ParallelWriteStats written;
    if (parallel) {
        written =
            mpi::writeKnnNpyParallel(comm, o.out, distancesPath(o.out), slice, local, o.params.k);
        // No graph at rank 0: its summary's k-th distances are reduced from the ranks'.
        gathered.graph = {.n = slice.total,
                          .k = o.params.k,
                          .treesBuilt = local.treesBuilt,
                          .recallByTree = local.recallByTree};
    } else {
        mpi::agree(comm, [&] {
            if (rank != 0) return;
            const bool dropped = slice.fileRowCount != slice.total;
            writeGraph(o, gathered.graph, backend->name(),
                       {dropped ? std::span<const std::size_t>(gathered.fileRows)
                                : std::span<const std::size_t>(),
                        slice.fileRowCount});
        });
    }
    double writeMs = (MPI_Wtime() - writeStart) * 1e3;
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &writeMs, &writeMs, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    nlohmann::json parallelOnly = nlohmann::json::object();
    if (parallel) {
        const std::size_t kk = std::size_t(o.params.k);
        double sum = 0.0, largest = 0.0;
        for (std::size_t q = 0; q < slice.points.n; ++q) {
            sum += local.distances[q * kk + kk - 1];
            largest = std::max(largest, double(local.distances[q * kk + kk - 1]));
        }
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &sum, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &largest, &largest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        // The busiest writer shows that no rank writes the whole graph.
        std::uint64_t writtenMax = written.bytesWritten, exchanged = written.bytesSent;
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &writtenMax, &writtenMax, 1, MPI_UINT64_T, MPI_MAX, 0,
                   comm);
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &exchanged, &exchanged, 1, MPI_UINT64_T, MPI_SUM, 0,
                   comm);
        parallelOnly = {{"mean_kth_distance", sum / double(slice.total)},
                        {"max_kth_distance", largest},
                        {"write_bytes_max_rank", writtenMax},
                        {"write_bytes_sent_total", exchanged}};
    }
    nlohmann::json extra = {
        {"ranks", ranks},
        {"write", o.write},
        {"write_ms", writeMs},
        {"threads_per_rank", threads},
        {"bytes_sent_max_rank", bytesMax},
        {"bytes_sent_total", bytesTotal},
        {"comm_ms_max_rank", commMax},
        {"comm_ms_mean", commSum / ranks},
        {"gather_ms", gatherMs},
        {"comm_share", commShare},
        {"device", backend->info().device + " · " + std::to_string(ranks) + " MPI ranks"},
        {"devices", backend->devices()},
        {"stages_ms", stageMilliseconds(job.timings())}};
    extra.update(parallelOnly);
    if (rank == 0)
        report(o, gathered.graph, extra, slice.points.dims, slice.fileRowCount - slice.total,
               slice.total, backend->name(), totalMs,
               " on " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks"));
    return kExitOk;
}
#endif

// `knn` under mpirun: the distributed graph when MPI is built in, else a clear refusal (from
// rank 0 only) rather than P copies of a one-process run.
int runUnderMpirun([[maybe_unused]] Options& o) {
#ifdef CS_HAVE_MPI
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    const int rc = runReportingErrors([&] {
        try {
            return runDistributed(o, MPI_COMM_WORLD);
        } catch (const mpi::ReportedElsewhere&) {
            return kExitError;
        }
    });
    MPI_Finalize();
    return rc;
#else
    if (launchedRank() != 0) return kExitError;
    return runReportingErrors([&]() -> int {
        throw Error(
            "this clusterscope-cli was built without MPI (CS_WITH_MPI), so under mpirun "
            "every rank would build the whole graph alone; run it without mpirun, or "
            "build with Open MPI installed");
    });
#endif
}

}  // namespace

nlohmann::json knnParamsJson(const KnnParams& p) {
    return {{"k", p.k},
            {"trees", p.trees},
            {"leaf_size", p.leafSize},
            {"target_recall", p.targetRecall},
            {"recall_sample", p.recallSample},
            {"seed", p.seed},
            {"exact", p.exact}};
}

nlohmann::json knnSummary(const KnnGraph& g) {
    double sum = 0.0, largest = 0.0;
    const std::size_t k = std::size_t(std::max(g.k, 0));
    // A graph written in parallel is not at rank 0 (no lists): its caller reduces these.
    const bool lists = g.distances.size() == g.n * k;
    for (std::size_t i = 0; k > 0 && lists && i < g.n; ++i) {
        const double d = g.distances[i * k + k - 1];
        sum += d;
        largest = std::max(largest, d);
    }
    return {{"exact", g.exact},
            {"trees_built", g.treesBuilt},
            {"recall_by_tree", g.recallByTree},
            {"recall", g.recall()},
            {"mean_kth_distance", g.n ? sum / double(g.n) : 0.0},
            {"max_kth_distance", largest}};
}

void addKnnCommand(CLI::App& app, int& exitCode) {
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand(
        "knn", "The approximate kNN graph of a point cloud (random-projection tree forest)");
    cmd->add_option("FILE", o->file,
                    "Point cloud (csv/tsv/txt/xyz/ply/pcd/npy) or sparse matrix (npz/svm)")
        ->required();
    o->options = std::make_shared<ParameterOptions>(*cmd, knnDescriptor());
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out,
                    "Write the graph: .csv edges, or .npy indices (+ _distances.npy) with a row "
                    "per row of the file");
    addRowsOption(*cmd, o->rows);
    addDevicesOption(*cmd, o->devices);
    // Scaling runs: P ranks on P cores (1 thread each) rather than P ranks sharing all of them.
    cmd->add_option("--rank-threads", o->rankThreads,
                    "Under mpirun: threads per rank (default: the host's cores shared by its "
                    "ranks)")
        ->check(CLI::Range(1, 4096));
    // At 100M points a gather puts 8 GB on rank 0; a parallel write never holds the graph.
    cmd->add_option("--write", o->write,
                    "Under mpirun: gather (rank 0 writes the graph; default) or parallel (every "
                    "rank writes its rows of the .npy files, MPI-IO)")
        ->check(CLI::IsMember({"gather", "parallel"}));
    cmd->add_flag("--json", o->json, "Print a JSON summary instead of a line of text");
    cmd->callback([o, &exitCode] {
        if (launchedRanks() > 0) {
            exitCode = runUnderMpirun(*o);
            return;
        }
        exitCode = runReportingErrors([&] {
            if (o->write == "parallel")
                throw Error(
                    "--write parallel needs mpirun (each rank writes its rows); one "
                    "process writes the graph itself: leave --write out");
            const bool csv = endsWith(o->out, ".csv"), npy = endsWith(o->out, ".npy");
            if (!o->out.empty() && !csv && !npy)
                throw Error(o->out + ": --out must end in .csv or .npy");
            const auto backend = backendRegistry().get(o->backend);
            applyDevices(*backend, o->devices);
            std::size_t droppedNan = 0;
            const PointSet points =
                selectRows(loadPointCloud(o->file, *backend), o->rows, o->file, &droppedNan);
            const std::size_t total = points.fileRowCount() - droppedNan;
            checkOut(*o);
            // The values checked against the declared ranges and these points (k < n).
            const DataShape shape{.items = points.n, .dims = points.dims};
            ParameterValues values;
            try {
                values = o->options->values(&shape);
                o->params = knnParams(values);
            } catch (const Error& e) {
                throw Error(o->file + ": " + e.what());
            }
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            const KnnGraph g = runOnFile(o->file, "the kNN graph",
                                         knnDescriptor().memoryNeed(shape, values), job, [&] {
                                             validateKnnInput(points, o->params);
                                             return backend->knnGraph(points, o->params, job);
                                         });
            const double totalMs = millisecondsSince(start);
            writeGraph(*o, g, backend->name(), io::fileRowsOf(points));
            report(*o, g,
                   {{"device", backend->info().device},
                    {"devices", backend->devices()},
                    {"stages_ms", stageMilliseconds(job.timings())}},
                   points.dims, droppedNan, total, backend->name(), totalMs, "");
            return kExitOk;
        });
    });
}

}  // namespace cs::cli
