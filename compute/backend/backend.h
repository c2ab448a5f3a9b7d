// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/job_control.h"
#include "compute/core/point_set.h"
#include "compute/core/series_set.h"
#include "compute/core/sparse_set.h"
#include "compute/dbscan/cluster_overlap.h"
#include "compute/dbscan/dbscan.h"
#include "compute/dbscan/dbscan_sweep.h"
#include "compute/knn/knn_graph.h"
#include "compute/kshape/kshape.h"
#include "compute/rocket/minirocket.h"
#include "compute/rocket/ridge.h"
#include "compute/rocket/rocket.h"

namespace cs {

/// What a backend runs on, for the status bar, `--json` outputs and benchmarks.
struct BackendInfo {
    std::string name;               ///< "cpu" or "cuda"
    std::string device;             ///< "NVIDIA H200" or the CPU model
    std::uint64_t memoryFree = 0;   ///< bytes free on the device (0 when unknown)
    std::uint64_t memoryTotal = 0;  ///< bytes on the device (0 when unknown)
    int threads = 0;                ///< CPU threads used (CPU backend)
    std::string versions;           ///< driver / runtime / library versions, one line
    /// One line for the status-bar chip: "CUDA · NVIDIA H200 · 139 GB free", "CPU · 16 threads".
    std::string summary() const;
};

/// A DBSCAN re-run and the overlap of its clusters with the previous run's
/// (Backend::dbscanMatched).
struct DbscanRematch {
    DbscanResult result;
    std::vector<ClusterOverlap> overlap;  ///< empty without a previous run
};

/// What the caller of Backend::dbscanMatched does with a re-run's overlap (empty without a
/// previous run) and the new run's members per cluster id, as soon as both are known: called
/// once, before dbscanMatched returns, possibly on another thread while the labels are still
/// on their way (so it may use neither the JobControl's stages nor the result).
using OverlapUse = std::function<void(std::span<const ClusterOverlap> overlap,
                                      std::span<const std::size_t> clusterSizes)>;

/// One interface, two implementations: CpuBackend (always built, the reference and the oracle
/// of the GPU tests) and CudaBackend (kernels/, built with CUDA). One virtual per algorithm stage
/// (dbscan, kDistance, knnGraph, kshape, rocket ...), each taking a params struct, input views
/// and a JobControl. Callers never branch on the backend beyond choosing it.
class Backend {
public:
    virtual ~Backend() = default;
    /// Short name used on command lines: "cpu", "cuda".
    virtual std::string name() const = 0;
    /// Device, memory and versions as of now.
    virtual BackendInfo info() const = 0;
    /// Starts sampling the device memory in use, for a benchmark's peak; the function returned
    /// stops it and gives the most bytes in use above what was in use at the start (work areas
    /// of the vendor libraries included). Empty where there is no device memory to watch.
    virtual std::function<std::uint64_t()> watchDeviceMemory() { return {}; }

    /// Accelerator devices on this machine that setDevices() may name; 0 where there are none
    /// (the CPU backend).
    virtual int deviceCount() const { return 0; }
    /// The devices the kNN graph and the ROCKET transforms run on (one by default; several
    /// split the work and give the same results); empty where there are none.
    virtual std::vector<int> devices() const { return {}; }
    /// Spreads the kNN graph and the ROCKET transforms over these devices (parseDeviceList's
    /// list; the first also runs everything else). Throws cs::Error where the backend has no
    /// devices to choose (the CPU backend) or a device cannot be set up.
    virtual void setDevices(const std::vector<int>& devices);

    /// Keeps points in accelerator memory while they live (one set at a time), so that the
    /// algorithms below skip uploading them: a live view re-running DBSCAN as a slider moves
    /// pays the upload once. Returns the device copy (recentredCoords() values) for views to draw
    /// from through GL interop, or nullptr where there is no accelerator or the copy does not fit
    /// (then the algorithms upload as before). Never throws.
    virtual std::shared_ptr<const DeviceResident> keepResident(
        std::shared_ptr<const PointSet> points, JobControl& job);

    /// A device copy of a series set (values and lengths) for views to draw from through GL
    /// interop (the series heat map), and for the series algorithms to come; nullptr where there
    /// is no accelerator or it does not fit. Never throws.
    virtual std::shared_ptr<const DeviceResident> keepSeriesResident(
        std::shared_ptr<const SeriesSet> series, JobControl& job);

    /// DBSCAN (semantics in compute/dbscan/dbscan.h); labels identical on every backend.
    /// @code cs::DbscanResult r = backend.dbscan(points, {.eps = 0.5f, .minPts = 10}, job);
    /// @endcode
    virtual DbscanResult dbscan(const PointSet& points, const DbscanParams& params,
                                JobControl& job);
    /// An eps x MinPts DBSCAN sweep (compute/dbscan/dbscan_sweep.h) in one job: neighbours
    /// counted once per eps, every MinPts derived from the counts; each cell equals dbscan()'s
    /// result for its parameters. The default runs on the host (dbscanSweepCpu).
    /// @code cs::DbscanSweepResult s = backend.dbscanSweep(points, cs::defaultDbscanSweep(2.5f),
    /// job); @endcode
    virtual DbscanSweepResult dbscanSweep(const PointSet& points, const DbscanSweepParams& params,
                                          JobControl& job);
    /// The contingency table of two clusterings of the same points (compute/dbscan/
    /// cluster_overlap.h), e.g. to keep cluster colours across re-runs; computed where the labels
    /// live (on the GPU when both results left them there). The default runs on the host.
    virtual std::vector<ClusterOverlap> clusterOverlap(const DbscanResult& a, const DbscanResult& b,
                                                       JobControl& job);
    /// A re-run of DBSCAN on the same points with the overlap of its clusters with the previous
    /// run's (nullptr: none, and no overlap), for a live view that keeps cluster colours: the
    /// same as dbscan() then clusterOverlap(), which is the default; a backend may count the
    /// overlap while it hands the labels over (the CUDA backend does, during their download).
    /// useOverlap (may be empty) receives the overlap and the cluster sizes as soon as they are
    /// known: on the CUDA backend, the colour matching of a live view runs while the labels
    /// download.
    /// @code auto [now, overlap] = backend.dbscanMatched(points, params, &before, job, {});
    /// @endcode
    virtual DbscanRematch dbscanMatched(const PointSet& points, const DbscanParams& params,
                                        const DbscanResult* previous, JobControl& job,
                                        const OverlapUse& useOverlap);
    /// The k-distance curve (distance to the k-th nearest point, itself counted) for eps choice.
    virtual KDistanceResult kDistance(const PointSet& points, int k, JobControl& job);
    /// The approximate kNN graph from a random-projection tree forest (compute/knn/knn_graph.h);
    /// the same graph, bit for bit, on every backend.
    /// @code cs::KnnGraph g = backend.knnGraph(points, {.k = 10, .trees = 8}, job); @endcode
    virtual KnnGraph knnGraph(const PointSet& points, const KnnParams& params, JobControl& job);
    /// One tree's leaves of the distributed kNN graph, searched into their lists (KnnLeafSearch):
    /// the same lists, bit for bit, on every backend. threads: host threads to use.
    virtual void knnSearchLeaves(const KnnLeafSearch& leaves, int threads, JobControl& job);
    /// k-Shape clustering of one channel of the series (compute/kshape/kshape.h); backends
    /// agree within float rounding.
    /// @code cs::KShapeResult r = backend.kshape(series, {.k = 4}, job); @endcode
    virtual KShapeResult kshape(const SeriesSet& series, const KShapeParams& params,
                                JobControl& job);
    /// ROCKET features of every series under the kernels (compute/rocket/rocket.h); the same
    /// features, bit for bit, on every backend.
    /// @code auto k = cs::makeRocketKernels({.kernels = 10'000}, s.length, s.channels);
    /// cs::RocketFeatures f = backend.rocketTransform(s, k, job); @endcode
    virtual RocketFeatures rocketTransform(const SeriesSet& series, const RocketKernels& kernels,
                                           JobControl& job);
    /// MiniRocket's and MultiRocket's biases (compute/rocket/minirocket.h): fills every
    /// representation's biases from its combinations' fitting examples (rows of `series`). The
    /// default runs on the host (fitMiniRocketBiasesHost); a backend that overrides it gives the
    /// same biases (bit for bit, or as its tests state).
    /// @code auto m = cs::makeMiniRocketModel(params, s, cs::miniRocketFitRows(s));
    /// backend.miniRocketFitBiases(s, m, job); @endcode
    virtual void miniRocketFitBiases(const SeriesSet& series, MiniRocketModel& model,
                                     JobControl& job);
    /// MiniRocket or MultiRocket features of every series under a fitted model
    /// (compute/rocket/minirocket.h: n x featureCount() x layers()). The default runs on the
    /// host (miniRocketTransformHost).
    /// @code cs::RocketFeatures f = backend.miniRocketTransform(s, m, job); @endcode
    virtual RocketFeatures miniRocketTransform(const SeriesSet& series,
                                               const MiniRocketModel& model, JobControl& job);
    /// The ridge classifier on the rows with a label >= 0 (compute/rocket/ridge.h). The default
    /// runs on the host (fitRidgeClassifier).
    virtual RidgeModel ridgeFit(const RocketFeatures& features,
                                std::span<const std::int32_t> labels, int classes,
                                const RidgeParams& params, JobControl& job);

    /// The 3-D view of sparse rows (sparsePcaCoords, compute/core/sparse_pca.h, seed 1) computed
    /// where the backend runs: the host's view up to rounding. Unlike the methods above, safe to
    /// call from any thread beside this backend's jobs (a file loader's). The default runs on
    /// the host.
    /// @code std::vector<float> xyz = backend.sparseView(rows, job); @endcode
    virtual std::vector<float> sparseView(const SparseSet& rows, JobControl& job);

protected:
    /// Thrown by the defaults above: this backend does not implement the algorithm (yet).
    [[noreturn]] void unsupported(std::string_view algorithm) const;
};

}  // namespace cs
