// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// The time-series sweeps under `sweep`:
///  - `sweep kshape FILE [--k-range FROM TO] [--seed S] [--max-iterations N] [--channel C]
///    [--backend ...] [--out table.csv] [--json]`: k-Shape once per k (compute/kshape/
///    kshape_sweep.h), the SBD sum and, with class labels, ARI and NMI per k;
///  - `sweep rocket FILE [--test FILE] [--kernels-list 100,500,...] [--variant ...] [--seed S]
///    [--normalise BOOL] [--backend ...] [--out table.csv] [--json]`: the ROCKET pipeline once
///    per kernel count (compute/rocket/rocket_sweep.h), the accuracy and the times per count.
void addSeriesSweepCommands(CLI::App& sweep, int& exitCode);

}  // namespace cs::cli
