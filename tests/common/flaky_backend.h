// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <string>

#include "compute/backend/backend.h"
#include "compute/backend/cpu_backend.h"
#include "compute/core/error.h"

namespace cs::test {

/// The CPU backend, whose algorithm runs fail on request with "the stand-in backend fails on
/// purpose": a run that would fail on every backend, for the panels' failure paths.
class FlakyBackend : public cs::Backend {
public:
    std::atomic<bool> fail{false};

    std::string name() const override { return "flaky-cpu"; }
    cs::BackendInfo info() const override { return m_cpu.info(); }
    cs::DbscanResult dbscan(const cs::PointSet& points, const cs::DbscanParams& params,
                            cs::JobControl& job) override {
        failIfAsked();
        return m_cpu.dbscan(points, params, job);
    }
    cs::KnnGraph knnGraph(const cs::PointSet& points, const cs::KnnParams& params,
                          cs::JobControl& job) override {
        failIfAsked();
        return m_cpu.knnGraph(points, params, job);
    }
    cs::KShapeResult kshape(const cs::SeriesSet& series, const cs::KShapeParams& params,
                            cs::JobControl& job) override {
        failIfAsked();
        return m_cpu.kshape(series, params, job);
    }
    cs::RocketFeatures rocketTransform(const cs::SeriesSet& series,
                                       const cs::RocketKernels& kernels,
                                       cs::JobControl& job) override {
        failIfAsked();
        return m_cpu.rocketTransform(series, kernels, job);
    }

private:
    void failIfAsked() const {
        if (fail) throw cs::Error("the stand-in backend fails on purpose");
    }

    cs::CpuBackend m_cpu{2};
};

}  // namespace cs::test
