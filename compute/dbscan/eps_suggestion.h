// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <span>

#include "compute/backend/backend.h"
#include "compute/dbscan/dbscan_sweep.h"

namespace cs {

/// A suggested eps for one MinPts, and how it was found.
struct EpsSuggestion {
    float knee = 0.0f;                     ///< the knee of the k-distance curve (k = MinPts)
    float eps = 0.0f;                      ///< the suggestion: the plateau's eps, else the knee
    std::optional<DbscanPlateau> plateau;  ///< the plateau along the sweep, if any
    DbscanSweepResult sweep;               ///< the eps sweep at this MinPts (one column)
};

/// The eps to suggest for minPts, given the sorted k-distance curve with k = minPts. The knee
/// alone sits where the curve bends, which on data with clusters of different densities is
/// often inside the range where sparse clusters still fall apart into fragments (the demo's
/// ring and sheets: 15 clusters at the knee, the 7 shapes from 1.5 times it). So the knee only
/// centres a sweep: 24 eps values log-spaced from a quarter to four times the knee at this
/// MinPts, and the suggestion is the middle of its plateau (dbscanPlateau: the longest run of
/// equal cluster counts >= 2), where the clustering does not depend on the exact eps. With no
/// plateau (one cluster or none all along), the knee. params gives MinPts and star; the sweep
/// takes the backend's own path (every path gives the same cells). Stages: the sweep's.
/// @code auto s = cs::suggestDbscanEps(backend, points, kd.sorted, {.minPts = 10}, job); @endcode
EpsSuggestion suggestDbscanEps(Backend& backend, const PointSet& points,
                               std::span<const float> sortedKDistance, const DbscanParams& params,
                               JobControl& job);

/// The same from the knee alone (kDistanceKnee of that curve): the sweep around it, for a
/// caller that kept the knee but not the curve (the GUI sweeps only when the user asks).
/// @code auto s = cs::suggestDbscanEpsAroundKnee(backend, points, 0.9f, {.minPts = 10}, job);
/// @endcode
EpsSuggestion suggestDbscanEpsAroundKnee(Backend& backend, const PointSet& points, float knee,
                                         const DbscanParams& params, JobControl& job);

/// eps values the suggestion sweeps.
inline constexpr int kSuggestionSweepEps = 24;

}  // namespace cs
