// SPDX-License-Identifier: MIT
#pragma once

// No CUDA header here: app/ and the CLI include this with a plain C++ compiler.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compute/backend/backend.h"

namespace cs::kernels {

class StreamHandles;
struct DevicePoints;
struct DbscanDeviceResult;

/// The CUDA implementation of cs::Backend, on one device (the first usable one), or with
/// setDevices() the kNN graph and the ROCKET transforms spread over several.
/// It owns the StreamHandles (stream, cuBLAS and cuSOLVER handles) its algorithms run on.
/// @code
/// auto backend = cs::kernels::createCudaBackend();   // throws cs::BackendUnavailable
/// std::cout << backend->info().summary();            // "CUDA · NVIDIA H200 · 139 GB free"
/// @endcode
class CudaBackend final : public cs::Backend {
public:
    /// Sets up device (an ordinal that probeCudaDevice() found usable); throws CudaError.
    explicit CudaBackend(int device);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }
    /// Device name, free/total memory now, driver, runtime, cuBLAS, cuFFT, cuSOLVER versions.
    BackendInfo info() const override;
    /// The default memory pool's high-water mark plus what cudaMemGetInfo, sampled every 25 ms
    /// on a thread of its own, saw used outside the pool.
    std::function<std::uint64_t()> watchDeviceMemory() override;
    /// CUDA devices on this machine (cudaGetDeviceCount), 0 when it fails.
    int deviceCount() const override;
    /// The device of context() first, then those the kNN graph and ROCKET also run on.
    std::vector<int> devices() const override;
    /// Moves to devices[0] (freeing the resident copies) when it is another device, and gives
    /// every further entry its own context: knnGraph spreads each tree's leaves over them
    /// (knnGraphMultiCuda), the ROCKET transforms the series (rocket_multi_gpu.h); everything
    /// else runs on devices[0]. An ordinal may repeat (two workers on one GPU, for testing).
    /// Throws cs::Error for an empty list, an ordinal that does not exist, or a device that
    /// cannot be set up.
    void setDevices(const std::vector<int>& devices) override;
    /// The recentred coordinates on the device (uploadRecentred), used by dbscan and kDistance
    /// for this very PointSet object while it lives.
    std::shared_ptr<const DeviceResident> keepResident(std::shared_ptr<const PointSet> points,
                                                       JobControl& job) override;
    /// The values and lengths on the device (DeviceSeries, kernels/interop/device_series.h).
    std::shared_ptr<const DeviceResident> keepSeriesResident(
        std::shared_ptr<const SeriesSet> series, JobControl& job) override;
    /// GPU DBSCAN (kernels/dbscan/dbscan_gpu.h): labels byte-identical to the CPU backend; the
    /// labels and core flags also stay on the device (DbscanResult::device) for GL interop.
    DbscanResult dbscan(const PointSet& points, const DbscanParams& params,
                        JobControl& job) override;
    /// The eps x MinPts sweep on the GPU (dbscanSweepCuda): counts once per eps, core flags,
    /// union-find and statistics per MinPts on the device; cells equal the CPU backend's.
    DbscanSweepResult dbscanSweep(const PointSet& points, const DbscanSweepParams& params,
                                  JobControl& job) override;
    /// The overlap with the previous run is counted on the GPU while the labels download, when
    /// previous left its labels there; as dbscan() and clusterOverlap() otherwise.
    /// useOverlap then runs on a thread of its own while the labels download.
    DbscanRematch dbscanMatched(const PointSet& points, const DbscanParams& params,
                                const DbscanResult* previous, JobControl& job,
                                const OverlapUse& useOverlap) override;
    /// On the GPU when both results left their labels there (this backend's dbscan) and 20 bytes
    /// a point are free there, for any number of clusters; on the host otherwise.
    std::vector<ClusterOverlap> clusterOverlap(const DbscanResult& a, const DbscanResult& b,
                                               JobControl& job) override;
    /// GPU k-distance curve, bit-identical to the CPU backend; k up to kKDistanceMaxK (256).
    KDistanceResult kDistance(const PointSet& points, int k, JobControl& job) override;

    /// GPU kNN graph (kernels/knn/knn_gpu.h), identical to the CPU backend's; the neighbour
    /// indices also stay on the device (KnnGraph::device) for the point view's edges.
    KnnGraph knnGraph(const PointSet& points, const KnnParams& params, JobControl& job) override;
    /// A share's leaf search on the first device (knnSearchLeavesCuda).
    void knnSearchLeaves(const KnnLeafSearch& leaves, int threads, JobControl& job) override;
    /// The sparse view on the first device (sparseViewCuda, kernels/sparse/sparse_view_gpu.h),
    /// on a stream and handles of its own (a loader's thread calls it beside this backend's
    /// jobs); on the host when the device has too little memory free for it.
    std::vector<float> sparseView(const SparseSet& rows, JobControl& job) override;

    /// GPU k-Shape (kernels/kshape/kshape_gpu.h): the CPU's clustering up to float rounding.
    KShapeResult kshape(const SeriesSet& series, const KShapeParams& params,
                        JobControl& job) override;
    /// GPU ROCKET features (kernels/rocket/rocket_gpu.h), bit-identical to the CPU backend's;
    /// they also stay on the device (RocketFeatures::device) for the feature map.
    RocketFeatures rocketTransform(const SeriesSet& series, const RocketKernels& kernels,
                                   JobControl& job) override;
    // On several devices the ROCKET features stay on the host only (RocketFeatures::device
    // null): the feature map and ridgeFit upload them, as for the CPU backend's.

    /// GPU MiniRocket/MultiRocket features (kernels/rocket/minirocket_gpu.h): the CPU's up to
    /// MPV's last bit; they also stay on the device like ROCKET's.
    RocketFeatures miniRocketTransform(const SeriesSet& series, const MiniRocketModel& model,
                                       JobControl& job) override;
    /// GPU ridge classifier (kernels/rocket/ridge_gpu.h): the CPU's model up to double
    /// rounding; from the device features when they are this backend's.
    RidgeModel ridgeFit(const RocketFeatures& features, std::span<const std::int32_t> labels,
                        int classes, const RidgeParams& params, JobControl& job) override;

    /// The CUDA device ordinal.
    int device() const { return m_device; }
    /// The context algorithms run on (one job at a time).
    StreamHandles& context() { return *m_context; }

private:
    struct Resident;
    /// The resident coordinates of points, or nullptr (then frees a copy whose set is gone).
    const DevicePoints* residentCoords(const PointSet& points);
    /// context() and then the further devices' contexts, one per worker.
    std::vector<StreamHandles*> workerContexts() const;
    /// dbscanCuda with the labels and core flags kept on the device (DbscanResult::device) and
    /// the grid kept with resident points; besideDownload as dbscanCuda takes it.
    DbscanResult dbscanKeepingLabels(
        const PointSet& points, const DbscanParams& params, JobControl& job,
        const std::function<void(const DbscanDeviceResult&, std::span<const std::uint32_t>)>&
            besideDownload);

    int m_device;
    std::string m_deviceName;
    std::string m_versions;
    // Shared with the device-resident results it made (DbscanResult::device), which free their
    // buffers on its stream.
    std::shared_ptr<StreamHandles> m_context;
    std::unique_ptr<Resident> m_resident;  // declared after the context: freed on its stream
    // The further devices of setDevices(), after m_device.
    std::vector<std::shared_ptr<StreamHandles>> m_more;
};

/// Where a usable CUDA device is, or why there is none.
struct CudaProbe {
    int device = -1;     ///< the first usable device ordinal, -1 when none
    std::string reason;  ///< empty when usable, else a sentence naming the CUDA error
};

/// Looks for a usable CUDA device (driver present and new enough, compute capability 7.5 or
/// newer) without throwing.
CudaProbe probeCudaDevice();

/// The CUDA backend on the first usable device. Throws cs::BackendUnavailable with a reason for
/// a user ("no CUDA driver on this machine (cudaErrorInsufficientDriver)", "no CUDA device
/// (cudaErrorNoDevice)" ...) when there is none.
std::shared_ptr<cs::Backend> createCudaBackend();

}  // namespace cs::kernels
