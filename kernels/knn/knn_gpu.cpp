// SPDX-License-Identifier: MIT
// Host orchestration of the GPU kNN graph: checks, memory sizing, the per-tree pipeline,
// stages (CUDA-event timings), recall and stopping, cancellation checkpoints. The kernels are in
// knn_kernels.cu (see knn_launch.h).
#include "kernels/knn/knn_gpu.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/huge_pages.h"
#include "compute/core/parallel.h"
#include "compute/knn/knn_list.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_points.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/device_sort.h"
#include "kernels/common/device_workers.h"
#include "kernels/common/launch_pacer.h"
#include "kernels/common/staged_copy.h"
#include "kernels/common/stream_handles.h"
#include "kernels/knn/knn_exact_launch.h"
#include "kernels/knn/knn_launch.h"

namespace cs::kernels {
namespace {

constexpr std::size_t kMaxPoints = std::size_t(std::numeric_limits<std::int32_t>::max()) - 1;
// The most host memory the spare lists kept for the next graph may take (KnnForestReuse::Kept):
// 1M points up to k = 62.
constexpr std::size_t kSpareListsMaxBytes = std::size_t(512) << 20;
// Candidate chunks of the recall sample's exact search: enough blocks to fill the GPU even for
// a sample of one row block.
constexpr std::size_t kExactChunks = 512;
// Pair-dimensions (rows x candidates x padded dimensions) per launch of the leaf and the
// sample's exact search: tens of ms on an H200 (2^36 took 0.8 s at 2048-point leaves of 128
// dimensions), so that a Cancel lands within 100 ms.
constexpr double kPairDimsPerLaunch = 0x1p32;

std::size_t roundUp(std::size_t x, std::size_t m) {
    return (x + m - 1) / m * m;
}

int largestLeaf(const std::vector<std::uint32_t>& leafOffsets) {
    std::uint32_t largest = 0;
    for (std::size_t j = 0; j + 1 < leafOffsets.size(); ++j)
        largest = std::max(largest, leafOffsets[j + 1] - leafOffsets[j]);
    return int(largest);
}

// Points laid out for the leaf kernel: the tree-ordered structure of arrays, order (position ->
// row) and the point index of each row (null: the row itself).
struct LeafLayout {
    const float* soa;
    std::size_t stride;
    int dPad;
    const std::uint32_t* order;
    const std::int32_t* idOf;
};

// Leaves [leafBegin, leafEnd) of leafRanges (deviceOffsets: the same on the device) searched on
// the CUDA cores in paced launches of about kPairDimsPerLaunch. Leaves share no points, so the
// batches change nothing but when a cancel lands.
void searchLeavesPaced(StreamHandles& ctx, JobControl& job, const LeafLayout& layout,
                       const std::vector<std::uint32_t>& leafRanges,
                       const std::uint32_t* deviceOffsets, std::size_t leafBegin,
                       std::size_t leafEnd, int k, float* dist2, std::int32_t* index) {
    const int maxLeaf = largestLeaf(leafRanges);
    const double perLeaf = double(maxLeaf) * double(maxLeaf) * double(std::max(layout.dPad, 4));
    auto perLaunch =
        std::size_t(std::max(1.0, std::floor(kPairDimsPerLaunch / std::max(perLeaf, 1.0))));
    // Whole waves of blocks per launch: one whose last wave holds a few blocks takes about as
    // long as if it were full (1M x 128 on the H200: 560 blocks on 528 places, 1.06 waves).
    int multiprocessors = 1;
    CS_CUDA_CHECK(
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, ctx.device()));
    const std::size_t wave = std::size_t(multiprocessors) *
                             std::size_t(knnLeafSearchBlocksPerMultiprocessor(layout.dPad, k));
    const std::size_t rowBlocks = (std::size_t(maxLeaf) + kKnnRowsPerBlock - 1) / kKnnRowsPerBlock;
    const std::size_t waves = std::max<std::size_t>(1, perLaunch * rowBlocks / wave);
    perLaunch = std::max<std::size_t>(1, waves * wave / rowBlocks);
    forPacedBatches(ctx, job, leafEnd - leafBegin, perLaunch,
                    [&](std::size_t first, std::size_t end) {
                        launchKnnLeafSearch(layout.soa, layout.stride, layout.dPad, layout.order,
                                            layout.idOf, deviceOffsets + leafBegin + first,
                                            end - first, maxLeaf, k, dist2, index, ctx.stream());
                    });
}

// The fewest dimensions whose leaves go to the tensor cores. Their fixed costs (the candidates'
// exact bounds, pruning, the re-rank and the merge) are about the same at any width, the CUDA
// cores' work grows with it: on the H200, leaf search of 6 trees of 1M embed points, k 10,
// 64.4 -> 40.0 ms at 128 dimensions, 31.9 -> 32.3 ms at 40; 4 trees of 100k x 16, 1.7 -> 3.4.
constexpr std::size_t kTensorLeafMinDims = 64;
// Pair-dimensions per launch of the tensor-core leaf search (the tensor cores meet pairs about
// eight times as fast as the CUDA cores, so the launches last about as long).
constexpr double kTensorPairDimsPerLaunch = 0x1p35;
// Most blocks of a tensor-core leaf search (each holds 1.6 MB of candidate buffers): two per
// multiprocessor of an H200, and so the memory knnDeviceBytes counts.
constexpr std::size_t kTensorLeafBlocks = 288;

// Blocks of a leaf search over trees of `leaves` leaves: no more than a tree has work items (a
// leaf has at least one row tile), so a small set holds no idle blocks' buffers.
std::size_t tensorLeafBlocks(std::size_t leaves, std::size_t resident) {
    return std::clamp<std::size_t>(leaves, 1, std::min(resident, kTensorLeafBlocks));
}

bool leavesOnTensorCores(std::size_t dims) {
    return dims >= kTensorLeafMinDims && dims <= std::size_t(kKnnTensorMaxDims);
}

// Positions of a tree's FP16 copy: a range's last row tile and candidate tile may reach up to
// a tile past the points.
std::size_t tensorLeafPositions(std::size_t rows) {
    return roundUp(rows, kKnnTensorTile) + kKnnTensorTile;
}

// The leaf search on tensor cores (knn_exact_kernels.cu): each tree's FP16 copy of the rows in
// its order, every leaf centred on its centroid (the bound's margin scales with the norms: the
// leaf's extent rather than the whole set's, 1/50 of it on 1M x 128 embed), their norms, the
// candidate buffers, and the leaves with a row whose candidates overflowed, which the CUDA
// cores then search whole (merging a leaf twice changes nothing).
class TensorLeaves {
public:
    static std::size_t deviceBytes(std::size_t rows, std::size_t dims, std::size_t leaves) {
        const std::size_t positions = tensorLeafPositions(rows);
        return positions * std::size_t(knnTensorDims(int(dims))) * 2 + positions * 8 + leaves * 12 +
               knnTensorWorkspaceBytes(tensorLeafBlocks(leaves, kTensorLeafBlocks));
    }

    TensorLeaves(StreamHandles& ctx, const float* coords, std::size_t rows, int dims, int k,
                 std::size_t leaves)
        : m_ctx(ctx),
          m_positions(tensorLeafPositions(rows)),
          m_blocks(tensorLeafBlocks(leaves, knnTensorResidentBlocks(ctx.device()))),
          m_half(m_positions * std::size_t(knnTensorDims(dims)), ctx.stream()),
          m_norm2(m_positions, ctx.stream()),
          m_normUp(m_positions, ctx.stream()),
          m_leafNormMax(std::max<std::size_t>(leaves, 1), ctx.stream()),
          m_listed(std::max<std::size_t>(leaves, 1), ctx.stream()),
          m_overflow(std::max<std::size_t>(leaves, 1), ctx.stream()),
          m_overflowCount(1, ctx.stream()),
          m_workspace(knnTensorWorkspaceBytes(m_blocks), ctx.stream()) {
        const cudaStream_t s = ctx.stream();
        DeviceBuffer<unsigned> bits(1, s);
        launchKnnMaxAbs(coords, rows * std::size_t(dims), bits.data(), s);
        const float maxAbs = std::bit_cast<float>(bits.toHost()[0]);
        const int dH = knnTensorDims(dims);
        // A centred coordinate is at most about twice the largest |x| (a centroid lies within
        // the points' range): s for four times it keeps every |s (x - c)| < 1.
        const float scale =
            knnTensorScale(std::min(4.0f * maxAbs, std::numeric_limits<float>::max()));
        m_in = KnnTensorInputs{.half = m_half.data(),
                               .dH = dH,
                               .norm2 = m_norm2.data(),
                               .normUp = m_normUp.data(),
                               .scale = scale,
                               .n = rows,
                               .coords = coords,
                               .dims = dims,
                               .k = k,
                               .bound = knnTensorBound(std::size_t(dims), std::size_t(dH), true)};
        // The padding positions past the rows: zeros of infinite norm (the trees' copies
        // write only the rows' positions).
        launchKnnTensorPrepare(coords, 0, dims, nullptr, m_positions - rows, dH, scale,
                               knnTensorNormFactor(std::size_t(dims)),
                               m_half.data() + rows * std::size_t(dH), m_norm2.data() + rows,
                               m_normUp.data() + rows, s);
    }

    // One tree's leaves [leafBegin, leafEnd) (layout.order: position -> row).
    void search(JobControl& job, const LeafLayout& layout,
                const std::vector<std::uint32_t>& leafRanges, const std::uint32_t* deviceOffsets,
                std::size_t leafBegin, std::size_t leafEnd, float* dist2, std::int32_t* index) {
        const cudaStream_t s = m_ctx.stream();
        launchKnnTensorPrepareLeaves(
            m_in.coords, m_in.dims, layout.order, deviceOffsets + leafBegin, leafEnd - leafBegin,
            m_in.dH, m_in.scale, knnTensorNormFactor(std::size_t(m_in.dims)), m_half.data(),
            m_norm2.data(), m_normUp.data(), m_leafNormMax.data() + leafBegin, s);
        m_listed.zero();
        m_overflowCount.zero();
        const int maxLeaf = largestLeaf(leafRanges);
        const std::size_t rowTiles = (std::size_t(maxLeaf) + kKnnTensorTile - 1) / kKnnTensorTile;
        const double perLeaf = double(maxLeaf) * double(maxLeaf) * double(m_in.dH);
        const auto perLaunch = std::size_t(
            std::max(1.0, std::floor(kTensorPairDimsPerLaunch / std::max(perLeaf, 1.0))));
        const KnnTensorOutput out{.dist2 = dist2,
                                  .index = index,
                                  .overflow = m_overflow.data(),
                                  .overflowCount = m_overflowCount.data(),
                                  .rangeListed = m_listed.data()};
        forPacedBatches(
            m_ctx, job, leafEnd - leafBegin, perLaunch, [&](std::size_t first, std::size_t end) {
                const KnnTensorWork work{.offsets = deviceOffsets + leafBegin + first,
                                         .rowTiles = rowTiles,
                                         .items = (end - first) * rowTiles,
                                         .rangeNormMax = m_leafNormMax.data() + leafBegin + first,
                                         .order = layout.order,
                                         .idOf = layout.idOf,
                                         .merge = true,
                                         .firstRange = leafBegin + first};
                launchKnnTensorSearch(m_in, work, out, m_workspace.data(), m_blocks, s);
            });
    }

    // Leaves the last search listed: a row of theirs had more candidates than its buffer
    // holds. Waits for the search.
    std::size_t listedLeaves() const { return m_overflowCount.toHost()[0]; }

    // The `listed` leaves (listedLeaves()), whole, on the CUDA cores (the rows the tensor cores
    // finished merge the same pairs again, which changes nothing).
    void searchListed(const LeafLayout& layout, const std::vector<std::uint32_t>& leafRanges,
                      const std::uint32_t* deviceOffsets, std::size_t listed, float* dist2,
                      std::int32_t* index) {
        launchKnnLeafSearchListed(layout.soa, layout.stride, layout.dPad, layout.order, layout.idOf,
                                  deviceOffsets, m_overflow.data(), listed, largestLeaf(leafRanges),
                                  m_in.k, dist2, index, m_ctx.stream());
    }

private:
    StreamHandles& m_ctx;
    std::size_t m_positions;
    std::size_t m_blocks;
    DeviceBuffer<std::uint16_t> m_half;
    DeviceBuffer<float> m_norm2, m_normUp, m_leafNormMax;
    DeviceBuffer<std::uint32_t> m_listed, m_overflow, m_overflowCount;
    DeviceBuffer<std::uint8_t> m_workspace;
    KnnTensorInputs m_in;
};

// One tree's leaves [leafBegin, leafEnd): on the tensor cores where they take the set (stage
// "leaf search"), then the leaves they listed on the CUDA cores (stage "overflow leaves", only
// when there are any), else all on the CUDA cores.
void searchTreeLeaves(StreamHandles& ctx, JobControl& job, const LeafLayout& layout,
                      TensorLeaves* tensor, const std::vector<std::uint32_t>& leafRanges,
                      const std::uint32_t* deviceOffsets, std::size_t leafBegin,
                      std::size_t leafEnd, int k, float* dist2, std::int32_t* index) {
    {
        ScopedGpuStage stage(ctx, job, "leaf search");
        if (tensor)
            tensor->search(job, layout, leafRanges, deviceOffsets, leafBegin, leafEnd, dist2,
                           index);
        else
            searchLeavesPaced(ctx, job, layout, leafRanges, deviceOffsets, leafBegin, leafEnd, k,
                              dist2, index);
    }
    const std::size_t listed = tensor ? tensor->listedLeaves() : 0;
    if (listed > 0) {
        ScopedGpuStage stage(ctx, job, "overflow leaves");
        tensor->searchListed(layout, leafRanges, deviceOffsets, listed, dist2, index);
    }
}

std::size_t exactChunks(std::size_t n) {
    return std::clamp<std::size_t>(n / 4096, 1, kExactChunks);
}

// Host lists of `slots` entries of each kind (indices, distances), faulted in and zero-filled on a
// thread of their own while the GPU works (see dbscanCuda). In steps that stop once the fill is
// abandoned: the 2 GB of 4M points with k = 64 take a quarter of a second, which a cancel would
// otherwise wait for.
class HostListFill {
public:
    explicit HostListFill(std::size_t slots)
        : m_slots(slots), m_done(std::async(std::launch::async, [this] {
              constexpr std::size_t kStep = std::size_t(8) << 20;  // 32 MiB of each
              reserveOnHugePages(m_indices, m_slots);
              reserveOnHugePages(m_distances, m_slots);
              for (std::size_t done = 0;
                   done < m_slots && !m_abandoned.load(std::memory_order_relaxed);) {
                  done = std::min(m_slots, done + kStep);
                  m_indices.resize(done);
                  m_distances.resize(done);
              }
          })) {}
    HostListFill(const HostListFill&) = delete;
    HostListFill& operator=(const HostListFill&) = delete;
    ~HostListFill() {
        m_abandoned.store(true, std::memory_order_relaxed);
        if (m_done.valid()) m_done.wait();
    }
    std::size_t slots() const { return m_slots; }
    // Waits for the fill (rethrowing its failure), then hands over the first `slots` of each
    // (at most slots()).
    void moveInto(KnnGraph& graph, std::size_t slots) {
        m_done.get();
        graph.indices = std::move(m_indices);
        graph.distances = std::move(m_distances);
        graph.indices.resize(slots);
        graph.distances.resize(slots);
    }

private:
    std::size_t m_slots;
    std::vector<std::int32_t> m_indices;
    std::vector<float> m_distances;
    std::atomic<bool> m_abandoned{false};  // before m_done: set up before the thread starts
    std::future<void> m_done;
};

// A graph's host lists (n * k of each): a spare fill when one was made for about as many (see
// KnnForestReuse::Kept::spareLists), else a fresh one started now. wait() before writing them.
class HostLists {
public:
    HostLists(KnnGraph& graph, std::size_t slots, std::unique_ptr<HostListFill> spare = nullptr)
        : m_graph(graph),
          m_slots(slots),
          m_fill(spare && spare->slots() >= slots && spare->slots() <= 2 * slots
                     ? std::move(spare)
                     : std::make_unique<HostListFill>(slots)) {}
    void wait() {  // (any number of times)
        if (!m_fill) return;
        m_fill->moveInto(m_graph, m_slots);
        m_fill.reset();
    }

private:
    KnnGraph& m_graph;
    std::size_t m_slots;
    std::unique_ptr<HostListFill> m_fill;
};

// The checks both graphs start with: the parameters, the point count, then the device memory
// (sized before the coordinates are read, so that a problem far too big is refused at once),
// then the input; the memory pool is then kept warm for the bytes needed.
template <typename Bytes>
void startGraph(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                JobControl& job, const std::string& what, Bytes&& deviceBytes) {
    validateKnnParams(params);
    if (points.n > kMaxPoints)
        throw Error("the GPU kNN graph supports fewer than 2^31 - 1 points (got " +
                    std::to_string(points.n) + ")");
    job.checkpoint();
    const std::size_t bytes = deviceBytes();
    if (const auto free = ctx.shortOfMemory(bytes))
        throw Error(what + " of " + std::to_string(points.n) + " points needs about " +
                    mebibytes(bytes) + " of GPU memory, but only " + mebibytes(*free) +
                    " are free; use fewer points, a smaller k or the CPU backend");
    validateKnnInput(points, params, &job);
    keepPoolWarm(ctx.device(), bytes);
}

// Every point as candidates of the CUDA-core exact search: a structure of arrays, its stride,
// the position -> point map and the count.
struct Candidates {
    const float* soa;
    std::size_t stride;
    const std::uint32_t* order;
    std::size_t n;
};

// Exact lists of some rows (device ids), k each, in the first rows * k entries.
struct ExactLists {
    DeviceBuffer<float> dist2;
    DeviceBuffer<std::int32_t> index;
};

// The exact neighbours of `rows` points (rowIds on the device) among all candidates on the CUDA
// cores: each row against chunks of the candidates, in paced launches, the chunks' lists merged.
ExactLists exactListsOf(StreamHandles& ctx, JobControl& job, const float* coords, int dims,
                        int dPad, const std::uint32_t* rowIds, std::size_t rows,
                        const Candidates& cand, int k) {
    const cudaStream_t s = ctx.stream();
    const std::size_t rowStride = roundUp(rows, kKnnTile);
    DeviceBuffer<float> rowSoa(std::size_t(dPad) * rowStride, s);
    launchKnnGatherSoa(coords, dims, dPad, rowIds, rows, rowStride, rowSoa.data(), s);
    const std::size_t chunks = exactChunks(cand.n);
    ExactLists lists{DeviceBuffer<float>(chunks * rows * std::size_t(k), s),
                     DeviceBuffer<std::int32_t>(chunks * rows * std::size_t(k), s)};
    // Every chunk in parts, one launch each (all of 4M points of 128 dimensions in one launch
    // took 0.5 s), the lists carried between them.
    const double perCandidate = double(chunks) * double(rowStride) * double(dPad);
    const std::size_t part =
        roundUp(std::size_t(std::max(1.0, kPairDimsPerLaunch / perCandidate)), kKnnTile);
    forPacedBatches(ctx, job, knnExactChunkLength(cand.n, chunks), part,
                    [&](std::size_t from, std::size_t to) {
                        launchKnnExactPartial(rowSoa.data(), rowStride, rowIds, rows, cand.soa,
                                              cand.stride, cand.order, cand.n, dPad, k, chunks,
                                              from, to, lists.dist2.data(), lists.index.data(), s);
                    });
    launchKnnMergePartial(lists.dist2.data(), lists.index.data(), rows, chunks, k, s);
    return lists;
}

// One worker's share of a kNN graph spread over devices (knnGraphMultiCuda): leaves
// [leafChunk of leafChunks] of every tree, the recall of the lists merged over workers, and the
// lists left as they are (squared, recentred) for the merge.
struct KnnPart {
    std::size_t leafChunk = 0;
    std::size_t leafChunks = 1;
    /// The merged recall after a tree, from this worker's sample rows; blocks until every worker
    /// has given its rows.
    std::function<double(std::span<const float> dist2, std::span<const std::int32_t> index,
                         std::span<const float> exact)>
        recall;
    double scale = 1.0;  ///< out: the recentring scale of the coordinates
};

KnnGraph buildGraph(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                    JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                    const DevicePoints* resident, KnnPart* part, KnnForestReuse* reuse = nullptr);
// buildGraph's work, with the trees and sample kept in forest (null: nothing kept).
KnnGraph buildForest(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                     JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                     const DevicePoints* resident, KnnPart* part, KnnForestReuse::Kept* forest,
                     std::size_t keepLimit);
KnnGraph buildExactGraph(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                         JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                         const DevicePoints* resident);

}  // namespace

struct KnnForestReuse::Kept {
    struct Tree {
        DeviceBuffer<std::uint32_t> order;  // the point at each position of the tree
        DeviceBuffer<float> soa;            // the points in that order, a structure of arrays
    };
    // What the trees and the sample were made for.
    const float* coords = nullptr;
    std::size_t n = 0, dims = 0;
    std::uint64_t seed = 0;
    int levels = 0;
    int recallSample = 0;
    std::vector<Tree> trees;
    std::vector<float> exact;  // the sample's exact squared distances, exactK per row, ascending
    int exactK = 0;
    // Host lists for the next graph, filled while the user looks at this one: a k change at 1M
    // points would otherwise wait for their pages (14 of a 30 ms job on the H200, once the kept
    // trees no longer hide them). Made for two neighbours more than the last graph's, so that a
    // k slider stepping either way finds them.
    std::unique_ptr<HostListFill> spareLists;

    bool madeFor(const float* c, std::size_t np, std::size_t d, const KnnParams& p, int lv) const {
        return coords == c && n == np && dims == d && seed == p.seed && levels == lv &&
               recallSample == p.recallSample;
    }
    std::size_t bytes() const {
        std::size_t sum = 0;  // the sample's lists live on the host
        for (const Tree& t : trees)
            sum += t.order.bytes() + t.soa.bytes();
        return sum;
    }
};

KnnForestReuse::KnnForestReuse() = default;
KnnForestReuse::KnnForestReuse(std::size_t limit) : limitBytes(limit) {}
KnnForestReuse::~KnnForestReuse() = default;

std::size_t KnnForestReuse::bytes() const {
    return kept ? kept->bytes() : 0;
}

int KnnForestReuse::trees() const {
    return kept ? int(kept->trees.size()) : 0;
}

std::size_t KnnForestReuse::spareListSlots() const {
    return kept && kept->spareLists ? kept->spareLists->slots() : 0;
}

KnnGraph knnGraphCuda(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                      JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                      const DevicePoints* resident, KnnForestReuse* reuse) {
    if (params.exact) return buildExactGraph(ctx, points, params, job, keepIndices, resident);
    return buildGraph(ctx, points, params, job, keepIndices, resident, nullptr,
                      resident ? reuse : nullptr);
}

std::size_t knnDeviceBytes(std::size_t n, std::size_t dims, const KnnParams& params) {
    const int levels = knnLevels(n, params.leafSize);
    const std::size_t dPad = std::size_t(knnPaddedDims(int(dims)));
    const std::size_t stride = roundUp(n, kKnnTile);
    const std::size_t k = std::size_t(std::max(params.k, 1));
    const std::size_t sample =
        std::min<std::size_t>(std::size_t(std::max(params.recallSample, 1)), n);
    const std::size_t projections = std::size_t(levels) * n * 4;
    const std::size_t tree = 2 * n * 8 + 4 * n * 4 + sortPairsTempBytes(n);  // keys, ids ...
    const std::size_t layout = dPad * stride * 4;  // the tree-ordered structure of arrays
    const std::size_t lists = n * k * 8;           // dist2 and index, later the distances
    const std::size_t recall = sample * (dPad + 1) * 4 + exactChunks(n) * sample * k * 8;
    const std::size_t tensor = leavesOnTensorCores(dims)
                                   ? TensorLeaves::deviceBytes(n, dims, std::size_t(1) << levels)
                                   : 0;
    return projections + tree + layout + lists + recall + tensor + (std::size_t(4) << 20);
}

namespace {

KnnGraph buildGraph(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                    JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                    const DevicePoints* resident, KnnPart* part, KnnForestReuse* reuse) {
    const std::size_t n = points.n;
    const std::size_t dims = points.dims;
    DeviceScope scope(ctx.device());
    const int levels = knnLevels(n, params.leafSize);
    // The trees and sample kept from the last run, if made for these points and parameters;
    // else they go before this run's memory is counted.
    if (!resident || part) reuse = nullptr;
    if (reuse && reuse->kept &&
        !reuse->kept->madeFor(resident->coords.data(), n, dims, params, levels))
        reuse->kept.reset();
    if (reuse && !reuse->kept) {
        reuse->kept = std::make_unique<KnnForestReuse::Kept>();
        KnnForestReuse::Kept& k = *reuse->kept;
        k.coords = resident->coords.data();
        k.n = n;
        k.dims = dims;
        k.seed = params.seed;
        k.levels = levels;
        k.recallSample = params.recallSample;
    }
    try {
        return buildForest(ctx, points, params, job, keepIndices, resident, part,
                           reuse ? reuse->kept.get() : nullptr, reuse ? reuse->limitBytes : 0);
    } catch (const Cancelled&) {
        throw;  // whatever was kept was launched in order on the stream: it stays true
    } catch (...) {
        if (reuse) reuse->kept.reset();
        throw;
    }
}

KnnGraph buildForest(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                     JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                     const DevicePoints* resident, KnnPart* part, KnnForestReuse::Kept* forest,
                     std::size_t keepLimit) {
    const std::size_t n = points.n;
    const std::size_t dims = points.dims;
    startGraph(ctx, points, params, job, "the kNN graph",
               [&] { return knnDeviceBytes(n, dims, params) + (resident ? 0 : n * dims * 4); });

    const cudaStream_t s = ctx.stream();
    const int k = params.k;
    const int levels = knnLevels(n, params.leafSize);
    const int dPad = knnPaddedDims(int(dims));
    const std::size_t stride = roundUp(n, kKnnTile);
    const std::size_t slots = n * std::size_t(k);

    KnnGraph graph;
    graph.n = n;
    graph.k = k;
    HostLists allocated(graph, slots, forest ? std::move(forest->spareLists) : nullptr);

    DevicePoints uploaded;
    if (!resident) uploaded = uploadRecentred(ctx, points, job);
    const float* coords = resident ? resident->coords.data() : uploaded.coords.data();
    const double scale = resident ? resident->scale : uploaded.scale;
    if (part) part->scale = scale;
    job.checkpoint();

    // Every tree has the same leaves (ranges of its point order).
    const std::vector<std::uint32_t> leafRanges = knnNodeOffsets(n, levels);
    DeviceBuffer<std::uint32_t> leafOffsets(leafRanges.size(), s);
    leafOffsets.copyFromHost(leafRanges);
    const std::size_t leaves = leafRanges.size() - 1;
    // This worker's leaves: all of them on one device.
    const auto [leafBegin, leafEnd] = part ? chunkRange(leaves, part->leafChunks, part->leafChunk)
                                           : std::pair{std::size_t(0), leaves};

    DeviceBuffer<float> directions(std::max<std::size_t>(std::size_t(levels) * dims, 1), s);
    DeviceBuffer<float> proj(std::max<std::size_t>(std::size_t(levels) * n, 1), s);
    DeviceBuffer<std::uint64_t> keys(n, s), sortedKeys(n, s);
    DeviceBuffer<std::uint32_t> ids(n, s), position(n, s);
    const std::size_t sortTempBytes = std::max<std::size_t>(sortPairsTempBytes(n), 1);
    DeviceBuffer<std::uint8_t> sortTemp(sortTempBytes, s);
    DeviceBuffer<float> dist2(slots, s);
    DeviceBuffer<std::int32_t> index(slots, s);
    launchKnnClearLists(dist2.data(), index.data(), slots, s);
    std::optional<TensorLeaves> tensor;
    if (leavesOnTensorCores(dims)) tensor.emplace(ctx, coords, n, int(dims), k, leaves);

    const std::vector<std::int32_t> sample = knnRecallSample(n, params.recallSample, params.seed);
    const std::size_t rows = sample.size();
    DeviceBuffer<std::uint32_t> sampleIds(rows, s);
    sampleIds.copyFromHost(std::span<const std::uint32_t>(
        reinterpret_cast<const std::uint32_t*>(sample.data()), rows));
    std::vector<float> exact(rows * std::size_t(k));
    std::vector<float> found(rows * std::size_t(k));
    DeviceBuffer<float> sampleRows(rows * std::size_t(k), s);
    std::vector<std::int32_t> foundIndex(part ? rows * std::size_t(k) : 0);
    DeviceBuffer<std::int32_t> sampleIndex =
        part ? DeviceBuffer<std::int32_t>(rows * std::size_t(k), s) : DeviceBuffer<std::int32_t>();

    for (int t = 0; t < params.trees; ++t) {
        job.checkpoint();
        job.setProgress(double(t) / params.trees, "tree " + std::to_string(t + 1));
        KnnForestReuse::Kept::Tree built;
        const KnnForestReuse::Kept::Tree* tree = nullptr;
        if (forest && std::size_t(t) < forest->trees.size()) {
            tree = &forest->trees[std::size_t(t)];
        } else {
            built.order = DeviceBuffer<std::uint32_t>(n, s);
            built.soa = DeviceBuffer<float>(std::size_t(dPad) * stride, s);
            std::uint32_t* order = built.order.data();
            {
                ScopedGpuStage stage(ctx, job, "projection");
                if (levels > 0) {
                    directions.copyFromHost(knnTreeDirections(params.seed, t, levels, dims));
                    launchKnnProjections(coords, n, int(dims), directions.data(), levels,
                                         proj.data(), s);
                }
            }
            {
                ScopedGpuStage stage(ctx, job, "tree");
                if (levels == 0) launchKnnIdentity(n, order, s);
                for (int l = 0; l < levels; ++l) {
                    if (l > 0) launchKnnPositions(order, n, position.data(), s);
                    launchKnnLevelKeys(proj.data() + std::size_t(l) * n, position.data(), n, l,
                                       keys.data(), ids.data(), s);
                    // order[p]: the point at position p after sorting on the bits in use.
                    sortPairs(sortTemp.data(), sortTempBytes, keys.data(), sortedKeys.data(),
                              ids.data(), order, n, unsigned(32 + l), s);
                }
                launchKnnGatherSoa(coords, int(dims), dPad, order, n, stride, built.soa.data(), s);
            }
            // Kept in order (tree t as the t-th) while the forest stays within its share.
            const std::size_t treeBytes = built.order.bytes() + built.soa.bytes();
            if (forest && forest->bytes() + treeBytes <= keepLimit) {
                forest->trees.push_back(std::move(built));
                tree = &forest->trees.back();
            } else {
                tree = &built;
            }
        }
        job.checkpoint();
        if (t == 0 && forest && forest->exactK >= k) {
            // The first k of each kept row: the exact lists of k.
            for (std::size_t r = 0; r < rows; ++r)
                std::copy_n(forest->exact.begin() + std::ptrdiff_t(r * forest->exactK), k,
                            exact.begin() + std::ptrdiff_t(r * std::size_t(k)));
        } else if (t == 0) {
            // The sample's exact neighbours: its rows against every point (any order will do,
            // this tree's is at hand).
            ScopedGpuStage stage(ctx, job, "exact sample");
            ExactLists lists =
                exactListsOf(ctx, job, coords, int(dims), dPad, sampleIds.data(), rows,
                             {tree->soa.data(), stride, tree->order.data(), n}, k);
            // The lists are in the first rows * k entries.
            lists.dist2.copyToHost(std::span<float>(exact));
            ctx.synchronize();
            if (forest) {
                forest->exact = exact;
                forest->exactK = k;
            }
        }
        searchTreeLeaves(ctx, job, {tree->soa.data(), stride, dPad, tree->order.data(), nullptr},
                         tensor ? &*tensor : nullptr, leafRanges, leafOffsets.data(), leafBegin,
                         leafEnd, k, dist2.data(), index.data());
        {
            ScopedGpuStage stage(ctx, job, "recall");
            launchKnnGatherRows(dist2.data(), k, sampleIds.data(), rows, sampleRows.data(), s);
            sampleRows.copyToHost(found);
            if (part) {
                launchKnnGatherRowIndices(index.data(), k, sampleIds.data(), rows,
                                          sampleIndex.data(), s);
                sampleIndex.copyToHost(std::span<std::int32_t>(foundIndex));
            }
            ctx.synchronize();
        }
        graph.recallByTree.push_back(part ? part->recall(found, foundIndex, exact)
                                          : knnRecallOfRows(found, exact, k));
        graph.treesBuilt = t + 1;
        job.setIteration(knnTreeStatus(t + 1, params.trees, graph.recall()),
                         double(t + 1) / params.trees);
        if (params.targetRecall > 0.0 && graph.recall() >= params.targetRecall) break;
    }
    {
        ScopedGpuStage stage(ctx, job, "finish");
        // The squared distances become the distances in place; a part's stay squared for the
        // merge, which orders by them.
        if (!part) launchKnnSqrt(dist2.data(), slots, dist2.data(), s);
        allocated.wait();
        copyToHostStaged(graph.indices.data(), index.data(), index.bytes(), ctx.device(), s);
        copyToHostStaged(graph.distances.data(), dist2.data(), dist2.bytes(), ctx.device(), s);
        if (!part) fromRecentred(graph.distances, scale);
    }
    if (keepIndices) *keepIndices = std::move(index);
    if (forest && n * std::size_t(k + 2) * 8 <= kSpareListsMaxBytes)
        forest->spareLists = std::make_unique<HostListFill>(n * std::size_t(k + 2));
    job.setProgress(1.0, "finish");
    return graph;
}

// Rows per group of the CUDA-core exact search of the rows the tensor cores gave up (its
// partial lists take chunks x rows x k x 8 bytes: 0.5 GB at k = 64).
constexpr std::size_t kExactRowGroup = 2048;

// The fewest dimensions the exact graph sends to the tensor cores. Below, the FP16 bound's margin
// (relative to the points' norms) is wider than the neighbour distances of a dense cloud, nearly
// every row overflows its buffer, and the CUDA cores alone are faster (1M 3-D blobs on the
// H200: 4.26 s through the tensor cores and the overflow, 3.27 s on the CUDA cores alone).
constexpr std::size_t kExactTensorMinDims = 5;

// Whether the exact graph of this many dimensions goes through the tensor cores.
bool exactOnTensorCores(std::size_t dims) {
    return dims >= kExactTensorMinDims && dims <= std::size_t(kKnnTensorMaxDims);
}

// Device bytes of the exact graph besides the input coordinates (an upper bound).
std::size_t exactDeviceBytes(std::size_t n, std::size_t dims, int k, std::size_t launchTiles) {
    const std::size_t nPad = roundUp(n, kKnnTensorTile);
    const std::size_t dH = std::size_t(knnTensorDims(int(dims)));
    const std::size_t lists = n * std::size_t(k) * 8;
    const std::size_t tensor = exactOnTensorCores(dims)
                                   ? nPad * dH * 2 + nPad * 8 + knnTensorWorkspaceBytes(launchTiles)
                                   : 0;
    // The CUDA cores' layout of every point and one group's partial lists.
    const std::size_t fallback = std::size_t(knnPaddedDims(int(dims))) * roundUp(n, kKnnTile) * 4 +
                                 exactChunks(n) * kExactRowGroup * std::size_t(k) * 8 + n * 8;
    return lists + tensor + fallback + (std::size_t(4) << 20);
}

KnnGraph buildExactGraph(StreamHandles& ctx, const PointSet& points, const KnnParams& params,
                         JobControl& job, DeviceBuffer<std::int32_t>* keepIndices,
                         const DevicePoints* resident) {
    const std::size_t n = points.n, dims = points.dims;
    DeviceScope scope(ctx.device());
    const std::size_t tiles = roundUp(n, kKnnTensorTile) / kKnnTensorTile;
    // A wave of two blocks per multiprocessor a launch: about 50 ms at 1M x 128.
    const std::size_t launchTiles = std::min(tiles, knnTensorResidentBlocks(ctx.device()));
    startGraph(ctx, points, params, job, "the exact kNN graph", [&] {
        return exactDeviceBytes(n, dims, params.k, launchTiles) + (resident ? 0 : n * dims * 4);
    });

    const cudaStream_t s = ctx.stream();
    const int k = params.k;
    const std::size_t slots = n * std::size_t(k);
    KnnGraph graph;
    graph.n = n;
    graph.k = k;
    graph.exact = true;
    HostLists allocated(graph, slots);

    DevicePoints uploaded;
    if (!resident) uploaded = uploadRecentred(ctx, points, job);
    const float* coords = resident ? resident->coords.data() : uploaded.coords.data();
    const double scale = resident ? resident->scale : uploaded.scale;
    job.checkpoint();

    DeviceBuffer<float> dist2(slots, s);
    DeviceBuffer<std::int32_t> index(slots, s);
    // The rows left to the CUDA cores: those whose candidates overflowed, or all of them.
    DeviceBuffer<std::uint32_t> leftRows(n, s);
    std::size_t left = n;
    const bool tensorPass = exactOnTensorCores(dims);
    if (tensorPass) {
        ScopedGpuStage stage(ctx, job, "exact search");
        const int dH = knnTensorDims(int(dims));
        const std::size_t nPad = tiles * kKnnTensorTile;
        DeviceBuffer<unsigned> bits(1, s);
        auto largest = [&](const float* x, std::size_t count) {
            launchKnnMaxAbs(x, count, bits.data(), s);
            return std::bit_cast<float>(bits.toHost()[0]);
        };
        const float fp16Scale = knnTensorScale(largest(coords, n * dims));
        const float normFactor = knnTensorNormFactor(dims);
        DeviceBuffer<std::uint16_t> half(nPad * std::size_t(dH), s);
        DeviceBuffer<float> norm2(nPad, s), normUp(nPad, s);
        launchKnnTensorPrepare(coords, n, int(dims), nullptr, nPad, dH, fp16Scale, normFactor,
                               half.data(), norm2.data(), normUp.data(), s);
        const KnnTensorInputs in{.half = half.data(),
                                 .dH = dH,
                                 .norm2 = norm2.data(),
                                 .normUp = normUp.data(),
                                 .normMax = largest(normUp.data(), nPad),
                                 .scale = fp16Scale,
                                 .n = n,
                                 .coords = coords,
                                 .dims = int(dims),
                                 .k = k,
                                 .bound = knnTensorBound(dims, std::size_t(dH))};
        DeviceBuffer<std::uint8_t> workspace(knnTensorWorkspaceBytes(launchTiles), s);
        DeviceBuffer<std::uint32_t> leftCount(1, s);
        leftCount.zero();
        const KnnTensorOutput out{.dist2 = dist2.data(),
                                  .index = index.data(),
                                  .overflow = leftRows.data(),
                                  .overflowCount = leftCount.data()};
        // A batch's rows are final once it ran (but for those that overflowed, redone below):
        // their distances are taken, and they go to the host behind the next batch. The
        // downloads start with the first batch, which the host lists' faulting-in overlaps.
        std::optional<BlockDownload> indexDownload, distanceDownload;
        forPacedBatches(ctx, job, tiles, launchTiles, [&](std::size_t first, std::size_t end) {
            launchKnnTensorSearch(in, {.rowTiles = tiles, .firstItem = first, .items = end - first},
                                  out, workspace.data(), launchTiles, s);
            const std::size_t from = first * kKnnTensorTile * std::size_t(k);
            const std::size_t to = std::min(n, end * kKnnTensorTile) * std::size_t(k);
            launchKnnSqrt(dist2.data() + from, to - from, dist2.data() + from, s);
            if (!indexDownload) {
                allocated.wait();
                indexDownload.emplace(graph.indices.data(), index.data(), ctx.device(), s);
                distanceDownload.emplace(graph.distances.data(), dist2.data(), ctx.device(), s);
            }
            indexDownload->add(from * sizeof(std::int32_t), (to - from) * sizeof(std::int32_t));
            distanceDownload->add(from * sizeof(float), (to - from) * sizeof(float));
            job.setProgress(0.9 * double(end) / double(tiles), "exact search");
        });
        indexDownload->finish();
        distanceDownload->finish();
        left = leftCount.toHost()[0];
    } else {
        launchKnnIdentity(n, leftRows.data(), s);
    }
    job.checkpoint();
    if (left > 0) {
        // Rows with too many candidates near their k-th distance (duplicates), or a set too
        // wide for the tensor cores: searched exactly on the CUDA cores, in groups of rows.
        ScopedGpuStage stage(ctx, job, "exact rows");
        const int dPad = knnPaddedDims(int(dims));
        const std::size_t stride = roundUp(n, kKnnTile);
        DeviceBuffer<std::uint32_t> identity(n, s);
        launchKnnIdentity(n, identity.data(), s);
        DeviceBuffer<float> soa(std::size_t(dPad) * stride, s);
        launchKnnGatherSoa(coords, int(dims), dPad, identity.data(), n, stride, soa.data(), s);
        const double from = tensorPass ? 0.9 : 0.0;
        for (std::size_t first = 0; first < left; first += kExactRowGroup) {
            const std::size_t rows = std::min(kExactRowGroup, left - first);
            ExactLists lists =
                exactListsOf(ctx, job, coords, int(dims), dPad, leftRows.data() + first, rows,
                             {soa.data(), stride, identity.data(), n}, k);
            launchKnnSqrt(lists.dist2.data(), rows * std::size_t(k), lists.dist2.data(), s);
            launchKnnScatterRows(lists.dist2.data(), lists.index.data(), k, leftRows.data() + first,
                                 rows, dist2.data(), index.data(), s);
            job.setProgress(from + (0.95 - from) * double(first + rows) / double(left),
                            "exact rows");
        }
    }
    {
        ScopedGpuStage stage(ctx, job, "finish");
        if (left > 0) {  // the rows redone on the CUDA cores (all of them without the tensor pass)
            allocated.wait();
            copyToHostStaged(graph.indices.data(), index.data(), index.bytes(), ctx.device(), s);
            copyToHostStaged(graph.distances.data(), dist2.data(), dist2.bytes(), ctx.device(), s);
        }
        fromRecentred(graph.distances, scale);
    }
    if (keepIndices) *keepIndices = std::move(index);
    job.setProgress(1.0, "finish");
    return graph;
}

}  // namespace

void knnSearchLeavesCuda(StreamHandles& ctx, const KnnLeafSearch& leaves, JobControl& job) {
    const std::size_t rows = leaves.rows(), dims = leaves.dims, kk = std::size_t(leaves.k);
    if (leaves.leafOffsets.size() < 2 || rows == 0) return;
    DeviceScope scope(ctx.device());
    job.checkpoint();
    const cudaStream_t s = ctx.stream();
    const int dPad = knnPaddedDims(int(dims));
    const std::size_t stride = roundUp(rows, kKnnTile);
    const std::size_t leafCount = leaves.leafOffsets.size() - 1;
    const bool onTensorCores = leavesOnTensorCores(dims);
    const std::size_t bytes =
        rows * dims * 4 + std::size_t(dPad) * stride * 4 + rows * 8 +
        leaves.leafOffsets.size() * 4 + rows * kk * 8 +
        (onTensorCores ? TensorLeaves::deviceBytes(rows, dims, leafCount) : 0);
    if (const auto free = ctx.shortOfMemory(bytes))
        throw Error("the leaf search of " + std::to_string(rows) + " points needs about " +
                    mebibytes(bytes) + " of GPU memory, but only " + mebibytes(*free) +
                    " are free; use more ranks or the CPU backend");
    std::vector<std::uint32_t> leafRanges(leaves.leafOffsets.begin(), leaves.leafOffsets.end());
    DeviceBuffer<std::uint32_t> order(rows, s), offsets(leafRanges.size(), s);
    DeviceBuffer<std::int32_t> ids(rows, s), index(rows * kk, s);
    DeviceBuffer<float> dist2(rows * kk, s), soa(std::size_t(dPad) * stride, s);
    DeviceBuffer<float> coords(rows * dims, s);
    {
        ScopedGpuStage stage(ctx, job, "upload");
        copyToDeviceStaged(coords.data(), leaves.coords.data(), coords.bytes(), ctx.device(), s);
        order.copyFromHost(leaves.order);
        offsets.copyFromHost(std::span<const std::uint32_t>(leafRanges));
        ids.copyFromHost(leaves.ids);
        copyToDeviceStaged(dist2.data(), leaves.dist2.data(), dist2.bytes(), ctx.device(), s);
        copyToDeviceStaged(index.data(), leaves.index.data(), index.bytes(), ctx.device(), s);
        launchKnnGatherSoa(coords.data(), int(dims), dPad, order.data(), rows, stride, soa.data(),
                           s);
        ctx.synchronize();
    }
    std::optional<TensorLeaves> tensor;
    if (onTensorCores) tensor.emplace(ctx, coords.data(), rows, int(dims), leaves.k, leafCount);
    searchTreeLeaves(ctx, job, {soa.data(), stride, dPad, order.data(), ids.data()},
                     tensor ? &*tensor : nullptr, leafRanges, offsets.data(), 0, leafCount,
                     leaves.k, dist2.data(), index.data());
    ScopedGpuStage stage(ctx, job, "download");
    copyToHostStaged(leaves.dist2.data(), dist2.data(), dist2.bytes(), ctx.device(), s);
    copyToHostStaged(leaves.index.data(), index.data(), index.bytes(), ctx.device(), s);
}

namespace {

// The workers' sample rows after each tree, merged into one recall that every worker gets, so
// that all of them stop after the same tree. A worker that fails breaks it (abort), so that the
// others do not wait for it forever.
class RecallMerge {
public:
    RecallMerge(std::size_t workers, int k) : m_k(k), m_dist2(workers), m_index(workers) {}

    double offer(std::size_t worker, std::span<const float> dist2,
                 std::span<const std::int32_t> index, std::span<const float> exact) {
        std::unique_lock lock(m_mutex);
        if (m_aborted) throw Cancelled();
        m_dist2[worker].assign(dist2.begin(), dist2.end());
        m_index[worker].assign(index.begin(), index.end());
        if (worker == 0) m_exact.assign(exact.begin(), exact.end());
        const std::uint64_t generation = m_generation;
        if (++m_arrived == m_dist2.size()) {
            std::vector<float> merged = m_dist2[0];
            std::vector<std::int32_t> mergedIndex = m_index[0];
            const auto kk = std::size_t(m_k);
            for (std::size_t w = 1; w < m_dist2.size(); ++w)
                for (std::size_t r = 0; r + kk <= merged.size(); r += kk)
                    knnMergeList(merged.data() + r, mergedIndex.data() + r, m_k,
                                 m_dist2[w].data() + r, m_index[w].data() + r);
            m_recall = knnRecallOfRows(merged, m_exact, m_k);
            m_arrived = 0;
            ++m_generation;
            m_changed.notify_all();
        } else {
            m_changed.wait(lock, [&] { return m_generation != generation || m_aborted; });
            if (m_generation == generation) throw Cancelled();
        }
        return m_recall;
    }

    void abort() {
        const std::lock_guard lock(m_mutex);
        m_aborted = true;
        m_changed.notify_all();
    }

private:
    int m_k;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<std::vector<float>> m_dist2;
    std::vector<std::vector<std::int32_t>> m_index;
    std::vector<float> m_exact;
    std::size_t m_arrived = 0;
    std::uint64_t m_generation = 0;
    bool m_aborted = false;
    double m_recall = 0.0;
};

}  // namespace

KnnGraph knnGraphMultiCuda(std::span<StreamHandles* const> contexts, const PointSet& points,
                           const KnnParams& params, JobControl& job,
                           DeviceBuffer<std::int32_t>* keepIndices, const DevicePoints* resident,
                           KnnForestReuse* reuse) {
    if (contexts.empty()) throw Error("the kNN graph needs at least one device");
    // The exact graph runs on the first device (its tiles are not split over devices yet).
    if (contexts.size() == 1 || params.exact)
        return knnGraphCuda(*contexts[0], points, params, job, keepIndices, resident, reuse);
    // Every worker builds every tree (the sorts are a small part of the time) and searches its
    // contiguous group of each tree's leaves. Leaves share no points, so each list is offered
    // the same candidates as on one device, only spread over the workers' copies; merging the
    // copies with knnOffer gives the one-device lists exactly. Splitting the trees instead would
    // need the same merge and leave devices idle when the recall stops early.
    const std::size_t workers = contexts.size();
    RecallMerge merge(workers, params.k);
    std::vector<KnnPart> parts(workers);
    std::vector<KnnGraph> graphs(workers);
    runOnDevices(workers, job, [&](std::size_t w, JobControl& workerJob) {
        parts[w].leafChunk = w;
        parts[w].leafChunks = workers;
        parts[w].recall = [&merge, w](std::span<const float> d, std::span<const std::int32_t> i,
                                      std::span<const float> e) { return merge.offer(w, d, i, e); };
        try {
            graphs[w] = buildGraph(*contexts[w], points, params, workerJob, nullptr,
                                   w == 0 ? resident : nullptr, &parts[w]);
        } catch (...) {
            merge.abort();
            throw;
        }
    });
    KnnGraph graph = std::move(graphs[0]);
    {
        const auto stage = job.stage("merge devices");
        const auto kk = std::size_t(graph.k);
        parallelRanges(graph.n, threadsFor(graph.n), nullptr,
                       [&](std::size_t begin, std::size_t end, unsigned) {
                           for (std::size_t w = 1; w < workers; ++w)
                               for (std::size_t i = begin; i < end; ++i)
                                   knnMergeList(graph.distances.data() + i * kk,
                                                graph.indices.data() + i * kk, graph.k,
                                                graphs[w].distances.data() + i * kk,
                                                graphs[w].indices.data() + i * kk);
                           // The one-device path's launchKnnSqrt is __fsqrt_rn, correctly rounded
                           // like this.
                           for (std::size_t s = begin * kk; s < end * kk; ++s)
                               graph.distances[s] = std::sqrt(graph.distances[s]);
                       });
        graphs.clear();
        fromRecentred(graph.distances, parts[0].scale);
    }
    if (keepIndices) {
        StreamHandles& ctx = *contexts[0];
        DeviceScope scope(ctx.device());
        ScopedGpuStage stage(ctx, job, "upload");
        *keepIndices = DeviceBuffer<std::int32_t>(graph.indices.size(), ctx.stream());
        copyToDeviceStaged(keepIndices->data(), graph.indices.data(), keepIndices->bytes(),
                           ctx.device(), ctx.stream());
        ctx.synchronize();
    }
    return graph;
}

}  // namespace cs::kernels
