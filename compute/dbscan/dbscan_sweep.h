// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compute/dbscan/dbscan.h"

namespace cs {

// An eps x MinPts sweep: DBSCAN (semantics in dbscan.h) at every pair of a grid of eps values and
// MinPts values, in one job, summarised per cell. Backends count each point's neighbours once
// per eps and derive every MinPts's core points and clusters from those counts; each cell is
// exactly what a plain DBSCAN run with that eps and MinPts gives.

/// The grid of a sweep.
struct DbscanSweepParams {
    std::vector<float> eps;              ///< eps values, ascending, finite, >= 0 (at least one)
    std::vector<int> minPts;             ///< MinPts values, ascending, >= 1 (at least one)
    bool star = false;                   ///< DBSCAN*: border points are noise
    DbscanPath path = DbscanPath::Auto;  ///< neighbour search, as for DbscanParams
};

/// One cell of a sweep: what DBSCAN with (eps, minPts) gives.
struct DbscanSweepCell {
    float eps = 0.0f;
    int minPts = 1;
    std::int32_t clusters = 0;  ///< clusters found
    double noiseShare = 0.0;    ///< noise points / all points (0 for no points)
    double largestShare = 0.0;  ///< members of the largest cluster / all points
};

/// A finished sweep: cells eps-major, cells[e * minPts.size() + m].
struct DbscanSweepResult {
    std::vector<float> eps;
    std::vector<int> minPts;
    std::vector<DbscanSweepCell> cells;
    const DbscanSweepCell& at(std::size_t e, std::size_t m) const {
        return cells[e * minPts.size() + m];
    }
};

/// Throws cs::Error when a grid is empty, not ascending, or holds a value DBSCAN refuses.
void validateDbscanSweepParams(const DbscanSweepParams& params);

/// The cell a plain DBSCAN result stands for (n points).
DbscanSweepCell dbscanSweepCell(const DbscanResult& result, float eps, int minPts);

/// `count` eps values log-spaced from lo to hi (both included; count 1 gives lo). Throws
/// cs::Error unless 0 < lo <= hi are finite and count >= 1.
std::vector<float> logSpacedEps(float lo, float hi, int count);

/// The default grid around a centre eps (the knee of the k-distance curve, or the eps in use):
/// 16 eps values log-spaced over [centre / 4, centre * 4] and MinPts 3 to 20.
/// @code auto p = cs::defaultDbscanSweep(2.5f); p.star = false; @endcode
DbscanSweepParams defaultDbscanSweep(float centreEps, int epsCount = 16, int minPtsFrom = 3,
                                     int minPtsTo = 20);

/// A run of consecutive eps values over which the cluster count does not change.
struct DbscanPlateau {
    std::size_t first = 0, last = 0;  ///< eps indices, inclusive
    std::int32_t clusters = 0;        ///< the count along the run
    float eps = 0.0f;                 ///< the eps in its middle: the suggestion
};

/// The plateau of one MinPts column (index m): the longest run of consecutive eps values with
/// the same cluster count of at least 2 (ties: the one at smaller eps), and its middle eps value
/// (the lower middle for an even run). On log-spaced eps, length is a ratio of eps: a structure
/// that DBSCAN separates over a wide ratio of radii is what the data holds, while counts that
/// change at every step are fragments of sparse parts (small eps) or merges (large eps). One
/// cluster is not a plateau: at large eps everything merges into one over a long run. nullopt
/// when no count >= 2 occurs.
std::optional<DbscanPlateau> dbscanPlateau(const DbscanSweepResult& sweep, std::size_t m);

/// The sweep as a CSV table: a header "eps,minPts,clusters,noise_share,largest_share", one row
/// per cell, eps-major; eps in its shortest form that reads back as the same float.
std::string dbscanSweepCsv(const DbscanSweepResult& sweep);
/// The sweep as one JSON object: {"eps":[...],"minPts":[...],"cells":[{...}, ...]}.
std::string dbscanSweepJson(const DbscanSweepResult& sweep);

}  // namespace cs
