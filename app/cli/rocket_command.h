// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compute/core/series_set.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket.h"

namespace cs::cli {

/// `rocket TRAIN_FILE [--test TEST_FILE] [--kernels 10000] [--seed 1] [--backend cpu|cuda|auto]
/// [--features OUT.npy] [--predictions OUT.csv] [--json]`: ROCKET features of every series and
/// the ridge classifier fitted on the training rows (a `_TRAIN` file brings its `_TEST` half
/// along; --test names the test file instead). Reports the test accuracy when there is a test
/// split, else the leave-one-out accuracy only, with the chosen alpha and per-stage times.
/// --features writes all rows' n x 2K float32 features (train rows first); --predictions writes
/// `index,split,label,predicted` rows (class names). Errors name the file and exit 2.
void addRocketCommand(CLI::App& app, int& exitCode);

/// The series in `file` (with its TRAIN/TEST other half), or `file` as train rows and
/// `testFile` as test rows when that is not empty; throws cs::Error naming the file when it
/// holds points.
SeriesSet loadSeriesSplit(const std::string& file, const std::string& testFile = {});

/// What a ridge fit reports: alpha, alphas, loo_error, loo_accuracy.
nlohmann::json ridgeSummary(const RidgeModel& model);

}  // namespace cs::cli
