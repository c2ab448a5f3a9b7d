// SPDX-License-Identifier: MIT
// The CPU kNN graph from a random-projection tree forest (PyRKNN: Xiao, Chen, Biros, "Randomized
// projection trees for approximate k-nearest neighbour graphs", ACM TOPC; section 3, the
// "all-to-all in each leaf" update). Every number that decides the graph follows knn_graph.h:
// projections by knnProjection, splits by knnSortKey, distances by canonicalDist2 and lists by
// (squared distance, index), so the CUDA backend builds the same graph bit for bit.
#include "compute/knn/knn_cpu.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/huge_pages.h"
#include "compute/core/parallel.h"
#include "compute/knn/knn_cpu_parts.h"

namespace cs {
namespace {

using knn_parts::kEmptyDist2;
using knn_parts::kEmptyIndex;
using knn_parts::offer;

// Scratch of one leaf-search worker, reused from leaf to leaf.
struct LeafScratch {
    std::vector<float> xT;            // dims x m, the leaf's coordinates transposed
    std::vector<float> row;           // squared distances from point i to the later points
    std::vector<float> dist2;         // m x k, the leaf's lists
    std::vector<std::int32_t> index;  // m x k
    std::vector<float> bound;         // m, the last (k-th) squared distance of each list
    std::vector<std::int32_t> id;     // m, the leaf's point indices
};

// All pairs of one leaf update both lists. The leaf's coordinates and lists are gathered into
// contiguous scratch first (the points are scattered over the whole set), and the distances of
// point i to all later points are accumulated dimension by dimension across the row: the same
// additions in the same order as canonicalDist2 (diff = x_i - x_j, float, no FMA), but a loop
// over j the compiler can vectorise. Most pairs are rejected by both lists' k-th distance,
// kept contiguous in `bound` so that test is one predictable branch.
void searchLeaf(const float* x, std::size_t dims, int k, const std::uint32_t* members,
                std::size_t m, const std::int32_t* ids, float* dist2, std::int32_t* index,
                LeafScratch& s, const JobControl& job) {
    const std::size_t kk = std::size_t(k);
    s.xT.resize(dims * m);
    s.row.resize(m);
    s.dist2.resize(m * kk);
    s.index.resize(m * kk);
    s.bound.resize(m);
    s.id.resize(m);
    for (std::size_t p = 0; p < m; ++p) {
        const std::size_t g = members[p];
        s.id[p] = ids ? ids[g] : std::int32_t(g);
        for (std::size_t t = 0; t < dims; ++t)
            s.xT[t * m + p] = x[g * dims + t];
        std::copy_n(dist2 + g * kk, kk, s.dist2.data() + p * kk);
        std::copy_n(index + g * kk, kk, s.index.data() + p * kk);
        s.bound[p] = s.dist2[p * kk + kk - 1];
    }
    float* row = s.row.data();
    float* ld = s.dist2.data();
    std::int32_t* li = s.index.data();
    float* bound = s.bound.data();
    const std::int32_t* id = s.id.data();
    for (std::size_t i = 0; i + 1 < m; ++i) {
        // A leaf of kKnnMaxLeafSize points in many dimensions is seconds of work: look at the
        // cancel flag every row (the scratch is thrown away, the graph not yet touched).
        job.checkpoint();
        for (std::size_t j = i + 1; j < m; ++j)
            row[j] = 0.0f;
        for (std::size_t t = 0; t < dims; ++t) {
            const float* col = s.xT.data() + t * m;
            const float xi = col[i];
            for (std::size_t j = i + 1; j < m; ++j) {
                const float diff = xi - col[j];
                row[j] = row[j] + diff * diff;  // -ffp-contract=off: never an FMA
            }
        }
        float* di = ld + i * kk;
        std::int32_t* ii = li + i * kk;
        const std::int32_t gi = id[i];
        float bi = bound[i];
        for (std::size_t j = i + 1; j < m; ++j) {
            const float d2 = row[j];
            if (d2 > bi && d2 > bound[j]) continue;
            if (d2 <= bi) {
                offer(di, ii, k, d2, id[j]);
                bi = di[kk - 1];
            }
            if (d2 <= bound[j]) {
                offer(ld + j * kk, li + j * kk, k, d2, gi);
                bound[j] = ld[j * kk + kk - 1];
            }
        }
        bound[i] = bi;
    }
    for (std::size_t p = 0; p < m; ++p) {
        const std::size_t g = members[p];
        std::copy_n(s.dist2.data() + p * kk, kk, dist2 + g * kk);
        std::copy_n(s.index.data() + p * kk, kk, index + g * kk);
    }
}

}  // namespace

namespace knn_parts {

std::vector<float> project(std::span<const float> x, std::size_t n, std::size_t dims,
                           std::span<const float> directions, int levels, int threads,
                           JobControl* job) {
    std::vector<float> proj(std::size_t(levels) * n);
    constexpr std::size_t kBlock = 4096;
    parallelFor((n + kBlock - 1) / kBlock, job, {.threads = unsigned(threads)},
                [&](std::size_t block, unsigned) {
                    const std::size_t end = std::min(n, (block + 1) * kBlock);
                    for (std::size_t i = block * kBlock; i < end; ++i)
                        for (int l = 0; l < levels; ++l)
                            proj[std::size_t(l) * n + i] =
                                knnProjection(x.data() + i * dims,
                                              directions.data() + std::size_t(l) * dims, dims);
                });
    return proj;
}

void searchLeaves(const float* x, std::size_t dims, int k, const std::uint32_t* order,
                  std::span<const std::uint32_t> leafOffsets, const std::int32_t* ids, float* dist2,
                  std::int32_t* index, int threads, JobControl& job,
                  const std::function<void(double)>& progress) {
    if (leafOffsets.size() < 2) return;
    // Leaves go out one at a time and a big leaf looks at the cancel flag inside, so a cancel
    // lands within a few rows of any leaf (the spec's 100 ms at any size).
    std::vector<LeafScratch> scratch(static_cast<std::size_t>(threads));
    const ParallelOptions options{.threads = unsigned(threads), .progress = progress};
    parallelFor(leafOffsets.size() - 1, &job, options, [&](std::size_t leaf, unsigned w) {
        searchLeaf(x, dims, k, order + leafOffsets[leaf], leafOffsets[leaf + 1] - leafOffsets[leaf],
                   ids, dist2, index, scratch[w], job);
    });
}

std::vector<std::int32_t> exactRowsAgainst(std::span<const float> rowCoords,
                                           std::span<const std::int32_t> rowIds,
                                           std::span<const float> x, std::size_t n,
                                           std::size_t dims, std::int64_t firstId, int k,
                                           int threads, std::vector<float>* dist2,
                                           JobControl* job) {
    const std::size_t kk = std::size_t(k);
    const std::size_t rowCount = rowIds.size();
    std::vector<std::int32_t> out(rowCount * kk, kEmptyIndex);
    std::vector<float> outDist2(rowCount * kk, kEmptyDist2);
    // Rows go in groups of kGroup: each point is loaded once per group and its squared distances
    // to the group's rows (canonicalDist2's additions, in its order) form a loop across the
    // group that the compiler vectorises.
    constexpr std::size_t kGroup = 8;
    const std::size_t groups = (rowCount + kGroup - 1) / kGroup;
    parallelFor(groups, job, {.threads = unsigned(threads)}, [&](std::size_t group, unsigned) {
        const std::size_t first = group * kGroup;
        const std::size_t count = std::min(kGroup, rowCount - first);
        std::vector<float> a(dims * kGroup, 0.0f);  // dims x kGroup, the rows transposed
        std::array<float, kGroup> bound, acc;
        std::array<std::size_t, kGroup> self;
        for (std::size_t r = 0; r < kGroup; ++r) {
            const std::size_t row = first + std::min(r, count - 1);
            // The candidate that is the row itself, or n (none, and padding rows never keep
            // anything).
            const std::int64_t own = std::int64_t(rowIds[row]) - firstId;
            self[r] = r < count && own >= 0 && std::size_t(own) < n ? std::size_t(own) : n;
            for (std::size_t t = 0; t < dims; ++t)
                a[t * kGroup + r] = rowCoords[row * dims + t];
            bound[r] = r < count ? kEmptyDist2 : -1.0f;
        }
        for (std::size_t j = 0; j < n; ++j) {
            // A group walks all n points: millions in high d is longer than a cancel may wait.
            if (job && j % 4096 == 4095) job->checkpoint();
            const float* b = x.data() + j * dims;
            acc.fill(0.0f);
            for (std::size_t t = 0; t < dims; ++t) {
                const float bt = b[t];
                for (std::size_t r = 0; r < kGroup; ++r) {
                    const float diff = a[t * kGroup + r] - bt;
                    acc[r] = acc[r] + diff * diff;  // -ffp-contract=off: never an FMA
                }
            }
            for (std::size_t r = 0; r < kGroup; ++r) {
                if (acc[r] > bound[r] || j == self[r]) continue;
                float* ld = outDist2.data() + (first + r) * kk;
                offer(ld, out.data() + (first + r) * kk, k, acc[r],
                      std::int32_t(firstId + std::int64_t(j)));
                bound[r] = ld[kk - 1];
            }
        }
    });
    if (dist2) *dist2 = std::move(outDist2);
    return out;
}

}  // namespace knn_parts

namespace {

using knn_parts::project;

// The tree's point order (knn_graph.h): at level l every node is split by its knnSortKey on
// direction l. Only which points end up in each half matters until the last level, so the
// upper levels partition with nth_element (the keys are distinct, the index being in the low
// word, so the halves are those of a full sort); the last level sorts fully, which makes the
// order inside every leaf the sorted one and the whole order unique.
std::vector<std::uint32_t> treeOrder(const std::vector<float>& proj, std::size_t n, int levels,
                                     int threads, JobControl* job) {
    std::vector<std::uint32_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = std::uint32_t(i);
    std::vector<std::uint64_t> keys(n);
    for (int l = 0; l < levels; ++l) {
        if (job) job->checkpoint();
        const auto offsets = knnNodeOffsets(n, l);
        const float* p = proj.data() + std::size_t(l) * n;
        const bool last = l + 1 == levels;
        parallelFor(offsets.size() - 1, job, {.threads = unsigned(threads)},
                    [&](std::size_t node, unsigned) {
                        const std::size_t b = offsets[node], e = offsets[node + 1];
                        for (std::size_t q = b; q < e; ++q)
                            keys[q] = knnSortKey(p[order[q]], order[q]);
                        auto* kb = keys.data() + b;
                        auto* ke = keys.data() + e;
                        if (last)
                            std::sort(kb, ke);
                        else
                            std::nth_element(kb, kb + (e - b) / 2, ke);
                        for (std::size_t q = b; q < e; ++q)
                            order[q] = std::uint32_t(keys[q]);
                    });
    }
    if (job) job->checkpoint();
    return order;
}

std::vector<std::int32_t> exactRows(std::span<const float> x, std::size_t n, std::size_t dims,
                                    std::span<const std::int32_t> rows, int k, int threads,
                                    std::vector<float>* dist2, JobControl* job) {
    if (k < 1 || std::size_t(k) >= std::max<std::size_t>(n, 1))
        throw Error("the exact kNN needs 1 <= k <= n - 1, got k = " + std::to_string(k) +
                    " for n = " + std::to_string(n));
    if (x.size() != n * dims)
        throw Error("knnExactRows: " + std::to_string(x.size()) +
                    " coordinates for n * d = " + std::to_string(n * dims));
    std::vector<float> rowCoords(rows.size() * dims);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (rows[r] < 0 || std::size_t(rows[r]) >= n)
            throw Error("knnExactRows: row " + std::to_string(rows[r]) +
                        " is not a point of the set");
        std::copy_n(x.data() + std::size_t(rows[r]) * dims, dims, rowCoords.data() + r * dims);
    }
    return knn_parts::exactRowsAgainst(rowCoords, rows, x, n, dims, 0, k, threads, dist2, job);
}

// KnnParams::exact: every point's exact list, by the recall sample's search over all rows.
KnnGraph exactGraph(const PointSet& points, int k, int workers, JobControl& job) {
    const std::size_t n = points.n, dims = points.dims;
    KnnGraph graph;
    graph.n = n;
    graph.k = k;
    graph.exact = true;
    std::vector<float> dist2;
    double scale = 1.0;
    {
        auto stage = job.stage("exact search");
        RecentredCoords frame = recentredCoordsIn(points, coordinateBox(points), &job);
        scale = frame.scale;
        // In 64 groups of rows, for the progress bar (each group scans every point).
        constexpr std::size_t kGroups = 64;
        const std::size_t group = (n + kGroups - 1) / kGroups;
        graph.indices.reserve(n * std::size_t(k));
        dist2.reserve(n * std::size_t(k));
        std::vector<std::int32_t> rows;
        std::vector<float> rowDist2;
        for (std::size_t first = 0; first < n; first += group) {
            rows.resize(std::min(group, n - first));
            for (std::size_t r = 0; r < rows.size(); ++r)
                rows[r] = std::int32_t(first + r);
            const auto found = exactRows(frame.coords, n, dims, rows, k, workers, &rowDist2, &job);
            graph.indices.insert(graph.indices.end(), found.begin(), found.end());
            dist2.insert(dist2.end(), rowDist2.begin(), rowDist2.end());
            job.setProgress(0.98 * double(first + rows.size()) / double(n), "exact search");
        }
    }
    job.checkpoint();
    {
        auto stage = job.stage("finish");
        graph.distances.resize(dist2.size());
        for (std::size_t i = 0; i < dist2.size(); ++i)
            graph.distances[i] = std::sqrt(dist2[i]);
        fromRecentred(graph.distances, scale);
    }
    job.setProgress(1.0, "finish");
    return graph;
}

}  // namespace

std::vector<std::uint32_t> knnTreeOrderOfProjections(const std::vector<float>& proj, std::size_t n,
                                                     int levels, int threads, JobControl* job) {
    return treeOrder(proj, n, levels, int(workersFor(threads)), job);
}

std::vector<std::uint32_t> knnTreeOrderCpu(std::span<const float> coords, std::size_t n,
                                           std::size_t dims, std::span<const float> directions,
                                           int levels, int threads) {
    if (coords.size() != n * dims || directions.size() != std::size_t(levels) * dims)
        throw Error("knnTreeOrderCpu: coords must be n x dims and directions levels x dims");
    const int workers = int(workersFor(threads));
    const auto proj = project(coords, n, dims, directions, levels, workers, nullptr);
    return treeOrder(proj, n, levels, workers, nullptr);
}

std::vector<std::int32_t> knnExactRows(std::span<const float> coords, std::size_t n,
                                       std::size_t dims, std::span<const std::int32_t> rows, int k,
                                       int threads, std::vector<float>* dist2) {
    return exactRows(coords, n, dims, rows, k, int(workersFor(threads)), dist2, nullptr);
}

std::vector<float> knnRunForest(std::size_t n, std::size_t dims, const KnnParams& params,
                                int workers, std::span<const std::int32_t> sample,
                                std::span<const float> exactDist2, const KnnForestSteps& steps,
                                KnnGraph& graph, JobControl& job) {
    const std::size_t k = std::size_t(params.k);
    const int levels = knnLevels(n, params.leafSize);
    const auto leaves = knnNodeOffsets(n, levels);
    // The trees share the progress up to 98 % (as if all were built), the rest is finishing.
    constexpr double kTreesEnd = 0.98;
    const double perTree = (kTreesEnd - kKnnSampleProgress) / double(params.trees);

    graph.n = n;
    graph.k = params.k;
    graph.indices.clear();
    resizeCancellable(graph.indices, n * k, &job, kEmptyIndex);
    std::vector<float> dist2;
    resizeCancellable(dist2, n * k, &job, kEmptyDist2);
    for (int tree = 0; tree < params.trees; ++tree) {
        job.checkpoint();
        const double base = kKnnSampleProgress + perTree * tree;
        std::vector<float> proj;
        {
            auto stage = job.stage("projection");
            proj = steps.project(knnTreeDirections(params.seed, tree, levels, dims));
            job.checkpoint();
        }
        job.setProgress(base + 0.1 * perTree, "projection");
        std::vector<std::uint32_t> order;
        {
            auto stage = job.stage("tree");
            order = treeOrder(proj, n, levels, workers, &job);
            proj = {};
        }
        job.setProgress(base + 0.3 * perTree, "tree");
        {
            auto stage = job.stage("leaf search");
            steps.searchLeaves(
                order.data(), leaves, dist2.data(), graph.indices.data(), [&](double f) {
                    job.setProgress(base + (0.3 + 0.65 * f) * perTree, "leaf search");
                });
        }
        double recall = 0.0;
        {
            auto stage = job.stage("recall");
            recall = knnRecall(dist2, params.k, sample, exactDist2);
        }
        graph.recallByTree.push_back(recall);
        graph.treesBuilt = tree + 1;
        job.setIteration(knnTreeStatus(tree + 1, params.trees, recall), base + perTree);
        if (params.targetRecall > 0.0 && recall >= params.targetRecall) break;
    }
    return dist2;
}

KnnGraph knnGraphCpu(const PointSet& points, const KnnParams& params, JobControl& job,
                     int threads) {
    validateKnnInput(points, params);
    job.checkpoint();
    const std::size_t n = points.n, dims = points.dims, k = std::size_t(params.k);
    const int workers = int(workersFor(threads));

    std::vector<float> x, exactDist2;
    std::vector<std::int32_t> sample;
    double scale = 1.0;
    if (params.exact) return exactGraph(points, params.k, workers, job);
    {
        auto stage = job.stage("exact sample");
        RecentredCoords frame = recentredCoordsIn(points, coordinateBox(points), &job);
        x = std::move(frame.coords);
        scale = frame.scale;
        sample = knnRecallSample(n, params.recallSample, params.seed);
        exactRows(x, n, dims, sample, params.k, workers, &exactDist2, &job);
        job.checkpoint();
    }
    job.setProgress(kKnnSampleProgress, "exact sample");

    KnnGraph graph;
    const KnnForestSteps steps{
        .project =
            [&](std::span<const float> directions) {
                return project(x, n, dims, directions, int(directions.size() / dims), workers,
                               &job);
            },
        .searchLeaves =
            [&](const std::uint32_t* order, std::span<const std::uint32_t> leaves, float* d2,
                std::int32_t* indices, const std::function<void(double)>& progress) {
                knn_parts::searchLeaves(x.data(), dims, params.k, order, leaves, nullptr, d2,
                                        indices, workers, job, progress);
            }};
    std::vector<float> dist2 =
        knnRunForest(n, dims, params, workers, sample, exactDist2, steps, graph, job);

    job.checkpoint();
    {
        auto stage = job.stage("finish");
        graph.distances.resize(n * k);
        for (std::size_t i = 0; i < n * k; ++i)
            graph.distances[i] = std::sqrt(dist2[i]);
        fromRecentred(graph.distances, scale);
    }
    job.setProgress(1.0, "finish");
    return graph;
}

}  // namespace cs
