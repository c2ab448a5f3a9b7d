// SPDX-License-Identifier: MIT
#include "compute/knn/knn_descriptor.h"

#include <algorithm>
#include <string>

namespace cs {

const AlgorithmDescriptor& knnDescriptor() {
    static const AlgorithmDescriptor descriptor = [] {
        using Type = ParameterSpec::Type;
        const KnnParams defaults;
        AlgorithmDescriptor d;
        d.name = "knn";
        d.title = "kNN graph";
        d.input = InputKind::Points;
        ParameterSpec k{.name = "k",
                        .option = "k",
                        .label = "&k",
                        .type = Type::Int,
                        .minimum = 1,
                        .maximum = kKnnMaxK,
                        .defaultValue = std::int64_t(defaults.k),
                        .unit = "neighbours",
                        .help = "neighbours per point, itself not counted",
                        .bounds = [](const DataShape* data,
                                     const ParameterValues&) -> std::optional<ParameterBounds> {
                            if (!data || data->items == 0) return std::nullopt;
                            return ParameterBounds{
                                1, double(data->items) - 1.0,
                                "below the number of points (" + std::to_string(data->items) + ")"};
                        }};
        ParameterSpec trees{.name = "trees",
                            .option = "trees",
                            .label = "&Trees",
                            .type = Type::Int,
                            .minimum = 1,
                            .maximum = 64,
                            .defaultValue = std::int64_t(defaults.trees),
                            .help =
                                "most random-projection trees to build: more trees, higher "
                                "recall"};
        ParameterSpec leaf{
            .name = "leafSize",
            .option = "leaf-size",
            .label = "&Leaf size",
            .type = Type::Int,
            .minimum = 2,
            .maximum = kKnnMaxLeafSize,
            .defaultValue = std::int64_t(defaults.leafSize),
            .unit = "points",
            .help =
                "largest leaf of a tree, at least 2 (k + 1): inside a leaf every pair of "
                "points is compared",
            .bounds = [](const DataShape*,
                         const ParameterValues& v) -> std::optional<ParameterBounds> {
                const auto* k = v.find("k");
                if (!k || !std::holds_alternative<std::int64_t>(*k)) return std::nullopt;
                const std::int64_t least = 2 * (std::get<std::int64_t>(*k) + 1);
                return ParameterBounds{double(least), double(kKnnMaxLeafSize),
                                       "at least 2 (k + 1) = " + std::to_string(least)};
            }};
        ParameterSpec recall{.name = "targetRecall",
                             .option = "target-recall",
                             .label = "Target &recall",
                             .type = Type::Double,
                             .minimum = 0,
                             .maximum = 1,
                             .defaultValue = defaults.targetRecall,
                             .help =
                                 "stop adding trees once the sampled recall reaches this "
                                 "(0: build every tree)"};
        ParameterSpec sample{.name = "recallSample",
                             .option = "recall-sample",
                             .label = "Recall &sample",
                             .type = Type::Int,
                             .minimum = 1,
                             .maximum = 1 << 20,
                             .defaultValue = std::int64_t(defaults.recallSample),
                             .unit = "points",
                             .help = "points whose exact neighbours measure the recall",
                             .inPanel = false};
        ParameterSpec exact{.name = "exact",
                            .option = "exact",
                            .label = "E&xact (all pairs)",
                            .type = Type::Bool,
                            .defaultValue = defaults.exact,
                            .help =
                                "every point against every other instead of the trees: the true "
                                "k nearest (tensor cores on the GPU); trees, leaf size and target "
                                "recall are then unused"};
        const ParameterSpec seed =
            seedParameter(defaults.seed, "seed of the random directions and the recall sample");
        d.parameters = {k, exact, trees, leaf, recall, sample, seed};
        // The input, its recentred copy and a tree's gathered copy (n x d floats each), the
        // neighbour lists while building and the graph returned (n x k squared distances,
        // indices, distances, indices), one tree's projections (a float per point and level)
        // and its order. (Measured, peak resident memory of bench knn: 2M 3-D points with
        // k = 10, 260 bytes a point; 500k 64-D points with k = 32, 1,330 bytes.)
        d.memory = [](const DataShape& data, const ParameterValues& values) {
            const double n = double(data.items), dims = double(data.dims);
            const double k = double(values.integer("k"));
            const double levels = double(knnLevels(data.items, int(values.integer("leafSize"))));
            return MemoryNeed{n * (12.0 * dims + 16.0 * k + 4.0 * levels + 32.0),
                              "the coordinates (n x d floats, three copies) and the neighbour "
                              "lists (n x k, twice)",
                              "use fewer points or a smaller k"};
        };
        d.exports = {{"edges", "kNN graph edges as CSV (source,target,distance)", "_knn.csv"}};
        return d;
    }();
    return descriptor;
}

KnnParams knnParams(const ParameterValues& values) {
    KnnParams p;
    p.k = int(values.integer("k"));
    p.trees = int(values.integer("trees"));
    p.leafSize = int(values.integer("leafSize"));
    p.targetRecall = values.number("targetRecall");
    p.recallSample = int(values.integer("recallSample"));
    p.seed = std::uint64_t(values.integer("seed"));
    p.exact = values.flag("exact");
    return p;
}

ParameterValues knnValues(const KnnParams& p) {
    ParameterValues v;
    v.set("k", std::int64_t(p.k));
    v.set("trees", std::int64_t(p.trees));
    v.set("leafSize", std::int64_t(p.leafSize));
    v.set("targetRecall", p.targetRecall);
    v.set("recallSample", std::int64_t(p.recallSample));
    v.set("seed", std::int64_t(p.seed));
    v.set("exact", p.exact);
    return v;
}

}  // namespace cs
