// SPDX-License-Identifier: MIT
#include "app/cli/series_sweep_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/parameter_options.h"
#include "app/cli/rocket_command.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/io/writers.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/kshape/kshape_sweep.h"
#include "compute/rocket/rocket_descriptor.h"
#include "compute/rocket/rocket_pipeline.h"
#include "compute/rocket/rocket_sweep.h"

namespace cs::cli {
namespace {

// The descriptor's parameters less the one the sweep varies, so that the sweep's options are
// parsed exactly as the plain command parses them and the varied one is not offered.
const AlgorithmDescriptor& without(const AlgorithmDescriptor& d, const std::string& name) {
    static std::vector<std::unique_ptr<AlgorithmDescriptor>> made;
    auto copy = std::make_unique<AlgorithmDescriptor>(d);
    std::erase_if(copy->parameters, [&](const ParameterSpec& p) { return p.name == name; });
    made.push_back(std::move(copy));
    return *made.back();
}

// The summary both sweeps print with --json: the sweep's own table (its JSON text) and the run
// around it.
void printSweepJson(const std::string& table, const std::string& algorithm, const std::string& file,
                    const std::string& testFile, const Backend& backend, const SeriesSet& s,
                    const JobControl& job, double totalMs, const std::string& out) {
    nlohmann::json j = nlohmann::json::parse(table);
    j.update({{"algorithm", algorithm},
              {"file", file},
              {"backend", backend.name()},
              {"n", s.n},
              {"length", s.length},
              {"channels", s.channels},
              {"classes", s.classCount()},
              {"stages_ms", stageMilliseconds(job.timings())},
              {"total_ms", totalMs}});
    if (!testFile.empty()) j["test_file"] = testFile;
    if (!out.empty()) j["out"] = out;
    printJson(j);
}

void addKShapeSweep(CLI::App& sweep, int& exitCode) {
    struct Options {
        std::string file, backend = "auto", out;
        std::vector<int> kRange{2, 20};
        std::shared_ptr<ParameterOptions> options;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = sweep.add_subcommand(
        "kshape",
        "k-Shape once per k: the sum of SBD to the centroids and, with class labels, "
        "ARI and NMI per k");
    cmd->add_option("FILE", o->file,
                    "Series (.ts/.arff/UCR); a _TRAIN file brings its _TEST half along")
        ->required();
    cmd->add_option("--k-range", o->kRange, "First and last k, every k between (default: 2 20)")
        ->expected(2);
    o->options = std::make_shared<ParameterOptions>(*cmd, without(kshapeDescriptor(), "k"));
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out,
                    "Write the table (k,sbd_sum,mean_sbd,ari,nmi,rand_index,iterations,converged,"
                    "empty_clusters,ms) to this CSV");
    cmd->add_flag("--json", o->json, "Print the table as one JSON object");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            const int from = o->kRange[0], to = o->kRange[1];
            if (from < 1 || to < from)
                throw Error("--k-range needs 1 <= FROM <= TO (got " + std::to_string(from) + " " +
                            std::to_string(to) + ")");
            const auto backend = backendRegistry().get(o->backend);
            const SeriesSet s = loadSeriesSplit(o->file);
            checkOutputs({o->out});
            const DataShape shape{.items = s.n,
                                  .length = s.length,
                                  .channels = s.channels,
                                  .classes = int(s.classCount())};
            KShapeSweepParams params{.kFrom = from, .kTo = to};
            ParameterValues values;
            try {
                values = o->options->values(&shape);
                values.set("k", std::int64_t(to));
                params.run = kshapeParams(values);
                validateKShapeSweep(s, params);
            } catch (const Error& e) {
                throw Error(o->file + ": " + e.what());
            }
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            const KShapeSweepResult r =
                runOnFile(o->file, "k-Shape sweep", kshapeDescriptor().memoryNeed(shape, values),
                          job, [&] { return kshapeSweep(*backend, s, params, job); });
            const double totalMs = millisecondsSince(start);
            if (!o->out.empty()) io::writeFileBytes(o->out, kshapeSweepCsv(r));
            if (o->json) {
                printSweepJson(kshapeSweepJson(r), "kshape-sweep", o->file, {}, *backend, s, job,
                               totalMs, o->out);
                return kExitOk;
            }
            std::ostringstream head;
            head.precision(3);
            head << fileName(o->file) << ": " << s.n << " series, k-Shape for k = " << from
                 << " to " << to << " (seed " << params.run.seed << ") on " << backend->name()
                 << " in " << std::fixed << totalMs << " ms";
            printLine(head.str());
            const bool labelled = !r.cells.empty() && r.cells.front().hasAgreement;
            printLine(labelled ? "    k     SBD sum       ARI       NMI  iterations"
                               : "    k     SBD sum  iterations");
            for (const KShapeSweepCell& c : r.cells) {
                char row[160];
                if (labelled)
                    std::snprintf(row, sizeof row, "%5d  %10.4f  %8.4f  %8.4f  %10d%s", c.k,
                                  c.sbdSum, c.adjustedRandIndex, c.normalizedMutualInformation,
                                  c.iterations, c.converged ? "" : " (not converged)");
                else
                    std::snprintf(row, sizeof row, "%5d  %10.4f  %10d%s", c.k, c.sbdSum,
                                  c.iterations, c.converged ? "" : " (not converged)");
                printLine(row);
            }
            if (!o->out.empty()) printLine("table in " + o->out);
            return kExitOk;
        });
    });
}

void addRocketSweep(CLI::App& sweep, int& exitCode) {
    struct Options {
        std::string file, test, backend = "auto", out, kernels;
        std::shared_ptr<ParameterOptions> options;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = sweep.add_subcommand(
        "rocket",
        "The ROCKET pipeline once per kernel count: accuracy (on the test split, else "
        "leave-one-out) and times per count");
    cmd->add_option("TRAIN_FILE", o->file,
                    "Series (.ts/.arff/UCR); a _TRAIN file brings its _TEST half along")
        ->required();
    cmd->add_option("--test", o->test, "Test series (instead of the _TEST half)");
    cmd->add_option("--kernels-list", o->kernels,
                    "Kernel counts, ascending, separated by commas (default: "
                    "100,200,500,1000,2000,5000,10000)");
    o->options = std::make_shared<ParameterOptions>(*cmd, without(rocketDescriptor(), "kernels"),
                                                    std::map<std::string, std::string>{},
                                                    std::set<std::string>{"featureOrder"});
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--out", o->out,
                    "Write the table (kernels,features,accuracy,test_accuracy,loo_accuracy,alpha,"
                    "transform_ms,fit_ms,ms) to this CSV");
    cmd->add_flag("--json", o->json, "Print the table as one JSON object");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            RocketSweepParams params;
            params.kernels = o->kernels.empty() ? defaultRocketSweepKernels()
                                                : parseRocketKernelList(o->kernels);
            ParameterValues values = o->options->values();
            values.set("kernels", std::int64_t(params.kernels.back()));
            params.run = rocketParams(values);
            const auto backend = backendRegistry().get(o->backend);
            const SeriesSet s = loadSeriesSplit(o->file, o->test);
            checkOutputs({o->out});
            try {
                validateRocketSweep(s, params);
            } catch (const Error& e) {
                throw Error(o->file + ": " + e.what());
            }
            // The largest count dominates the memory: one run at a time.
            const DataShape shape{.items = s.n, .length = s.length, .channels = s.channels};
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            const RocketSweepResult r =
                runOnFile(o->file, "ROCKET sweep", rocketDescriptor().memoryNeed(shape, values),
                          job, [&] { return rocketSweep(*backend, s, params, job); });
            const double totalMs = millisecondsSince(start);
            if (!o->out.empty()) io::writeFileBytes(o->out, rocketSweepCsv(r));
            if (o->json) {
                printSweepJson(rocketSweepJson(r), "rocket-sweep", o->file, o->test, *backend, s,
                               job, totalMs, o->out);
                return kExitOk;
            }
            std::ostringstream head;
            head.precision(3);
            head << fileName(o->file) << ": " << rocketVariantTitle(params.run.variant)
                 << " accuracy (" << (r.testSplit ? "test split" : "leave-one-out")
                 << ") by kernel count, seed " << params.run.seed << ", on " << backend->name()
                 << " in " << std::fixed << totalMs << " ms";
            printLine(head.str());
            printLine("  kernels  features  accuracy  transform ms  classifier ms");
            for (const RocketSweepCell& c : r.cells) {
                char row[160];
                std::snprintf(row, sizeof row, "%9d  %8zu  %8.4f  %12.1f  %13.1f", c.kernels,
                              c.features, c.accuracy, c.transformMs, c.fitMs);
                printLine(row);
            }
            if (!o->out.empty()) printLine("table in " + o->out);
            return kExitOk;
        });
    });
}

}  // namespace

void addSeriesSweepCommands(CLI::App& sweep, int& exitCode) {
    addKShapeSweep(sweep, exitCode);
    addRocketSweep(sweep, exitCode);
}

}  // namespace cs::cli
