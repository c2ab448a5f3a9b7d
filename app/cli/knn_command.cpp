// SPDX-License-Identifier: MIT
#include "app/cli/knn_command.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <variant>

#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/parameter_options.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/io/dataset.h"
#include "compute/io/writers.h"
#include "compute/knn/knn_descriptor.h"

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

}  // namespace

nlohmann::json knnParamsJson(const KnnParams& p) {
    return {{"k", p.k},
            {"trees", p.trees},
            {"leaf_size", p.leafSize},
            {"target_recall", p.targetRecall},
            {"recall_sample", p.recallSample},
            {"seed", p.seed}};
}

nlohmann::json knnSummary(const KnnGraph& g) {
    double sum = 0.0, largest = 0.0;
    const std::size_t k = std::size_t(std::max(g.k, 0));
    for (std::size_t i = 0; k > 0 && i < g.n; ++i) {
        const double d = g.distances[i * k + k - 1];
        sum += d;
        largest = std::max(largest, d);
    }
    return {{"trees_built", g.treesBuilt},
            {"recall_by_tree", g.recallByTree},
            {"recall", g.recall()},
            {"mean_kth_distance", g.n ? sum / double(g.n) : 0.0},
            {"max_kth_distance", largest}};
}

void addKnnCommand(CLI::App& app, int& exitCode) {
    struct Options {
        std::string file, backend = "auto", out, rows;
        KnnParams params;
        std::shared_ptr<ParameterOptions> options;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand(
        "knn", "The approximate kNN graph of a point cloud (random-projection tree forest)");
    cmd->add_option("FILE", o->file, "Point cloud (csv/tsv/txt/xyz/ply/pcd/npy)")->required();
    o->options = std::make_shared<ParameterOptions>(*cmd, knnDescriptor());
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out,
                    "Write the graph: .csv edges, or .npy indices (+ _distances.npy) with a row "
                    "per row of the file");
    addRowsOption(*cmd, o->rows);
    cmd->add_flag("--json", o->json, "Print a JSON summary instead of a line of text");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            const bool csv = endsWith(o->out, ".csv"), npy = endsWith(o->out, ".npy");
            if (!o->out.empty() && !csv && !npy)
                throw Error(o->out + ": --out must end in .csv or .npy");
            const auto backend = backendRegistry().get(o->backend);
            std::size_t droppedNan = 0;
            const PointSet points =
                selectRows(loadPointCloud(o->file), o->rows, o->file, &droppedNan);
            const std::size_t total = points.fileRowCount() - droppedNan;
            checkOutputs({o->out, npy ? distancesPath(o->out) : std::string()});
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
            if (csv) {
                std::ostringstream header;
                header << "knn k=" << o->params.k << " trees=" << g.treesBuilt
                       << " leafSize=" << o->params.leafSize << " seed=" << o->params.seed
                       << " recall=" << g.recall() << " backend=" << backend->name()
                       << " file=" << o->file;
                io::writeKnnEdgesCsv(o->out, g.n, std::size_t(g.k), g.indices, g.distances,
                                     header.str(), io::fileRowsOf(points));
            } else if (npy) {
                io::writeKnnNpy(o->out, distancesPath(o->out), g.n, std::size_t(g.k), g.indices,
                                g.distances, io::fileRowsOf(points));
            }
            if (o->json) {
                nlohmann::json j = knnSummary(g);
                j.update({{"algorithm", "knn"},
                          {"file", o->file},
                          {"backend", backend->name()},
                          {"device", backend->info().device},
                          {"n", points.n},
                          {"dropped_nan", droppedNan},
                          {"d", points.dims},
                          {"k", o->params.k},
                          {"params", knnParamsJson(o->params)},
                          {"stages_ms", stageMilliseconds(job.timings())},
                          {"total_ms", totalMs}});
                if (!o->rows.empty()) j["of"] = total;
                if (!o->out.empty()) j["out"] = o->out;
                if (npy) j["out_distances"] = distancesPath(o->out);
                printJson(j);
            } else {
                std::ostringstream line;
                line << fileName(o->file) << ": kNN graph of " << points.n << " points"
                     << droppedText(droppedNan, points.n, total) << ", k " << g.k << ", "
                     << g.treesBuilt << (g.treesBuilt == 1 ? " tree" : " trees")
                     << ", sampled recall " << g.recall() << "; " << backend->name() << ' ';
                line.precision(3);
                line << std::fixed << totalMs << " ms";
                if (!o->out.empty()) line << "; graph in " << o->out;
                printLine(line.str());
            }
            return kExitOk;
        });
    });
}

}  // namespace cs::cli
