// SPDX-License-Identifier: MIT
#pragma once

// DBSCAN and the k-distance curve on the GPU, byte-identical to the CPU backend (semantics and
// float rules in compute/dbscan/dbscan.h). Host-only header (g++ with the CUDA include path).
//
// Paths (DbscanParams::path):
//  - Grid (d <= 3): cells of side eps / sqrt(d), keys radix-sorted with CUB, dense clique cells
//    all core at once, neighbour counts with early exit over the 5^d stencil;
//  - Brute (any d): the seed paper's tiled all-pairs kernel (SoA, shared-memory tiles, the own
//    point in registers, unrolled, hoisted |t|^2 + |p|^2 - 2 t.p with an exact recheck band);
//  - Auto: Grid for d <= 3 from kDbscanCudaBruteBelow points on, else Brute. KdTree is CPU-only.
// Then lock-free union-find over core-core edges, nearest-core border assignment and canonical
// relabelling, all on the device. Stage timings (JobControl::timings()): "upload", "recentre",
// "grid" or "layout", "count", "union", "border" (not with star), "relabel", "stats" (CUDA
// events) and "download" (on the host, which waits for it).

#include <cstddef>
#include <cstdint>

#include "compute/core/device_resident.h"
#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_sweep.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/device_points.h"
#include "kernels/common/device_quantities.h"

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "compute/dbscan/cluster_overlap.h"

namespace cs::kernels {

class StreamHandles;

/// Labels and core flags left on the device, in input order, ordered on the context's stream.
struct DbscanDeviceResult {
    DeviceBuffer<std::int32_t> labels;       ///< canonical cluster id per point, -1 = noise
    DeviceBuffer<std::uint8_t> isCore;       ///< 1 for core points
    std::int32_t clusterCount = 0;           ///< clusters, ids 0 .. clusterCount-1
    DbscanPath pathUsed = DbscanPath::Auto;  ///< Grid or Brute
};

/// A DbscanResult's labels and core flags kept on the device (DbscanResult::device): categories
/// (core points primary) for the GL interop to paint from. Its context (in the base, so it
/// outlives the buffers) is the stream they are freed on.
struct DbscanDeviceClusters final : DeviceCategories {
    DbscanDeviceResult clusters;
    const std::int32_t* labels() const override { return clusters.labels.data(); }
    const std::uint8_t* primary() const override { return clusters.isCore.data(); }
    std::size_t count() const override { return clusters.labels.size(); }
};

/// Below this many points Auto takes Brute also for d <= 3: a few tiles beat building a grid.
inline constexpr std::size_t kDbscanCudaBruteBelow = 1024;
/// The largest k the GPU k-distance keeps per point (registers / local memory).
inline constexpr int kKDistanceMaxK = 256;

/// The path dbscanDevice runs for `requested`; throws cs::Error for Grid with d > 3 and for
/// KdTree (CPU only).
DbscanPath resolveDbscanPathCuda(DbscanPath requested, std::size_t n, std::size_t dims);

/// Device memory DBSCAN needs for n points of `dims` on `path` (Grid or Brute), besides the
/// input coordinates: an upper bound used to refuse problems that do not fit.
std::size_t dbscanDeviceBytes(std::size_t n, std::size_t dims, DbscanPath path);

/// The grid and its points' neighbour counts for the last eps, kept from one grid-path DBSCAN
/// run to the next on the same device coordinates (the GUI's live runs on resident points): a
/// run that changes only MinPts or DBSCAN* skips building the grid (8 ms of 60 at 30M points on
/// an H200), and one whose MinPts the counts reach skips the count too (core flags straight from
/// the counts, as the sweep takes them). The grid is built for an eps 7 % below the run's, so
/// that an eps moved by a few percent, as a slider drag does, keeps it too (the same cells, a
/// stencil for the new eps; the counts are made again). A run with other coordinates, n, dims or an
/// eps the grid cannot serve frees what is kept before it builds its own. Kept only while it takes
/// at most limitBytes of device memory.
/// The owner keeps one per coordinate array and drops it with the array (an address can be
/// reused).
/// @code
/// cs::kernels::DbscanGridReuse reuse(1ull << 30);
/// auto a = cs::kernels::dbscanDevice(ctx, dCoords, n, 3, {.eps = 0.5f, .minPts = 10}, job, 1.0,
/// &reuse); auto b = cs::kernels::dbscanDevice(ctx, dCoords, n, 3, {.eps = 0.5f, .minPts = 8},
/// job, 1.0, &reuse);
/// @endcode
struct DbscanGridReuse {
    struct Kept;        ///< dbscan_gpu.cpp: the grid, the counts and what they were made for
    DbscanGridReuse();  ///< keeps nothing until limitBytes is set
    explicit DbscanGridReuse(std::size_t limitBytes);
    ~DbscanGridReuse();
    DbscanGridReuse(const DbscanGridReuse&) = delete;
    DbscanGridReuse& operator=(const DbscanGridReuse&) = delete;
    /// Device memory held (0 while nothing is kept).
    std::size_t bytes() const;
    /// MinPts up to which the kept counts are exact (0 while nothing is kept).
    int countedTo() const;

    std::size_t limitBytes = 0;
    std::unique_ptr<Kept> kept;
};

/// DBSCAN from device-resident points: coords are recentredCoords() values (or any finite
/// float32 coordinates; the eps tests are canonicalDist2 on exactly these values), row-major
/// n x dims, on ctx's device, and scale is their recentredCoords() scale (params.eps is in the
/// data's units). Throws cs::Error on bad parameters, non-finite coordinates, too
/// many points (>= 2^31 - 1) or too little free device memory; cs::Cancelled when the job is
/// cancelled (checked between kernel batches). reuse (optional, Grid path only): see
/// DbscanGridReuse; the stages of a run that reuses the grid have no "grid".
/// @code
/// auto r = cs::kernels::dbscanDevice(ctx, dCoords, n, 3, {.eps = 0.5f, .minPts = 10}, job);
/// // r.labels.data(): int32 labels on the device, ready for interop
/// @endcode
DbscanDeviceResult dbscanDevice(StreamHandles& ctx, const float* coords, std::size_t n,
                                std::size_t dims, const DbscanParams& params, JobControl& job,
                                double scale = 1.0, DbscanGridReuse* reuse = nullptr);

/// recentredCoords() on the device, in place and bit for bit: coords holds n x dims row-major
/// float32 values on ctx's device; ordered on ctx's stream. NaN-free inputs give exactly the
/// host's values (with NaN the outputs are non-finite too, which DBSCAN refuses).
/// DBSCAN of a host point set: upload of the raw coordinates (pinned staging), recentreDevice,
/// dbscanDevice, statistics on the device, download. Labels, core flags and stats are
/// byte-identical to dbscanCpu. Stages as dbscanDevice's plus "upload", "recentre", "stats"
/// and "download". With keepOnDevice, the device labels and core flags are moved there instead of
/// being freed. With resident (uploadRecentred() of these very points, on ctx's device), the
/// upload and recentring are skipped, and reuse (kept with resident) is passed to dbscanDevice.
/// @code cs::DbscanResult r = cs::kernels::dbscanCuda(ctx, points, {.eps = 1.f}, job); @endcode
/// besideDownload (optional) is called with the device result and its members per cluster id
/// once its labels are final: what it queues on ctx's stream, or starts on other threads, runs
/// while the labels and core flags download (on a stream of their own), e.g. a
/// ClusterOverlapCount against an earlier run.
using BesideDownload = std::function<void(const DbscanDeviceResult& device,
                                          std::span<const std::uint32_t> clusterSizes)>;
DbscanResult dbscanCuda(StreamHandles& ctx, const PointSet& points, const DbscanParams& params,
                        JobControl& job, DbscanDeviceResult* keepOnDevice = nullptr,
                        const DevicePoints* resident = nullptr, DbscanGridReuse* reuse = nullptr,
                        const BesideDownload& besideDownload = {});

/// The contingency table of two clusterings of the same n points on the device (labels as
/// DbscanDeviceResult holds them), in two steps so that other work can run meanwhile: the
/// constructor queues the count on stream (a key per point for its pair of labels, a radix sort,
/// runs; 20 bytes a point), take() waits for it and returns the table as cs::clusterOverlap does.
/// The labels must stay on the device until take() returns. Throws DeviceError (out of memory:
/// count on the host instead).
/// @code
/// ClusterOverlapCount count(prev.labels.data(), prev.clusterCount, now.labels.data(),
///                           now.clusterCount, n, ctx.stream());
/// std::vector<cs::ClusterOverlap> table = count.take();
/// @endcode
class ClusterOverlapCount {
public:
    ClusterOverlapCount(const std::int32_t* a, std::int32_t countA, const std::int32_t* b,
                        std::int32_t countB, std::size_t n, cudaStream_t stream);
    std::vector<ClusterOverlap> take();

private:
    std::int32_t m_countA, m_countB;
    cudaStream_t m_stream;
    DeviceBuffer<std::uint64_t> m_keys, m_spare;
    DeviceBuffer<std::uint32_t> m_points, m_runs;
    DeviceBuffer<std::byte> m_temp;
    const std::uint64_t* m_pairs = nullptr;
};

/// An eps x MinPts sweep (compute/dbscan/dbscan_sweep.h) on the GPU, every cell equal to
/// dbscanCuda's (and so dbscanCpu's) result for its eps and MinPts. Per eps the grid is built
/// (the all-pairs layout once for all eps) and the neighbours counted once, up to the largest
/// MinPts; per MinPts the core flags come from those counts, then the union-find, border and
/// relabelling stages of dbscanDevice and the statistics kernel run on the device, and only
/// four words per cell come back. Stages: "upload", "recentre", "layout" (Brute), and per eps
/// "count" and "cells". resident as for dbscanCuda. Throws as dbscanCuda does, and cs::Error on
/// a bad grid.
/// @code auto r = cs::kernels::dbscanSweepCuda(ctx, points, cs::defaultDbscanSweep(2.5f), job);
/// @endcode
DbscanSweepResult dbscanSweepCuda(StreamHandles& ctx, const PointSet& points,
                                  const DbscanSweepParams& params, JobControl& job,
                                  const DevicePoints* resident = nullptr);

/// k-distance of device-resident points (as dbscanDevice takes them): per point, the distance
/// to its k-th nearest point counting itself, in input order, in the coordinates' units (the
/// recentred frame's: divide by the scale for the data's). path: Auto (grid for d <= 3, all
/// pairs above), Grid or Brute. Throws cs::Error when k < 1, k > n, k > kKDistanceMaxK, on
/// non-finite coordinates or too little device memory.
/// @code DeviceBuffer<float> kd = cs::kernels::kDistanceDevice(ctx, dCoords, n, 3, 10, job);
/// @endcode
DeviceBuffer<float> kDistanceDevice(StreamHandles& ctx, const float* coords, std::size_t n,
                                    std::size_t dims, int k, JobControl& job,
                                    DbscanPath path = DbscanPath::Auto);

/// The k-distance curve of a host point set, bit-identical to kDistanceCpu (values and order).
/// resident as for dbscanCuda.
/// @code cs::KDistanceResult r = cs::kernels::kDistanceCuda(ctx, points, 10, job); @endcode
KDistanceResult kDistanceCuda(StreamHandles& ctx, const PointSet& points, int k, JobControl& job,
                              DbscanPath path = DbscanPath::Auto,
                              const DevicePoints* resident = nullptr);

}  // namespace cs::kernels
