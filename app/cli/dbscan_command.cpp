// SPDX-License-Identifier: MIT
#include "app/cli/dbscan_command.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <variant>

#include "app/cli/cli_common.h"
#include "app/cli/parameter_options.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/io/dataset.h"
#include "compute/io/writers.h"

namespace cs::cli {
namespace {

std::string shortest(float value) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

// The estimate is dbscanCost's (compute/dbscan/dbscan_cpu.h), the Python module's too.
void warnDbscanCost(const PointSet& points, const DbscanParams& params,
                    const std::string& backend) {
    const DbscanCost c = dbscanCost(points, params, backend);
    std::string what = "dbscan " + std::string(toString(c.path)) + " eps=" + shortest(params.eps) +
                       " on " + groupedCount(points.n) + " points";
    if (c.path == DbscanPath::KdTree)
        what +=
            " (eps reaches ~" + std::to_string(int(std::lround(100 * c.share))) + "% of the cloud)";
    warnIfCostly(what, c.cost.formula, c.cost.evaluations);
}

// The CPU's cost (kDistanceCostCpu: the GUI asks first from the same estimate). The CUDA
// backend takes k up to 256, where a GPU's worth of distances costs seconds.
void warnKdistCost(const PointSet& points, int k, const std::string& backend) {
    if (backend != "cpu") return;
    const JobCost cost = kDistanceCostCpu(points.n, points.dims, k);
    warnIfCostly("kdist k=" + std::to_string(k) + " on " + groupedCount(points.n) + " points",
                 cost.formula, cost.evaluations);
}

}  // namespace

nlohmann::json stageMilliseconds(const std::vector<StageTiming>& timings) {
    nlohmann::json stages = nlohmann::json::object();
    for (const auto& t : timings)
        stages[t.name] = stages.value(t.name, 0.0) + t.milliseconds;
    return stages;
}

double shortestDouble(float value) {
    return std::stod(shortest(value));
}

nlohmann::json dbscanCounts(const DbscanResult& r) {
    return {{"clusters", r.clusterCount},        {"core", r.stats.corePoints},
            {"border", r.stats.borderPoints},    {"noise", r.stats.noisePoints},
            {"largest", r.stats.largestCluster}, {"path", std::string(toString(r.pathUsed))}};
}

void addDbscanCommand(CLI::App& app, int& exitCode) {
    struct Options {
        std::string file, backend = "auto", out, rows;
        std::shared_ptr<ParameterOptions> options;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("dbscan", "Cluster a point cloud with DBSCAN");
    cmd->add_option("FILE", o->file, "Point cloud (csv/tsv/txt/xyz/ply/pcd/npy)")->required();
    o->options = std::make_shared<ParameterOptions>(*cmd, dbscanDescriptor());
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out,
                    "Write index,label,core rows to this CSV file (with original_index after "
                    "index when NaN rows were dropped)");
    addRowsOption(*cmd, o->rows);
    cmd->add_flag("--json", o->json, "Print a JSON summary instead of a line of text");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            o->options->values();  // the declared ranges, before the file is read
            const auto backend = backendRegistry().get(o->backend);
            std::size_t droppedNan = 0;
            const PointSet points =
                selectRows(loadPointCloud(o->file, *backend), o->rows, o->file, &droppedNan);
            const std::size_t total = points.fileRowCount() - droppedNan;
            checkOutputs({o->out});
            // And the ranges these points allow (MinPts <= n).
            const DataShape shape{.items = points.n, .dims = points.dims};
            DbscanParams params;
            ParameterValues values;
            try {
                values = o->options->values(&shape);
                params = dbscanParams(values);
            } catch (const Error& e) {
                throw Error(o->file + ": " + e.what());
            }
            warnDbscanCost(points, params, backend->name());
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            const DbscanResult r =
                runOnFile(o->file, "DBSCAN", dbscanDescriptor().memoryNeed(shape, values), job,
                          [&] { return backend->dbscan(points, params, job); });
            const double totalMs = millisecondsSince(start);
            if (!o->out.empty()) {
                const std::string header = "dbscan eps=" + shortest(params.eps) +
                                           " minPts=" + std::to_string(params.minPts) +
                                           " star=" + (params.star ? "1" : "0") +
                                           " path=" + std::string(toString(r.pathUsed)) +
                                           " backend=" + backend->name() + " file=" + o->file;
                io::writeLabelsCsv(o->out, r.labels, r.isCore, header, io::fileRowsOf(points));
            }
            if (o->json) {
                nlohmann::json j = dbscanCounts(r);
                j.update({{"algorithm", "dbscan"},
                          {"file", o->file},
                          {"n", points.n},
                          {"dropped_nan", droppedNan},
                          {"dims", points.dims},
                          {"eps", shortestDouble(params.eps)},
                          {"min_pts", params.minPts},
                          {"star", params.star},
                          {"backend", backend->name()},
                          {"device", backend->info().device},
                          {"stages_ms", stageMilliseconds(job.timings())},
                          {"total_ms", totalMs}});
                if (!o->rows.empty()) j["of"] = total;
                if (!o->out.empty()) j["out"] = o->out;
                printJson(j);
            } else {
                std::ostringstream line;
                line.precision(3);
                line << fileName(o->file) << ": " << points.n << " points"
                     << droppedText(droppedNan, points.n, total) << ", " << r.clusterCount
                     << " clusters (largest " << r.stats.largestCluster << "), "
                     << r.stats.corePoints << " core, " << r.stats.borderPoints << " border, "
                     << r.stats.noisePoints << " noise; " << backend->name() << '/'
                     << toString(r.pathUsed) << ' ' << std::fixed << totalMs << " ms";
                if (!o->out.empty()) line << "; labels in " << o->out;
                printLine(line.str());
            }
            return kExitOk;
        });
    });
}

void addKdistCommand(CLI::App& app, int& exitCode) {
    struct Options {
        std::string file, backend = "auto", out;
        int k = 0;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd =
        app.add_subcommand("kdist", "The k-distance curve of a point cloud, for choosing eps");
    cmd->add_option("FILE", o->file, "Point cloud (csv/tsv/txt/xyz/ply/pcd/npy)")->required();
    cmd->add_option("--k", o->k, "The k-th nearest point, itself counted (use DBSCAN's minPts)")
        ->required();
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out, "Write the sorted curve as rank,index,distance rows");
    cmd->add_flag("--json", o->json, "Print a JSON summary instead of a line of text");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            if (o->k < 1) throw Error("--k must be at least 1 (got " + std::to_string(o->k) + ")");
            const auto backend = backendRegistry().get(o->backend);
            const PointSet points = loadPointCloud(o->file, *backend);
            checkOutputs({o->out});
            if (std::size_t(o->k) <= points.n) warnKdistCost(points, o->k, backend->name());
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            const KDistanceResult r =
                runOnFile(o->file, "k-distance",
                          kDistanceMemoryNeed({.items = points.n, .dims = points.dims}), job,
                          [&] { return backend->kDistance(points, o->k, job); });
            const double totalMs = millisecondsSince(start);
            if (!o->out.empty())
                io::writeKDistanceCsv(o->out, r.perPoint,
                                      "kdist k=" + std::to_string(o->k) +
                                          " backend=" + backend->name() + " file=" + o->file,
                                      io::fileRowsOf(points));
            const KDistanceKnee knee = kDistanceKnee(r.sorted);
            auto quantile = [&](double q) {
                return r.sorted.empty() ? 0.0
                                        : shortestDouble(r.sorted[std::size_t(
                                              std::llround(q * double(r.sorted.size() - 1)))]);
            };
            if (o->json) {
                nlohmann::json quantiles = nlohmann::json::object();
                for (double q : {0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0}) {
                    std::ostringstream key;
                    key << q;
                    quantiles[key.str()] = quantile(q);
                }
                nlohmann::json j = {{"algorithm", "kdist"},
                                    {"file", o->file},
                                    {"n", points.n},
                                    {"dropped_nan", points.droppedNonFinite},
                                    {"dims", points.dims},
                                    {"k", o->k},
                                    {"backend", backend->name()},
                                    {"quantiles", quantiles},
                                    {"knee_rank", knee.index + 1},
                                    {"suggested_eps", shortestDouble(knee.distance)},
                                    {"stages_ms", stageMilliseconds(job.timings())},
                                    {"total_ms", totalMs}};
                if (!o->out.empty()) j["out"] = o->out;
                printJson(j);
            } else {
                std::ostringstream line;
                line << fileName(o->file) << ": k-distance (k=" << o->k << ") of " << points.n
                     << " points" << droppedText(points) << ": median " << quantile(0.5) << ", max "
                     << quantile(1.0) << "; knee at rank " << knee.index + 1 << ": suggested eps "
                     << shortestDouble(knee.distance);
                printLine(line.str());
            }
            return kExitOk;
        });
    });
}

}  // namespace cs::cli
