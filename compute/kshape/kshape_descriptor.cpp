// SPDX-License-Identifier: MIT
#include "compute/kshape/kshape_descriptor.h"

#include <algorithm>
#include <string>

namespace cs {

const AlgorithmDescriptor& kshapeDescriptor() {
    static const AlgorithmDescriptor descriptor = [] {
        using Type = ParameterSpec::Type;
        const KShapeParams defaults;
        AlgorithmDescriptor d;
        d.name = "kshape";
        d.title = "k-Shape";
        d.input = InputKind::Series;
        ParameterSpec k{.name = "k",
                        .option = "k",
                        .label = "&Clusters (k)",
                        .type = Type::Int,
                        .minimum = 1,
                        .maximum = 1024,
                        .defaultValue = std::int64_t(defaults.k),
                        .unit = "clusters",
                        .help =
                            "clusters, at most the number of series (the panel starts at the set's "
                            "class count)",
                        .bounds = [](const DataShape* data,
                                     const ParameterValues&) -> std::optional<ParameterBounds> {
                            if (!data || data->items == 0) return std::nullopt;
                            return ParameterBounds{1, double(data->items),
                                                   "at most the number of series (" +
                                                       std::to_string(data->items) + ")"};
                        }};
        ParameterSpec iterations{.name = "maxIterations",
                                 .option = "max-iterations",
                                 .label = "Max &iterations",
                                 .type = Type::Int,
                                 .minimum = 1,
                                 .maximum = 1000,
                                 .defaultValue = std::int64_t(defaults.maxIterations),
                                 .help =
                                     "refinement iterations at most; k-Shape stops earlier "
                                     "once no series changes cluster"};
        const ParameterSpec seed =
            seedParameter(defaults.seed, "seed of the initial random assignment");
        ParameterSpec channel{
            .name = "channel",
            .option = "channel",
            .label = "C&hannel",
            .type = Type::Int,
            .minimum = double(kKShapeAllChannels),
            .maximum = 65535,
            .defaultValue = kKShapeAllChannels,
            .help =
                "the channel clustered (0 is the first), or all: every channel together "
                "(multivariate k-Shape, one shift per series for all its channels)",
            .minimumWord = "all",
            .bounds = [](const DataShape* data,
                         const ParameterValues&) -> std::optional<ParameterBounds> {
                if (!data || data->channels == 0) return std::nullopt;
                return ParameterBounds{
                    double(kKShapeAllChannels), double(data->channels) - 1.0,
                    "all or below the number of channels (" + std::to_string(data->channels) + ")"};
            }};
        d.parameters = {k, iterations, seed, channel};
        // The input and its z-normalised copy (n x m floats per channel clustered), the
        // series' spectra while they fit 1 GiB (m + 1 complex floats per channel), and every
        // cluster's aligned members, raw and z-normalised (count x m doubles twice, all
        // clusters at once at worst: one channel at a time).
        d.memory = [](const DataShape& data, const ParameterValues& values) {
            const double n = double(data.items), m = double(data.length);
            const double channels = double(std::max<std::size_t>(data.channels, 1));
            const double clustered =
                values.has("channel") && values.integer("channel") != kKShapeAllChannels ? 1.0
                                                                                         : channels;
            const double spectra =
                std::min(n * clustered * (m + 1.0) * 8.0, double(std::size_t(1) << 30));
            return MemoryNeed{n * m * (4.0 * channels + 4.0 * clustered + 16.0) + spectra,
                              "the aligned members of every cluster (series x length doubles, "
                              "twice)",
                              "use fewer or shorter series"};
        };
        d.exports = {
            {"labels", "k-Shape labels as CSV (index,label,distance,shift)", "_kshape.csv"},
            {"centroids",
             "k-Shape centroids as a float32 NumPy array, k × m (one channel) or k × C × m "
             "(all channels)",
             "_kshape_centroids.npy"},
            {kKShapeSweepExport,
             "k-Shape sweep over k as CSV (k,sbd_sum,mean_sbd,ari,nmi,rand_index,iterations,"
             "converged,empty_clusters,ms)",
             "_kshape_sweep.csv"}};
        return d;
    }();
    return descriptor;
}

KShapeParams kshapeParams(const ParameterValues& values) {
    KShapeParams p;
    p.k = int(values.integer("k"));
    p.maxIterations = int(values.integer("maxIterations"));
    p.seed = std::uint64_t(values.integer("seed"));
    const std::int64_t channel = values.integer("channel");
    if (channel != kKShapeAllChannels) p.channel = std::size_t(channel);
    return p;
}

ParameterValues kshapeValues(const KShapeParams& p) {
    ParameterValues v;
    v.set("k", std::int64_t(p.k));
    v.set("maxIterations", std::int64_t(p.maxIterations));
    v.set("seed", std::int64_t(p.seed));
    v.set("channel", p.channel ? std::int64_t(*p.channel) : kKShapeAllChannels);
    return v;
}

}  // namespace cs
