// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/backend/backend.h"
#include "compute/kshape/kshape.h"

namespace cs {

// A k sweep of k-Shape: one plain Backend::kshape run per k of a range, in one job (so it runs
// on whichever backend the job has, the GPU included, with no kernels of its own), summarised
// per k by an inertia-style measure, the sum over the series of the SBD to their own centroid,
// and, when the set has class labels, the agreement of the clusters with the classes. Every
// cell is exactly what a plain run with that k (and the sweep's seed, iterations and channel)
// gives: the runs are independent, so a cell does not depend on the others.

/// The range of a sweep and the parameters of its runs.
struct KShapeSweepParams {
    int kFrom = 2;     ///< first k (>= 1)
    int kTo = 20;      ///< last k (>= kFrom, <= the number of series)
    KShapeParams run;  ///< maxIterations, seed and channel of every run (its k is not read)
};

/// The most k values one sweep takes.
inline constexpr int kKShapeSweepMaxKs = 1024;

/// One k of a sweep: what a plain k-Shape run with that k gives.
struct KShapeSweepCell {
    int k = 0;
    double sbdSum = 0.0;  ///< sum over the series of the SBD to their own centroid
    int iterations = 0;
    bool converged = false;
    std::size_t emptyClusters = 0;
    bool hasAgreement = false;  ///< the set has class labels (then the three below are set)
    double randIndex = 0.0;
    double adjustedRandIndex = 0.0;
    double normalizedMutualInformation = 0.0;
    double milliseconds = 0.0;         ///< the run's wall time
    std::vector<std::int32_t> labels;  ///< the run's clustering
};

/// A finished sweep: one cell per k, ascending.
struct KShapeSweepResult {
    KShapeSweepParams params;
    std::size_t series = 0;  ///< n
    std::vector<KShapeSweepCell> cells;
    /// The cell of k, or nullptr.
    const KShapeSweepCell* find(int k) const;
};

/// Throws cs::Error when the range is empty or reversed, starts below 1, holds more than
/// kKShapeSweepMaxKs values, or when a run with its last k cannot cluster the set
/// (validateKShape: k above the number of series, a channel it does not have ...).
void validateKShapeSweep(const SeriesSet& series, const KShapeSweepParams& params);

/// The cell a plain run stands for (truth: the set's class labels, empty for none).
KShapeSweepCell kshapeSweepCell(const KShapeResult& result, std::span<const std::int32_t> truth);

/// Runs the sweep: Backend::kshape once per k, progress per k ("k = 5 (4 of 19)"), stage
/// "k-Shape" once per k; cancellable between and inside the runs (cs::Cancelled).
/// @code
/// cs::KShapeSweepParams p{.kFrom = 2, .kTo = 10};
/// p.run.seed = 7;
/// cs::KShapeSweepResult s = cs::kshapeSweep(backend, series, p, job);
/// @endcode
KShapeSweepResult kshapeSweep(Backend& backend, const SeriesSet& series,
                              const KShapeSweepParams& params, JobControl& job);

/// The sweep as CSV: the header "k,sbd_sum,mean_sbd,ari,nmi,rand_index,iterations,converged,
/// empty_clusters,ms", one row per k; the agreement columns are empty without class labels.
std::string kshapeSweepCsv(const KShapeSweepResult& sweep);
/// The sweep as one JSON object: {"k_from":..,"k_to":..,"seed":..,"max_iterations":..,
/// "labelled":..,"cells":[{"k":..,"sbd_sum":..,"mean_sbd":..,"ari":..,"nmi":..,
/// "rand_index":..,"iterations":..,"converged":..,"empty_clusters":..,"ms":..}, ...]}; the
/// agreement keys are null without class labels.
std::string kshapeSweepJson(const KShapeSweepResult& sweep);

}  // namespace cs
