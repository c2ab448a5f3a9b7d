// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "compute/core/point_set.h"

namespace cs::io {

// The CSV exports of every algorithm, shared by the CLI and the GUI. Each file starts with one
// `# ` line giving the parameters (e.g. "# dbscan eps=0.5 minPts=10 backend=cuda"), then the
// column names, then one row per item, lines ending in \n; text fields are quoted as RFC 4180
// says (a class name with a comma, a quote or a line break). Each is written through
// AtomicOutput (whole or not at all) and every failure throws cs::Error naming the file.

/// How the outputs per point name a point: by its row in the file it was read from, so that
/// they line up with the file when rows with NaN/Inf were dropped on reading.
struct FileRows {
    std::span<const std::size_t> rows;  ///< PointSet::fileRows: point i's row (empty: row i)
    std::size_t count = 0;              ///< rows in the file, kept and dropped (0: the points)

    /// The file row of point i.
    std::size_t of(std::size_t i) const { return rows.empty() ? i : rows[i]; }
};
/// The file rows of a point set.
inline FileRows fileRowsOf(const PointSet& points) {
    return {points.fileRows, points.fileRowCount()};
}

/// Writes `index,label,core` rows; isCore may be empty (core column 0). When rows were dropped
/// on reading (rows.rows not empty) the rows are `index,original_index,label,core`: index the
/// point's (as the views and the inspector number it), original_index its file row. Points
/// labelled kNotRun (outside a run on a selection) get no row.
void writeLabelsCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const std::uint8_t> isCore, std::string_view parameters,
                    FileRows rows = {});

/// Writes labels as a .npy vector with one entry per row of the file: a row dropped on reading
/// gets kNotRead.
void writeLabelsNpy(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    FileRows rows = {});
/// The label of a file row that was dropped on reading (DBSCAN's noise is -1).
inline constexpr std::int32_t kNotRead = -2;

/// Writes a kNN graph as `source,target,distance` rows (one per neighbour, k per point, in
/// order), source and target as file rows; indices < 0 (missing) are skipped. indices and
/// distances are row-major n × k.
void writeKnnEdgesCsv(const std::filesystem::path& file, std::size_t n, std::size_t k,
                      std::span<const std::int32_t> indices, std::span<const float> distances,
                      std::string_view parameters, FileRows rows = {});

/// Writes a kNN graph as two .npy matrices of one row per row of the file: int32 neighbour
/// file rows to indicesFile, float32 distances to distancesFile; a row dropped on reading has
/// indices -1 and distances NaN.
void writeKnnNpy(const std::filesystem::path& indicesFile,
                 const std::filesystem::path& distancesFile, std::size_t n, std::size_t k,
                 std::span<const std::int32_t> indices, std::span<const float> distances,
                 FileRows rows = {});

/// Writes a k-distance curve, perPoint[i] the k-distance of point i, sorted ascending (ties by
/// point) as `rank,index,distance` rows: rank from 1, index the point's file row.
void writeKDistanceCsv(const std::filesystem::path& file, std::span<const float> perPoint,
                       std::string_view parameters, FileRows rows = {});

/// Writes k-Shape's assignment as `index,label,distance,shift` rows (SBD to the own centroid
/// and the best shift against it); the three spans have one entry per series. Series labelled
/// kNotRun (outside a run on a selection) get no row.
void writeKShapeCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const float> distances, std::span<const std::int32_t> shifts,
                    std::string_view parameters);

/// Writes a classifier's answers as `index,split,label,predicted` rows: split is `test` where
/// isTest[i] is 1, else `train` (isTest may be empty: no split); label and predicted are class
/// names (classNames[index]), empty for an index < 0 (labels may be empty: none known). Series
/// predicted kNotRun (outside a run on a selection) get no row.
void writePredictionsCsv(const std::filesystem::path& file, std::span<const std::uint8_t> isTest,
                         std::span<const std::int32_t> labels,
                         std::span<const std::int32_t> predicted,
                         std::span<const std::string> classNames, std::string_view parameters);

/// Writes bytes made elsewhere (an encoded image, a JSON report) as the file, through the same
/// guard, checks and atomic replacement as the exports above.
void writeFileBytes(const std::filesystem::path& file, std::string_view bytes);

}  // namespace cs::io
