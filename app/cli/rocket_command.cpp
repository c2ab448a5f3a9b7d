// SPDX-License-Identifier: MIT
#include "app/cli/rocket_command.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
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
#include "compute/io/npy.h"
#include "compute/io/series_readers.h"
#include "compute/io/writers.h"
#include "compute/rocket/rocket_descriptor.h"
#include "compute/rocket/rocket_pipeline.h"
#include "compute/rocket/rocket_quantities.h"
#include "compute/rocket/rocket_subset.h"

namespace cs::cli {
namespace {

std::string lowerExtension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

SeriesSet loadSeriesFile(const std::string& file, bool withSplit) {
    const std::string ext = lowerExtension(file);
    if (ext == ".ply" || ext == ".pcd" || ext == ".xyz" || ext == ".npy")
        throw Error(file + ": holds a point cloud, not time series; this command needs series");
    if (!withSplit) return io::readSeries(file);
    io::Dataset data = io::loadDataset(file, io::DataKind::Series);
    return std::get<SeriesSet>(std::move(data));
}

// train rows, then test rows (isTest 1); classes matched by name, train's first.
SeriesSet mergeSplit(const SeriesSet& train, const SeriesSet& test) {
    if (train.channels != test.channels)
        throw Error(train.source + " has " + std::to_string(train.channels) +
                    " channel(s) but the test file " + test.source + " has " +
                    std::to_string(test.channels));
    SeriesSet s;
    s.n = train.n + test.n;
    s.channels = train.channels;
    s.length = std::max(train.length, test.length);
    s.source = train.source + " + " + test.source;
    s.channelNames = train.channelNames.empty() ? test.channelNames : train.channelNames;
    s.values.assign(s.n * s.channels * s.length, 0.0f);
    s.classNames = train.classNames;
    auto classOf = [&](const std::string& name) {
        const auto it = std::find(s.classNames.begin(), s.classNames.end(), name);
        if (it != s.classNames.end()) return std::int32_t(it - s.classNames.begin());
        s.classNames.push_back(name);
        return std::int32_t(s.classNames.size() - 1);
    };
    std::size_t row = 0;
    for (const SeriesSet* half : {&train, &test})
        for (std::size_t i = 0; i < half->n; ++i, ++row) {
            for (std::size_t c = 0; c < s.channels; ++c)
                std::copy_n(half->channel(i, c).data(), half->lengths[i],
                            s.values.data() + (row * s.channels + c) * s.length);
            s.lengths.push_back(half->lengths[i]);
            s.isTest.push_back(half == &test ? 1 : 0);
            const std::int32_t l = half->labels.empty() ? -1 : half->labels[i];
            s.labels.push_back(l < 0 ? -1 : classOf(half->classNames[std::size_t(l)]));
        }
    return s;
}

}  // namespace

SeriesSet loadSeriesSplit(const std::string& file, const std::string& testFile) {
    if (testFile.empty()) return loadSeriesFile(file, true);
    return mergeSplit(loadSeriesFile(file, false), loadSeriesFile(testFile, false));
}

nlohmann::json topFeatures(const RocketFeatures& f, const RocketTransform& transform,
                           const RidgeModel& model, std::span<const std::int32_t> labels,
                           FeatureOrder order, std::size_t count) {
    // Borrowed for this call only: the matrix must not outlive f.
    const std::shared_ptr<const RocketFeatures> shared(&f, [](const RocketFeatures*) {});
    FeatureMatrix matrix = rocketFeatureMatrix(shared, transform);
    matrix.weights = ridgeWeightMagnitudes(model);
    // Every column of every layer, ranked together: an index into the features' columns.
    std::vector<double> scores(matrix.columns * matrix.layers, 0.0);
    if (order != FeatureOrder::Index)
        for (std::size_t l = 0; l < matrix.layers; ++l) {
            const std::vector<double> layer = featureScores(matrix, labels, l, order);
            for (std::size_t c = 0; c < layer.size(); ++c)
                scores[c * matrix.layers + l] = layer[c];
        }
    const std::vector<std::uint32_t> ranked = order == FeatureOrder::Index
                                                  ? columnOrderByScore({}, scores.size())
                                                  : columnOrderByScore(scores, scores.size());
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t k = 0; k < std::min(count, ranked.size()); ++k) {
        const std::size_t feature = ranked[k];
        const std::size_t column = feature / matrix.layers, layer = feature % matrix.layers;
        nlohmann::json entry = {
            {"feature", feature},
            {"column", column},
            {"layer",
             layer < matrix.layerNames.size() ? matrix.layerNames[layer] : std::to_string(layer)}};
        if (order != FeatureOrder::Index) entry["score"] = scores[feature];
        if (matrix.describeColumn) entry["parameters"] = matrix.describeColumn(column);
        out.push_back(std::move(entry));
    }
    return out;
}

nlohmann::json ridgeSummary(const RidgeModel& m) {
    return {{"alpha", m.alpha},
            {"alphas", m.alphas},
            {"loo_error", m.looError},
            {"loo_accuracy", m.looAccuracy}};
}

void addRocketCommand(CLI::App& app, int& exitCode) {
    struct Options {
        std::string file, test, backend = "auto", features, predictions, rows;
        DevicesOption devices;
        RocketParams params;
        std::shared_ptr<ParameterOptions> options;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand(
        "rocket", "ROCKET features and a ridge classifier on a labelled time-series set");
    cmd->add_option("TRAIN_FILE", o->file,
                    "Series (.ts/.arff/UCR); a _TRAIN file brings its _TEST half along")
        ->required();
    cmd->add_option("--test", o->test, "Test series (instead of the _TEST half)");
    o->options = std::make_shared<ParameterOptions>(*cmd, rocketDescriptor());
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto (default: auto)");
    cmd->add_option("--features", o->features,
                    "Write the n x features float32 features (.npy; 2K for ROCKET; with --rows "
                    "the rows not selected are zero)");
    cmd->add_option("--predictions", o->predictions,
                    "Write index,split,label,predicted rows (.csv)");
    addRowsOption(*cmd, o->rows,
                  "Run on these series only: 0-based indices in the set as the GUI numbers them "
                  "(the train series, then the test series), as ranges (0-49,60); the selected "
                  "train series fit the transform and the classifier, the selected test "
                  "series are scored; outputs name the series of the set");
    addDevicesOption(*cmd, o->devices);
    cmd->add_flag("--json", o->json, "Print a JSON summary instead of a line of text");
    cmd->callback([o, &exitCode] {
        // Under mpirun every rank reads the set and transforms its share of the series; rank 0
        // writes and reports (a failure on any rank aborts them all: MpiSession).
        std::unique_ptr<MpiSession> mpi;
        const auto body = [&]() -> int {
            const ParameterValues values = o->options->values();
            o->params = rocketParams(values);
            const auto backend = backendRegistry().get(o->backend);
            if (mpi)
                chooseRankDevice(*backend, o->devices, mpi->hostRank());
            else
                applyDevices(*backend, o->devices);
            const SeriesSet all = loadSeriesSplit(o->file, o->test);
            const std::optional<ItemSubset> subset = parseRows(o->rows, all.n, o->file);
            // A run on a selection fits and scores the selected series alone, as the GUI's does.
            const SeriesSet selected = subset ? subsetOf(all, *subset) : SeriesSet{};
            const SeriesSet& s = subset ? selected : all;
            checkOutputs({o->features, o->predictions});
            if (s.labels.empty() || s.classCount() < 2)
                throw Error(o->file +
                            ": ROCKET's classifier needs class labels (2 or more "
                            "classes), the file has " +
                            std::to_string(s.classCount()));
            std::vector<std::int32_t> train(s.n, -1);
            std::size_t nTrain = 0, nTest = 0;
            for (std::size_t i = 0; i < s.n; ++i) {
                if (!s.isTest.empty() && s.isTest[i]) {
                    ++nTest;
                    continue;
                }
                ++nTrain;
                train[i] = s.labels[i];
            }
            if (subset) {
                std::vector<std::int32_t> classes;
                for (const std::int32_t l : train)
                    if (l >= 0) classes.push_back(l);
                std::sort(classes.begin(), classes.end());
                const auto distinct =
                    std::distance(classes.begin(), std::unique(classes.begin(), classes.end()));
                if (distinct < 2)
                    throw Error(o->file + ": --rows " + o->rows +
                                ": ROCKET's classifier needs labelled train series of 2 or more "
                                "classes, the selected ones have " +
                                std::to_string(distinct));
            }
            JobControl job;
            const auto start = std::chrono::steady_clock::now();
            RocketTransform transform;
            RocketFeatures f;
            RidgeModel model;
            std::vector<std::int32_t> predicted;
            const DataShape shape{.items = s.n, .length = s.length, .channels = s.channels};
            runOnFile(o->file, "ROCKET", rocketDescriptor().memoryNeed(shape, values), job, [&] {
                transform = fitRocketTransform(*backend, o->params, s, job);
                f = mpi ? mpi->rocketFeatures(*backend, transform, s, job)
                        : applyRocketTransform(*backend, transform, s, job);
                model = backend->ridgeFit(f, train, int(s.classCount()), {}, job);
                auto stage = job.stage("predict");
                predicted = ridgePredict(model, f.values, f.n);
            });
            const double totalMs = millisecondsSince(start);
            if (mpi && mpi->rank() != 0) return kExitOk;
            std::size_t tests = 0, correct = 0;
            for (std::size_t i = 0; i < s.n; ++i)
                if (!s.isTest.empty() && s.isTest[i] && s.labels[i] >= 0) {
                    ++tests;
                    correct += predicted[i] == s.labels[i];
                }
            if (!o->features.empty()) {
                // The set's rows, as the GUI's export of a run on a selection writes them.
                const RocketFeatures expanded =
                    subset ? expandRocketFeatures(f, *subset) : RocketFeatures{};
                const RocketFeatures& out = subset ? expanded : f;
                io::writeNpy(o->features, std::span<const float>(out.values),
                             {out.n, out.columns()});
            }
            if (!o->predictions.empty()) {
                std::ostringstream header;
                header << "rocket kernels=" << o->params.kernels << " seed=" << o->params.seed
                       << " variant=" << rocketVariantName(o->params.variant)
                       << " alpha=" << model.alpha << " backend=" << backend->name()
                       << " file=" << o->file;
                if (!o->test.empty()) header << " test=" << o->test;
                if (subset) header << " rows=" << subset->text();
                // Indices of the set: the series not selected are kNotRun and get no row.
                const std::vector<std::int32_t> answers =
                    subset ? scatterRows<std::int32_t>(predicted, *subset, kNotRun) : predicted;
                io::writePredictionsCsv(o->predictions, all.isTest, all.labels, answers,
                                        all.classNames, header.str());
            }
            if (o->json) {
                nlohmann::json j = ridgeSummary(model);
                j.update({{"algorithm", "rocket"},
                          {"file", o->file},
                          {"backend", backend->name()},
                          {"device", backend->info().device},
                          {"devices", backend->devices()},
                          {"kernels", o->params.kernels},
                          {"seed", o->params.seed},
                          {"variant", rocketVariantName(o->params.variant)},
                          {"n", s.n},
                          {"n_train", nTrain},
                          {"n_test", nTest},
                          {"length", s.length},
                          {"channels", s.channels},
                          {"classes", s.classCount()},
                          {"features", f.columns()},
                          {"stages_ms", stageMilliseconds(job.timings())},
                          {"total_ms", totalMs}});
                if (!o->test.empty()) j["test_file"] = o->test;
                if (mpi) j["ranks"] = mpi->ranks();
                if (subset) {
                    j["of"] = all.n;
                    j["rows"] = subset->text();
                }
                if (tests > 0) {
                    j["test_accuracy"] = double(correct) / double(tests);
                    j["test_labelled"] = tests;
                }
                const FeatureOrder order = featureOrderFromName(values.word("featureOrder"));
                j["feature_order"] = featureOrderName(order);
                j["top_features"] = topFeatures(f, transform, model, s.labels, order, 10);
                if (!o->features.empty()) j["features_out"] = o->features;
                if (!o->predictions.empty()) j["predictions_out"] = o->predictions;
                printJson(j);
            } else {
                std::ostringstream line;
                line << fileName(o->file) << ": " << rocketVariantTitle(o->params.variant) << " ";
                if (o->params.variant == RocketVariant::Rocket)
                    line << o->params.kernels << " kernels, ";
                else
                    line << f.columns() << " features, ";
                line << nTrain << " train";
                if (nTest) line << " / " << nTest << " test";
                line << " series" << droppedText(0, s.n, all.n) << ", " << s.classCount()
                     << " classes; ";
                if (tests) line << "test accuracy " << double(correct) / double(tests) << ", ";
                line << "LOO accuracy " << model.looAccuracy << ", alpha " << model.alpha << "; "
                     << backend->name() << ' ';
                line.precision(3);
                line << std::fixed << totalMs << " ms";
                printLine(line.str());
            }
            return kExitOk;
        };
        exitCode = runReportingErrors([&] {
            mpi = mpiSessionIfLaunched();
            if (!mpi) return body();
            int rc = kExitOk;
            mpi->agree([&] { rc = body(); });
            mpi->succeeded();
            return rc;
        });
    });
}

}  // namespace cs::cli
