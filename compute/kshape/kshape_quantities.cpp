// SPDX-License-Identifier: MIT
#include "compute/kshape/kshape_quantities.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "compute/core/error.h"

namespace cs {

SeriesGroups kshapeGroups(const SeriesSet& series, std::shared_ptr<const KShapeResult> result,
                          std::optional<std::size_t> channel) {
    SeriesGroups g;
    if (!result) return g;
    const KShapeResult& r = *result;
    const std::size_t channels = channel ? 1 : series.channels;
    if (r.labels.size() != series.n || (channel && *channel >= series.channels) ||
        r.channels != channels || r.length != series.length)
        throw Error("a k-Shape result of " + std::to_string(r.labels.size()) + " series (" +
                    std::to_string(r.channels) + " channel(s) of length " +
                    std::to_string(r.length) + ") for a set of " + std::to_string(series.n) + " (" +
                    std::to_string(channels) + " channel(s) of length " +
                    std::to_string(series.length) + ")");
    g.groups = std::size_t(std::max(r.k, 0));
    g.length = r.length;
    g.channels = channels;
    g.channel = channel.value_or(0);
    g.groupOf.assign(r.labels.begin(), r.labels.end());
    g.summaries = r.centroids;
    g.members = kshapeInput(series, channel);
    // A shift by s moves sample t to t + s (shiftZeroFilled): what the member holds is its own
    // [0, len) moved by s and cut to the window; the rest is zeros, drawn as cliffs otherwise.
    g.validBegin.assign(series.n, 0);
    g.validEnd.assign(series.n, std::uint32_t(r.length));
    for (std::size_t i = 0; i < series.n; ++i) {
        const auto m = std::ptrdiff_t(r.length);
        const auto len = std::min<std::ptrdiff_t>(
            i < series.lengths.size() ? std::ptrdiff_t(series.lengths[i]) : m, m);
        const std::ptrdiff_t s = i < r.shifts.size() ? r.shifts[i] : 0;
        const std::ptrdiff_t begin = std::clamp<std::ptrdiff_t>(s, 0, m);
        const std::ptrdiff_t end = std::clamp<std::ptrdiff_t>(len + s, begin, m);
        g.validBegin[i] = std::uint32_t(begin);
        g.validEnd[i] = std::uint32_t(end);
    }
    for (std::size_t i = 0; i < series.n && i < r.shifts.size(); ++i) {
        if (r.shifts[i] == 0) continue;
        for (std::size_t d = 0; d < channels; ++d) {
            const std::span<float> row(g.members.data() + (i * channels + d) * r.length, r.length);
            const std::vector<float> aligned = shiftZeroFilled(row, r.shifts[i]);
            std::copy(aligned.begin(), aligned.end(), row.begin());
        }
    }
    g.method = "k-Shape";
    g.groupName = "cluster";
    g.summaryName = "centroid";
    g.memberNote = "z-normalised and shifted onto the centroid";
    g.owner = std::move(result);
    return g;
}

}  // namespace cs
