// SPDX-License-Identifier: MIT
#include "app/cli/sweep_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/series_sweep_command.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/dbscan/dbscan_sweep.h"
#include "compute/io/writers.h"

namespace cs::cli {
namespace {

nlohmann::json plateauJson(const DbscanSweepResult& sweep, std::size_t m) {
    const auto plateau = dbscanPlateau(sweep, m);
    if (!plateau) return nullptr;
    return {{"min_pts", sweep.minPts[m]},
            {"clusters", plateau->clusters},
            {"eps_low", shortestDouble(sweep.eps[plateau->first])},
            {"eps_high", shortestDouble(sweep.eps[plateau->last])},
            {"eps", shortestDouble(plateau->eps)}};
}

// Cluster counts as a grid, eps down and MinPts across, then each column's plateau.
std::string sweepText(const DbscanSweepResult& sweep) {
    std::ostringstream out;
    char cell[32];
    out << "  eps \\ MinPts";
    for (int m : sweep.minPts) {
        std::snprintf(cell, sizeof cell, "%5d", m);
        out << cell;
    }
    for (std::size_t e = 0; e < sweep.eps.size(); ++e) {
        std::snprintf(cell, sizeof cell, "\n%14.6g", double(sweep.eps[e]));
        out << cell;
        for (std::size_t m = 0; m < sweep.minPts.size(); ++m) {
            std::snprintf(cell, sizeof cell, "%5d", sweep.at(e, m).clusters);
            out << cell;
        }
    }
    for (std::size_t m = 0; m < sweep.minPts.size(); ++m)
        if (const auto p = dbscanPlateau(sweep, m))
            out << "\nMinPts " << sweep.minPts[m] << ": " << p->clusters << " clusters from eps "
                << sweep.eps[p->first] << " to " << sweep.eps[p->last] << " (suggested eps "
                << p->eps << ")";
    return out.str();
}

}  // namespace

void addSweepCommand(CLI::App& app, int& exitCode) {
    auto* sweep = app.add_subcommand(
        "sweep", "Run an algorithm over a grid of its parameters and tabulate the outcomes");
    sweep->require_subcommand(1);

    struct Options {
        std::string file, backend = "auto", out, path = "auto";
        std::vector<double> epsRange;
        std::vector<int> minPtsRange{3, 20};
        int epsCount = 16;
        bool star = false, json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = sweep->add_subcommand(
        "dbscan", "DBSCAN over an eps x MinPts grid in one job (neighbours counted once per eps)");
    cmd->add_option("FILE", o->file, "Point cloud (csv/tsv/txt/xyz/ply/pcd/npy)")->required();
    cmd->add_option("--eps-range", o->epsRange,
                    "Lowest and highest eps, log-spaced between (default: a quarter to four "
                    "times the knee of the k-distance curve, k = 10)")
        ->expected(2);
    cmd->add_option("--eps-count", o->epsCount, "eps values (default: 16)");
    cmd->add_option("--min-pts-range", o->minPtsRange,
                    "Lowest and highest MinPts, every value between (default: 3 20)")
        ->expected(2);
    cmd->add_flag("--star", o->star, "DBSCAN*: border points are noise");
    cmd->add_option("--path", o->path, "Neighbour search: auto, grid, brute or kdtree");
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out,
                    "Write the table (eps,minPts,clusters,noise_share,largest_share) to this CSV");
    cmd->add_flag("--json", o->json, "Print the table and the plateaus as one JSON object");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            if (o->epsCount < 1 || o->epsCount > 256)
                throw Error("--eps-count must be 1 to 256 (got " + std::to_string(o->epsCount) +
                            ")");
            const int fromM = o->minPtsRange[0], toM = o->minPtsRange[1];
            if (fromM < 1 || toM < fromM || toM - fromM >= 1024)
                throw Error("--min-pts-range needs 1 <= FROM <= TO, at most 1024 values");
            if (!o->epsRange.empty() && !(o->epsRange[0] > 0.0 && o->epsRange[1] >= o->epsRange[0]))
                throw Error("--eps-range needs 0 < LO <= HI");
            const DbscanPath path = parseDbscanPath(o->path);
            const auto backend = backendRegistry().get(o->backend);
            const PointSet points = loadPointCloud(o->file, *backend);
            checkOutputs({o->out});
            if (std::size_t(toM) > points.n)
                throw Error(o->file + ": MinPts up to " + std::to_string(toM) + " on " +
                            std::to_string(points.n) + " points (MinPts must not exceed n)");
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            DbscanSweepParams params;
            const DataShape shape{.items = points.n, .dims = points.dims};
            const MemoryNeed need =
                dbscanDescriptor().memoryNeed(shape, dbscanDescriptor().defaults());
            if (o->epsRange.empty()) {
                const KDistanceResult kd =
                    runOnFile(o->file, "k-distance", kDistanceMemoryNeed(shape), job, [&] {
                        return backend->kDistance(points, std::min<int>(10, int(points.n)), job);
                    });
                const float knee = kDistanceKnee(kd.sorted).distance;
                params = defaultDbscanSweep(knee > 0.0f ? knee : 1.0f, o->epsCount, fromM, toM);
            } else {
                params.eps =
                    logSpacedEps(float(o->epsRange[0]), float(o->epsRange[1]), o->epsCount);
                for (int m = fromM; m <= toM; ++m)
                    params.minPts.push_back(m);
            }
            params.star = o->star;
            params.path = path;
            const DbscanSweepResult r = runOnFile(o->file, "DBSCAN sweep", need, job, [&] {
                return backend->dbscanSweep(points, params, job);
            });
            const double totalMs = millisecondsSince(start);
            if (!o->out.empty()) io::writeFileBytes(o->out, dbscanSweepCsv(r));
            if (o->json) {
                nlohmann::json j = nlohmann::json::parse(dbscanSweepJson(r));
                nlohmann::json plateaus = nlohmann::json::array();
                for (std::size_t m = 0; m < r.minPts.size(); ++m)
                    plateaus.push_back(plateauJson(r, m));
                j.update({{"algorithm", "dbscan-sweep"},
                          {"file", o->file},
                          {"n", points.n},
                          {"dims", points.dims},
                          {"star", o->star},
                          {"backend", backend->name()},
                          {"plateaus", plateaus},
                          {"stages_ms", stageMilliseconds(job.timings())},
                          {"total_ms", totalMs}});
                if (!o->out.empty()) j["out"] = o->out;
                printJson(j);
            } else {
                std::ostringstream head;
                head.precision(3);
                head << fileName(o->file) << ": " << points.n << " points" << droppedText(points)
                     << ", DBSCAN sweep of " << r.eps.size() << " eps x " << r.minPts.size()
                     << " MinPts on " << backend->name() << " in " << std::fixed << totalMs
                     << " ms; clusters:";
                printLine(head.str());
                printLine(sweepText(r));
                if (!o->out.empty()) printLine("table in " + o->out);
            }
            return kExitOk;
        });
    });
    addSeriesSweepCommands(*sweep, exitCode);
}

}  // namespace cs::cli
