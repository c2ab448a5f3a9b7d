// SPDX-License-Identifier: MIT
#include "compute/dbscan/eps_suggestion.h"

#include "compute/dbscan/dbscan_cpu.h"

namespace cs {

EpsSuggestion suggestDbscanEps(Backend& backend, const PointSet& points,
                               std::span<const float> sortedKDistance, const DbscanParams& params,
                               JobControl& job) {
    if (sortedKDistance.empty()) return {};
    return suggestDbscanEpsAroundKnee(backend, points, kDistanceKnee(sortedKDistance).distance,
                                      params, job);
}

EpsSuggestion suggestDbscanEpsAroundKnee(Backend& backend, const PointSet& points, float knee,
                                         const DbscanParams& params, JobControl& job) {
    EpsSuggestion s;
    s.knee = knee;
    s.eps = s.knee;
    if (!(s.knee > 0.0f)) return s;
    // The backend's own path: the cells are the same on every path.
    DbscanSweepParams sweep{.eps = logSpacedEps(s.knee / 4.0f, s.knee * 4.0f, kSuggestionSweepEps),
                            .minPts = {params.minPts},
                            .star = params.star};
    s.sweep = backend.dbscanSweep(points, sweep, job);
    s.plateau = dbscanPlateau(s.sweep, 0);
    if (s.plateau) s.eps = s.plateau->eps;
    return s;
}

}  // namespace cs
