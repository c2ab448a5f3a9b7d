// SPDX-License-Identifier: MIT
#include "app/cli/bench_command.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/knn_command.h"
#include "app/cli/rocket_command.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/dbscan/dbscan_datasets.h"
#include "compute/io/npy.h"
#include "compute/knn/knn_datasets.h"
#include "compute/rocket/rocket_datasets.h"

namespace cs::cli {
namespace {

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t m = values.size() / 2;
    return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

void addBenchDbscan(CLI::App& bench, int& exitCode) {
    struct Options {
        std::size_t n = 100'000, d = 3;
        std::string dist = "blobs", backend = "auto", path = "auto", dump;
        float eps = -1.0f;
        int minPts = 0, repeat = 5, warmup = 1;
        bool star = false;
        std::uint64_t seed = 1;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = bench.add_subcommand("dbscan", "Benchmark DBSCAN on generated points");
    cmd->add_option("--n", o->n, "Number of points (default 100000)");
    cmd->add_option("--d", o->d, "Dimensions (default 3)");
    cmd->add_option("--dist", o->dist, "uniform, blobs, dense or seed-spreader (default blobs)");
    cmd->add_option("--eps", o->eps, "Radius (default: the distribution's, 1 or 5000)");
    cmd->add_option("--min-pts", o->minPts,
                    "Core threshold (default: the distribution's, 10 or 100)");
    cmd->add_flag("--star", o->star, "DBSCAN*");
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--path", o->path, "auto, grid, brute or kdtree (default: auto)");
    cmd->add_option("--repeat", o->repeat, "Timed runs (default 5)");
    cmd->add_option("--warmup", o->warmup, "Untimed runs first (default 1)");
    cmd->add_option("--seed", o->seed, "Data seed (default 1)");
    cmd->add_option("--dump", o->dump, "Also write the generated points to this .npy file");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            const DbscanDistribution dist = parseDbscanDistribution(o->dist);
            const DbscanDatasetDefaults defaults = dbscanDatasetDefaults(dist);
            const DbscanParams params{o->eps >= 0.0f ? o->eps : defaults.eps,
                                      o->minPts > 0 ? o->minPts : defaults.minPts, o->star,
                                      parseDbscanPath(o->path)};
            validateDbscanParams(params);
            if (o->repeat < 1 || o->warmup < 0)
                throw Error("--repeat must be >= 1 and --warmup >= 0");
            const auto backend = backendRegistry().get(o->backend);
            const auto info = backend->info();

            const auto generateStart = std::chrono::steady_clock::now();
            const PointSet points = makeDbscanDataset(dist, o->n, o->d, params.eps, o->seed);
            const double generateMs = millisecondsSince(generateStart);
            if (!o->dump.empty()) io::writeNpy(o->dump, points.coords, {points.n, points.dims});

            const nlohmann::json config = {{"algorithm", "dbscan"},
                                           {"backend", backend->name()},
                                           {"device", info.device},
                                           {"threads", info.threads},
                                           {"n", points.n},
                                           {"d", points.dims},
                                           {"dist", std::string(toString(dist))},
                                           {"seed", o->seed},
                                           {"eps", shortestDouble(params.eps)},
                                           {"min_pts", params.minPts},
                                           {"star", params.star}};
            std::vector<double> totals;
            std::map<std::string, std::vector<double>> stages;
            for (int run = 0; run < o->warmup + o->repeat; ++run) {
                JobControl job;
                const auto start = std::chrono::steady_clock::now();
                const DbscanResult r = backend->dbscan(points, params, job);
                const double totalMs = millisecondsSince(start);
                if (run < o->warmup) continue;
                const nlohmann::json stageMs = stageMilliseconds(job.timings());
                nlohmann::json line = config;
                line.update(dbscanCounts(r));
                line.update(
                    {{"run", run - o->warmup}, {"stages_ms", stageMs}, {"total_ms", totalMs}});
                printJson(line);
                totals.push_back(totalMs);
                for (const auto& [name, ms] : stageMs.items())
                    stages[name].push_back(ms.get<double>());
            }
            nlohmann::json summary = config;
            nlohmann::json medianStages = nlohmann::json::object();
            for (const auto& [name, values] : stages)
                medianStages[name] = median(values);
            summary.update({{"summary", "median"},
                            {"runs", o->repeat},
                            {"warmup", o->warmup},
                            {"generate_ms", generateMs},
                            {"median_total_ms", median(totals)},
                            {"min_total_ms", *std::min_element(totals.begin(), totals.end())},
                            {"max_total_ms", *std::max_element(totals.begin(), totals.end())},
                            {"median_stages_ms", medianStages}});
            if (!o->dump.empty()) summary["dump"] = o->dump;
            printJson(summary);
            return kExitOk;
        });
    });
}

void addBenchKnn(CLI::App& bench, int& exitCode) {
    struct Options {
        std::size_t n = 100'000, d = 3;
        std::string dist = "blobs", backend = "auto", input, dump;
        KnnParams params;
        int repeat = 5, warmup = 1;
        std::uint64_t seed = 1;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = bench.add_subcommand(
        "knn", "Benchmark the random-projection forest kNN graph on generated points or a file");
    cmd->add_option("--n", o->n, "Number of points (default 100000)");
    cmd->add_option("--d", o->d, "Dimensions (default 3)");
    cmd->add_option("--dist", o->dist, "blobs, uniform or embed (default blobs)");
    cmd->add_option("--input", o->input, "Benchmark this point file instead of generated data");
    cmd->add_option("--k", o->params.k, "Neighbours per point (default 10)");
    cmd->add_option("--trees", o->params.trees, "Most trees (default 8)");
    cmd->add_option("--leaf-size", o->params.leafSize, "Largest leaf (default 512)");
    cmd->add_option("--target-recall", o->params.targetRecall,
                    "Stop at this sampled recall; 0 builds every tree (default 0.95)");
    cmd->add_option("--recall-sample", o->params.recallSample, "Recall sample size (default 256)");
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--repeat", o->repeat, "Timed runs (default 5)");
    cmd->add_option("--warmup", o->warmup, "Untimed runs first (default 1)");
    cmd->add_option("--seed", o->seed, "Data and forest seed (default 1)");
    cmd->add_option("--dump", o->dump, "Also write the points to this .npy file");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            KnnParams params = o->params;
            params.seed = o->seed;
            validateKnnParams(params);
            if (o->repeat < 1 || o->warmup < 0)
                throw Error("--repeat must be >= 1 and --warmup >= 0");
            const KnnDistribution dist = parseKnnDistribution(o->dist);
            const auto backend = backendRegistry().get(o->backend);
            const auto info = backend->info();

            const auto generateStart = std::chrono::steady_clock::now();
            const PointSet points = o->input.empty() ? makeKnnDataset(dist, o->n, o->d, o->seed)
                                                     : loadPointCloud(o->input);
            const double generateMs = millisecondsSince(generateStart);
            try {
                validateKnnInput(points, params);
            } catch (const Error& e) {
                if (o->input.empty()) throw;
                throw Error(o->input + ": " + e.what());
            }
            if (!o->dump.empty()) io::writeNpy(o->dump, points.coords, {points.n, points.dims});

            nlohmann::json config = {{"algorithm", "knn"},    {"backend", backend->name()},
                                     {"device", info.device}, {"threads", info.threads},
                                     {"n", points.n},         {"d", points.dims},
                                     {"k", params.k},         {"params", knnParamsJson(params)}};
            if (o->input.empty())
                config["dist"] = std::string(toString(dist));
            else
                config["input"] = o->input;
            std::vector<double> totals, recalls, treesBuilt;
            std::map<std::string, std::vector<double>> stages;
            nlohmann::json lastSummary;
            for (int run = 0; run < o->warmup + o->repeat; ++run) {
                JobControl job;
                const auto start = std::chrono::steady_clock::now();
                const KnnGraph g = backend->knnGraph(points, params, job);
                const double totalMs = millisecondsSince(start);
                if (run < o->warmup) continue;
                const nlohmann::json stageMs = stageMilliseconds(job.timings());
                nlohmann::json line = config;
                lastSummary = knnSummary(g);
                line.update(lastSummary);
                line.update(
                    {{"run", run - o->warmup}, {"stages_ms", stageMs}, {"total_ms", totalMs}});
                printJson(line);
                totals.push_back(totalMs);
                recalls.push_back(g.recall());
                treesBuilt.push_back(double(g.treesBuilt));
                for (const auto& [name, ms] : stageMs.items())
                    stages[name].push_back(ms.get<double>());
            }
            nlohmann::json summary = config;
            nlohmann::json medianStages = nlohmann::json::object();
            for (const auto& [name, values] : stages)
                medianStages[name] = median(values);
            summary.update({{"summary", "median"},
                            {"runs", o->repeat},
                            {"warmup", o->warmup},
                            {"generate_ms", generateMs},
                            {"recall", median(recalls)},
                            {"trees_built", median(treesBuilt)},
                            {"recall_by_tree", lastSummary["recall_by_tree"]},
                            {"median_total_ms", median(totals)},
                            {"min_total_ms", *std::min_element(totals.begin(), totals.end())},
                            {"max_total_ms", *std::max_element(totals.begin(), totals.end())},
                            {"median_stages_ms", medianStages}});
            if (!o->dump.empty()) summary["dump"] = o->dump;
            printJson(summary);
            return kExitOk;
        });
    });
}

void addBenchRocket(CLI::App& bench, int& exitCode) {
    struct Options {
        std::size_t n = 1000, length = 1000, channels = 1;
        std::string backend = "auto", input;
        RocketParams params;
        int repeat = 5, warmup = 1;
        std::uint64_t seed = 1;
        bool fit = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = bench.add_subcommand(
        "rocket", "Benchmark the ROCKET transform on generated series or a file");
    cmd->add_option("--n", o->n, "Number of series (default 1000)");
    cmd->add_option("--length", o->length, "Samples per series (default 1000)");
    cmd->add_option("--channels", o->channels, "Channels per series (default 1)");
    cmd->add_option("--kernels", o->params.kernels, "Random kernels (default 10000)");
    cmd->add_option("--input", o->input, "Benchmark this series file (TRAIN + TEST) instead");
    cmd->add_flag("--fit", o->fit, "Also fit the ridge classifier on the labelled series");
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--repeat", o->repeat, "Timed runs (default 5)");
    cmd->add_option("--warmup", o->warmup, "Untimed runs first (default 1)");
    cmd->add_option("--seed", o->seed, "Data and kernel seed (default 1)");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            RocketParams params = o->params;
            params.seed = o->seed;
            validateRocketParams(params);
            if (o->repeat < 1 || o->warmup < 0)
                throw Error("--repeat must be >= 1 and --warmup >= 0");
            const auto backend = backendRegistry().get(o->backend);
            const auto info = backend->info();

            const auto generateStart = std::chrono::steady_clock::now();
            const SeriesSet series = o->input.empty()
                                         ? makeRocketSeries(o->n, o->length, o->channels, o->seed)
                                         : loadSeriesSplit(o->input);
            const double generateMs = millisecondsSince(generateStart);
            RocketKernels kernels;
            try {
                kernels = makeRocketKernels(params, series.length, series.channels);
                validateRocketInput(series, kernels);
            } catch (const Error& e) {
                if (o->input.empty()) throw;
                throw Error(o->input + ": " + e.what());
            }
            if (o->fit && (series.labels.empty() || series.classCount() < 2))
                throw Error("--fit needs labelled series of 2 or more classes");

            nlohmann::json config = {{"algorithm", "rocket"},
                                     {"backend", backend->name()},
                                     {"device", info.device},
                                     {"threads", info.threads},
                                     {"n", series.n},
                                     {"length", series.length},
                                     {"channels", series.channels},
                                     {"kernels", params.kernels},
                                     {"seed", params.seed},
                                     {"fit", o->fit}};
            if (!o->input.empty()) config["input"] = o->input;
            std::vector<double> totals;
            std::map<std::string, std::vector<double>> stages;
            for (int run = 0; run < o->warmup + o->repeat; ++run) {
                JobControl job;
                const auto start = std::chrono::steady_clock::now();
                const RocketFeatures f = backend->rocketTransform(series, kernels, job);
                nlohmann::json ridge;
                if (o->fit)
                    ridge = ridgeSummary(
                        backend->ridgeFit(f, series.labels, int(series.classCount()), {}, job));
                const double totalMs = millisecondsSince(start);
                if (run < o->warmup) continue;
                const nlohmann::json stageMs = stageMilliseconds(job.timings());
                nlohmann::json line = config;
                if (o->fit)
                    line.update(
                        {{"alpha", ridge["alpha"]}, {"loo_accuracy", ridge["loo_accuracy"]}});
                line.update({{"run", run - o->warmup},
                             {"stages_ms", stageMs},
                             {"total_ms", totalMs},
                             {"series_per_s", double(series.n) / (totalMs / 1000.0)}});
                printJson(line);
                totals.push_back(totalMs);
                for (const auto& [name, ms] : stageMs.items())
                    stages[name].push_back(ms.get<double>());
            }
            nlohmann::json summary = config;
            nlohmann::json medianStages = nlohmann::json::object();
            for (const auto& [name, values] : stages)
                medianStages[name] = median(values);
            const double medianMs = median(totals);
            summary.update({{"summary", "median"},
                            {"runs", o->repeat},
                            {"warmup", o->warmup},
                            {"generate_ms", generateMs},
                            {"median_total_ms", medianMs},
                            {"min_total_ms", *std::min_element(totals.begin(), totals.end())},
                            {"max_total_ms", *std::max_element(totals.begin(), totals.end())},
                            {"median_stages_ms", medianStages},
                            {"series_per_s", double(series.n) / (medianMs / 1000.0)}});
            printJson(summary);
            return kExitOk;
        });
    });
}

}  // namespace

void addBenchCommand(CLI::App& app, int& exitCode) {
    auto* bench =
        app.add_subcommand("bench", "Benchmark an algorithm on generated data (JSON lines)");
    bench->require_subcommand(1);
    // One add<Algorithm> per benchmarked algorithm.
    addBenchDbscan(*bench, exitCode);
    addBenchKnn(*bench, exitCode);
    addBenchRocket(*bench, exitCode);
}

}  // namespace cs::cli
