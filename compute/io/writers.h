// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace cs::io {

/// Writes `index,label,core` rows after one `# ` header line giving the parameters
/// (e.g. "# dbscan eps=0.5 minPts=10 backend=cuda"); isCore may be empty (core column 0).
/// Throws cs::Error naming the file when it cannot be written.
void writeLabelsCsv(const std::filesystem::path& file, std::span<const std::int32_t> labels,
                    std::span<const std::uint8_t> isCore, std::string_view parameters);

/// Writes a kNN graph as `source,target,distance` rows (one per neighbour, k per point, in
/// order), after a `# ` header line with the parameters; indices < 0 (missing) are skipped.
/// indices and distances are row-major n × k.
void writeKnnEdgesCsv(const std::filesystem::path& file, std::size_t n, std::size_t k,
                      std::span<const std::int32_t> indices, std::span<const float> distances,
                      std::string_view parameters);

}  // namespace cs::io
