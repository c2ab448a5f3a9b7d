// SPDX-License-Identifier: MIT
#include "compute/core/sparse_pca.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "compute/core/job_control.h"
#include "compute/core/parallel.h"
#include "compute/core/random.h"

namespace cs {

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Matrix smallOf(const std::vector<double>& values, std::size_t p) {
    return Eigen::Map<const Matrix>(values.data(), Eigen::Index(p), Eigen::Index(p));
}

std::vector<double> valuesOf(const Matrix& m) {
    return {m.data(), m.data() + m.size()};
}

// The products on the host, every output row one thread's, so that the result does not depend
// on the threads. The centred rows X - 1 mean^T are never formed (they would be dense):
// products with them are the sparse product less the mean's share.
class HostProducts final : public SparsePcaProducts {
public:
    HostProducts(const SparseSet& s, JobControl* job) : m_s(s), m_job(job) {
        // Only the columns some row uses: the others are zero in the centred rows too, and
        // hashed features (libsvm indices up to 2^31) would otherwise ask for dims x p doubles.
        // Numbered in ascending order, by a table over the columns where it is small beside
        // the entries.
        m_column.resize(s.nnz());
        std::size_t used = 0;
        if (s.dims <= s.nnz() + 1024) {
            std::vector<std::int32_t> compact(s.dims, -1);
            for (const std::int32_t c : s.indices)
                compact[std::size_t(c)] = 0;
            for (std::int32_t& c : compact)
                if (c == 0) c = std::int32_t(used++);
            for (std::size_t e = 0; e < s.nnz(); ++e)
                m_column[e] = compact[std::size_t(s.indices[e])];
        } else {
            std::vector<std::int32_t> sorted(s.indices);
            std::sort(sorted.begin(), sorted.end());
            sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
            for (std::size_t e = 0; e < s.nnz(); ++e)
                m_column[e] = std::int32_t(
                    std::lower_bound(sorted.begin(), sorted.end(), s.indices[e]) - sorted.begin());
            used = sorted.size();
        }
        m_used = used;
        m_width = std::min({kSparsePcaWidth, used, s.n});
        m_mean = Eigen::VectorXd::Zero(Eigen::Index(used));
        for (std::size_t e = 0; e < s.nnz(); ++e)
            m_mean[m_column[e]] += s.values[e];
        if (s.n) m_mean /= double(s.n);
        // The entries by column, rows ascending (a counting sort), so that the transposed
        // product runs a column at a time in parallel and adds in the order a pass over the rows
        // would.
        m_columnStart.assign(used + 1, 0);
        for (const std::int32_t c : m_column)
            ++m_columnStart[std::size_t(c) + 1];
        for (std::size_t c = 0; c < used; ++c)
            m_columnStart[c + 1] += m_columnStart[c];
        m_rowOf.resize(s.nnz());
        m_valueOf.resize(s.nnz());
        std::vector<std::int64_t> next(m_columnStart.begin(), m_columnStart.end() - 1);
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::int64_t e = s.indptr[i]; e < s.indptr[i + 1]; ++e) {
                const auto at = std::size_t(next[std::size_t(m_column[std::size_t(e)])]++);
                m_rowOf[at] = std::int32_t(i);
                m_valueOf[at] = s.values[std::size_t(e)];
            }
        m_workers = workersFor(0);
    }

    std::size_t usedColumns() const override { return m_used; }
    std::size_t width() const override { return m_width; }

    void setQ(const std::vector<double>& q) override {
        m_q = Eigen::Map<const Matrix>(q.data(), Eigen::Index(m_used), Eigen::Index(m_width));
    }

    void timesQ() override {
        const Eigen::Index cols = Eigen::Index(m_width);
        m_y.resize(Eigen::Index(m_s.n), cols);
        const Eigen::RowVectorXd shift = m_mean.transpose() * m_q;
        parallelRanges(m_s.n, m_workers, m_job, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t i = begin; i < end; ++i) {
                double* row = m_y.row(Eigen::Index(i)).data();
                for (Eigen::Index j = 0; j < cols; ++j)
                    row[j] = -shift[j];
                for (std::int64_t e = m_s.indptr[i]; e < m_s.indptr[i + 1]; ++e) {
                    const double v = m_s.values[std::size_t(e)];
                    const double* qRow = m_q.row(m_column[std::size_t(e)]).data();
                    for (Eigen::Index j = 0; j < cols; ++j)
                        row[j] += v * qRow[j];
                }
            }
        });
    }

    void transposeTimesY() override {
        const Eigen::Index cols = Eigen::Index(m_width);
        m_q.resize(Eigen::Index(m_used), cols);
        parallelRanges(m_used, m_workers, m_job, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t c = begin; c < end; ++c) {
                double* out = m_q.row(Eigen::Index(c)).data();
                for (Eigen::Index j = 0; j < cols; ++j)
                    out[j] = 0.0;
                for (std::int64_t e = m_columnStart[c]; e < m_columnStart[c + 1]; ++e) {
                    const double v = m_valueOf[std::size_t(e)];
                    const double* yRow = m_y.row(m_rowOf[std::size_t(e)]).data();
                    for (Eigen::Index j = 0; j < cols; ++j)
                        out[j] += v * yRow[j];
                }
            }
        });
        m_q -= m_mean * m_y.colwise().sum();
    }

    // Partial sums over fixed blocks of rows, added in block order, so that the result does
    // not depend on the threads.
    std::vector<double> gram(Block block) override {
        constexpr std::size_t kGramBlocks = 64;
        const Matrix& a = block == Block::Q ? m_q : m_y;
        const Eigen::Index cols = a.cols();
        std::vector<Eigen::MatrixXd> partial(kGramBlocks, Eigen::MatrixXd::Zero(cols, cols));
        parallelFor(kGramBlocks, m_job, {.threads = unsigned(m_workers)},
                    [&](std::size_t b, unsigned) {
                        const auto [begin, end] = chunkRange(std::size_t(a.rows()), kGramBlocks, b);
                        for (std::size_t i = begin; i < end; ++i)
                            partial[b].selfadjointView<Eigen::Lower>().rankUpdate(
                                a.row(Eigen::Index(i)).transpose());
                    });
        Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(cols, cols);
        for (const auto& g : partial)
            sum += g;
        return valuesOf(Matrix(sum.selfadjointView<Eigen::Lower>()));
    }

    void rotate(Block block, const std::vector<double>& map) override {
        Matrix& a = block == Block::Q ? m_q : m_y;
        const Matrix m = smallOf(map, m_width);
        parallelRanges(std::size_t(a.rows()), m_workers, m_job,
                       [&](std::size_t begin, std::size_t end, unsigned) {
                           for (std::size_t i = begin; i < end; ++i) {
                               const Eigen::RowVectorXd row = a.row(Eigen::Index(i)) * m;
                               a.row(Eigen::Index(i)) = row;
                           }
                       });
    }

    std::vector<double> y() override { return {m_y.data(), m_y.data() + m_y.size()}; }

private:
    const SparseSet& m_s;
    JobControl* m_job;
    std::vector<std::int32_t> m_column;  // each entry's column among the used ones
    std::size_t m_used = 0, m_width = 0, m_workers = 1;
    Eigen::VectorXd m_mean;
    std::vector<std::int64_t> m_columnStart;  // the entries by column: rows and values
    std::vector<std::int32_t> m_rowOf;
    std::vector<float> m_valueOf;
    Matrix m_q, m_y;
};

// The map that makes a block's columns orthonormal by SVQB (Stathopoulos & Wu 2002): the Gram
// matrix's eigenvectors, scaled by the inverse roots of its eigenvalues. Directions the block
// holds only by rounding (data of rank below the width) are dropped, their columns left 0.
std::vector<double> svqbMap(const std::vector<double>& gramValues, std::size_t p) {
    const Eigen::MatrixXd gram = smallOf(gramValues, p);
    const Eigen::Index cols = Eigen::Index(p);
    Eigen::VectorXd scale(cols);
    for (Eigen::Index j = 0; j < cols; ++j)
        scale[j] = gram(j, j) > 0.0 ? 1.0 / std::sqrt(gram(j, j)) : 0.0;
    const Eigen::MatrixXd scaled = scale.asDiagonal() * gram * scale.asDiagonal();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(scaled);
    const double largest = std::max(eigen.eigenvalues().maxCoeff(), 0.0);
    Matrix map = Matrix::Zero(cols, cols);
    for (Eigen::Index j = 0; j < cols; ++j) {
        const double lambda = eigen.eigenvalues()[j];
        if (lambda > 1e-13 * largest)
            map.col(j) = scale.asDiagonal() * eigen.eigenvectors().col(j) / std::sqrt(lambda);
    }
    return valuesOf(map);
}

// SVQB twice: once leaves the basis orthonormal only to about the square of the condition
// number times the rounding; the second pass starts from a well-conditioned block.
void orthonormalise(SparsePcaProducts& products, SparsePcaProducts::Block block) {
    for (int round = 0; round < 2; ++round)
        products.rotate(block, svqbMap(products.gram(block), products.width()));
}

}  // namespace

std::vector<float> sparsePcaCoords(SparsePcaProducts& products, std::size_t n, std::uint64_t seed,
                                   JobControl* job) {
    using Block = SparsePcaProducts::Block;
    constexpr std::size_t kAxes = 3;
    constexpr int kPasses = 6;
    std::vector<float> out(n * kAxes, 0.0f);
    const std::size_t dims = products.usedColumns(), p = products.width();
    if (n == 0 || dims == 0 || p == 0) return out;

    Random random(seed);
    std::vector<double> q(dims * p);
    for (double& v : q)
        v = random.normal();
    products.setQ(q);
    orthonormalise(products, Block::Q);
    for (int pass = 0; pass < kPasses; ++pass) {
        if (job) job->checkpoint();
        products.timesQ();
        orthonormalise(products, Block::Y);
        products.transposeTimesY();
        orthonormalise(products, Block::Q);
    }
    if (job) job->checkpoint();
    // Rayleigh-Ritz: the rows' coordinates in the subspace, rotated onto its principal axes
    // (the largest first); an axis of rank below three gets a zero column and stays 0.
    products.timesQ();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(
        Eigen::MatrixXd(smallOf(products.gram(Block::Y), p)));
    const Eigen::VectorXd& lambda = eigen.eigenvalues();  // ascending
    Matrix axesMap = Matrix::Zero(Eigen::Index(p), Eigen::Index(p));
    const std::size_t axes = std::min(kAxes, p);
    for (std::size_t a = 0; a < axes; ++a) {
        const Eigen::Index col = Eigen::Index(p - 1 - a);
        if (lambda[col] > 1e-12 * std::max(1.0, lambda[Eigen::Index(p - 1)]))
            axesMap.col(Eigen::Index(a)) = eigen.eigenvectors().col(col);
    }
    products.rotate(Block::Y, valuesOf(axesMap));
    const std::vector<double> y = products.y();
    for (std::size_t a = 0; a < axes; ++a) {
        // A fixed sign (the largest coordinate positive) so that the view does not flip.
        std::size_t at = 0;
        for (std::size_t i = 1; i < n; ++i)
            if (std::fabs(y[i * p + a]) > std::fabs(y[at * p + a])) at = i;
        const double sign = y[at * p + a] < 0.0 ? -1.0 : 1.0;
        for (std::size_t i = 0; i < n; ++i)
            out[i * kAxes + a] = float(sign * y[i * p + a]);
    }
    return out;
}

std::vector<float> sparsePcaCoords(const SparseSet& rows, std::uint64_t seed, JobControl* job) {
    if (rows.n == 0 || rows.dims == 0) return std::vector<float>(rows.n * 3, 0.0f);
    HostProducts products(rows, job);
    return sparsePcaCoords(products, rows.n, seed, job);
}

}  // namespace cs
