// SPDX-License-Identifier: MIT
#include "compute/kshape/kshape_sweep.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "compute/core/error.h"
#include "compute/core/number_text.h"
#include "compute/core/sub_job.h"

namespace cs {
namespace {

bool labelled(const SeriesSet& series) {
    return series.labels.size() == series.n &&
           std::any_of(series.labels.begin(), series.labels.end(), [](auto l) { return l >= 0; });
}

}  // namespace

const KShapeSweepCell* KShapeSweepResult::find(int k) const {
    for (const KShapeSweepCell& c : cells)
        if (c.k == k) return &c;
    return nullptr;
}

void validateKShapeSweep(const SeriesSet& series, const KShapeSweepParams& params) {
    if (params.kFrom < 1)
        throw Error("a k-Shape sweep starts at k = 1 or more (got " + std::to_string(params.kFrom) +
                    ")");
    if (params.kTo < params.kFrom)
        throw Error("a k-Shape sweep needs first k <= last k (got " + std::to_string(params.kFrom) +
                    " to " + std::to_string(params.kTo) + ")");
    if (params.kTo - params.kFrom >= kKShapeSweepMaxKs)
        throw Error("a k-Shape sweep takes at most " + std::to_string(kKShapeSweepMaxKs) +
                    " values of k");
    KShapeParams last = params.run;
    last.k = params.kTo;
    validateKShape(series, last);
}

KShapeSweepCell kshapeSweepCell(const KShapeResult& result, std::span<const std::int32_t> truth) {
    KShapeSweepCell cell;
    cell.k = result.k;
    // In double, in index order: the same sum for the same distances, whoever adds them.
    cell.sbdSum = std::accumulate(result.distances.begin(), result.distances.end(), 0.0,
                                  [](double sum, float d) { return sum + double(d); });
    cell.iterations = result.iterations;
    cell.converged = result.converged;
    cell.emptyClusters = kshapeClusterSizes(result).empty;
    cell.labels = result.labels;
    if (!truth.empty()) {
        const ClusterAgreement a = clusterAgreement(result.labels, truth);
        cell.hasAgreement = a.compared > 0;
        cell.randIndex = a.randIndex;
        cell.adjustedRandIndex = a.adjustedRandIndex;
        cell.normalizedMutualInformation = a.normalizedMutualInformation;
    }
    return cell;
}

KShapeSweepResult kshapeSweep(Backend& backend, const SeriesSet& series,
                              const KShapeSweepParams& params, JobControl& job) {
    validateKShapeSweep(series, params);
    KShapeSweepResult sweep;
    sweep.params = params;
    sweep.series = series.n;
    const std::span<const std::int32_t> truth = labelled(series)
                                                    ? std::span<const std::int32_t>(series.labels)
                                                    : std::span<const std::int32_t>();
    const int count = params.kTo - params.kFrom + 1;
    for (int k = params.kFrom; k <= params.kTo; ++k) {
        const int index = k - params.kFrom;
        // Larger k costs more per iteration, but iterations vary more: equal shares per k.
        SubJob part(job, double(index) / count, double(index + 1) / count,
                    "k = " + std::to_string(k) + " (" + std::to_string(index + 1) + " of " +
                        std::to_string(count) + ")");
        KShapeParams p = params.run;
        p.k = k;
        const auto start = std::chrono::steady_clock::now();
        KShapeResult r;
        {
            auto stage = job.stage("k-Shape");
            r = backend.kshape(series, p, part.job());
        }
        r.device.reset();  // one run's device copy at a time
        KShapeSweepCell cell = kshapeSweepCell(r, truth);
        cell.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        sweep.cells.push_back(std::move(cell));
        job.checkpoint();
    }
    job.setProgress(1.0, "done");
    return sweep;
}

std::string kshapeSweepCsv(const KShapeSweepResult& sweep) {
    std::string text =
        "k,sbd_sum,mean_sbd,ari,nmi,rand_index,iterations,converged,empty_clusters,ms\n";
    const double n = double(std::max<std::size_t>(sweep.series, 1));
    for (const KShapeSweepCell& c : sweep.cells) {
        text += std::to_string(c.k) + ',' + exactNumberText(c.sbdSum) + ',' +
                exactNumberText(c.sbdSum / n) + ',';
        if (c.hasAgreement)
            text += exactNumberText(c.adjustedRandIndex) + ',' +
                    exactNumberText(c.normalizedMutualInformation) + ',' +
                    exactNumberText(c.randIndex);
        else
            text += ",,";
        text += ',' + std::to_string(c.iterations) + ',' + (c.converged ? "true" : "false") + ',' +
                std::to_string(c.emptyClusters) + ',' + millisecondsText(c.milliseconds) + '\n';
    }
    return text;
}

std::string kshapeSweepJson(const KShapeSweepResult& sweep) {
    const KShapeSweepParams& p = sweep.params;
    const bool agreement = !sweep.cells.empty() && sweep.cells.front().hasAgreement;
    std::string text = "{\"k_from\":" + std::to_string(p.kFrom) +
                       ",\"k_to\":" + std::to_string(p.kTo) +
                       ",\"seed\":" + std::to_string(p.run.seed) +
                       ",\"max_iterations\":" + std::to_string(p.run.maxIterations) +
                       ",\"labelled\":" + (agreement ? "true" : "false") + ",\"cells\":[";
    const double n = double(std::max<std::size_t>(sweep.series, 1));
    for (std::size_t i = 0; i < sweep.cells.size(); ++i) {
        const KShapeSweepCell& c = sweep.cells[i];
        auto orNull = [&](double v) {
            return c.hasAgreement ? exactNumberText(v) : std::string("null");
        };
        text += std::string(i ? "," : "") + "{\"k\":" + std::to_string(c.k) +
                ",\"sbd_sum\":" + exactNumberText(c.sbdSum) +
                ",\"mean_sbd\":" + exactNumberText(c.sbdSum / n) +
                ",\"ari\":" + orNull(c.adjustedRandIndex) +
                ",\"nmi\":" + orNull(c.normalizedMutualInformation) +
                ",\"rand_index\":" + orNull(c.randIndex) +
                ",\"iterations\":" + std::to_string(c.iterations) +
                ",\"converged\":" + (c.converged ? "true" : "false") +
                ",\"empty_clusters\":" + std::to_string(c.emptyClusters) +
                ",\"ms\":" + millisecondsText(c.milliseconds) + "}";
    }
    return text + "]}";
}

}  // namespace cs
