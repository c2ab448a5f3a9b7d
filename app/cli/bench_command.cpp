// SPDX-License-Identifier: MIT
#include "app/cli/bench_command.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/cli/cli_common.h"
#include "app/cli/dbscan_command.h"
#include "app/cli/knn_command.h"
#include "app/cli/kshape_command.h"
#include "app/cli/parameter_options.h"
#include "app/cli/rocket_command.h"
#include "compute/backend/backend_registry.h"
#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/dbscan/dbscan_datasets.h"
#include "compute/dbscan/dbscan_descriptor.h"
#include "compute/demo/shape_series.h"
#include "compute/io/npy.h"
#include "compute/io/sparse_readers.h"
#include "compute/knn/knn_cpu.h"
#include "compute/knn/knn_datasets.h"
#include "compute/knn/knn_descriptor.h"
#include "compute/knn/knn_sparse_cpu.h"
#include "compute/kshape/kshape_descriptor.h"
#include "compute/rocket/rocket_descriptor.h"
#include "compute/rocket/rocket_pipeline.h"

namespace cs::cli {
namespace {

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t m = values.size() / 2;
    return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

// More timed runs than anyone means (a typo, a script's overflow): each run's line is streamed,
// but the medians keep a few numbers per run, so the count is bounded.
constexpr int kMaxRepeat = 100'000;
constexpr int kMaxWarmup = 1'000;

// What every benchmark takes besides its data and parameters: where and how often it runs.
struct BenchRuns {
    std::string backend = "auto";
    int repeat = 5;
    int warmup = 1;
};

void addRunOptions(CLI::App& cmd, BenchRuns& runs) {
    cmd.add_option("--backend", runs.backend, "cpu, cuda or auto (default: auto)");
    cmd.add_option("--repeat", runs.repeat,
                   "Timed runs, each printed as it ends (1 .. 100000, default 5)");
    cmd.add_option("--warmup", runs.warmup, "Untimed runs first (default 1)");
}

void checkRepeat(int repeat, int warmup) {
    if (repeat < 1 || warmup < 0) throw Error("--repeat must be >= 1 and --warmup >= 0");
    if (repeat > kMaxRepeat)
        throw Error("--repeat " + std::to_string(repeat) + " is more than the " +
                    std::to_string(kMaxRepeat) + " timed runs a benchmark takes");
    if (warmup > kMaxWarmup)
        throw Error("--warmup " + std::to_string(warmup) + " is more than the " +
                    std::to_string(kMaxWarmup) + " untimed runs a benchmark takes");
}

// What the summary needs of the timed runs: the numbers, not the runs' JSON (printed as each
// run ends), so memory stays a few doubles per run.
struct TimedRuns {
    std::map<std::string, std::vector<double>> fields;  // numeric fields `once` returned
    nlohmann::json last;                                // the last run's fields
    std::vector<double> totals;                         // wall milliseconds per timed run
    std::map<std::string, std::vector<double>> stages;
};

// Runs once(job) warmup times untimed, then repeat times timed, printing a JSON line per timed
// run: config, once's fields, run, stages_ms, total_ms, and with a rate name, `items` per second.
// need: the run's memory, for refusing what cannot fit and explaining running out of it.
TimedRuns runTimed(Backend& backend, const nlohmann::json& config, int warmup, int repeat,
                   const MemoryNeed& need, const std::function<nlohmann::json(JobControl&)>& once,
                   const char* rate = nullptr, double items = 0.0) {
    checkRepeat(repeat, warmup);
    const std::string method = config.value("algorithm", std::string("the benchmark"));
    checkMemoryFits(method, need);
    TimedRuns runs;
    for (int run = 0; run < warmup + repeat; ++run) {
        JobControl job;
        const auto devicePeak = backend.watchDeviceMemory();
        const auto start = std::chrono::steady_clock::now();
        nlohmann::json fields = explainingOutOfMemory(method, need, job, [&] { return once(job); });
        const double totalMs = millisecondsSince(start);
        if (devicePeak) fields["device_peak_mib"] = double(devicePeak()) / double(1 << 20);
        if (run < warmup) continue;
        const nlohmann::json stageMs = stageMilliseconds(job.timings());
        nlohmann::json line = config;
        line.update(fields);
        line.update({{"run", run - warmup}, {"stages_ms", stageMs}, {"total_ms", totalMs}});
        if (rate) line[rate] = items / (totalMs / 1000.0);
        printJson(line);
        for (const auto& [name, value] : fields.items())
            if (value.is_number()) runs.fields[name].push_back(value.get<double>());
        runs.last = std::move(fields);
        runs.totals.push_back(totalMs);
        for (const auto& [name, ms] : stageMs.items())
            runs.stages[name].push_back(ms.get<double>());
    }
    return runs;
}

// The closing line: config with the medians of the totals and of every stage.
nlohmann::json medianSummary(const nlohmann::json& config, const TimedRuns& runs, int warmup,
                             double generateMs) {
    nlohmann::json summary = config;
    nlohmann::json medianStages = nlohmann::json::object();
    for (const auto& [name, values] : runs.stages)
        medianStages[name] = median(values);
    summary.update({{"summary", "median"},
                    {"runs", runs.totals.size()},
                    {"warmup", warmup},
                    {"generate_ms", generateMs},
                    {"median_total_ms", median(runs.totals)},
                    {"min_total_ms", *std::min_element(runs.totals.begin(), runs.totals.end())},
                    {"max_total_ms", *std::max_element(runs.totals.begin(), runs.totals.end())},
                    {"median_stages_ms", medianStages}});
    if (const auto peak = runs.fields.find("device_peak_mib"); peak != runs.fields.end())
        summary["device_peak_mib"] = *std::max_element(peak->second.begin(), peak->second.end());
    return summary;
}

// Runs check (a validation of the data); its error names the input file when the data came from
// one (input not empty), not from the generator.
void namingTheInput(const std::string& input, const std::function<void()>& check) {
    try {
        check();
    } catch (const Error& e) {
        if (input.empty()) throw;
        throw Error(input + ": " + e.what());
    }
}

// The median of one numeric field of the runs' results.
double medianOf(const TimedRuns& runs, const char* field) {
    const auto values = runs.fields.find(field);
    if (values == runs.fields.end()) throw Error(std::string("no numeric field ") + field);
    return median(values->second);
}

void addBenchDbscan(CLI::App& bench, int& exitCode) {
    struct Options {
        std::size_t n = 100'000, d = 3;
        std::string dist = "blobs", dump;
        BenchRuns runs;
        std::uint64_t seed = 1;
        std::shared_ptr<ParameterOptions> params;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = bench.add_subcommand("dbscan", "Benchmark DBSCAN on generated points");
    cmd->add_option("--n", o->n, "Number of points (default 100000)");
    cmd->add_option("--d", o->d, "Dimensions (default 3)");
    cmd->add_option("--dist", o->dist, "uniform, blobs, dense or seed-spreader (default blobs)");
    o->params = std::make_shared<ParameterOptions>(
        *cmd, dbscanDescriptor(),
        std::map<std::string, std::string>{{"eps", "the distribution's, 1 or 5000"},
                                           {"minPts", "the distribution's, 10 or 100"}});
    addRunOptions(*cmd, o->runs);
    cmd->add_option("--seed", o->seed, "Data seed (default 1)");
    cmd->add_option("--dump", o->dump, "Also write the generated points to this .npy file");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            const DbscanDistribution dist = parseDbscanDistribution(o->dist);
            const DbscanDatasetDefaults defaults = dbscanDatasetDefaults(dist);
            DbscanParams params = dbscanParams(o->params->values());
            if (!o->params->given("eps")) params.eps = defaults.eps;
            if (!o->params->given("minPts")) params.minPts = defaults.minPts;
            validateDbscanParams(params);
            checkRepeat(o->runs.repeat, o->runs.warmup);
            const auto backend = backendRegistry().get(o->runs.backend);
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
            const TimedRuns runs =
                runTimed(*backend, config, o->runs.warmup, o->runs.repeat,
                         dbscanDescriptor().memoryNeed({.items = points.n, .dims = points.dims},
                                                       dbscanValues(params)),
                         [&](JobControl& job) {
                             return dbscanCounts(backend->dbscan(points, params, job));
                         });
            nlohmann::json summary = medianSummary(config, runs, o->runs.warmup, generateMs);
            if (!o->dump.empty()) summary["dump"] = o->dump;
            printJson(summary);
            return kExitOk;
        });
    });
}

// The recall of a benchmarked graph checked by brute force on the CPU, on rows the forest's own
// stopping sample does not choose (another seed): the exact graph's recall() is 1 by
// definition, and the forest's is measured on that sample, so neither checks itself.
constexpr int kVerifiedRows = 200;

double verifiedRecall(const PointSet& points, const KnnGraph& graph, std::uint64_t seed) {
    const auto sample = knnRecallSample(points.n, kVerifiedRows, ~seed);
    std::vector<float> exactDist2;
    if (points.sparse)
        knnExactRowsSparse(*points.sparse, sample, graph.k, 0, &exactDist2);
    else
        knnExactRows(points.coords, points.n, points.dims, sample, graph.k, 0, &exactDist2);
    const auto dist2 = [&](std::size_t a, std::size_t b) {
        return points.sparse ? sparseDist2(*points.sparse, a, b)
                             : canonicalDist2(points.coords.data() + a * points.dims,
                                              points.coords.data() + b * points.dims, points.dims);
    };
    std::vector<float> listDist2;
    listDist2.reserve(exactDist2.size());
    const auto k = std::size_t(graph.k);
    for (const std::int32_t row : sample)
        for (std::size_t j = 0; j < k; ++j) {
            const std::int32_t q = graph.indices[std::size_t(row) * k + j];
            listDist2.push_back(q < 0 ? std::numeric_limits<float>::infinity()
                                      : dist2(std::size_t(row), std::size_t(q)));
        }
    return knnRecallOfRows(listDist2, exactDist2, graph.k);
}

void addBenchKnn(CLI::App& bench, int& exitCode) {
    struct Options {
        std::size_t n = 100'000, d = 3;
        std::string dist = "blobs", input, dump;
        std::shared_ptr<ParameterOptions> params;
        BenchRuns runs;
        DevicesOption devices;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = bench.add_subcommand(
        "knn", "Benchmark the random-projection forest kNN graph on generated points or a file");
    cmd->add_option("--n", o->n, "Number of points (default 100000)");
    cmd->add_option("--d", o->d, "Dimensions (default 3)");
    cmd->add_option("--dist", o->dist,
                    "blobs, uniform, embed or sparse (near-duplicate sparse rows of --d columns) "
                    "(default blobs)");
    cmd->add_option("--input", o->input, "Benchmark this point file instead of generated data");
    // The forest's seed seeds the generated points too.
    o->params = std::make_shared<ParameterOptions>(*cmd, knnDescriptor());
    addRunOptions(*cmd, o->runs);
    addDevicesOption(*cmd, o->devices);
    cmd->add_option("--dump", o->dump,
                    "Also write the points to this .npy file (sparse rows: a SciPy .npz file)");
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            const KnnParams params = knnParams(o->params->values());
            validateKnnParams(params);
            checkRepeat(o->runs.repeat, o->runs.warmup);
            const KnnDistribution dist = parseKnnDistribution(o->dist);
            const auto backend = backendRegistry().get(o->runs.backend);
            applyDevices(*backend, o->devices);
            const auto info = backend->info();

            const auto generateStart = std::chrono::steady_clock::now();
            const PointSet points = o->input.empty() ? makeKnnDataset(dist, o->n, o->d, params.seed)
                                                     : loadPointCloud(o->input, *backend);
            const double generateMs = millisecondsSince(generateStart);
            namingTheInput(o->input, [&] { validateKnnInput(points, params); });
            if (!o->dump.empty()) {
                // Sparse rows as SciPy's save_npz writes them, for the peers.
                if (points.sparse)
                    io::writeSparseNpz(o->dump, *points.sparse);
                else
                    io::writeNpy(o->dump, points.coords, {points.n, points.dims});
            }

            nlohmann::json config = {{"algorithm", "knn"},
                                     {"backend", backend->name()},
                                     {"device", info.device},
                                     {"threads", info.threads},
                                     {"devices", backend->devices()},
                                     {"n", points.n},
                                     {"d", points.sparse ? points.sparse->dims : points.dims},
                                     {"k", params.k},
                                     {"params", knnParamsJson(params)}};
            if (points.sparse) config["nnz"] = points.sparse->nnz();
            if (o->input.empty())
                config["dist"] = std::string(toString(dist));
            else
                config.update({{"input", o->input}, {"dropped_nan", points.droppedNonFinite}});
            KnnGraph last;
            const TimedRuns runs =
                runTimed(*backend, config, o->runs.warmup, o->runs.repeat,
                         knnDescriptor().memoryNeed({.items = points.n, .dims = points.dims},
                                                    knnValues(params)),
                         [&](JobControl& job) {
                             last = backend->knnGraph(points, params, job);
                             return knnSummary(last);
                         });
            nlohmann::json summary = medianSummary(config, runs, o->runs.warmup, generateMs);
            summary.update({{"recall", medianOf(runs, "recall")},
                            {"verified_recall", verifiedRecall(points, last, params.seed)},
                            {"verified_rows", std::min<std::size_t>(points.n, kVerifiedRows)},
                            {"trees_built", medianOf(runs, "trees_built")},
                            {"recall_by_tree", runs.last["recall_by_tree"]}});
            if (points.sparse) {
                // The 3-D view a sparse file opens with, on this backend, once.
                JobControl viewJob;
                const auto viewStart = std::chrono::steady_clock::now();
                (void)backend->sparseView(*points.sparse, viewJob);
                summary["view_ms"] = millisecondsSince(viewStart);
            }
            if (!o->dump.empty()) summary["dump"] = o->dump;
            printJson(summary);
            return kExitOk;
        });
    });
}

void addBenchRocket(CLI::App& bench, int& exitCode) {
    struct Options {
        std::size_t n = 1000, length = 1000, channels = 1;
        std::string input;
        std::shared_ptr<ParameterOptions> params;
        BenchRuns runs;
        DevicesOption devices;
        bool fit = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = bench.add_subcommand(
        "rocket",
        "Benchmark the ROCKET (or --variant MiniRocket, MultiRocket) transform on generated "
        "series or a file");
    cmd->add_option("--n", o->n, "Number of series (default 1000)");
    cmd->add_option("--length", o->length, "Samples per series (default 1000)");
    cmd->add_option("--channels", o->channels, "Channels per series (default 1)");
    // The kernels' seed seeds the generated series too.
    o->params = std::make_shared<ParameterOptions>(*cmd, rocketDescriptor(),
                                                   std::map<std::string, std::string>{},
                                                   std::set<std::string>{"featureOrder"});
    cmd->add_option("--input", o->input, "Benchmark this series file (TRAIN + TEST) instead");
    cmd->add_flag("--fit", o->fit, "Also fit the ridge classifier on the labelled series");
    addRunOptions(*cmd, o->runs);
    addDevicesOption(*cmd, o->devices);
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            const RocketParams params = rocketParams(o->params->values());
            validateRocketParams(params);
            checkRepeat(o->runs.repeat, o->runs.warmup);
            const auto backend = backendRegistry().get(o->runs.backend);
            applyDevices(*backend, o->devices);
            const auto info = backend->info();

            const auto generateStart = std::chrono::steady_clock::now();
            const SeriesSet series =
                o->input.empty() ? demo::makeShapeSeries(o->n, o->length, o->channels, params.seed)
                                 : loadSeriesSplit(o->input);
            const double generateMs = millisecondsSince(generateStart);
            // The fit (ROCKET's kernels; MiniRocket's model and biases) is made once, outside
            // the timed runs, which time the transform (and the ridge with --fit).
            RocketTransform transform;
            double fitMs = 0.0;
            namingTheInput(o->input, [&] {
                JobControl fitJob;
                const auto fitStart = std::chrono::steady_clock::now();
                transform = fitRocketTransform(*backend, params, series, fitJob);
                fitMs = millisecondsSince(fitStart);
                if (transform.kernels) validateRocketInput(series, *transform.kernels);
            });
            if (o->fit && (series.labels.empty() || series.classCount() < 2))
                throw Error("--fit needs labelled series of 2 or more classes");

            nlohmann::json config = {{"algorithm", "rocket"},
                                     {"backend", backend->name()},
                                     {"device", info.device},
                                     {"devices", backend->devices()},
                                     {"threads", info.threads},
                                     {"n", series.n},
                                     {"length", series.length},
                                     {"channels", series.channels},
                                     {"kernels", params.kernels},
                                     {"seed", params.seed},
                                     {"variant", rocketVariantName(params.variant)},
                                     {"fit", o->fit}};
            if (!o->input.empty()) config["input"] = o->input;
            const TimedRuns runs = runTimed(
                *backend, config, o->runs.warmup, o->runs.repeat,
                rocketDescriptor().memoryNeed(
                    {.items = series.n, .length = series.length, .channels = series.channels},
                    rocketValues(params)),
                [&](JobControl& job) {
                    auto f = std::make_unique<RocketFeatures>(
                        applyRocketTransform(*backend, transform, series, job));
                    nlohmann::json fields = nlohmann::json::object();
                    if (o->fit) {
                        const nlohmann::json ridge = ridgeSummary(backend->ridgeFit(
                            *f, series.labels, int(series.classCount()), {}, job));
                        fields = {{"alpha", ridge["alpha"]},
                                  {"loo_accuracy", ridge["loo_accuracy"]}};
                    }
                    const auto stage = job.stage("free");  // gigabytes at 100,000 series
                    f.reset();
                    return fields;
                },
                "series_per_s", double(series.n));
            nlohmann::json summary = medianSummary(config, runs, o->runs.warmup, generateMs);
            summary["fit_ms"] = fitMs;
            summary["features"] = rocketFeatureCount(params);
            summary["series_per_s"] =
                double(series.n) / (summary["median_total_ms"].get<double>() / 1000.0);
            printJson(summary);
            return kExitOk;
        });
    });
}

void addBenchKShape(CLI::App& bench, int& exitCode) {
    struct Options {
        std::size_t n = 1000, length = 256;
        std::string input;
        std::shared_ptr<ParameterOptions> params;
        BenchRuns runs;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = bench.add_subcommand("kshape",
                                     "Benchmark k-Shape clustering on generated series or a file");
    cmd->add_option("--n", o->n, "Number of series (default 1000)");
    cmd->add_option("--length", o->length, "Samples per series (default 256)");
    // The initial labels' seed seeds the generated series too; k defaults to their classes.
    o->params = std::make_shared<ParameterOptions>(
        *cmd, kshapeDescriptor(),
        std::map<std::string, std::string>{
            {"k", std::to_string(demo::kShapeSeriesClasses) + ", the generated classes"}});
    cmd->add_option("--input", o->input, "Benchmark this series file (TRAIN + TEST) instead");
    addRunOptions(*cmd, o->runs);
    cmd->callback([o, &exitCode] {
        exitCode = runReportingErrors([&] {
            KShapeParams params = kshapeParams(o->params->values());
            if (!o->params->given("k")) params.k = int(demo::kShapeSeriesClasses);
            checkRepeat(o->runs.repeat, o->runs.warmup);
            const auto backend = backendRegistry().get(o->runs.backend);
            const auto info = backend->info();

            const auto generateStart = std::chrono::steady_clock::now();
            // makeShapeSeries: four classes of shapes, a fair clustering task.
            const SeriesSet series = o->input.empty()
                                         ? demo::makeShapeSeries(o->n, o->length, 1, params.seed)
                                         : loadSeriesSplit(o->input);
            const double generateMs = millisecondsSince(generateStart);
            namingTheInput(o->input, [&] { validateKShape(series, params); });
            const bool labelled = !series.labels.empty();

            nlohmann::json config = {
                {"algorithm", "kshape"}, {"backend", backend->name()},
                {"device", info.device}, {"threads", info.threads},
                {"n", series.n},         {"length", series.length},
                {"k", params.k},         {"max_iterations", params.maxIterations},
                {"seed", params.seed}};
            if (!o->input.empty()) config["input"] = o->input;
            const TimedRuns runs = runTimed(
                *backend, config, o->runs.warmup, o->runs.repeat,
                kshapeDescriptor().memoryNeed(
                    {.items = series.n, .length = series.length, .channels = series.channels},
                    kshapeValues(params)),
                [&](JobControl& job) {
                    const KShapeResult r = backend->kshape(series, params, job);
                    nlohmann::json fields = kshapeSummary(r);
                    if (labelled)
                        fields.update(agreementJson(clusterAgreement(r.labels, series.labels)));
                    return fields;
                },
                "series_per_s", double(series.n));
            nlohmann::json summary = medianSummary(config, runs, o->runs.warmup, generateMs);
            summary["iterations"] = medianOf(runs, "iterations");
            summary["ms_per_iteration"] = summary["median_total_ms"].get<double>() /
                                          std::max(1.0, medianOf(runs, "iterations"));
            if (labelled) summary["ri"] = medianOf(runs, "ri");
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
    addBenchKShape(*bench, exitCode);
}

}  // namespace cs::cli
