// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compute/core/series_set.h"
#include "compute/kshape/kshape.h"

namespace cs::cli {

/// `kshape FILE --k 3 [--max-iterations 100] [--seed 1] [--channel 0] [--backend cpu|cuda|auto]
/// [--out labels.csv] [--centroids centroids.npy] [--json]`: k-Shape clustering of one channel of
/// every series (a `_TRAIN` file brings its `_TEST` half along; both are clustered together).
/// Reports iterations, convergence, cluster sizes, per-stage times and, when the set has class
/// labels, RI / ARI / NMI against them. --out writes `index,label,distance,shift` rows;
/// --centroids the k x m float32 centroids. Errors name the file and exit 2.
void addKShapeCommand(CLI::App& app, int& exitCode);

/// What a k-Shape run reports: iterations, converged, cluster_sizes.
nlohmann::json kshapeSummary(const KShapeResult& r);

/// ri, ari, nmi and compared of an agreement.
nlohmann::json agreementJson(const ClusterAgreement& a);

}  // namespace cs::cli
