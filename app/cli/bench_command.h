// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `bench <algorithm> ...`: generated data, repeated runs, one JSON line per run with the
/// per-stage times from JobControl, then a JSON line with the medians. Algorithms so far:
/// `bench dbscan --n N --d D --dist uniform|blobs|dense|seed-spreader [--eps E] [--min-pts M]
/// [--star] [--backend ...] [--path ...] [--repeat R] [--warmup W] [--seed S] [--dump pts.npy]`,
/// `bench knn ...`, and `bench rocket --n N --length L --channels C --kernels K [--input FILE]
/// [--fit] [--backend ...] [--repeat R] [--warmup W] [--seed S]` (makeShapeSeries data; the
/// transform, plus the ridge fit with --fit; series_per_s from the median).
void addBenchCommand(CLI::App& app, int& exitCode);

}  // namespace cs::cli
