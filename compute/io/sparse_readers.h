// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>

#include "compute/core/point_set.h"
#include "compute/core/sparse_set.h"

namespace cs::io {

// Sparse-matrix readers. Each throws cs::InputError naming the file and the problem for a
// truncated or malformed file, an empty matrix, a column outside the dimension, columns of a
// row unsorted or repeated, or a value that is not finite (sparse rows are never dropped: a
// missing row would shift every index after it).

/// SciPy's `.npz` CSR as `scipy.sparse.save_npz` writes it, compressed or not: members
/// indices, indptr, data, shape (int, 2 values) and format ('csr'); int32/int64 indices and
/// offsets, float32/float64 (or integer) data, little or big endian. A csr_array's
/// `_is_array` member is ignored; any other format (csc, coo ...) is refused.
SparseSet readSparseNpz(const std::filesystem::path& file);
/// libsvm / svmlight text: `label idx:val idx:val ... [# comment]` per row, indices 1-based
/// and ascending, `qid:N` ignored, '#' lines comments, blank lines skipped. The dimension is
/// the largest index; the labels are kept in SparseSet::labels.
SparseSet readSvmLight(const std::filesystem::path& file);

/// True for the extensions of sparse files: .npz, .svm, .libsvm, .svmlight.
bool isSparseFile(const std::filesystem::path& file);
/// readSparseNpz for .npz, readSvmLight for the others.
SparseSet readSparse(const std::filesystem::path& file);

/// A sparse file as points: the rows' 3-D principal-component view (the ReadScope's backend's
/// sparseView, else sparsePcaCoords on the host) as coordinates pc1..pc3, PointSet::sparse
/// holding the rows, the labels of a libsvm file as a "label" attribute (categories when every
/// label is an integer).
/// @code cs::PointSet p = cs::io::readSparsePoints("news20.svm"); // p.sparse->nnz() @endcode
PointSet readSparsePoints(const std::filesystem::path& file);

/// How writeSparseNpz stores the arrays.
struct NpzLayout {
    bool compressed = true;      ///< deflate (save_npz's default) or stored
    bool wideIndices = false;    ///< int64 indices and indptr (int32 otherwise)
    bool doubleValues = false;   ///< float64 data (float32 otherwise)
    const char* format = "csr";  ///< the format member (anything else makes a file we refuse)
};
/// Writes rows as `scipy.sparse.save_npz` would (scipy.sparse.load_npz reads it back); throws
/// cs::Error naming the file when it cannot be written.
void writeSparseNpz(const std::filesystem::path& file, const SparseSet& rows,
                    const NpzLayout& layout = {});

}  // namespace cs::io
