// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>

#include "compute/core/point_set.h"

namespace cs::io {

// Point-cloud readers. Every reader:
//  - throws cs::InputError naming the file, the line (text) or byte offset (binary), and the
//    problem, for anything malformed, truncated, empty or unsupported;
//  - never allocates from an untrusted count before checking it against the file size;
//  - drops points with a NaN/Inf coordinate and counts them in PointSet::droppedNonFinite
//    (as PCL does); the per-point attributes of dropped points are dropped with them;
//  - sets PointSet::source to the path and names the dimensions (dimNames).

/// CSV / TSV / whitespace-separated text, with or without a header line. Every numeric column
/// is a coordinate except a column named `label` or `class` (case-insensitive), which becomes a
/// Kind::Label attribute (its values may be numbers or names). Lines starting with '#' are
/// comments.
PointSet readPointsText(const std::filesystem::path& file);
/// `.xyz`: whitespace text, x y z per line (more columns become scalar attributes).
PointSet readXyz(const std::filesystem::path& file);
/// PLY: ascii, binary_little_endian, binary_big_endian. Vertex x, y, z (any numeric type) are
/// the coordinates; red/green/blue become a colour attribute, other vertex properties scalar
/// attributes; other elements are skipped; list properties in the vertex element are rejected.
PointSet readPly(const std::filesystem::path& file);
/// PCD v0.5–0.7: DATA ascii, binary, binary_compressed (LZF); fields x y z are coordinates,
/// rgb/rgba a colour attribute, others (COUNT 1) scalar attributes.
PointSet readPcd(const std::filesystem::path& file);
/// NumPy `.npy` (format 1.0/2.0/3.0): float32/float64 (either byte order), C or Fortran order,
/// 1-D (n points of 1 dimension) or 2-D (n × d).
PointSet readNpyPoints(const std::filesystem::path& file);

/// Chooses a reader by extension (.csv .tsv .txt .xyz .ply .pcd .npy), then by content
/// (magic "ply", "# .PCD"/"VERSION", "\x93NUMPY") for unknown extensions.
PointSet readPoints(const std::filesystem::path& file);

}  // namespace cs::io
