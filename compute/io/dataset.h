// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <string_view>
#include <variant>

#include "compute/core/point_set.h"
#include "compute/core/series_set.h"

namespace cs::io {

/// What a file holds.
enum class DataKind { Auto, Points, Series };

/// A loaded file: a point cloud or a time-series set.
using Dataset = std::variant<PointSet, SeriesSet>;

/// Which kind a file holds, from its name: `.ts`/`.arff`, files named `*_TRAIN`/`*_TEST`
/// (the UCR convention) and files without an extension are series; everything else points.
DataKind guessKind(const std::filesystem::path& file);

/// Loads a file as kind (Auto: guessKind). Series files that are half of a TRAIN/TEST pair
/// are loaded with their other half (readSeriesWithSplit). Throws cs::InputError.
/// @code auto data = cs::io::loadDataset("bunny.pcd"); @endcode
Dataset loadDataset(const std::filesystem::path& file, DataKind kind = DataKind::Auto);

/// "points" / "series" / "auto", and back; parseDataKind throws cs::Error on other text.
std::string_view toString(DataKind kind);
DataKind parseDataKind(std::string_view text);

}  // namespace cs::io
