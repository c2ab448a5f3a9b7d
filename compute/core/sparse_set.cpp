// SPDX-License-Identifier: MIT
#include "compute/core/sparse_set.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "compute/core/error.h"
#include "compute/core/item_subset.h"
#include "compute/core/job_control.h"
#include "compute/core/parallel.h"
#include "compute/core/random.h"

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

std::vector<float> sparsePcaCoords(const SparseSet& s, std::uint64_t seed, JobControl* job) {
    using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    constexpr int kAxes = 3, kOversample = 5, kPasses = 6;
    std::vector<float> out(s.n * kAxes, 0.0f);
    if (s.n == 0 || s.dims == 0) return out;
    // Only the columns some row uses: the others are zero in the centred rows too, and hashed
    // features (libsvm indices up to 2^31) would otherwise ask for dims x p doubles. Numbered in
    // ascending order, by a table over the columns where it is small beside the entries.
    std::vector<std::int32_t> column(s.nnz());
    std::size_t usedCount = 0;
    if (s.dims <= s.nnz() + 1024) {
        std::vector<std::int32_t> compact(s.dims, -1);
        for (const std::int32_t c : s.indices)
            compact[std::size_t(c)] = 0;
        for (std::int32_t& c : compact)
            if (c == 0) c = std::int32_t(usedCount++);
        for (std::size_t e = 0; e < s.nnz(); ++e)
            column[e] = compact[std::size_t(s.indices[e])];
    } else {
        std::vector<std::int32_t> used(s.indices);
        std::sort(used.begin(), used.end());
        used.erase(std::unique(used.begin(), used.end()), used.end());
        for (std::size_t e = 0; e < s.nnz(); ++e)
            column[e] = std::int32_t(std::lower_bound(used.begin(), used.end(), s.indices[e]) -
                                     used.begin());
        usedCount = used.size();
    }
    const Eigen::Index n = Eigen::Index(s.n), dims = Eigen::Index(usedCount);
    if (dims == 0) return out;
    const Eigen::Index p = std::min<Eigen::Index>(kAxes + kOversample, std::min(dims, n));

    Eigen::VectorXd mean = Eigen::VectorXd::Zero(dims);
    for (std::size_t e = 0; e < s.nnz(); ++e)
        mean[column[e]] += s.values[e];
    mean /= double(n);

    // The entries by column, rows ascending (a counting sort), so that the transposed product
    // runs a column at a time in parallel and adds in the order a pass over the rows would.
    std::vector<std::int64_t> columnStart(std::size_t(dims) + 1, 0);
    for (const std::int32_t c : column)
        ++columnStart[std::size_t(c) + 1];
    for (Eigen::Index c = 0; c < dims; ++c)
        columnStart[std::size_t(c) + 1] += columnStart[std::size_t(c)];
    std::vector<std::int32_t> rowOf(s.nnz());
    std::vector<float> valueOf(s.nnz());
    {
        std::vector<std::int64_t> next(columnStart.begin(), columnStart.end() - 1);
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::int64_t e = s.indptr[i]; e < s.indptr[i + 1]; ++e) {
                const auto at = std::size_t(next[std::size_t(column[std::size_t(e)])]++);
                rowOf[at] = std::int32_t(i);
                valueOf[at] = s.values[std::size_t(e)];
            }
    }
    const std::size_t workers = workersFor(0);

    // The centred rows X - 1 mean^T are never formed (they would be dense): products with them
    // are the sparse product less the mean's share. Each output row is one thread's, so the
    // result does not depend on the threads.
    auto times = [&](const Matrix& q) {  // (X - 1 mean^T) q: n x p
        Matrix y(n, q.cols());
        const Eigen::RowVectorXd shift = mean.transpose() * q;
        const Eigen::Index cols = q.cols();
        parallelRanges(s.n, workers, job, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t i = begin; i < end; ++i) {
                double* row = y.row(Eigen::Index(i)).data();
                for (Eigen::Index j = 0; j < cols; ++j)
                    row[j] = -shift[j];
                for (std::int64_t e = s.indptr[i]; e < s.indptr[i + 1]; ++e) {
                    const double v = s.values[std::size_t(e)];
                    const double* qRow = q.row(column[std::size_t(e)]).data();
                    for (Eigen::Index j = 0; j < cols; ++j)
                        row[j] += v * qRow[j];
                }
            }
        });
        return y;
    };
    auto transposeTimes = [&](const Matrix& y) {  // (X - 1 mean^T)^T y: dims x p
        Matrix z(dims, y.cols());
        const Eigen::Index cols = y.cols();
        parallelRanges(std::size_t(dims), workers, job,
                       [&](std::size_t begin, std::size_t end, unsigned) {
                           for (std::size_t c = begin; c < end; ++c) {
                               double* out = z.row(Eigen::Index(c)).data();
                               for (Eigen::Index j = 0; j < cols; ++j)
                                   out[j] = 0.0;
                               for (std::int64_t e = columnStart[c]; e < columnStart[c + 1]; ++e) {
                                   const double v = valueOf[std::size_t(e)];
                                   const double* yRow = y.row(rowOf[std::size_t(e)]).data();
                                   for (Eigen::Index j = 0; j < cols; ++j)
                                       out[j] += v * yRow[j];
                               }
                           }
                       });
        z -= mean * y.colwise().sum();
        return z;
    };
    // An orthonormal basis of a's columns by SVQB (Stathopoulos & Wu 2002) done twice: the
    // p x p Gram matrix (partial sums over fixed blocks of rows, added in block order, so the
    // result does not depend on the threads), its eigenvectors scaled by the eigenvalues'
    // inverse roots, and one product. Directions a holds only by rounding (data of rank below
    // p) are dropped, their columns left 0. Row-parallel, where a Householder QR was serial.
    constexpr std::size_t kGramBlocks = 64;
    auto svqb = [&](const Matrix& a) {
        const Eigen::Index rows = a.rows(), cols = a.cols();
        std::vector<Eigen::MatrixXd> partial(kGramBlocks, Eigen::MatrixXd::Zero(cols, cols));
        parallelFor(kGramBlocks, job, {.threads = unsigned(workers)}, [&](std::size_t b, unsigned) {
            const auto [begin, end] = chunkRange(std::size_t(rows), kGramBlocks, b);
            for (std::size_t i = begin; i < end; ++i)
                partial[b].selfadjointView<Eigen::Lower>().rankUpdate(
                    a.row(Eigen::Index(i)).transpose());
        });
        Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(cols, cols);
        for (const auto& g : partial)
            gram += g;
        gram = gram.selfadjointView<Eigen::Lower>();
        Eigen::VectorXd scale(cols);
        for (Eigen::Index j = 0; j < cols; ++j)
            scale[j] = gram(j, j) > 0.0 ? 1.0 / std::sqrt(gram(j, j)) : 0.0;
        const Eigen::MatrixXd scaled = scale.asDiagonal() * gram * scale.asDiagonal();
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(scaled);
        const double largest = std::max(eigen.eigenvalues().maxCoeff(), 0.0);
        Eigen::MatrixXd map = Eigen::MatrixXd::Zero(cols, cols);
        for (Eigen::Index j = 0; j < cols; ++j) {
            const double lambda = eigen.eigenvalues()[j];
            if (lambda > 1e-13 * largest)
                map.col(j) = scale.asDiagonal() * eigen.eigenvectors().col(j) / std::sqrt(lambda);
        }
        Matrix q(rows, cols);
        parallelRanges(std::size_t(rows), workers, job,
                       [&](std::size_t begin, std::size_t end, unsigned) {
                           for (std::size_t i = begin; i < end; ++i)
                               q.row(Eigen::Index(i)) = a.row(Eigen::Index(i)) * map;
                       });
        return q;
    };
    auto orthonormal = [&](const Matrix& a) { return svqb(svqb(a)); };

    Random random(seed);
    Matrix q(dims, p);
    for (Eigen::Index c = 0; c < dims; ++c)
        for (Eigen::Index j = 0; j < p; ++j)
            q(c, j) = random.normal();
    q = orthonormal(q);
    for (int pass = 0; pass < kPasses; ++pass) {
        if (job) job->checkpoint();
        q = orthonormal(transposeTimes(orthonormal(times(q))));
    }
    if (job) job->checkpoint();
    // Rayleigh-Ritz: the rows' coordinates in the subspace, rotated onto its principal axes.
    const Matrix y = times(q);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(Eigen::MatrixXd(y.transpose() * y));
    const Eigen::MatrixXd& v = eigen.eigenvectors();  // ascending eigenvalues
    const int axes = int(std::min<Eigen::Index>(kAxes, p));
    for (int a = 0; a < axes; ++a) {
        const Eigen::Index col = p - 1 - a;
        if (eigen.eigenvalues()[col] <= 1e-12 * std::max(1.0, eigen.eigenvalues()[p - 1]))
            continue;  // rank below three: that axis stays 0
        Eigen::VectorXd coord = y * v.col(col);
        // A fixed sign (the largest coordinate positive) so the view does not flip.
        Eigen::Index at = 0;
        coord.cwiseAbs().maxCoeff(&at);
        if (coord[at] < 0.0) coord = -coord;
        for (Eigen::Index i = 0; i < n; ++i)
            out[std::size_t(i) * kAxes + std::size_t(a)] = float(coord[i]);
    }
    return out;
}

}  // namespace cs
