// SPDX-License-Identifier: MIT
#pragma once

#include "compute/backend/backend.h"

namespace cs {

/// The reference backend: plain C++, exact, multithreaded; the oracle of every GPU test.
class CpuBackend final : public Backend {
public:
    /// threads = 0: one per hardware thread.
    explicit CpuBackend(int threads = 0);
    std::string name() const override { return "cpu"; }
    BackendInfo info() const override;
    /// Exact, multithreaded DBSCAN (dbscanCpu): the oracle of the GPU tests.
    DbscanResult dbscan(const PointSet& points, const DbscanParams& params,
                        JobControl& job) override;
    /// The eps x MinPts sweep on this backend's threads (dbscanSweepCpu).
    DbscanSweepResult dbscanSweep(const PointSet& points, const DbscanSweepParams& params,
                                  JobControl& job) override;
    /// Exact k-distance curve (kDistanceCpu).
    KDistanceResult kDistance(const PointSet& points, int k, JobControl& job) override;
    /// The random-projection forest kNN graph (knnGraphCpu): the oracle of the GPU tests.
    KnnGraph knnGraph(const PointSet& points, const KnnParams& params, JobControl& job) override;
    /// k-Shape (kshapeCpu): FFTW3 cross-correlations, Eigen shapes; the oracle of the GPU tests.
    KShapeResult kshape(const SeriesSet& series, const KShapeParams& params,
                        JobControl& job) override;
    /// ROCKET features (rocketTransformCpu): the oracle of the GPU tests.
    RocketFeatures rocketTransform(const SeriesSet& series, const RocketKernels& kernels,
                                   JobControl& job) override;
    /// MiniRocket's biases on this backend's threads (fitMiniRocketBiasesHost).
    void miniRocketFitBiases(const SeriesSet& series, MiniRocketModel& model,
                             JobControl& job) override;
    /// MiniRocket / MultiRocket features on this backend's threads (miniRocketTransformHost).
    RocketFeatures miniRocketTransform(const SeriesSet& series, const MiniRocketModel& model,
                                       JobControl& job) override;
    /// Worker threads the algorithms use.
    int threads() const { return m_threads; }

private:
    int m_threads;
};

}  // namespace cs
