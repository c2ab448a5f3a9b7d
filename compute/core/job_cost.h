// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace cs {

/// Distance evaluations from which a job is announced as costly before it starts: the CLI
/// warns, the GUI asks first. Measured for the k-distance on 2 cores: 1e10 is one to three
/// minutes.
inline constexpr double kCostlyEvaluations = 1e10;

/// What a job is about to cost, estimated from its sizes before it starts.
/// @code
/// const cs::JobCost cost = cs::kDistanceCostCpu(points.n, points.dims, k);
/// if (cost.costly()) std::cerr << "kdist: " << cost.text() << '\n';
/// @endcode
struct JobCost {
    double evaluations = 0.0;  ///< distance evaluations, about
    std::string formula;       ///< how they are counted: "N^2", "N (2k + 100)"
    /// evaluations >= kCostlyEvaluations.
    bool costly() const { return evaluations >= kCostlyEvaluations; }
    /// The words the CLI and the GUI both show: "about N^2 = 2.8e10 distance evaluations, this
    /// may take minutes".
    std::string text() const;
};

}  // namespace cs
