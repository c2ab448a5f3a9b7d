// SPDX-License-Identifier: MIT
#include "compute/core/sparse_set.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "compute/core/error.h"
#include "compute/core/item_subset.h"

namespace cs {

double SparseSet::density() const {
    const double cells = double(n) * double(dims);
    return cells > 0.0 ? double(nnz()) / cells : 0.0;
}

void SparseSet::validate() const {
    if (indptr.size() != n + 1)
        throw Error("a sparse set of " + std::to_string(n) + " rows needs " +
                    std::to_string(n + 1) + " row offsets, it has " +
                    std::to_string(indptr.size()));
    if (indptr[0] != 0)
        throw Error("the first row offset of a sparse set must be 0, it is " +
                    std::to_string(indptr[0]));
    if (values.size() != indices.size())
        throw Error("a sparse set has " + std::to_string(indices.size()) + " column indices but " +
                    std::to_string(values.size()) + " values");
    if (std::uint64_t(indptr[n]) != indices.size())
        throw Error("the last row offset of a sparse set is " + std::to_string(indptr[n]) +
                    ", not the number of stored entries " + std::to_string(indices.size()));
    if (!labels.empty() && labels.size() != n)
        throw Error("a sparse set of " + std::to_string(n) + " rows has " +
                    std::to_string(labels.size()) + " labels");
    for (std::size_t i = 0; i < n; ++i) {
        if (indptr[i + 1] < indptr[i])
            throw Error("row offsets decrease at row " + std::to_string(i) + " (" +
                        std::to_string(indptr[i]) + " then " + std::to_string(indptr[i + 1]) + ")");
        for (std::int64_t e = indptr[i]; e < indptr[i + 1]; ++e) {
            const std::int32_t c = indices[std::size_t(e)];
            if (c < 0 || std::size_t(c) >= dims)
                throw Error("row " + std::to_string(i) + " has column " + std::to_string(c) +
                            ", outside the " + std::to_string(dims) + " columns");
            if (e > indptr[i] && c <= indices[std::size_t(e - 1)])
                throw Error("row " + std::to_string(i) + " has column " + std::to_string(c) +
                            (c == indices[std::size_t(e - 1)]
                                 ? " twice"
                                 : " after column " + std::to_string(indices[std::size_t(e - 1)])) +
                            " (columns must be sorted and distinct)");
            if (!std::isfinite(values[std::size_t(e)]))
                throw Error("row " + std::to_string(i) + ", column " + std::to_string(c) +
                            " holds a value that is not finite");
        }
    }
}

SparseSet subsetOf(const SparseSet& s, const ItemSubset& subset) {
    if (subset.total != s.n)
        throw Error("a subset of " + std::to_string(subset.total) + " rows for a sparse set of " +
                    std::to_string(s.n));
    SparseSet out;
    out.n = subset.size();
    out.dims = s.dims;
    out.source = s.source;
    out.indptr.reserve(out.n + 1);
    out.indptr.push_back(0);
    for (std::uint32_t i : subset.indices) {
        const auto cols = s.rowIndices(i);
        const auto vals = s.rowValues(i);
        out.indices.insert(out.indices.end(), cols.begin(), cols.end());
        out.values.insert(out.values.end(), vals.begin(), vals.end());
        out.indptr.push_back(std::int64_t(out.indices.size()));
        if (!s.labels.empty()) out.labels.push_back(s.labels[i]);
    }
    return out;
}

float sparseDist2(const SparseSet& s, std::size_t i, std::size_t j) {
    const std::int32_t* a = s.indices.data() + s.indptr[i];
    const std::int32_t* ae = s.indices.data() + s.indptr[i + 1];
    const std::int32_t* b = s.indices.data() + s.indptr[j];
    const std::int32_t* be = s.indices.data() + s.indptr[j + 1];
    const float* av = s.values.data() + s.indptr[i];
    const float* bv = s.values.data() + s.indptr[j];
    float sum = 0.0f;
    // The union of the columns in ascending order: (x - y)^2 and (y - x)^2 are the same float,
    // so the distance is symmetric bit for bit (the list update relies on it).
    while (a != ae || b != be) {
        float diff;
        if (b == be || (a != ae && *a < *b)) {
            diff = *av++;
            ++a;
        } else if (a == ae || *b < *a) {
            diff = *bv++;
            ++b;
        } else {
            diff = *av++ - *bv++;
            ++a;
            ++b;
        }
        sum = sum + diff * diff;  // compute/ builds with -ffp-contract=off
    }
    return sum;
}

}  // namespace cs
