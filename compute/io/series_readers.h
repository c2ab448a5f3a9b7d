// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>

#include "compute/core/series_set.h"

namespace cs::io {

// Time-series readers. Same rules as the point readers (cs::InputError with file, line and
// problem; no allocation from untrusted counts; never a crash or a hang), except that a series
// holding NaN/Inf (or a missing value '?') is rejected with a clear message rather than dropped
// (missing values at the end of a series pad it: its true length ends before them).
// Class labels are kept as names (classNames, in order of first appearance, or of declaration
// in a .ts/ARFF header, which keeps every declared class; numeric names sorted numerically)
// and indexed in labels. Integer-like numeric labels are written as
// integers ("1.0" and "1.0000000e+00" are class "1"), so that a class is one class whatever
// the number format. Counts in headers (@dimensions, @seriesLength) are checked against the
// data, never used to size memory; padding very unequal lengths to the longest is refused when
// it would need far more memory than the values read.

/// sktime/UEA `.ts`: univariate, multivariate (channels separated by ':'), equal or unequal
/// length, with or without class labels (@classLabel true ...). Accepts the headers aeon and
/// sktime accept ('#' and '%' comments, unknown tags, any letter case); the data decides
/// channels and lengths, and a header that disagrees with it is named in notes. The channels
/// of one case must have the same length; trailing missing values ('?', NaN) end a case early.
/// Regression sets (@targetLabel true) keep their targets in targets (no labels); time-stamped
/// sets (@timeStamps true; stamps that are numbers or ISO date-times) are read in time-stamp
/// order. The rules and their
/// sources are listed at the top of ts_reader.cpp.
SeriesSet readTs(const std::filesystem::path& file);
/// UCR text: one series per line, class label first, values separated by tabs, commas or
/// spaces (`.tsv` of the UCR 2018 archive, the comma-separated files as in data/ucr/Crop).
/// Trailing NaNs pad a shorter series (its true length ends before them); a NaN followed by a
/// value is refused. A first row of column names ("label,t1,...") is skipped; '#' lines too.
SeriesSet readUcr(const std::filesystem::path& file);
/// ARFF with numeric attributes and a nominal class attribute (univariate UCR/UEA style).
/// The class, if any, is the last attribute; trailing '?' pad a shorter series as in UCR; a
/// class '?' is an unknown label (-1). Relational (multivariate) and sparse ARFF are refused.
SeriesSet readArff(const std::filesystem::path& file);

/// Chooses a reader by extension (.ts, .arff); other extensions (.tsv, .csv, .txt, none ...)
/// by content: @relation/@attribute first: ARFF, another @-line: .ts (both after any '#' and
/// '%' comments), '%' comments and no @-line: ARFF, else UCR.
SeriesSet readSeries(const std::filesystem::path& file);

/// Reads a file and, when it is one half of a `<Name>_TRAIN.<ext>` / `<Name>_TEST.<ext>` pair
/// whose other half exists, the other half too: train series first, then test, with isTest set.
/// Both halves must agree on channels; class names are merged; the length is the longer of
/// the two; source is "<train> + <test>". The other half is looked for with the same letter
/// case of TRAIN/TEST first, then the others. Without it, the same as readSeries.
SeriesSet readSeriesWithSplit(const std::filesystem::path& file);

}  // namespace cs::io
