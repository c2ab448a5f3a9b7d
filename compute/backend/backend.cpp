// SPDX-License-Identifier: MIT
#include "compute/backend/backend.h"

#include <cmath>

#include "compute/core/error.h"
#include "compute/core/sparse_pca.h"
#include "compute/dbscan/dbscan_cpu.h"
#include "compute/knn/knn_cpu_parts.h"

namespace cs {

std::string BackendInfo::summary() const {
    if (name == "cpu") return "CPU · " + std::to_string(threads) + " threads";
    std::string text = "CUDA · " + device;
    if (memoryTotal > 0) {
        const auto gb = static_cast<long long>(std::llround(memoryFree / 1e9));
        text += " · " + std::to_string(gb) + " GB free";
    }
    return text;
}

std::shared_ptr<const DeviceResident> Backend::keepResident(std::shared_ptr<const PointSet>,
                                                            JobControl&) {
    return nullptr;
}

std::shared_ptr<const DeviceResident> Backend::keepSeriesResident(std::shared_ptr<const SeriesSet>,
                                                                  JobControl&) {
    return nullptr;
}

DbscanResult Backend::dbscan(const PointSet&, const DbscanParams&, JobControl&) {
    unsupported("DBSCAN");
}

DbscanSweepResult Backend::dbscanSweep(const PointSet& points, const DbscanSweepParams& params,
                                       JobControl& job) {
    return dbscanSweepCpu(points, params, job);
}

std::vector<ClusterOverlap> Backend::clusterOverlap(const DbscanResult& a, const DbscanResult& b,
                                                    JobControl& job) {
    const auto stage = job.stage("overlap");
    return cs::clusterOverlap(a.labels, a.clusterCount, b.labels, b.clusterCount);
}

DbscanRematch Backend::dbscanMatched(const PointSet& points, const DbscanParams& params,
                                     const DbscanResult* previous, JobControl& job,
                                     const OverlapUse& useOverlap) {
    DbscanRematch out;
    out.result = dbscan(points, params, job);
    if (previous && previous->labels.size() == out.result.labels.size())
        out.overlap = clusterOverlap(*previous, out.result, job);
    if (useOverlap) {
        fillClusterSizes(out.result);
        useOverlap(out.overlap, out.result.stats.clusterSizes);
    }
    return out;
}

void Backend::setDevices(const std::vector<int>&) {
    throw Error("--devices chooses CUDA devices, but the " + name() +
                " backend runs on no device; use --backend cuda");
}

KDistanceResult Backend::kDistance(const PointSet&, int, JobControl&) {
    unsupported("k-distance");
}

KnnGraph Backend::knnGraph(const PointSet&, const KnnParams&, JobControl&) {
    unsupported("the kNN graph");
}

void Backend::knnSearchLeaves(const KnnLeafSearch& leaves, int threads, JobControl& job) {
    knn_parts::searchLeaves(leaves.coords.data(), leaves.dims, leaves.k, leaves.order.data(),
                            leaves.leafOffsets, leaves.ids.data(), leaves.dist2.data(),
                            leaves.index.data(), threads, job);
}

KShapeResult Backend::kshape(const SeriesSet&, const KShapeParams&, JobControl&) {
    unsupported("k-Shape");
}

RocketFeatures Backend::rocketTransform(const SeriesSet&, const RocketKernels&, JobControl&) {
    unsupported("ROCKET");
}

void Backend::miniRocketFitBiases(const SeriesSet& series, MiniRocketModel& model,
                                  JobControl& job) {
    fitMiniRocketBiasesHost(series, model, job);
}

RocketFeatures Backend::miniRocketTransform(const SeriesSet& series, const MiniRocketModel& model,
                                            JobControl& job) {
    return miniRocketTransformHost(series, model, job);
}

RidgeModel Backend::ridgeFit(const RocketFeatures& features, std::span<const std::int32_t> labels,
                             int classes, const RidgeParams& params, JobControl& job) {
    return fitRidgeClassifier(features.values, features.n, features.columns(), labels, classes,
                              params, job);
}

std::vector<float> Backend::sparseView(const SparseSet& rows, JobControl& job) {
    return sparsePcaCoords(rows, 1, &job);
}

void Backend::unsupported(std::string_view algorithm) const {
    throw BackendUnavailable("the " + name() + " backend cannot run " + std::string(algorithm));
}

}  // namespace cs
