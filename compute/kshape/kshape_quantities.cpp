// SPDX-License-Identifier: MIT
#include "compute/kshape/kshape_quantities.h"

#include <algorithm>

#include "compute/core/error.h"

namespace cs {

SeriesGroups kshapeGroups(const SeriesSet& series, std::shared_ptr<const KShapeResult> result,
                          std::size_t channel) {
    SeriesGroups g;
    if (!result) return g;
    const KShapeResult& r = *result;
    if (r.labels.size() != series.n || channel >= std::max<std::size_t>(series.channels, 1))
        throw Error("a k-Shape result of " + std::to_string(r.labels.size()) + " series (channel " +
                    std::to_string(channel) + ") for a set of " + std::to_string(series.n));
    g.groups = std::size_t(std::max(r.k, 0));
    g.length = r.length;
    g.channel = channel;
    g.groupOf.assign(r.labels.begin(), r.labels.end());
    g.summaries = r.centroids;
    g.members = kshapeInput(series, channel);
    for (std::size_t i = 0; i < series.n && i < r.shifts.size(); ++i) {
        if (r.shifts[i] == 0) continue;
        const std::span<float> row(g.members.data() + i * r.length, r.length);
        const std::vector<float> aligned = shiftZeroFilled(row, r.shifts[i]);
        std::copy(aligned.begin(), aligned.end(), row.begin());
    }
    g.method = "k-Shape";
    g.groupName = "cluster";
    g.summaryName = "centroid";
    g.memberNote = "z-normalised and shifted onto the centroid";
    g.owner = std::move(result);
    return g;
}

}  // namespace cs
