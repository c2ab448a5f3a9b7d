// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "compute/core/sparse_set.h"

namespace cs {

class JobControl;

/// Columns of the subspace sparsePcaCoords iterates: three axes and five more for accuracy.
inline constexpr std::size_t kSparsePcaWidth = 8;

/// The two tall dense blocks and the products sparsePcaCoords works with, wherever they live:
/// the host (inside sparsePcaCoords) or a device (the CUDA backend's). Q has one row per column
/// some sparse row uses (ascending), Y one row per sparse row; both have width() columns and
/// are row-major doubles. X is the sparse rows; mean their column means (over all rows).
/// Small matrices (width x width) travel row-major in a std::vector<double>.
class SparsePcaProducts {
public:
    enum class Block { Q, Y };
    virtual ~SparsePcaProducts() = default;
    /// Rows of Q: the columns some row uses (0 for a matrix without entries).
    virtual std::size_t usedColumns() const = 0;
    /// Columns of both blocks: min(kSparsePcaWidth, usedColumns, rows).
    virtual std::size_t width() const = 0;
    /// Q = q (usedColumns x width, row-major).
    virtual void setQ(const std::vector<double>& q) = 0;
    /// Y = (X - 1 mean^T) Q.
    virtual void timesQ() = 0;
    /// Q = (X - 1 mean^T)^T Y.
    virtual void transposeTimesY() = 0;
    /// The Gram matrix B^T B of a block.
    virtual std::vector<double> gram(Block block) = 0;
    /// B = B map (map: width x width).
    virtual void rotate(Block block, const std::vector<double>& map) = 0;
    /// Y (rows x width, row-major).
    virtual std::vector<double> y() = 0;
};

/// A 3-D view of sparse rows: coordinates (n x 3, row-major) of the rows on their first three
/// principal components (the rows centred by their mean, found by randomized subspace
/// iteration with sparse x dense products, seeded, so the same rows give the same view).
/// Fewer than three columns or rows of rank below three leave the missing axes at 0. With a
/// job, checks for cancellation between products (throws cs::Cancelled). Runs on the host;
/// Backend::sparseView runs it where the backend runs.
/// @code std::vector<float> xyz = cs::sparsePcaCoords(rows); @endcode
std::vector<float> sparsePcaCoords(const SparseSet& rows, std::uint64_t seed = 1,
                                   JobControl* job = nullptr);

/// The same iteration over any products (the device's): rows is the number of sparse rows.
/// Every decision (the start, the orthonormalisations, the axes and their signs) is made here
/// on the host, so two implementations of the products differ only by their rounding.
std::vector<float> sparsePcaCoords(SparsePcaProducts& products, std::size_t rows,
                                   std::uint64_t seed, JobControl* job);

}  // namespace cs
