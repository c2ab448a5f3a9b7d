// SPDX-License-Identifier: MIT
#include "compute/dbscan/dbscan_descriptor.h"

#include <string>

namespace cs {

const AlgorithmDescriptor& dbscanDescriptor() {
    static const AlgorithmDescriptor descriptor = [] {
        using Type = ParameterSpec::Type;
        const DbscanParams defaults;
        AlgorithmDescriptor d;
        d.name = "dbscan";
        d.title = "DBSCAN";
        d.input = InputKind::Points;
        ParameterSpec eps{.name = "eps",
                          .option = "eps",
                          .label = "&eps",
                          .type = Type::Double,
                          .minimum = 0.0,
                          .maximum = 1e30,
                          .defaultValue = double(defaults.eps),
                          .help = "neighbourhood radius, in the data's units",
                          .decimals = 4,
                          .logScale = true,
                          .requiredOnCommandLine = true};
        ParameterSpec minPts{
            .name = "minPts",
            .option = "min-pts",
            .label = "&MinPts",
            .type = Type::Int,
            .minimum = 1,
            .maximum = 100000,
            .defaultValue = std::int64_t(defaults.minPts),
            .unit = "points",
            .help = "points within eps, itself included, for a point to be core",
            .bounds = [](const DataShape* data,
                         const ParameterValues&) -> std::optional<ParameterBounds> {
                if (!data || data->items == 0) return std::nullopt;
                return ParameterBounds{
                    1, double(data->items),
                    "at most the number of points (" + std::to_string(data->items) + ")"};
            }};
        ParameterSpec path{.name = "path",
                           .option = "path",
                           .label = "Neighbour &search",
                           .type = Type::Choice,
                           .choices = {"auto", "grid", "brute", "kdtree"},
                           .defaultValue = std::string(toString(defaults.path)),
                           .help =
                               "how neighbours are found: auto picks the grid for up to 3 "
                               "dimensions, else brute force or a kd-tree"};
        ParameterSpec star{.name = "star",
                           .option = "star",
                           .label = "DBSCAN&*",
                           .type = Type::Bool,
                           .defaultValue = defaults.star,
                           .help = "DBSCAN*: border points become noise"};
        d.parameters = {eps, minPts, path, star};
        // The input and its recentred copy (n x d floats each), then per point the label,
        // core flag, grid cell, order and union-find words (measured, peak resident memory of
        // bench dbscan, 10M 3-D points: 82 bytes a point).
        d.memory = [](const DataShape& data, const ParameterValues&) {
            const double n = double(data.items), dims = double(data.dims);
            return MemoryNeed{n * (8.0 * dims + 56.0),
                              "the coordinates twice (n x d floats) and per-point work arrays",
                              "use fewer points (subsample the cloud)"};
        };
        d.exports = {{"labels-csv", "DBSCAN labels as CSV (index,label,core)", ".csv"},
                     {"labels-npy", "DBSCAN labels as a NumPy int32 array", "_dbscan.npy"},
                     {kDbscanSweepExport,
                      "DBSCAN eps x MinPts sweep as CSV (eps,minPts,clusters,noise_share,"
                      "largest_share)",
                      "_sweep.csv"}};
        return d;
    }();
    return descriptor;
}

DbscanParams dbscanParams(const ParameterValues& values) {
    DbscanParams p;
    p.eps = float(values.number("eps"));
    p.minPts = int(values.integer("minPts"));
    p.path = parseDbscanPath(values.word("path"));
    p.star = values.flag("star");
    return p;
}

ParameterValues dbscanValues(const DbscanParams& p) {
    ParameterValues v;
    v.set("eps", double(p.eps));
    v.set("minPts", std::int64_t(p.minPts));
    v.set("path", std::string(toString(p.path)));
    v.set("star", p.star);
    return v;
}

MemoryNeed kDistanceMemoryNeed(const DataShape& data) {
    const double n = double(data.items), dims = double(data.dims);
    return MemoryNeed{n * (8.0 * dims + 40.0),
                      "the coordinates twice (n x d floats), the kd-tree and the curve",
                      "use fewer points (subsample the cloud)"};
}

}  // namespace cs
