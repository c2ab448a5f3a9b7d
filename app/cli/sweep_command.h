// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `sweep dbscan FILE [--eps-range LO HI] [--eps-count N] [--min-pts-range FROM TO] [--star]
/// [--path ...] [--backend ...] [--out sweep.csv] [--json]`: DBSCAN over an eps x MinPts grid
/// in one job (Backend::dbscanSweep); writes the table (eps, MinPts, clusters, noise share,
/// largest share) with --out, prints it as JSON (--json) or as a grid of cluster counts with
/// each MinPts's plateau.
void addSweepCommand(CLI::App& app, int& exitCode);

}  // namespace cs::cli
