// SPDX-License-Identifier: MIT
// Host orchestration of the GPU kNN graph: checks, memory sizing, the per-tree pipeline,
// stages (CUDA-event timings), recall and stopping, cancellation checkpoints. The kernels are in
// knn_kernels.cu (see knn_launch.h).
#include "kernels/knn/knn_gpu.h"

#include <algorithm>
#include <future>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/dbscan/dbscan.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/huge_pages.h"
#include "kernels/common/job_context.h"
#include "kernels/common/staged_copy.h"
#include "kernels/dbscan/dbscan_gpu.h"
#include "kernels/knn/knn_launch.h"

namespace cs::kernels {
namespace {

constexpr std::size_t kMaxPoints = std::size_t(std::numeric_limits<std::int32_t>::max()) - 1;
// Candidate chunks of the recall sample's exact search: enough blocks to fill the GPU even for
// a sample of one row block.
constexpr std::size_t kExactChunks = 512;

std::string mib(std::size_t bytes) {
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

std::size_t roundUp(std::size_t x, std::size_t m) {
    return (x + m - 1) / m * m;
}

// Node boundaries of every level 0 .. levels (the last are the leaves), one after the other.
struct TreeShape {
    std::vector<std::uint32_t> offsets;  // all levels concatenated
    std::vector<std::size_t> first;      // where level l's offsets start
    int maxLeaf = 0;
};

TreeShape treeShape(std::size_t n, int levels) {
    TreeShape shape;
    for (int l = 0; l <= levels; ++l) {
        shape.first.push_back(shape.offsets.size());
        const std::vector<std::uint32_t> o = knnNodeOffsets(n, l);
        shape.offsets.insert(shape.offsets.end(), o.begin(), o.end());
        if (l == levels)
            for (std::size_t j = 0; j + 1 < o.size(); ++j)
                shape.maxLeaf = std::max(shape.maxLeaf, int(o[j + 1] - o[j]));
    }
    return shape;
}

std::size_t exactChunks(std::size_t n) {
    return std::clamp<std::size_t>(n / 4096, 1, kExactChunks);
}

}  // namespace

std::size_t knnDeviceBytes(std::size_t n, std::size_t dims, const KnnParams& params) {
    const int levels = knnLevels(n, params.leafSize);
    const std::size_t dPad = std::size_t(knnPaddedDims(int(dims)));
    const std::size_t stride = roundUp(n, kKnnTile);
    const std::size_t k = std::size_t(std::max(params.k, 1));
    const std::size_t sample =
        std::min<std::size_t>(std::size_t(std::max(params.recallSample, 1)), n);
    return std::size_t(levels) * n * 4  // projections
           + 2 * n * 8 + n * 4          // sort keys (two) and the order
           + knnSortTempBytes(n, std::size_t(1) << levels) +
           dPad * stride * 4        // tree-ordered structure of arrays
           + n * k * 8 + n * k * 4  // lists and final distances
           + sample * (dPad + 1) * 4 + exactChunks(n) * sample * k * 8 + (std::size_t(4) << 20);
}

KnnGraph knnGraphCuda(JobContext& ctx, const PointSet& points, const KnnParams& params,
                      JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                      const float* recentred) {
    validateKnnParams(params);
    const std::size_t n = points.n;
    const std::size_t dims = points.dims;
    if (n > kMaxPoints)
        throw Error("the GPU kNN graph supports fewer than 2^31 - 1 points (got " +
                    std::to_string(n) + ")");
    DeviceScope scope(ctx.device());
    job.checkpoint();
    // Sizes first, so that a problem far too big is refused before the coordinates are read.
    const std::size_t bytes = knnDeviceBytes(n, dims, params) + (recentred ? 0 : n * dims * 4);
    const std::size_t free = ctx.freeMemory();
    if (bytes > free)
        throw Error("the kNN graph of " + std::to_string(n) + " points needs about " + mib(bytes) +
                    " of GPU memory, but only " + mib(free) +
                    " are free; use fewer points, a smaller k or the CPU backend");
    validateKnnInput(points, params);
    keepPoolWarm(ctx.device(), bytes);

    const cudaStream_t s = ctx.stream();
    const int k = params.k;
    const int levels = knnLevels(n, params.leafSize);
    const int dPad = knnPaddedDims(int(dims));
    const std::size_t stride = roundUp(n, kKnnTile);
    const std::size_t slots = n * std::size_t(k);

    KnnGraph graph;
    graph.n = n;
    graph.k = k;
    // Faulting in the result's pages overlaps the GPU work (see dbscanCuda).
    auto allocated = std::async(std::launch::async, [&graph, slots] {
        reserveOnHugePages(graph.indices, slots);
        graph.indices.resize(slots);
        reserveOnHugePages(graph.distances, slots);
        graph.distances.resize(slots);
    });

    DeviceBuffer<float> uploaded =
        recentred ? DeviceBuffer<float>() : uploadRecentred(ctx, points, job);
    const float* coords = recentred ? recentred : uploaded.data();

    const TreeShape shape = treeShape(n, levels);
    DeviceBuffer<std::uint32_t> offsets(shape.offsets.size(), s);
    offsets.copyFromHost(shape.offsets);
    const std::uint32_t* leafOffsets = offsets.data() + shape.first[std::size_t(levels)];
    const std::size_t leaves = std::size_t(1) << levels;

    DeviceBuffer<float> directions(std::max<std::size_t>(std::size_t(levels) * dims, 1), s);
    DeviceBuffer<float> proj(std::max<std::size_t>(std::size_t(levels) * n, 1), s);
    DeviceBuffer<std::uint64_t> keysA(n, s), keysB(n, s);
    const std::size_t sortTempBytes = std::max<std::size_t>(knnSortTempBytes(n, leaves), 1);
    DeviceBuffer<std::uint8_t> sortTemp(sortTempBytes, s);
    DeviceBuffer<std::uint32_t> order(n, s);
    DeviceBuffer<float> soa(std::size_t(dPad) * stride, s);
    DeviceBuffer<float> dist2(slots, s);
    DeviceBuffer<std::int32_t> index(slots, s);
    launchKnnClearLists(dist2.data(), index.data(), slots, s);

    const std::vector<std::int32_t> sample = knnRecallSample(n, params.recallSample, params.seed);
    const std::size_t rows = sample.size();
    DeviceBuffer<std::uint32_t> sampleIds(rows, s);
    sampleIds.copyFromHost(std::span<const std::uint32_t>(
        reinterpret_cast<const std::uint32_t*>(sample.data()), rows));
    std::vector<std::int32_t> exact(rows * std::size_t(k));
    std::vector<std::int32_t> found(rows * std::size_t(k));
    DeviceBuffer<std::int32_t> sampleRows(rows * std::size_t(k), s);

    for (int t = 0; t < params.trees; ++t) {
        job.checkpoint();
        job.setProgress(double(t) / params.trees, "tree " + std::to_string(t + 1));
        {
            ScopedGpuStage stage(ctx, job, "projection");
            if (levels > 0) {
                directions.copyFromHost(knnTreeDirections(params.seed, t, levels, dims));
                launchKnnProjections(coords, n, int(dims), directions.data(), levels, proj.data(),
                                     s);
            }
        }
        {
            ScopedGpuStage stage(ctx, job, "tree");
            const std::uint64_t* sorted = nullptr;
            for (int l = 0; l < levels; ++l) {
                launchKnnSortKeys(proj.data() + std::size_t(l) * n, sorted, n, keysA.data(), s);
                sortKnnSegments(sortTemp.data(), sortTempBytes, keysA.data(), keysB.data(), n,
                                offsets.data() + shape.first[std::size_t(l)], std::size_t(1) << l,
                                s);
                sorted = keysB.data();
            }
            launchKnnOrderFromKeys(sorted, n, order.data(), s);
            launchKnnGatherSoa(coords, int(dims), dPad, order.data(), n, stride, soa.data(), s);
        }
        job.checkpoint();
        if (t == 0) {
            // The sample's exact neighbours: its rows against every point (any order will do,
            // this tree's is at hand).
            ScopedGpuStage stage(ctx, job, "exact sample");
            const std::size_t rowStride = roundUp(rows, kKnnTile);
            DeviceBuffer<float> rowSoa(std::size_t(dPad) * rowStride, s);
            launchKnnGatherSoa(coords, int(dims), dPad, sampleIds.data(), rows, rowStride,
                               rowSoa.data(), s);
            const std::size_t chunks = exactChunks(n);
            DeviceBuffer<float> partialDist(chunks * rows * std::size_t(k), s);
            DeviceBuffer<std::int32_t> partialIndex(chunks * rows * std::size_t(k), s);
            launchKnnExactPartial(rowSoa.data(), rowStride, sampleIds.data(), rows, soa.data(),
                                  stride, order.data(), n, dPad, k, chunks, partialDist.data(),
                                  partialIndex.data(), s);
            launchKnnMergePartial(partialDist.data(), partialIndex.data(), rows, chunks, k, s);
            partialIndex.copyToHost(exact);
            ctx.synchronize();
        }
        {
            ScopedGpuStage stage(ctx, job, "leaf search");
            launchKnnLeafSearch(soa.data(), stride, dPad, order.data(), leafOffsets, leaves,
                                shape.maxLeaf, k, dist2.data(), index.data(), s);
        }
        {
            ScopedGpuStage stage(ctx, job, "recall");
            for (std::size_t r = 0; r < rows; ++r)
                CS_CUDA_CHECK(cudaMemcpyAsync(
                    sampleRows.data() + r * std::size_t(k),
                    index.data() + std::size_t(sample[r]) * std::size_t(k),
                    std::size_t(k) * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, s));
            sampleRows.copyToHost(found);
            ctx.synchronize();
        }
        graph.recallByTree.push_back(knnRecallOfRows(found, exact, k));
        graph.treesBuilt = t + 1;
        if (params.targetRecall > 0.0 && graph.recall() >= params.targetRecall) break;
    }
    {
        ScopedGpuStage stage(ctx, job, "finish");
        // The squared distances become the distances in place.
        launchKnnSqrt(dist2.data(), slots, dist2.data(), s);
        allocated.get();
        copyToHostStaged(graph.indices.data(), index.data(), index.bytes(), ctx.device(), s);
        copyToHostStaged(graph.distances.data(), dist2.data(), dist2.bytes(), ctx.device(), s);
    }
    if (keepIndices) *keepIndices = std::move(index);
    job.setProgress(1.0, "finish");
    return graph;
}

}  // namespace cs::kernels
