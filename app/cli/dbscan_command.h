// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compute/core/job_control.h"
#include "compute/dbscan/dbscan.h"

namespace cs::cli {

/// `dbscan FILE --eps E --min-pts M [--star] [--backend cpu|cuda|auto]
/// [--path auto|grid|brute|kdtree] [--out labels.csv] [--json]`: clusters a point cloud, writes
/// `index,label,core` rows with --out, prints a JSON summary (--json) or one line of text.
void addDbscanCommand(CLI::App& app, int& exitCode);

/// `kdist FILE --k K [--backend ...] [--out kdist.csv] [--json]`: the sorted k-distance curve
/// as `rank,distance` rows (--out) and a summary (quantiles, knee = suggested eps).
void addKdistCommand(CLI::App& app, int& exitCode);

/// Per-stage milliseconds as a JSON object (stages of the same name added up).
nlohmann::json stageMilliseconds(const std::vector<StageTiming>& timings);

/// A float as the JSON number of its shortest decimal form (0.1f prints as 0.1, not
/// 0.10000000149011612).
double shortestDouble(float value);

/// The counts of one DBSCAN result: clusters, core, border, noise, largest, path.
nlohmann::json dbscanCounts(const DbscanResult& result);

}  // namespace cs::cli
