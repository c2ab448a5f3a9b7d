// SPDX-License-Identifier: MIT
#include "app/cli/kshape_command.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/parameter_options.h"
#include "app/cli/rocket_command.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/io/npy.h"
#include "compute/io/writers.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/kshape/kshape_subset.h"

namespace cs::cli {

nlohmann::json kshapeSummary(const KShapeResult& r) {
    const KShapeClusterSizes c = kshapeClusterSizes(r);
    return {{"iterations", r.iterations},
            {"converged", r.converged},
            {"cluster_sizes", c.sizes},
            {"empty_clusters", c.empty}};
}

nlohmann::json agreementJson(const ClusterAgreement& a) {
    return {{"ri", a.randIndex},
            {"ari", a.adjustedRandIndex},
            {"nmi", a.normalizedMutualInformation},
            {"compared", a.compared}};
}

void addKShapeCommand(CLI::App& app, int& exitCode) {
    struct Options {
        std::string file, backend = "auto", out, centroids, rows;
        KShapeParams params;
        std::shared_ptr<ParameterOptions> options;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("kshape", "k-Shape clustering of a time-series set");
    cmd->add_option("FILE", o->file,
                    "Series (.ts/.arff/UCR); a _TRAIN file brings its _TEST half along")
        ->required();
    o->options = std::make_shared<ParameterOptions>(*cmd, kshapeDescriptor());
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out, "Write index,label,distance,shift rows (.csv)");
    cmd->add_option("--centroids", o->centroids,
                    "Write the float32 centroids (.npy): k x m for one channel, k x C x m for all");
    addRowsOption(*cmd, o->rows,
                  "Cluster these series only: 0-based indices in the set as the GUI numbers "
                  "them (a _TRAIN file's series, then its _TEST half's), as ranges (0-49,60); "
                  "--out names the series of the set, and has rows for these only");
    cmd->add_flag("--json", o->json, "Print a JSON summary instead of a line of text");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            const auto backend = backendRegistry().get(o->backend);
            const SeriesSet all = loadSeriesSplit(o->file);
            const std::optional<ItemSubset> subset = parseRows(o->rows, all.n, o->file);
            // A run on a selection clusters the selected series alone, as the GUI's does.
            const SeriesSet selected = subset ? subsetOf(all, *subset) : SeriesSet{};
            const SeriesSet& s = subset ? selected : all;
            checkOutputs({o->out, o->centroids});
            // The values checked against the declared ranges and this set (k <= n, channel).
            const DataShape shape{.items = s.n,
                                  .length = s.length,
                                  .channels = s.channels,
                                  .classes = int(s.classCount())};
            ParameterValues values;
            try {
                values = o->options->values(&shape);
                o->params = kshapeParams(values);
            } catch (const Error& e) {
                throw Error(o->file + ": " + e.what());
            }
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            KShapeResult r = runOnFile(o->file, "k-Shape",
                                       kshapeDescriptor().memoryNeed(shape, values), job, [&] {
                                           validateKShape(s, o->params);
                                           return backend->kshape(s, o->params, job);
                                       });
            const double totalMs = millisecondsSince(start);
            // "all" or the channel's number, as --channel reads it.
            const std::string channel =
                kshapeDescriptor().parameter("channel")->format(*values.find("channel"));
            const bool labelled = !s.labels.empty() && std::any_of(s.labels.begin(), s.labels.end(),
                                                                   [](auto l) { return l >= 0; });
            ClusterAgreement agreement;
            if (labelled) agreement = clusterAgreement(r.labels, s.labels);
            // Outputs name the series of the set: the others are kNotRun (and get no row).
            if (subset) r = expandKShapeResult(r, *subset);
            if (!o->out.empty()) {
                std::ostringstream header;
                header << "kshape k=" << o->params.k << " maxIterations=" << o->params.maxIterations
                       << " seed=" << o->params.seed << " channel=" << channel
                       << " iterations=" << r.iterations
                       << " converged=" << (r.converged ? "true" : "false")
                       << " backend=" << backend->name() << " file=" << o->file;
                io::writeKShapeCsv(o->out, r.labels, r.distances, r.shifts, header.str());
            }
            if (!o->centroids.empty()) {
                std::vector<std::size_t> shape{std::size_t(r.k), r.length};
                if (r.channels > 1) shape.insert(shape.begin() + 1, r.channels);
                io::writeNpy(o->centroids, std::span<const float>(r.centroids), shape);
            }
            const nlohmann::json summary = kshapeSummary(r);
            if (o->json) {
                nlohmann::json j = {
                    {"algorithm", "kshape"},
                    {"file", o->file},
                    {"backend", backend->name()},
                    {"device", backend->info().device},
                    {"k", o->params.k},
                    {"max_iterations", o->params.maxIterations},
                    {"seed", o->params.seed},
                    {"channel", o->params.channel ? nlohmann::json(*o->params.channel)
                                                  : nlohmann::json(channel)},
                    {"clustered_channels", r.channels},
                    {"n", s.n},
                    {"length", s.length},
                    {"channels", s.channels}};
                j.update(summary);
                if (subset) {
                    j["of"] = all.n;
                    j["rows"] = subset->text();
                }
                if (labelled) {
                    j["classes"] = s.classCount();
                    j.update(agreementJson(agreement));
                }
                j.update({{"stages_ms", stageMilliseconds(job.timings())}, {"total_ms", totalMs}});
                if (!o->out.empty()) j["out"] = o->out;
                if (!o->centroids.empty()) j["centroids_out"] = o->centroids;
                printJson(j);
            } else {
                std::ostringstream line;
                line << fileName(o->file) << ": k-Shape k=" << o->params.k << " on " << s.n
                     << " series of length " << s.length << droppedText(0, s.n, all.n);
                if (r.channels > 1) line << " (" << r.channels << " channels together)";
                line << ", " << r.iterations << " iterations"
                     << (r.converged ? " (converged)" : " (not converged)") << ", sizes "
                     << summary["cluster_sizes"].dump();
                if (const std::size_t empty = summary["empty_clusters"]; empty > 0)
                    line << " (" << empty << " empty)";
                if (labelled)
                    line << "; RI " << agreement.randIndex << ", ARI "
                         << agreement.adjustedRandIndex << ", NMI "
                         << agreement.normalizedMutualInformation;
                line << "; " << backend->name() << ' ';
                line.precision(3);
                line << std::fixed << totalMs << " ms";
                if (!o->out.empty()) line << "; labels in " << o->out;
                printLine(line.str());
            }
            return kExitOk;
        });
    });
}

}  // namespace cs::cli
