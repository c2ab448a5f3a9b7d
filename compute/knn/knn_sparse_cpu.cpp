// SPDX-License-Identifier: MIT
// The kNN graph of sparse rows (PyRKNN section 4): random projections by sparse x dense
// products, the dense path's RP trees, and an exact all-pairs search inside every leaf with
// sparse distances. See knn_sparse_cpu.h for what differs from the dense graph.
#include "compute/knn/knn_sparse_cpu.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "compute/core/error.h"
#include "compute/core/parallel.h"
#include "compute/knn/knn_cpu.h"
#include "compute/knn/knn_list.h"

namespace cs {
namespace {

// proj[l * n + i]: every row on every level's direction.
std::vector<float> projectSparse(const SparseSet& rows, std::span<const float> directions,
                                 int levels, int threads, JobControl* job) {
    const std::size_t n = rows.n;
    std::vector<float> proj(std::size_t(levels) * n);
    constexpr std::size_t kBlock = 4096;
    parallelFor((n + kBlock - 1) / kBlock, job, {.threads = unsigned(threads)},
                [&](std::size_t block, unsigned) {
                    const std::size_t end = std::min(n, (block + 1) * kBlock);
                    for (std::size_t i = block * kBlock; i < end; ++i)
                        for (int l = 0; l < levels; ++l)
                            proj[std::size_t(l) * n + i] = knnSparseProjection(
                                rows, i, directions.data() + std::size_t(l) * rows.dims);
                });
    return proj;
}

// Every pair of one leaf updates both lists (the lists of distinct leaves of one tree are
// disjoint, so leaves run in parallel without locks). Each row's distances to the later rows
// come from sparseDist2's merge of the two column lists: O(nnz_i + nnz_j) per pair.
void searchLeafSparse(const SparseSet& rows, int k, const std::uint32_t* members, std::size_t m,
                      float* dist2, std::int32_t* index, const JobControl& job) {
    const std::size_t kk = std::size_t(k);
    for (std::size_t a = 0; a + 1 < m; ++a) {
        job.checkpoint();
        const std::size_t i = members[a];
        float* di = dist2 + i * kk;
        std::int32_t* ii = index + i * kk;
        for (std::size_t b = a + 1; b < m; ++b) {
            const std::size_t j = members[b];
            float* dj = dist2 + j * kk;
            const float d2 = sparseDist2(rows, i, j);
            if (d2 <= di[kk - 1]) knnOffer(di, ii, k, d2, std::int32_t(j));
            if (d2 <= dj[kk - 1]) knnOffer(dj, index + j * kk, k, d2, std::int32_t(i));
        }
    }
}

}  // namespace

void validateKnnSparseInput(const SparseSet& rows, const KnnParams& params) {
    validateKnnParams(params);
    if (params.exact)
        throw Error(
            "the exact kNN graph (every pair) is for dense points; a sparse set's graph "
            "comes from the trees");
    rows.validate();
    if (rows.n >= std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw Error("the kNN graph supports fewer than 2^31 - 1 points, the set has " +
                    std::to_string(rows.n));
    if (rows.n < std::size_t(params.k) + 1)
        throw Error("the kNN graph needs at least k + 1 = " + std::to_string(params.k + 1) +
                    " points, the set has " + std::to_string(rows.n));
}

std::vector<std::uint32_t> knnSparseTreeOrder(const SparseSet& rows,
                                              std::span<const float> directions, int levels,
                                              int threads) {
    if (directions.size() != std::size_t(levels) * rows.dims)
        throw Error("knnSparseTreeOrder: directions must be levels x dims");
    const int workers = int(workersFor(threads));
    return knnTreeOrderOfProjections(projectSparse(rows, directions, levels, workers, nullptr),
                                     rows.n, levels, workers, nullptr);
}

std::vector<std::int32_t> knnExactRowsSparse(const SparseSet& rows,
                                             std::span<const std::int32_t> listed, int k,
                                             int threads, std::vector<float>* dist2,
                                             JobControl* job) {
    const std::size_t n = rows.n;
    if (k < 1 || std::size_t(k) >= std::max<std::size_t>(n, 1))
        throw Error("the exact kNN needs 1 <= k <= n - 1, got k = " + std::to_string(k) +
                    " for n = " + std::to_string(n));
    for (auto r : listed)
        if (r < 0 || std::size_t(r) >= n)
            throw Error("knnExactRowsSparse: row " + std::to_string(r) +
                        " is not a row of the set");
    const std::size_t kk = std::size_t(k);
    std::vector<std::int32_t> out(listed.size() * kk, kKnnEmptyIndex);
    std::vector<float> outDist2(listed.size() * kk, kKnnEmptyDist2);
    parallelFor(listed.size(), job, {.threads = unsigned(workersFor(threads))},
                [&](std::size_t r, unsigned) {
                    const std::size_t row = std::size_t(listed[r]);
                    float* ld = outDist2.data() + r * kk;
                    std::int32_t* li = out.data() + r * kk;
                    for (std::size_t j = 0; j < n; ++j) {
                        if (job && j % 4096 == 4095) job->checkpoint();
                        if (j == row) continue;
                        const float d2 = sparseDist2(rows, row, j);
                        if (d2 <= ld[kk - 1]) knnOffer(ld, li, k, d2, std::int32_t(j));
                    }
                });
    if (dist2) *dist2 = std::move(outDist2);
    return out;
}

KnnGraph knnGraphSparseCpu(const SparseSet& rows, const KnnParams& params, JobControl& job,
                           int threads) {
    validateKnnSparseInput(rows, params);
    job.checkpoint();
    const std::size_t n = rows.n, k = std::size_t(params.k);
    const int workers = int(workersFor(threads));

    std::vector<float> exactDist2;
    std::vector<std::int32_t> sample;
    {
        auto stage = job.stage("exact sample");
        sample = knnRecallSample(n, params.recallSample, params.seed);
        knnExactRowsSparse(rows, sample, params.k, workers, &exactDist2, &job);
        job.checkpoint();
    }
    job.setProgress(kKnnSampleProgress, "exact sample");

    KnnGraph graph;
    const KnnForestSteps steps{
        .project =
            [&](std::span<const float> directions) {
                return projectSparse(rows, directions, int(directions.size() / rows.dims), workers,
                                     &job);
            },
        .searchLeaves =
            [&](const std::uint32_t* order, std::span<const std::uint32_t> leaves, float* d2,
                std::int32_t* indices, const std::function<void(double)>& progress) {
                const ParallelOptions options{.threads = unsigned(workers), .progress = progress};
                parallelFor(leaves.size() - 1, &job, options, [&](std::size_t leaf, unsigned) {
                    searchLeafSparse(rows, params.k, order + leaves[leaf],
                                     leaves[leaf + 1] - leaves[leaf], d2, indices, job);
                });
            }};
    std::vector<float> dist2 =
        knnRunForest(n, rows.dims, params, workers, sample, exactDist2, steps, graph, job);

    job.checkpoint();
    {
        auto stage = job.stage("finish");
        graph.distances.resize(n * k);
        for (std::size_t i = 0; i < n * k; ++i)
            graph.distances[i] = std::sqrt(dist2[i]);
    }
    job.setProgress(1.0, "finish");
    return graph;
}

}  // namespace cs
