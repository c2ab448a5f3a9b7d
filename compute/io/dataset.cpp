// SPDX-License-Identifier: MIT
#include "compute/io/dataset.h"

#include <algorithm>
#include <cctype>
#include <new>
#include <string>
#include <system_error>

#include "compute/core/error.h"
#include "compute/core/memory.h"
#include "compute/io/point_readers.h"
#include "compute/io/series_readers.h"
#include "compute/io/sparse_readers.h"

namespace cs::io {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

DataKind guessKind(const std::filesystem::path& file) {
    const std::string ext = lower(file.extension().string());
    const std::string stem = lower(file.stem().string());
    if (ext == ".ts" || ext == ".arff") return DataKind::Series;
    if (ext.empty() || endsWith(stem, "_train") || endsWith(stem, "_test")) return DataKind::Series;
    return DataKind::Points;
}

Dataset loadDataset(const std::filesystem::path& file, DataKind kind) {
    if (kind == DataKind::Auto) kind = guessKind(file);
    try {
        if (kind == DataKind::Series) return readSeriesWithSplit(file);
        if (isSparseFile(file)) return readSparsePoints(file);
        return readPoints(file);
    } catch (const std::bad_alloc&) {
        // Text takes a few bytes per value, binary four: the values need about the file's size.
        std::error_code ec;
        const auto bytes = std::filesystem::file_size(file, ec);
        throw InputError(
            file.string(),
            "not enough memory to read it" +
                (ec ? std::string() : " (a file of " + formatBytes(double(bytes)) + ")") + ", " +
                formatBytes(double(availableMemoryBytes())) +
                " are available now; read a part of it (fewer rows) or use a "
                "machine with more memory");
    }
}

std::string_view toString(DataKind kind) {
    switch (kind) {
        case DataKind::Points:
            return "points";
        case DataKind::Series:
            return "series";
        case DataKind::Auto:
            break;
    }
    return "auto";
}

DataKind parseDataKind(std::string_view text) {
    if (text == "auto") return DataKind::Auto;
    if (text == "points") return DataKind::Points;
    if (text == "series") return DataKind::Series;
    throw Error("unknown data kind '" + std::string(text) + "' (use auto, points or series)");
}

}  // namespace cs::io
