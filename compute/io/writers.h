// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace cs::io {

// The CSV exports of every algorithm, shared by the CLI and the GUI. Each file starts with one
// `# ` line giving the parameters (e.g. "# dbscan eps=0.5 minPts=10 backend=cuda"), then the
// column names, then one row per item; it is written through AtomicOutput (whole or not at
// all) and every failure throws cs::Error naming the file.

/// Writes `index,label,core` rows; isCore may be empty (core column 0).
void writeLabelsCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const std::uint8_t> isCore, std::string_view parameters);

/// Writes a kNN graph as `source,target,distance` rows (one per neighbour, k per point, in
/// order); indices < 0 (missing) are skipped. indices and distances are row-major n × k.
void writeKnnEdgesCsv(const std::filesystem::path& file, std::size_t n, std::size_t k,
                      std::span<const std::int32_t> indices, std::span<const float> distances,
                      std::string_view parameters);

/// Writes a k-distance curve, sorted ascending, as `rank,distance` rows (rank from 1).
void writeKDistanceCsv(const std::filesystem::path& file, std::span<const float> sorted,
                       std::string_view parameters);

/// Writes k-Shape's assignment as `index,label,distance,shift` rows (SBD to the own centroid
/// and the best shift against it); the three spans have one entry per series.
void writeKShapeCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const float> distances, std::span<const std::int32_t> shifts,
                    std::string_view parameters);

/// Writes a classifier's answers as `index,split,label,predicted` rows: split is `test` where
/// isTest[i] is 1, else `train` (isTest may be empty: no split); label and predicted are class
/// names (classNames[index]), empty for an index < 0 (labels may be empty: none known).
void writePredictionsCsv(const std::filesystem::path& file, std::span<const std::uint8_t> isTest,
                         std::span<const std::int32_t> labels,
                         std::span<const std::int32_t> predicted,
                         std::span<const std::string> classNames, std::string_view parameters);

/// Writes bytes made elsewhere (an encoded image, a JSON report) as the file, through the same
/// guard, checks and atomic replacement as the exports above.
void writeFileBytes(const std::filesystem::path& file, std::string_view bytes);

}  // namespace cs::io
