// SPDX-License-Identifier: MIT
// Host orchestration of the sparse GPU kNN graph: checks, memory, the per-tree pipeline (the
// dense path's tree kernels, the sparse projection and leaf kernels), recall and stopping.
#include "kernels/knn/knn_sparse_gpu.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/knn/knn_list.h"
#include "compute/knn/knn_sparse_cpu.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/device_sort.h"
#include "kernels/common/launch_pacer.h"
#include "kernels/common/stream_handles.h"
#include "kernels/knn/knn_launch.h"
#include "kernels/knn/knn_sparse_launch.h"

namespace cs::kernels {
namespace {

// gridDim.y of the leaf kernel.
constexpr std::size_t kMaxLeavesPerLaunch = 65535;
// Pair-entries (pairs x entries merged) per launch: tens of ms, so a Cancel lands quickly.
constexpr double kPairEntriesPerLaunch = 0x1p31;

// Stored entries per row, plus one: what a pair's sparse distance costs, in merge steps.
double meanRowEntries(const SparseSet& rows) {
    return double(rows.nnz()) / double(std::max<std::size_t>(rows.n, 1)) + 1.0;
}

// The rows on the device, CSR as SparseSet holds them (buffers of at least one element).
struct DeviceCsr {
    DeviceBuffer<std::int64_t> indptr;
    DeviceBuffer<std::int32_t> cols;
    DeviceBuffer<float> values;
    DeviceCsr(const SparseSet& rows, cudaStream_t s)
        : indptr(rows.n + 1, s),
          cols(std::max<std::size_t>(rows.nnz(), 1), s),
          values(std::max<std::size_t>(rows.nnz(), 1), s) {
        indptr.copyFromHost(rows.indptr);
        if (rows.nnz()) {
            cols.copyFromHost(rows.indices);
            values.copyFromHost(rows.values);
        }
    }
};

// Listed rows of the exact search per launch: about kPairEntriesPerLaunch pair-entries, at most
// gridDim.y.
std::size_t exactRowsPerLaunch(std::size_t n, double meanEntries) {
    return std::min<std::size_t>(
        kMaxLeavesPerLaunch,
        std::size_t(
            std::max(1.0, std::floor(kPairEntriesPerLaunch / (double(n) * 2.0 * meanEntries)))));
}

// Device parts of one launch of the exact search of `count` listed rows.
std::size_t exactPartBytes(std::size_t n, std::size_t count, double meanEntries, int k) {
    return std::min(count, exactRowsPerLaunch(n, meanEntries)) * knnSparseExactChunks(n) *
           std::size_t(std::max(k, 1)) * 8;
}

// knnExactRowsSparse's lists of the listed rows (ids on the device), from CSR rows already on
// the device: each listed row meets every row in blocks of kKnnSparseExactChunk, in the
// order and arithmetic of sparseDist2, and each launch's blocks' k smallest are merged here.
std::vector<std::int32_t> exactRowsOnDevice(StreamHandles& ctx, JobControl& job,
                                            const DeviceCsr& csr, std::size_t n, double meanEntries,
                                            const DeviceBuffer<std::uint32_t>& listed, int k,
                                            std::vector<float>& dist2) {
    const std::size_t count = listed.size(), kk = std::size_t(k), chunks = knnSparseExactChunks(n);
    const std::size_t perLaunch = std::min(count, exactRowsPerLaunch(n, meanEntries));
    DeviceBuffer<float> partDist2(perLaunch * chunks * kk, ctx.stream());
    DeviceBuffer<std::int32_t> partIndex(partDist2.size(), ctx.stream());
    std::vector<float> partsDist2(partDist2.size());
    std::vector<std::int32_t> partsIndex(partDist2.size());
    std::vector<std::int32_t> index(count * kk, kKnnEmptyIndex);
    dist2.assign(count * kk, kKnnEmptyDist2);
    for (std::size_t first = 0; first < count; first += perLaunch) {
        job.checkpoint();
        const std::size_t end = std::min(count, first + perLaunch);
        launchKnnSparseExactRows(csr.indptr.data(), csr.cols.data(), csr.values.data(), n,
                                 listed.data() + first, end - first, k, partDist2.data(),
                                 partIndex.data(), ctx.stream());
        const std::size_t used = (end - first) * chunks * kk;
        partDist2.copyToHost(std::span(partsDist2).first(used));
        partIndex.copyToHost(std::span(partsIndex).first(used));
        ctx.synchronize();
        for (std::size_t r = first; r < end; ++r)
            for (std::size_t c = 0; c < chunks; ++c) {
                const std::size_t part = ((r - first) * chunks + c) * kk;
                knnMergeList(dist2.data() + r * kk, index.data() + r * kk, k,
                             partsDist2.data() + part, partsIndex.data() + part);
            }
    }
    return index;
}

}  // namespace

std::vector<std::int32_t> knnExactRowsSparseCuda(StreamHandles& ctx, const SparseSet& rows,
                                                 std::span<const std::int32_t> listed, int k,
                                                 std::vector<float>& dist2, JobControl& job) {
    const std::size_t n = rows.n;
    if (k < 1 || k > kKnnMaxK || std::size_t(k) >= std::max<std::size_t>(n, 1))
        throw Error("the exact kNN needs 1 <= k <= min(n - 1, " + std::to_string(kKnnMaxK) +
                    "), got k = " + std::to_string(k) + " for n = " + std::to_string(n));
    for (auto r : listed)
        if (r < 0 || std::size_t(r) >= n)
            throw Error("knnExactRowsSparseCuda: row " + std::to_string(r) +
                        " is not a row of the set");
    dist2.clear();
    if (listed.empty()) return {};
    DeviceScope scope(ctx.device());
    const cudaStream_t s = ctx.stream();
    const DeviceCsr csr(rows, s);
    DeviceBuffer<std::uint32_t> ids(listed.size(), s);
    ids.copyFromHost(std::span<const std::uint32_t>(
        reinterpret_cast<const std::uint32_t*>(listed.data()), listed.size()));
    return exactRowsOnDevice(ctx, job, csr, n, meanRowEntries(rows), ids, k, dist2);
}

std::size_t knnSparseDeviceBytes(const SparseSet& rows, const KnnParams& params) {
    const std::size_t n = rows.n;
    const int levels = knnLevels(n, params.leafSize);
    const std::size_t k = std::size_t(std::max(params.k, 1));
    const std::size_t csr = (n + 1) * 8 + rows.nnz() * 8;
    const std::size_t directions = std::size_t(levels) * rows.dims * 4;
    const std::size_t projections = std::size_t(levels) * n * 4;
    const std::size_t tree = 2 * n * 8 + 3 * n * 4 + sortPairsTempBytes(n);
    const std::size_t lists = n * k * 8;
    const std::size_t sampled =
        std::min<std::size_t>(n, std::size_t(std::max(params.recallSample, 1)));
    const double meanEntries = meanRowEntries(rows);
    const std::size_t sample =
        sampled * (k * 4 + 4) + exactPartBytes(n, sampled, meanEntries, int(k));
    return csr + directions + projections + tree + lists + sample + (std::size_t(4) << 20);
}

KnnGraph knnGraphSparseCuda(StreamHandles& ctx, const SparseSet& rows, const KnnParams& params,
                            JobControl& job, DeviceBuffer<std::int32_t>* keepIndices) {
    validateKnnSparseInput(rows, params);
    DeviceScope scope(ctx.device());
    job.checkpoint();
    const std::size_t bytes = knnSparseDeviceBytes(rows, params);
    if (const auto free = ctx.shortOfMemory(bytes))
        throw Error("the kNN graph of " + std::to_string(rows.n) + " sparse rows needs about " +
                    mebibytes(bytes) + " of GPU memory, but only " + mebibytes(*free) +
                    " are free; use fewer rows, a smaller k or the CPU backend");

    const cudaStream_t s = ctx.stream();
    const std::size_t n = rows.n, dims = rows.dims;
    const int k = params.k;
    const int levels = knnLevels(n, params.leafSize);
    const std::size_t slots = n * std::size_t(k);

    std::optional<DeviceCsr> uploaded;
    {
        ScopedGpuStage stage(ctx, job, "upload");
        uploaded.emplace(rows, s);
    }
    const DeviceCsr& csr = *uploaded;

    const std::vector<std::uint32_t> leafRanges = knnNodeOffsets(n, levels);
    DeviceBuffer<std::uint32_t> leafOffsets(leafRanges.size(), s);
    leafOffsets.copyFromHost(leafRanges);
    const std::size_t leaves = leafRanges.size() - 1;
    std::uint32_t largest = 0;
    for (std::size_t j = 0; j < leaves; ++j)
        largest = std::max(largest, leafRanges[j + 1] - leafRanges[j]);
    const int maxLeaf = int(largest);

    DeviceBuffer<float> directions(std::max<std::size_t>(std::size_t(levels) * dims, 1), s);
    DeviceBuffer<float> proj(std::max<std::size_t>(std::size_t(levels) * n, 1), s);
    DeviceBuffer<std::uint64_t> keys(n, s), sortedKeys(n, s);
    DeviceBuffer<std::uint32_t> ids(n, s), order(n, s), position(n, s);
    const std::size_t sortTempBytes = std::max<std::size_t>(sortPairsTempBytes(n), 1);
    DeviceBuffer<std::uint8_t> sortTemp(sortTempBytes, s);
    DeviceBuffer<float> dist2(slots, s);
    DeviceBuffer<std::int32_t> index(slots, s);
    launchKnnClearLists(dist2.data(), index.data(), slots, s);

    const std::vector<std::int32_t> sample = knnRecallSample(n, params.recallSample, params.seed);
    const std::size_t sampled = sample.size();
    DeviceBuffer<std::uint32_t> sampleIds(sampled, s);
    sampleIds.copyFromHost(std::span<const std::uint32_t>(
        reinterpret_cast<const std::uint32_t*>(sample.data()), sampled));
    std::vector<float> exact, found(sampled * std::size_t(k));
    DeviceBuffer<float> sampleRows(sampled * std::size_t(k), s);
    const double meanEntries = meanRowEntries(rows);
    {
        // The CPU backend's brute force, bit for bit, so the recall (and the stopping tree)
        // match it exactly.
        ScopedGpuStage stage(ctx, job, "exact sample");
        exactRowsOnDevice(ctx, job, csr, n, meanEntries, sampleIds, k, exact);
    }

    // Leaves per launch: about kPairEntriesPerLaunch pair-entries, at most gridDim.y.
    const double perLeaf = double(maxLeaf) * double(maxLeaf) * 2.0 * meanEntries;
    const std::size_t perLaunch = std::min<std::size_t>(
        kMaxLeavesPerLaunch,
        std::size_t(std::max(1.0, std::floor(kPairEntriesPerLaunch / std::max(perLeaf, 1.0)))));

    KnnGraph graph;
    graph.n = n;
    graph.k = k;
    for (int t = 0; t < params.trees; ++t) {
        job.checkpoint();
        job.setProgress(double(t) / params.trees, "tree " + std::to_string(t + 1));
        {
            ScopedGpuStage stage(ctx, job, "projection");
            if (levels > 0) {
                directions.copyFromHost(knnTreeDirections(params.seed, t, levels, dims));
                launchKnnSparseProjections(csr.indptr.data(), csr.cols.data(), csr.values.data(), n,
                                           dims, directions.data(), levels, proj.data(), s);
            }
        }
        {
            ScopedGpuStage stage(ctx, job, "tree");
            if (levels == 0) launchKnnIdentity(n, order.data(), s);
            for (int l = 0; l < levels; ++l) {
                if (l > 0) launchKnnPositions(order.data(), n, position.data(), s);
                launchKnnLevelKeys(proj.data() + std::size_t(l) * n, position.data(), n, l,
                                   keys.data(), ids.data(), s);
                sortPairs(sortTemp.data(), sortTempBytes, keys.data(), sortedKeys.data(),
                          ids.data(), order.data(), n, unsigned(32 + l), s);
            }
        }
        job.checkpoint();
        {
            ScopedGpuStage stage(ctx, job, "leaf search");
            forPacedBatches(ctx, job, leaves, perLaunch, [&](std::size_t first, std::size_t end) {
                launchKnnSparseLeafSearch(csr.indptr.data(), csr.cols.data(), csr.values.data(),
                                          order.data(), leafOffsets.data() + first, end - first,
                                          maxLeaf, k, dist2.data(), index.data(), s);
            });
        }
        {
            ScopedGpuStage stage(ctx, job, "recall");
            launchKnnGatherRows(dist2.data(), k, sampleIds.data(), sampled, sampleRows.data(), s);
            sampleRows.copyToHost(found);
            ctx.synchronize();
        }
        graph.recallByTree.push_back(knnRecallOfRows(found, exact, k));
        graph.treesBuilt = t + 1;
        job.setIteration(knnTreeStatus(t + 1, params.trees, graph.recall()),
                         double(t + 1) / params.trees);
        if (params.targetRecall > 0.0 && graph.recall() >= params.targetRecall) break;
    }
    {
        ScopedGpuStage stage(ctx, job, "finish");
        launchKnnSqrt(dist2.data(), slots, dist2.data(), s);
        graph.indices.resize(slots);
        graph.distances.resize(slots);
        index.copyToHost(graph.indices);
        dist2.copyToHost(graph.distances);
        ctx.synchronize();
    }
    if (keepIndices) *keepIndices = std::move(index);
    job.setProgress(1.0, "finish");
    return graph;
}

}  // namespace cs::kernels
