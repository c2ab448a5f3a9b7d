// SPDX-License-Identifier: MIT
#include "compute/io/point_readers.h"

#include <string>
#include <string_view>

#include "compute/core/error.h"
#include "compute/io/point_common.h"
#include "compute/io/text_input.h"

namespace cs::io {
namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// PCD files may open with comment lines; the first other line of a PCD header is VERSION (or,
// in old files, FIELDS).
bool looksLikePcd(std::string_view bytes) {
    if (startsWith(bytes, "# .PCD")) return true;
    LineCursor cursor(bytes.substr(0, 4096));
    std::string_view line;
    for (int i = 0; i < 32 && cursor.next(line); ++i) {
        line = trim(line);
        if (line.empty() || line.front() == '#') continue;
        return startsWith(line, "VERSION") || startsWith(line, "FIELDS");
    }
    return false;
}

}  // namespace

PointSet readXyz(const std::filesystem::path& file) {
    const std::string name = file.string();
    return detail::readTextPointsBytes(name, readFileBytes(file), detail::TextLayout::Xyz);
}

PointSet readNpyPoints(const std::filesystem::path& file) {
    const std::string name = file.string();
    return detail::readNpyPointsBytes(name, readFileBytes(file));
}

PointSet readPoints(const std::filesystem::path& file) {
    const std::string ext = detail::lowerAscii(file.extension().string());
    if (ext == ".csv" || ext == ".tsv" || ext == ".txt") return readPointsText(file);
    if (ext == ".xyz") return readXyz(file);
    if (ext == ".ply") return readPly(file);
    if (ext == ".pcd") return readPcd(file);
    if (ext == ".npy") return readNpyPoints(file);

    const std::string name = file.string();
    const std::string bytes = readFileBytes(file);
    if (startsWith(bytes, "ply\n") || startsWith(bytes, "ply\r\n"))
        return detail::readPlyBytes(name, bytes);
    if (startsWith(bytes, "\x93NUMPY")) return detail::readNpyPointsBytes(name, bytes);
    if (looksLikePcd(bytes)) return detail::readPcdBytes(name, bytes);
    return detail::readTextPointsBytes(name, bytes, detail::TextLayout::Table);
}

}  // namespace cs::io
