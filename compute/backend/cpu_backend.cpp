// SPDX-License-Identifier: MIT
#include "compute/backend/cpu_backend.h"

#include <fstream>
#include <string>
#include <thread>

#include "compute/dbscan/dbscan_cpu.h"
#include "compute/knn/knn_cpu.h"
#include "compute/knn/knn_sparse_cpu.h"
#include "compute/kshape/kshape_cpu.h"
#include "compute/rocket/rocket_cpu.h"

namespace cs {
namespace {

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    return "CPU";
}

}  // namespace

CpuBackend::CpuBackend(int threads)
    : m_threads(threads > 0 ? threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {
}

BackendInfo CpuBackend::info() const {
    BackendInfo i;
    i.name = "cpu";
    i.device = cpuModel();
    i.threads = m_threads;
    i.versions = "C++ " + std::to_string(__cplusplus);
    return i;
}

DbscanResult CpuBackend::dbscan(const PointSet& points, const DbscanParams& params,
                                JobControl& job) {
    return dbscanCpu(points, params, job, m_threads);
}

DbscanSweepResult CpuBackend::dbscanSweep(const PointSet& points, const DbscanSweepParams& params,
                                          JobControl& job) {
    return dbscanSweepCpu(points, params, job, m_threads);
}

KDistanceResult CpuBackend::kDistance(const PointSet& points, int k, JobControl& job) {
    return kDistanceCpu(points, k, job, m_threads);
}

KnnGraph CpuBackend::knnGraph(const PointSet& points, const KnnParams& params, JobControl& job) {
    // Sparse rows get their own path; their 3-D view (the coordinates) is only for drawing.
    if (points.sparse) return knnGraphSparseCpu(*points.sparse, params, job, m_threads);
    return knnGraphCpu(points, params, job, m_threads);
}

KShapeResult CpuBackend::kshape(const SeriesSet& series, const KShapeParams& params,
                                JobControl& job) {
    return kshapeCpu(series, params, job, m_threads);
}

RocketFeatures CpuBackend::rocketTransform(const SeriesSet& series, const RocketKernels& kernels,
                                           JobControl& job) {
    return rocketTransformCpu(series, kernels, job, m_threads);
}

void CpuBackend::miniRocketFitBiases(const SeriesSet& series, MiniRocketModel& model,
                                     JobControl& job) {
    fitMiniRocketBiasesHost(series, model, job, m_threads);
}

RocketFeatures CpuBackend::miniRocketTransform(const SeriesSet& series,
                                               const MiniRocketModel& model, JobControl& job) {
    return miniRocketTransformHost(series, model, job, m_threads);
}

}  // namespace cs
