// SPDX-License-Identifier: MIT
#include "compute/rocket/rocket_sweep.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "compute/core/error.h"
#include "compute/core/number_text.h"
#include "compute/core/sub_job.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket_pipeline.h"

namespace cs {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

bool hasSplit(const SeriesSet& s) {
    return !s.isTest.empty();
}

// Training labels as the ROCKET panel fits them: the train part of a split, or every labelled
// row without one; -1 for the rest.
std::vector<std::int32_t> trainingLabels(const SeriesSet& s) {
    const int classes = int(s.classCount());
    std::vector<std::int32_t> labels(s.n, -1);
    for (std::size_t i = 0; i < s.n && i < s.labels.size(); ++i) {
        const std::int32_t l = s.labels[i];
        if (l < 0 || l >= classes || (hasSplit(s) && s.isTest[i])) continue;
        labels[i] = l;
    }
    return labels;
}

std::string thousands(int value) {
    std::string digits = std::to_string(value), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

std::vector<int> defaultRocketSweepKernels() {
    return {100, 200, 500, 1'000, 2'000, 5'000, 10'000};
}

std::vector<int> parseRocketKernelList(std::string_view text) {
    std::vector<int> kernels;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        std::string entry;
        for (char c : text.substr(at, comma - at))
            if (!std::isspace(static_cast<unsigned char>(c)) && c != '_' && c != '\'') entry += c;
        int value = 0;
        const auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), value);
        if (entry.empty() || ec != std::errc() || end != entry.data() + entry.size())
            throw Error(
                "kernel counts are whole numbers separated by commas (\"100,500,2000\"): \"" +
                std::string(text.substr(at, comma - at)) + "\" is not one");
        kernels.push_back(value);
        at = comma + 1;
    }
    return kernels;
}

const RocketSweepCell* RocketSweepResult::find(int kernels) const {
    for (const RocketSweepCell& c : cells)
        if (c.kernels == kernels) return &c;
    return nullptr;
}

void validateRocketSweep(const SeriesSet& series, const RocketSweepParams& params) {
    if (params.kernels.empty()) throw Error("a ROCKET sweep needs at least one kernel count");
    for (std::size_t i = 0; i < params.kernels.size(); ++i) {
        RocketParams p = params.run;
        p.kernels = params.kernels[i];
        validateRocketParams(p);
        if (i > 0 && params.kernels[i] <= params.kernels[i - 1])
            throw Error("the kernel counts of a ROCKET sweep must be strictly ascending");
    }
    const std::size_t shortest = params.run.variant == RocketVariant::Rocket       ? 2
                                 : params.run.variant == RocketVariant::MiniRocket ? 9
                                                                                   : 10;
    if (series.length < shortest)
        throw Error(std::string(rocketVariantTitle(params.run.variant)) +
                    " needs series of at least " + std::to_string(shortest) +
                    " samples, these have " + std::to_string(series.length));
    const std::vector<std::int32_t> train = trainingLabels(series);
    std::vector<char> present(series.classCount(), 0);
    std::size_t rows = 0;
    for (std::int32_t l : train)
        if (l >= 0) {
            present[std::size_t(l)] = 1;
            ++rows;
        }
    if (rows < 2 || std::count(present.begin(), present.end(), char(1)) < 2)
        throw Error(
            "a ROCKET sweep scores the classifier, which needs labelled training series of two "
            "classes or more; this set has " +
            std::to_string(rows) + " labelled training series");
}

RocketSweepResult rocketSweep(Backend& backend, const SeriesSet& series,
                              const RocketSweepParams& params, JobControl& job) {
    validateRocketSweep(series, params);
    RocketSweepResult sweep;
    sweep.params = params;
    const std::vector<std::int32_t> train = trainingLabels(series);
    const int classes = int(series.classCount());
    // A run's cost grows with its kernels: progress in proportion to them.
    const double total = std::accumulate(params.kernels.begin(), params.kernels.end(), 0.0);
    double done = 0.0;
    for (std::size_t i = 0; i < params.kernels.size(); ++i) {
        RocketParams p = params.run;
        p.kernels = params.kernels[i];
        SubJob part(job, done / total, (done + p.kernels) / total,
                    thousands(p.kernels) + " kernels (" + std::to_string(i + 1) + " of " +
                        std::to_string(params.kernels.size()) + ")");
        done += p.kernels;
        RocketSweepCell cell;
        cell.kernels = p.kernels;
        const auto start = std::chrono::steady_clock::now();
        RocketFeatures features;
        {
            auto stage = job.stage("transform");
            const RocketTransform transform = fitRocketTransform(backend, p, series, part.job());
            part.job().checkpoint();
            features = applyRocketTransform(backend, transform, series, part.job());
        }
        features.device.reset();
        cell.features = features.columns();
        cell.transformMs = millisecondsSince(start);
        part.job().checkpoint();
        const auto fitStart = std::chrono::steady_clock::now();
        {
            auto stage = job.stage("classifier");
            const RidgeModel model = backend.ridgeFit(features, train, classes, {}, part.job());
            const std::vector<std::int32_t> predicted =
                ridgePredict(model, features.values, features.n);
            cell.looAccuracy = model.looAccuracy;
            cell.alpha = model.alpha;
            std::size_t correct = 0;
            for (std::size_t r = 0; r < series.n; ++r) {
                if (train[r] >= 0) ++cell.trainCount;
                const std::int32_t l = r < series.labels.size() ? series.labels[r] : -1;
                if (!hasSplit(series) || !series.isTest[r] || l < 0 || l >= classes) continue;
                ++cell.testCount;
                correct += predicted[r] == l;
            }
            if (cell.testCount > 0) cell.testAccuracy = double(correct) / double(cell.testCount);
        }
        cell.fitMs = millisecondsSince(fitStart);
        cell.milliseconds = millisecondsSince(start);
        cell.accuracy = cell.testCount > 0 ? cell.testAccuracy : cell.looAccuracy;
        sweep.testSplit = cell.testCount > 0;
        sweep.cells.push_back(cell);
        job.checkpoint();
    }
    job.setProgress(1.0, "done");
    return sweep;
}

std::string rocketSweepCsv(const RocketSweepResult& sweep) {
    std::string text =
        "kernels,features,accuracy,test_accuracy,loo_accuracy,alpha,transform_ms,fit_ms,ms\n";
    for (const RocketSweepCell& c : sweep.cells)
        text += std::to_string(c.kernels) + ',' + std::to_string(c.features) + ',' +
                exactNumberText(c.accuracy) + ',' +
                (c.testCount > 0 ? exactNumberText(c.testAccuracy) : "") + ',' +
                exactNumberText(c.looAccuracy) + ',' + exactNumberText(c.alpha) + ',' +
                millisecondsText(c.transformMs) + ',' + millisecondsText(c.fitMs) + ',' +
                millisecondsText(c.milliseconds) + '\n';
    return text;
}

std::string rocketSweepJson(const RocketSweepResult& sweep) {
    const RocketParams& p = sweep.params.run;
    std::string text = std::string("{\"variant\":\"") + rocketVariantName(p.variant) +
                       "\",\"seed\":" + std::to_string(p.seed) +
                       ",\"normalise\":" + (p.normalise ? "true" : "false") +
                       ",\"accuracy_on\":\"" + (sweep.testSplit ? "test" : "loo") +
                       "\",\"cells\":[";
    for (std::size_t i = 0; i < sweep.cells.size(); ++i) {
        const RocketSweepCell& c = sweep.cells[i];
        text += std::string(i ? "," : "") + "{\"kernels\":" + std::to_string(c.kernels) +
                ",\"features\":" + std::to_string(c.features) +
                ",\"accuracy\":" + exactNumberText(c.accuracy) + ",\"test_accuracy\":" +
                (c.testCount > 0 ? exactNumberText(c.testAccuracy) : std::string("null")) +
                ",\"loo_accuracy\":" + exactNumberText(c.looAccuracy) +
                ",\"alpha\":" + exactNumberText(c.alpha) +
                ",\"n_train\":" + std::to_string(c.trainCount) +
                ",\"n_test\":" + std::to_string(c.testCount) +
                ",\"transform_ms\":" + millisecondsText(c.transformMs) +
                ",\"fit_ms\":" + millisecondsText(c.fitMs) +
                ",\"ms\":" + millisecondsText(c.milliseconds) + "}";
    }
    return text + "]}";
}

}  // namespace cs
