// SPDX-License-Identifier: MIT
#include "compute/knn/point_neighbours.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "compute/core/error.h"
#include "compute/core/geometry.h"
#include "compute/core/parallel.h"

namespace cs {
namespace {

constexpr std::size_t kPointsPerChunk = std::size_t(1) << 16;

// (squared distance, index): ordering the pairs orders by distance, then by index.
using Candidate = std::pair<float, std::size_t>;

// Keeps the `count` smallest candidates seen, sorted; an insertion sort wins for small counts,
// and a scan rejects almost every point with one comparison against the current worst.
struct BestList {
    std::size_t count = 0;
    std::vector<Candidate> best;

    void offer(const Candidate& c) {
        if (best.size() == count) {
            if (!(c < best.back())) return;
            best.pop_back();
        }
        best.insert(std::upper_bound(best.begin(), best.end(), c), c);
    }
};

}  // namespace

std::vector<Neighbour> nearestNeighbours(const PointSet& points, std::size_t query,
                                         std::size_t count, JobControl* job) {
    const std::size_t n = points.n, d = points.dims;
    if (query >= n)
        throw Error("point " + std::to_string(query) + " does not exist (the set has " +
                    std::to_string(n) + " points)");
    count = std::min(count, n - 1);
    if (count == 0 || d == 0) return {};
    const std::size_t chunks = (n + kPointsPerChunk - 1) / kPointsPerChunk;

    // recentredCoords' frame, computed without its n x d copy: the same bounds in double, and
    // each coordinate recentred on the fly with the same expression, so every distance is the
    // one the kNN graph and DBSCAN compare.
    std::vector<std::vector<double>> lo(chunks), hi(chunks);
    parallelFor(chunks, job, {}, [&](std::size_t c, unsigned) {
        lo[c].assign(d, std::numeric_limits<double>::infinity());
        hi[c].assign(d, -std::numeric_limits<double>::infinity());
        const auto [begin, end] = chunkRange(n, chunks, c);
        for (std::size_t i = begin; i < end; ++i)
            for (std::size_t j = 0; j < d; ++j) {
                const double v = points.coords[i * d + j];
                lo[c][j] = std::min(lo[c][j], v);
                hi[c][j] = std::max(hi[c][j], v);
            }
    });
    std::vector<double> centre(d);
    double widest = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        double l = lo[0][j], h = hi[0][j];
        for (std::size_t c = 1; c < chunks; ++c) {
            l = std::min(l, lo[c][j]);
            h = std::max(h, hi[c][j]);
        }
        centre[j] = 0.5 * (l + h);
        widest = std::max(widest, h - l);
    }
    const double scale = distanceScale(widest);
    const auto recentred = [&](std::size_t i, std::size_t j) {
        return static_cast<float>((double(points.coords[i * d + j]) - centre[j]) * scale);
    };
    std::vector<float> q(d);
    for (std::size_t j = 0; j < d; ++j)
        q[j] = recentred(query, j);

    std::vector<BestList> lists(chunks, BestList{count, {}});
    parallelFor(chunks, job, {}, [&](std::size_t c, unsigned) {
        std::vector<float> p(d);
        BestList& list = lists[c];
        list.best.reserve(count + 1);
        const auto [begin, end] = chunkRange(n, chunks, c);
        for (std::size_t i = begin; i < end; ++i) {
            if (i == query) continue;
            for (std::size_t j = 0; j < d; ++j)
                p[j] = recentred(i, j);
            list.offer({canonicalDist2(q.data(), p.data(), d), i});
        }
    });
    BestList merged{count, {}};
    for (const BestList& list : lists)
        for (const Candidate& c : list.best)
            merged.offer(c);

    std::vector<Neighbour> out;
    out.reserve(merged.best.size());
    for (const auto& [d2, index] : merged.best)
        out.push_back({index, static_cast<float>(double(std::sqrt(d2)) / scale)});
    return out;
}

}  // namespace cs
