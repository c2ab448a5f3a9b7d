// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cs {

struct ItemSubset;

/// N rows x `dims` columns of a sparse matrix in CSR form (SciPy's csr_matrix, a libsvm file):
/// row i holds the columns indices[indptr[i] .. indptr[i + 1]) with the values at the same
/// places. Columns of a row are strictly ascending (no repeats), every value finite; columns
/// not listed are 0. A row may be empty (the zero vector).
/// @code
/// cs::SparseSet s;  // [[0, 2, 0], [1, 0, 0]]
/// s.n = 2; s.dims = 3; s.indptr = {0, 1, 2}; s.indices = {1, 0}; s.values = {2, 1};
/// s.validate();
/// @endcode
struct SparseSet {
    std::size_t n = 0;                  ///< rows
    std::size_t dims = 0;               ///< columns (the dimension)
    std::vector<std::int64_t> indptr;   ///< n + 1 offsets into indices/values, indptr[0] = 0
    std::vector<std::int32_t> indices;  ///< nnz column indices, ascending within each row
    std::vector<float> values;          ///< nnz values
    std::vector<float> labels;          ///< per-row labels (libsvm's first column), or empty
    std::string source;                 ///< file path

    /// Stored entries (explicit zeros included).
    std::size_t nnz() const { return indices.size(); }
    /// Row i's column indices.
    std::span<const std::int32_t> rowIndices(std::size_t i) const {
        return {indices.data() + indptr[i], std::size_t(indptr[i + 1] - indptr[i])};
    }
    /// Row i's values.
    std::span<const float> rowValues(std::size_t i) const {
        return {values.data() + indptr[i], std::size_t(indptr[i + 1] - indptr[i])};
    }
    /// Stored entries over n * dims (0 for an empty matrix).
    double density() const;
    /// Throws cs::Error naming the first inconsistency: sizes, indptr not starting at 0 or
    /// decreasing, a column outside [0, dims), columns of a row not strictly ascending, a
    /// value that is not finite.
    void validate() const;
};

/// The subset's rows, labels included.
SparseSet subsetOf(const SparseSet& rows, const ItemSubset& subset);

/// Squared Euclidean distance of rows i and j: the sum of (a_c - b_c)^2 over the union of
/// their columns, ascending, in float without FMA (a missing column counts as 0). Symmetric
/// and deterministic: the sparse kNN graph's canonical distance.
float sparseDist2(const SparseSet& s, std::size_t i, std::size_t j);

}  // namespace cs
