// SPDX-License-Identifier: MIT
#include "compute/core/series_set.h"

#include <cmath>

#include "compute/core/error.h"
#include "compute/core/finite.h"

namespace cs {

bool SeriesSet::equalLength() const {
    for (auto l : lengths)
        if (l != length) return false;
    return true;
}

void SeriesSet::validate() const {
    const auto num = [](std::size_t v) { return std::to_string(v); };
    if (values.size() != n * channels * length)
        throw Error("series set holds " + num(values.size()) + " values, expected " + num(n) +
                    " x " + num(channels) + " x " + num(length));
    if (lengths.size() != n)
        throw Error("series set has " + num(lengths.size()) + " lengths for " + num(n) + " series");
    if (!labels.empty() && labels.size() != n)
        throw Error("series set has " + num(labels.size()) + " labels for " + num(n) + " series");
    if (!targets.empty() && targets.size() != n)
        throw Error("series set has " + num(targets.size()) + " targets for " + num(n) + " series");
    if (!isTest.empty() && isTest.size() != n)
        throw Error("series set has " + num(isTest.size()) + " split flags for " + num(n) +
                    " series");
    for (std::size_t i = 0; i < n; ++i) {
        if (lengths[i] > length || lengths[i] == 0)
            throw Error("series " + num(i) + " has length " + num(lengths[i]) + " outside 1.." +
                        num(length));
        if (!labels.empty() &&
            (labels[i] < -1 || labels[i] >= static_cast<std::int32_t>(classNames.size())))
            throw Error("series " + num(i) + " has label " + std::to_string(labels[i]) +
                        " but there are " + num(classNames.size()) + " classes");
    }
    for (std::size_t i = 0; i < targets.size(); ++i)
        if (std::isinf(targets[i])) throw Error("series " + num(i) + " has an infinite target");
    if (const std::size_t k = firstNonFinite(values); k < values.size())
        throw Error("series " + num(k / (channels * length)) + " has a non-finite value");
}

}  // namespace cs
