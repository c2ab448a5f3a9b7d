// SPDX-License-Identifier: MIT
#include "kernels/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cusolverDn.h>
#include <library_types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <future>
#include <optional>
#include <thread>

#include "compute/backend/device_set.h"
#include "compute/core/error.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_memory.h"
#include "kernels/common/device_scope.h"
#include "kernels/common/device_series.h"
#include "kernels/common/staged_copy.h"
#include "kernels/common/stream_handles.h"
#include "kernels/dbscan/dbscan_gpu.h"
#include "kernels/dbscan/dbscan_launch.h"
#include "kernels/knn/knn_gpu.h"
#include "kernels/knn/knn_sparse_gpu.h"
#include "kernels/kshape/kshape_gpu.h"
#include "kernels/rocket/minirocket_gpu.h"
#include "kernels/rocket/ridge_gpu.h"
#include "kernels/rocket/rocket_gpu.h"
#include "kernels/rocket/rocket_multi_gpu.h"
#include "kernels/sparse/sparse_view_gpu.h"

namespace cs::kernels {
namespace {

// The PTX we embed is compute_75 (CMAKE_CUDA_ARCHITECTURES "90-real;75-virtual"), and nvcc 13
// cannot target anything older.
constexpr int kMinComputeCapability = 75;

std::string cudaVersionText(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string withCode(const std::string& sentence, cudaError_t status) {
    return sentence + " (" + cudaGetErrorName(status) + ")";
}

// Turns the answer of cudaGetDeviceCount into something a user can act on.
std::string reasonFor(cudaError_t status) {
    switch (status) {
        case cudaErrorInsufficientDriver: {
            int driver = 0;
            (void)cudaDriverGetVersion(&driver);
            (void)cudaGetLastError();
            if (driver == 0) return withCode("no CUDA driver on this machine", status);
            return withCode("the NVIDIA driver supports CUDA " + cudaVersionText(driver) +
                                " but this build needs CUDA " + cudaVersionText(CUDART_VERSION) +
                                "; update the NVIDIA driver",
                            status);
        }
        case cudaErrorNoDevice: {
            std::string text = "no CUDA device";
            if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
                text += " (CUDA_VISIBLE_DEVICES=\"" + std::string(visible) + "\")";
            return withCode(text, status);
        }
        case cudaErrorStubLibrary:
            return withCode("the CUDA driver library found is a stub, not an NVIDIA driver",
                            status);
        case cudaErrorSystemDriverMismatch:
            return withCode(
                "the NVIDIA kernel module and driver library versions differ; reboot or "
                "reinstall the NVIDIA driver",
                status);
        case cudaErrorDevicesUnavailable:
            return withCode("every CUDA device is busy or reserved by another process", status);
        case cudaErrorSystemNotReady:
            return withCode("the CUDA system is not ready yet (is the fabric manager running?)",
                            status);
        case cudaErrorCompatNotSupportedOnDevice:
            return withCode("the CUDA forward-compatibility driver does not support this GPU",
                            status);
        default:
            return withCode(std::string("CUDA cannot start: ") + cudaGetErrorString(status),
                            status);
    }
}

template <typename Status, typename Fn>
std::string libraryVersion(Fn getProperty, Status ok) {
    int major = 0;
    int minor = 0;
    int patch = 0;
    if (getProperty(MAJOR_VERSION, &major) != ok || getProperty(MINOR_VERSION, &minor) != ok ||
        getProperty(PATCH_LEVEL, &patch) != ok)
        return "?";
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

CudaProbe probeCudaDevice() {
    CudaProbe probe;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        probe.reason = reasonFor(status);
        return probe;
    }
    if (count == 0) {
        probe.reason = withCode("no CUDA device", cudaErrorNoDevice);
        return probe;
    }
    std::string skipped;
    for (int device = 0; device < count; ++device) {
        int major = 0;
        int minor = 0;
        int mode = cudaComputeModeDefault;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
                cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) !=
                cudaSuccess ||
            cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device) != cudaSuccess) {
            const cudaError_t error = cudaGetLastError();
            skipped += "; device " + std::to_string(device) + ": " + cudaGetErrorName(error);
            continue;
        }
        if (major * 10 + minor < kMinComputeCapability) {
            skipped += "; device " + std::to_string(device) + " is sm_" +
                       std::to_string(major * 10 + minor) + ", older than sm_75";
            continue;
        }
        if (mode == cudaComputeModeProhibited) {
            skipped += "; device " + std::to_string(device) + " is in prohibited compute mode";
            continue;
        }
        probe.device = device;
        return probe;
    }
    // skipped starts with "; ".
    probe.reason = "no usable CUDA device: " + skipped.substr(2);
    return probe;
}

/// One point set's coordinates kept on the device. The weak pointer identifies the set: while it
/// can be locked, no other set can sit at that address.
struct CudaBackend::Resident {
    std::weak_ptr<const PointSet> of;
    std::shared_ptr<DevicePoints> points;  // shared with the views that draw from it
    DbscanGridReuse dbscanGrid;            // DBSCAN's grid of the last eps on these points
    KnnForestReuse knnForest;              // the kNN graph's trees and recall sample
};

CudaBackend::CudaBackend(int device) : m_device(device) {
    DeviceScope scope(device);
    cudaDeviceProp prop{};
    CS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    m_deviceName = prop.name;

    int driver = 0;
    int runtime = 0;
    CS_CUDA_CHECK(cudaDriverGetVersion(&driver));
    CS_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    m_versions = "driver CUDA " + cudaVersionText(driver) + " · runtime CUDA " +
                 cudaVersionText(runtime) + " · cuBLAS " +
                 libraryVersion(cublasGetProperty, CUBLAS_STATUS_SUCCESS) + " · cuFFT " +
                 libraryVersion(cufftGetProperty, CUFFT_SUCCESS) + " · cuSOLVER " +
                 libraryVersion(cusolverGetProperty, CUSOLVER_STATUS_SUCCESS) + " · sm_" +
                 std::to_string(prop.major * 10 + prop.minor) + " · " +
                 std::to_string(prop.multiProcessorCount) + " SMs";

    m_context = std::make_shared<StreamHandles>(device);
}

CudaBackend::~CudaBackend() = default;

int CudaBackend::deviceCount() const {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

std::vector<int> CudaBackend::devices() const {
    std::vector<int> list{m_device};
    for (const auto& more : m_more)
        list.push_back(more->device());
    return list;
}

void CudaBackend::setDevices(const std::vector<int>& devices) {
    if (devices.empty()) throw Error("the CUDA backend needs at least one device");
    const int count = deviceCount();
    for (const int d : devices)
        if (d < 0 || d >= count)
            throw Error("CUDA device " + std::to_string(d) + " does not exist; this machine has " +
                        std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s"));
    try {
        std::vector<std::shared_ptr<StreamHandles>> more;
        for (std::size_t w = 1; w < devices.size(); ++w) {
            DeviceScope scope(devices[w]);  // StreamHandles makes its device current
            more.push_back(std::make_shared<StreamHandles>(devices[w]));
        }
        if (devices[0] != m_device) {
            // A fresh backend on the first device, whose name and versions this one takes.
            CudaBackend first(devices[0]);
            m_resident.reset();
            m_device = first.m_device;
            m_deviceName = first.m_deviceName;
            m_versions = first.m_versions;
            m_context = first.m_context;
        }
        m_more = std::move(more);
    } catch (const CudaError& e) {
        throw Error("CUDA devices " + deviceListText(devices) +
                    " could not be set up: " + e.what());
    }
}

std::vector<StreamHandles*> CudaBackend::workerContexts() const {
    std::vector<StreamHandles*> contexts{m_context.get()};
    for (const auto& more : m_more)
        contexts.push_back(more.get());
    return contexts;
}

std::shared_ptr<const DeviceResident> CudaBackend::keepResident(
    std::shared_ptr<const PointSet> points, JobControl& job) {
    m_resident.reset();
    if (!points || points->n == 0 || points->coords.size() != points->n * points->dims)
        return nullptr;
    try {
        DeviceScope scope(m_device);
        auto copy = std::make_shared<DevicePoints>(uploadRecentred(*m_context, *points, job));
        copy->context = m_context;
        // Finished before anyone else (the GUI thread's interop) reads it.
        m_context->synchronize();
        m_resident = std::make_unique<Resident>();
        m_resident->of = points;
        m_resident->points = copy;
        // A sixteenth of the device each for what live runs keep (DBSCAN's grid takes about
        // 3 GB at 30M points, a kNN tree 0.6 GB): an H200 keeps it for any cloud that fits, a
        // small card for the smaller ones, leaving the rest to the other lanes' jobs.
        m_resident->dbscanGrid.limitBytes = m_context->totalMemory() / 16;
        m_resident->knnForest.limitBytes = m_context->totalMemory() / 16;
        return copy;
    } catch (const CudaError&) {
        // Out of device memory, most likely: the algorithms upload per call instead.
        (void)cudaGetLastError();
        return nullptr;
    }
}

std::shared_ptr<const DeviceResident> CudaBackend::keepSeriesResident(
    std::shared_ptr<const SeriesSet> series, JobControl& job) {
    if (!series || series->n == 0 ||
        series->values.size() != series->n * series->channels * series->length)
        return nullptr;
    try {
        DeviceScope scope(m_device);
        const auto stage = job.stage("upload");
        const cudaStream_t s = m_context->stream();
        auto copy = std::make_shared<DeviceSeries>();
        copy->context = m_context;
        copy->values = DeviceBuffer<float>(series->values.size(), s);
        copyToDeviceStaged(copy->values.data(), series->values.data(), copy->values.bytes(),
                           m_device, s);
        copy->lengths = DeviceBuffer<std::uint32_t>(series->n, s);
        // Sets without lengths have every series at full length.
        const std::vector<std::uint32_t> lengths =
            series->lengths.size() == series->n
                ? series->lengths
                : std::vector<std::uint32_t>(series->n, std::uint32_t(series->length));
        copy->lengths.copyFromHost(lengths);
        copy->n = series->n;
        copy->channels = series->channels;
        copy->length = series->length;
        m_context->synchronize();  // finished before the GUI thread reads it
        return copy;
    } catch (const CudaError&) {
        (void)cudaGetLastError();
        return nullptr;
    }
}

const DevicePoints* CudaBackend::residentCoords(const PointSet& points) {
    if (!m_resident) return nullptr;
    const std::shared_ptr<const PointSet> of = m_resident->of.lock();
    if (!of) {
        m_resident.reset();
        return nullptr;
    }
    return of.get() == &points ? m_resident->points.get() : nullptr;
}

BackendInfo CudaBackend::info() const {
    BackendInfo info;
    info.name = "cuda";
    info.device = m_deviceName;
    if (!m_more.empty()) info.device += " · devices " + deviceListText(devices());
    try {
        DeviceScope scope(m_device);
        std::size_t free = 0;
        std::size_t total = 0;
        CS_CUDA_CHECK(cudaMemGetInfo(&free, &total));
        info.memoryFree = free;
        info.memoryTotal = total;
    } catch (const CudaError&) {
        // Leave the memory unknown (0) rather than fail a status query.
    }
    info.versions = m_versions;
    return info;
}

std::function<std::uint64_t()> CudaBackend::watchDeviceMemory() {
    // The default pool's own high-water mark counts the stream-ordered buffers, also those it
    // keeps cached between runs, which cudaMemGetInfo no longer sees; cudaMemGetInfo sampled on
    // a thread counts the rest (cuFFT's and cuBLAS's work areas, plain cudaMalloc). Their sum
    // is an upper bound of the peak: the two may peak at different times.
    struct Watch {
        std::atomic<bool> stop{false};
        cudaMemPool_t pool = nullptr;
        std::uint64_t before = 0, most = 0;  // outside the pool
        std::thread thread;
        ~Watch() {  // also when the function is dropped unused (a run that threw)
            stop = true;
            if (thread.joinable()) thread.join();
        }
    };
    auto watch = std::make_shared<Watch>();
    if (memoryPoolsSupported() &&
        cudaDeviceGetDefaultMemPool(&watch->pool, m_device) == cudaSuccess) {
        std::uint64_t zero = 0;
        if (cudaMemPoolSetAttribute(watch->pool, cudaMemPoolAttrUsedMemHigh, &zero) != cudaSuccess)
            watch->pool = nullptr;
    }
    std::promise<void> started;
    auto ready = started.get_future();
    // The thread has its own current device; all its CUDA calls are error codes, never throws.
    watch->thread = std::thread([w = watch.get(), device = m_device, &started] {
        const bool ok = cudaSetDevice(device) == cudaSuccess;
        const auto outsidePool = [ok, w]() -> std::uint64_t {
            std::size_t free = 0, total = 0;
            std::uint64_t reserved = 0;
            if (!ok || cudaMemGetInfo(&free, &total) != cudaSuccess) return 0;
            if (w->pool)
                (void)cudaMemPoolGetAttribute(w->pool, cudaMemPoolAttrReservedMemCurrent,
                                              &reserved);
            return std::max<std::uint64_t>(total - free, reserved) - reserved;
        };
        w->before = w->most = outsidePool();
        started.set_value();
        while (!w->stop.load(std::memory_order_relaxed)) {
            // cudaMemGetInfo can take milliseconds (freeMemory): sampled often, it would hold up
            // the measured run's own calls into the driver.
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
            w->most = std::max(w->most, outsidePool());
        }
    });
    ready.wait();
    return [watch] {
        if (watch->thread.joinable()) {
            watch->stop = true;
            watch->thread.join();
        }
        std::uint64_t pooled = 0;
        if (watch->pool)
            (void)cudaMemPoolGetAttribute(watch->pool, cudaMemPoolAttrUsedMemHigh, &pooled);
        return pooled + (watch->most - watch->before);
    };
}

DbscanResult CudaBackend::dbscan(const PointSet& points, const DbscanParams& params,
                                 JobControl& job) {
    return dbscanKeepingLabels(points, params, job, {});
}

DbscanResult CudaBackend::dbscanKeepingLabels(const PointSet& points, const DbscanParams& params,
                                              JobControl& job,
                                              const BesideDownload& besideDownload) {
    auto kept = std::make_shared<DbscanDeviceClusters>();
    kept->context = m_context;
    const DevicePoints* resident = residentCoords(points);
    DbscanResult result = dbscanCuda(*m_context, points, params, job, &kept->clusters, resident,
                                     resident ? &m_resident->dbscanGrid : nullptr, besideDownload);
    if (points.n > 0) result.device = std::move(kept);
    return result;
}

DbscanSweepResult CudaBackend::dbscanSweep(const PointSet& points, const DbscanSweepParams& params,
                                           JobControl& job) {
    return dbscanSweepCuda(*m_context, points, params, job, residentCoords(points));
}

namespace {

// The device labels of a result of this context's DBSCAN on n points, or nullptr.
const DbscanDeviceResult* deviceClusters(const DbscanResult& r,
                                         const std::shared_ptr<StreamHandles>& context,
                                         std::size_t n) {
    const auto* d = dynamic_cast<const DbscanDeviceClusters*>(r.device.get());
    if (!d || d->context != context || r.labels.size() != n || d->clusters.labels.size() != n ||
        r.clusterCount <= 0)
        return nullptr;
    return &d->clusters;
}

}  // namespace

DbscanRematch CudaBackend::dbscanMatched(const PointSet& points, const DbscanParams& params,
                                         const DbscanResult* previous, JobControl& job,
                                         const OverlapUse& useOverlap) {
    const DbscanDeviceResult* before =
        previous ? deviceClusters(*previous, m_context, points.n) : nullptr;
    if (!before) return Backend::dbscanMatched(points, params, previous, job, useOverlap);
    DeviceScope scope(m_device);  // take() and the count's buffers outlive dbscanCuda's scope
    std::optional<ClusterOverlapCount> counting;
    DbscanRematch out;
    // The table comes back and is used on a thread of its own while the labels download.
    // Declared after counting, so that it is joined before the count's buffers go.
    std::future<void> used;
    const auto countBesideDownload = [&](const DbscanDeviceResult& now,
                                         std::span<const std::uint32_t> clusterSizes) {
        if (now.clusterCount <= 0) return;
        try {
            counting.emplace(before->labels.data(), before->clusterCount, now.labels.data(),
                             now.clusterCount, points.n, m_context->stream());
        } catch (const DeviceError& e) {
            if (!e.outOfMemory()) throw;  // counted afterwards, on the host
            return;
        }
        used = std::async(std::launch::async, [&, sizes = std::vector<std::size_t>(
                                                      clusterSizes.begin(), clusterSizes.end())] {
            DeviceScope threadScope(m_device);
            out.overlap = counting->take();
            if (useOverlap) useOverlap(out.overlap, sizes);
        });
    };
    out.result = dbscanKeepingLabels(points, params, job, countBesideDownload);
    if (used.valid()) {
        const auto wait = job.stage("overlap after download");  // what the download did not hide
        used.get();
        return out;
    }
    out.overlap = Backend::clusterOverlap(*previous, out.result, job);
    if (useOverlap) useOverlap(out.overlap, out.result.stats.clusterSizes);
    return out;
}

std::vector<ClusterOverlap> CudaBackend::clusterOverlap(const DbscanResult& a,
                                                        const DbscanResult& b, JobControl& job) {
    const std::size_t n = a.labels.size();
    const DbscanDeviceResult* da = deviceClusters(a, m_context, n);
    const DbscanDeviceResult* db = deviceClusters(b, m_context, n);
    if (!da || !db) return Backend::clusterOverlap(a, b, job);
    DeviceScope scope(m_device);
    try {
        ScopedGpuStage stage(*m_context, job, "overlap");
        ClusterOverlapCount count(da->labels.data(), da->clusterCount, db->labels.data(),
                                  db->clusterCount, n, m_context->stream());
        std::vector<ClusterOverlap> table = count.take();
        stage.finish();
        return table;
    } catch (const DeviceError& e) {
        // The table needs 20 bytes a point on the device; without them the host counts it.
        if (!e.outOfMemory()) throw;
        return Backend::clusterOverlap(a, b, job);
    }
}

KDistanceResult CudaBackend::kDistance(const PointSet& points, int k, JobControl& job) {
    return kDistanceCuda(*m_context, points, k, job, DbscanPath::Auto, residentCoords(points));
}

KnnGraph CudaBackend::knnGraph(const PointSet& points, const KnnParams& params, JobControl& job) {
    auto kept = std::make_shared<KnnDeviceGraph>();
    kept->context = m_context;
    // Sparse rows take their own path, on the first device; the coordinates are only their
    // 3-D view.
    const DevicePoints* resident = points.sparse ? nullptr : residentCoords(points);
    KnnGraph graph =
        points.sparse ? knnGraphSparseCuda(*m_context, *points.sparse, params, job, &kept->indices)
                      : knnGraphMultiCuda(workerContexts(), points, params, job, &kept->indices,
                                          resident, resident ? &m_resident->knnForest : nullptr);
    kept->n = graph.n;
    kept->k = graph.k;
    graph.device = std::move(kept);
    return graph;
}

void CudaBackend::knnSearchLeaves(const KnnLeafSearch& leaves, int, JobControl& job) {
    knnSearchLeavesCuda(*m_context, leaves, job);
}

std::vector<float> CudaBackend::sparseView(const SparseSet& rows, JobControl& job) {
    StreamHandles ctx(m_context->device());
    if (ctx.shortOfMemory(sparseViewDeviceBytes(rows))) return Backend::sparseView(rows, job);
    return sparseViewCuda(ctx, rows, job);
}

KShapeResult CudaBackend::kshape(const SeriesSet& series, const KShapeParams& params,
                                 JobControl& job) {
    return kshapeCuda(*m_context, series, params, job);
}

RocketFeatures CudaBackend::rocketTransform(const SeriesSet& series, const RocketKernels& kernels,
                                            JobControl& job) {
    if (!m_more.empty()) return rocketTransformMultiCuda(workerContexts(), series, kernels, job);
    auto kept = std::make_shared<RocketDeviceFeatures>();
    kept->context = m_context;
    RocketFeatures features = rocketTransformCuda(*m_context, series, kernels, job, &kept->values);
    kept->n = features.n;
    kept->kernels = features.kernels;
    features.device = std::move(kept);
    return features;
}

RocketFeatures CudaBackend::miniRocketTransform(const SeriesSet& series,
                                                const MiniRocketModel& model, JobControl& job) {
    if (!m_more.empty()) return miniRocketTransformMultiCuda(workerContexts(), series, model, job);
    auto kept = std::make_shared<RocketDeviceFeatures>();
    kept->context = m_context;
    RocketFeatures features =
        miniRocketTransformCuda(*m_context, series, model, job, &kept->values);
    kept->n = features.n;
    kept->kernels = features.kernels;
    kept->layerCount = features.layers;
    features.device = std::move(kept);
    return features;
}

RidgeModel CudaBackend::ridgeFit(const RocketFeatures& features,
                                 std::span<const std::int32_t> labels, int classes,
                                 const RidgeParams& params, JobControl& job) {
    // Sizes and labels first (nothing is uploaded for a wrong call); the features' finiteness is
    // checked on the device (ridgeFitCuda), not by a host scan of gigabytes.
    validateRidgeShape(features.values.size(), features.n, features.columns(), labels, classes,
                       params);
    DeviceScope scope(m_device);
    const auto* onDevice = dynamic_cast<const RocketDeviceFeatures*>(features.device.get());
    if (onDevice && onDevice->context == m_context &&
        onDevice->values.size() == features.values.size())
        return ridgeFitCuda(*m_context, onDevice->values.data(), features.n, features.columns(),
                            labels, classes, params, job, features.values);
    DeviceBuffer<float> uploaded;
    {
        ScopedGpuStage stage(*m_context, job, "upload");
        uploaded = DeviceBuffer<float>(std::max<std::size_t>(features.values.size(), 1),
                                       m_context->stream());
        copyToDeviceStaged(uploaded.data(), features.values.data(),
                           features.values.size() * sizeof(float), m_device, m_context->stream());
    }
    return ridgeFitCuda(*m_context, uploaded.data(), features.n, features.columns(), labels,
                        classes, params, job, features.values);
}

std::shared_ptr<cs::Backend> createCudaBackend() {
    const CudaProbe probe = probeCudaDevice();
    if (probe.device < 0) throw cs::BackendUnavailable(probe.reason);
    try {
        return std::make_shared<CudaBackend>(probe.device);
    } catch (const CudaError& e) {
        throw cs::BackendUnavailable("CUDA device " + std::to_string(probe.device) +
                                     " could not be set up: " + e.what());
    }
}

}  // namespace cs::kernels
