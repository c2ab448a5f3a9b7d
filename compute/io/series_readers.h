// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>

#include "compute/core/series_set.h"

namespace cs::io {

// Time-series readers. Same rules as the point readers (cs::InputError with file, line and
// problem; no allocation from untrusted counts; never a crash or a hang), except that a series
// holding NaN/Inf (or a missing value '?') is rejected with a clear message rather than dropped.
// Class labels are kept as names (classNames, in order of first appearance, numeric names
// sorted numerically) and indexed in labels.

/// sktime/UEA `.ts`: univariate, multivariate (channels separated by ':'), equal or unequal
/// length, with or without class labels (@classLabel true ...).
SeriesSet readTs(const std::filesystem::path& file);
/// UCR text: one series per line, class label first, values separated by tabs, commas or
/// spaces (`.tsv` of the UCR 2018 archive, the comma-separated files as in data/ucr/Crop).
SeriesSet readUcr(const std::filesystem::path& file);
/// ARFF with numeric attributes and a nominal class attribute (univariate UCR/UEA style).
SeriesSet readArff(const std::filesystem::path& file);

/// Chooses a reader by extension (.ts, .arff; .tsv/.csv/.txt or no extension: UCR) and content.
SeriesSet readSeries(const std::filesystem::path& file);

/// Reads a file and, when it is one half of a `<Name>_TRAIN.<ext>` / `<Name>_TEST.<ext>` pair
/// whose other half exists, the other half too: train series first, then test, with isTest set.
/// Both halves must agree on channels; class names are merged.
SeriesSet readSeriesWithSplit(const std::filesystem::path& file);

}  // namespace cs::io
