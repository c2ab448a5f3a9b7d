// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>

namespace cs {

/// An empty list slot: after any real candidate in the (dist2, index) order, even one at an
/// infinite distance (indices are below INT32_MAX, validateKnnInput makes sure).
inline constexpr float kKnnEmptyDist2 = std::numeric_limits<float>::infinity();
inline constexpr std::int32_t kKnnEmptyIndex = std::numeric_limits<std::int32_t>::max();

/// Offers (d2, j) to a list of k (dist2, index) pairs sorted ascending. The caller has seen
/// d2 <= dist2[k - 1]. A neighbour already present has exactly the same d2 (the distances are
/// symmetric and deterministic), so it sits right before the insertion position.
inline void knnOffer(float* dist2, std::int32_t* index, int k, float d2, std::int32_t j) {
    const int last = k - 1;
    if (d2 == dist2[last] && j >= index[last]) return;  // after the last, or the last itself
    int p = last;
    while (p > 0 && (dist2[p - 1] > d2 || (dist2[p - 1] == d2 && index[p - 1] > j)))
        --p;
    if (p > 0 && dist2[p - 1] == d2 && index[p - 1] == j) return;  // already there
    for (int q = last; q > p; --q) {
        dist2[q] = dist2[q - 1];
        index[q] = index[q - 1];
    }
    dist2[p] = d2;
    index[p] = j;
}

/// Offers every entry of another list of k (dist2, index) pairs, sorted ascending with the
/// empty slots last, to the list (dist2, index): the list becomes the k smallest pairs of both
/// without repeats. Since knnOffer keeps the k smallest of what it was offered whatever the order,
/// lists built from parts of the candidates (the leaves of several devices) merge into the list
/// one pass over all the candidates builds.
inline void knnMergeList(float* dist2, std::int32_t* index, int k, const float* otherDist2,
                         const std::int32_t* otherIndex) {
    for (int q = 0; q < k; ++q) {
        // Sorted: nothing after an empty slot or a pair past the last one can enter.
        if (otherIndex[q] == kKnnEmptyIndex || otherDist2[q] > dist2[k - 1]) break;
        knnOffer(dist2, index, k, otherDist2[q], otherIndex[q]);
    }
}

}  // namespace cs
