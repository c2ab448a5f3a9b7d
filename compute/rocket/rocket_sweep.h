// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compute/backend/backend.h"
#include "compute/rocket/rocket.h"

namespace cs {

// Accuracy against the number of kernels: for each kernel count of a list, one plain run of
// the ROCKET pipeline (rocket_pipeline.h: fit the transform, compute the features, fit the
// ridge classifier on the training rows, predict), in one job on whichever backend the job has.
// The accuracy is that on the labelled test rows when the set has a train/test split, else the
// ridge's leave-one-out accuracy on the training rows (every labelled row), as the ROCKET panel
// and `clusterscope-cli rocket` report it. Every cell is exactly what a plain run with that
// kernel count (and the sweep's variant, seed and normalisation) gives.

/// The kernel counts of a sweep and the parameters of its runs.
struct RocketSweepParams {
    std::vector<int> kernels;  ///< strictly ascending, each in [1, kRocketMaxKernels]
    RocketParams run;          ///< variant, seed, normalise of every run (its kernels unread)
};

/// 100, 200, 500, 1,000, 2,000, 5,000 and 10,000: from a fraction of a second to ROCKET's
/// default, log-spaced.
std::vector<int> defaultRocketSweepKernels();

/// Parses "100,500,2000" (spaces and thousands separators "10_000" or "10'000" allowed) into
/// kernel counts; throws cs::Error naming the bad entry.
std::vector<int> parseRocketKernelList(std::string_view text);

/// One kernel count of a sweep.
struct RocketSweepCell {
    int kernels = 0;
    std::size_t features = 0;    ///< feature columns x values per column (2K for ROCKET)
    double accuracy = 0.0;       ///< test accuracy with a split, else leave-one-out accuracy
    double testAccuracy = -1.0;  ///< on the labelled test rows; -1 without them
    double looAccuracy = 0.0;    ///< the ridge's leave-one-out accuracy on the training rows
    double alpha = 0.0;          ///< the ridge's chosen alpha
    std::size_t trainCount = 0;  ///< rows the classifier was fitted on
    std::size_t testCount = 0;   ///< labelled test rows scored
    double transformMs = 0.0;    ///< fitting the transform and computing the features
    double fitMs = 0.0;          ///< fitting the classifier and predicting
    double milliseconds = 0.0;   ///< the whole run
};

/// A finished sweep: one cell per kernel count, in the order given.
struct RocketSweepResult {
    RocketSweepParams params;
    bool testSplit = false;  ///< accuracy is on test rows (else leave-one-out)
    std::vector<RocketSweepCell> cells;
    /// The cell of this kernel count, or nullptr.
    const RocketSweepCell* find(int kernels) const;
};

/// Throws cs::Error when the list is empty, not strictly ascending or holds a count out of
/// range, when the set has no class labels to learn (fewer than two labelled training rows or
/// classes), or when the variant needs longer series.
void validateRocketSweep(const SeriesSet& series, const RocketSweepParams& params);

/// Runs the sweep: one pipeline run per kernel count, progress by kernel count ("2,000 kernels
/// (5 of 7)"), stages "transform" and "classifier" once per count; cancellable between and
/// inside the runs (cs::Cancelled).
/// @code
/// cs::RocketSweepParams p{.kernels = {100, 1000, 10000}};
/// p.run.variant = cs::RocketVariant::MiniRocket;
/// cs::RocketSweepResult s = cs::rocketSweep(backend, series, p, job);
/// @endcode
RocketSweepResult rocketSweep(Backend& backend, const SeriesSet& series,
                              const RocketSweepParams& params, JobControl& job);

/// The sweep as CSV: the header "kernels,features,accuracy,test_accuracy,loo_accuracy,alpha,
/// transform_ms,fit_ms,ms", one row per kernel count; test_accuracy is empty without a split.
std::string rocketSweepCsv(const RocketSweepResult& sweep);
/// The sweep as one JSON object: {"variant":..,"seed":..,"accuracy_on":"test"|"loo",
/// "cells":[{"kernels":..,"features":..,"accuracy":..,"test_accuracy":..|null,
/// "loo_accuracy":..,"alpha":..,"n_train":..,"n_test":..,"transform_ms":..,"fit_ms":..,
/// "ms":..}, ...]}.
std::string rocketSweepJson(const RocketSweepResult& sweep);

}  // namespace cs
