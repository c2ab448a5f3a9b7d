// SPDX-License-Identifier: MIT
#include "compute/io/knn_npy_reader.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/io/npy.h"

namespace cs::io {
namespace {

std::string shapeText(const std::vector<std::size_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
    throw InputError(file.string(), problem);
}

}  // namespace

std::filesystem::path knnDistancesPath(const std::filesystem::path& indicesFile) {
    std::filesystem::path p = indicesFile;
    const std::string stem = p.extension() == ".npy" ? p.stem().string() : p.filename().string();
    return p.replace_filename(stem + "_distances.npy");
}

KnnGraph readKnnNpy(const std::filesystem::path& indicesFile,
                    const std::filesystem::path& distancesFile, const PointSet& points) {
    const NpyInfo info = npyInfo(indicesFile);
    if (info.dtype != "int32")
        fail(indicesFile, "holds " + info.dtype +
                              ", not int32 neighbour rows (a kNN graph's "
                              "indices, as clusterscope-cli knn --out writes them)");
    if (info.shape.size() != 2)
        fail(indicesFile, "has shape " + shapeText(info.shape) + ", not 2-D (rows x k)");
    const std::size_t rows = info.shape[0], cols = info.shape[1];
    if (rows != points.fileRowCount()) {
        const std::string cloud = points.source.empty() ? std::string("the cloud") : points.source;
        throw Error(indicesFile.string() + " has " + std::to_string(rows) + " rows, " + cloud +
                    " has " + std::to_string(points.fileRowCount()) +
                    ": the graph is not of these points");
    }
    if (cols < 1 || cols > std::size_t(kKnnMaxK))
        fail(indicesFile, "has k = " + std::to_string(cols) + " columns, outside 1.." +
                              std::to_string(kKnnMaxK));
    const std::size_t k = cols;

    // File row -> point, -1 for the rows dropped on reading.
    std::vector<std::int32_t> pointOf(rows, -1);
    for (std::size_t i = 0; i < points.n; ++i)
        pointOf[points.fileRow(i)] = std::int32_t(i);

    const NpyInt32Array file = readNpyInt32(indicesFile);
    KnnGraph graph;
    graph.n = points.n;
    graph.k = int(k);
    graph.indices.resize(points.n * k);
    for (std::size_t r = 0; r < rows; ++r) {
        const std::int32_t* row = file.values.data() + r * k;
        const std::int32_t point = pointOf[r];
        if (point < 0) {
            for (std::size_t c = 0; c < k; ++c)
                if (row[c] != -1)
                    fail(indicesFile, "row " + std::to_string(r) +
                                          " was dropped from the cloud (NaN/Inf) but lists "
                                          "neighbour " +
                                          std::to_string(row[c]) + " (expected -1)");
            continue;
        }
        for (std::size_t c = 0; c < k; ++c) {
            const std::int64_t v = row[c];
            const std::string at = "row " + std::to_string(r) + ", column " + std::to_string(c);
            if (v < 0 || std::uint64_t(v) >= rows)
                fail(indicesFile, at + ": neighbour " + std::to_string(v) + " is outside [0, " +
                                      std::to_string(rows) + ")");
            if (std::size_t(v) == r) fail(indicesFile, at + ": the row lists itself");
            if (pointOf[std::size_t(v)] < 0)
                fail(indicesFile, at + ": neighbour " + std::to_string(v) +
                                      " is a row the cloud dropped (NaN/Inf)");
            graph.indices[std::size_t(point) * k + c] = pointOf[std::size_t(v)];
        }
    }

    graph.distances.resize(points.n * k);
    if (!distancesFile.empty()) {
        const NpyInfo dinfo = npyInfo(distancesFile);
        if (dinfo.dtype != "float32")
            fail(distancesFile, "holds " + dinfo.dtype + ", not float32 distances");
        if (dinfo.shape != info.shape)
            fail(distancesFile, "has shape " + shapeText(dinfo.shape) + ", " +
                                    indicesFile.string() + " " + shapeText(info.shape) +
                                    ": the distances must match the indices");
        // float32 values come back exact through readNpy's floats.
        const NpyArray d = readNpy(distancesFile);
        for (std::size_t i = 0; i < points.n; ++i) {
            const std::size_t r = points.fileRow(i);
            for (std::size_t c = 0; c < k; ++c) {
                const float v = d.values[r * k + c];
                if (std::isnan(v))
                    fail(distancesFile, "row " + std::to_string(r) + ", column " +
                                            std::to_string(c) +
                                            ": NaN distance in a row the cloud kept");
                graph.distances[i * k + c] = v;
            }
        }
    } else {
        // As the backends measure: in the recentred frame, then back to the data's units.
        const RecentredCoords rc = recentredCoords(points);
        const std::size_t dims = points.dims;
        for (std::size_t i = 0; i < points.n; ++i)
            for (std::size_t c = 0; c < k; ++c) {
                const auto j = std::size_t(graph.indices[i * k + c]);
                graph.distances[i * k + c] = std::sqrt(
                    canonicalDist2(rc.coords.data() + i * dims, rc.coords.data() + j * dims, dims));
            }
        fromRecentred(graph.distances, rc.scale);
    }
    return graph;
}

}  // namespace cs::io
