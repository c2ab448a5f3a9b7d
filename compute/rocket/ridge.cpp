// SPDX-License-Identifier: MIT
// The ridge classifier ROCKET pairs with, as scikit-learn's RidgeClassifierCV fits it (the
// "eigen" mode of _RidgeGCV: Golub, Heath, Wahba 1979, exact leave-one-out from one
// eigendecomposition of the Gram or the covariance matrix, whichever is smaller), in double
// with Eigen.
#include "compute/rocket/ridge.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <thread>

#include <Eigen/Dense>

#include "compute/core/error.h"
#include "compute/core/parallel.h"

namespace cs {
namespace {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;

std::string num(std::size_t v) {
    return std::to_string(v);
}

std::vector<double> defaultAlphas() {
    std::vector<double> a(10);
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = std::pow(10.0, -3.0 + 6.0 * double(i) / 9.0);
    return a;
}

// The row's class: argmax, the lower class on ties.
template <class Row>
std::int32_t argmax(const Row& row, int classes) {
    std::int32_t best = 0;
    for (int k = 1; k < classes; ++k)
        if (row(k) > row(best)) best = std::int32_t(k);
    return best;
}

}  // namespace

std::vector<double> ridgeAlphas(const RidgeParams& params) {
    std::vector<double> alphas = params.alphas.empty() ? defaultAlphas() : params.alphas;
    for (double a : alphas)
        if (!(a > 0.0) || !std::isfinite(a))
            throw Error("ridge alphas must be finite and > 0, got " + std::to_string(a));
    return alphas;
}

std::vector<std::size_t> ridgeTrainingRows(std::span<const std::int32_t> labels, int classes) {
    if (classes < 2)
        throw Error("the ridge classifier needs at least two classes, got " +
                    std::to_string(classes));
    std::vector<std::size_t> rows;
    std::vector<char> present(std::size_t(classes), 0);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] < 0) continue;
        if (labels[i] >= classes)
            throw Error("row " + num(i) + " has label " + std::to_string(labels[i]) +
                        " but there are " + std::to_string(classes) + " classes");
        rows.push_back(i);
        present[std::size_t(labels[i])] = 1;
    }
    if (rows.size() < 2)
        throw Error("the ridge classifier needs at least two labelled rows, got " +
                    num(rows.size()));
    if (std::count(present.begin(), present.end(), 1) < 2)
        throw Error("the ridge classifier needs at least two classes among the labelled rows");
    return rows;
}

std::vector<std::size_t> validateRidgeShape(std::size_t featureValues, std::size_t n, std::size_t p,
                                            std::span<const std::int32_t> labels, int classes,
                                            const RidgeParams& params) {
    if (featureValues != n * p)
        throw Error("the ridge classifier got " + num(featureValues) + " feature values for " +
                    num(n) + " rows x " + num(p) + " features");
    if (labels.size() != n)
        throw Error("the ridge classifier got " + num(labels.size()) + " labels for " + num(n) +
                    " rows");
    if (p == 0) throw Error("the ridge classifier needs at least one feature");
    std::vector<std::size_t> rows = ridgeTrainingRows(labels, classes);
    (void)ridgeAlphas(params);
    return rows;
}

void checkFiniteFeatures(std::span<const float> features, std::size_t p,
                         std::span<const std::size_t> rows, std::span<const std::size_t> columns) {
    for (std::size_t i : rows)
        for (std::size_t j : columns)
            if (!std::isfinite(features[i * p + j]))
                throw Error("row " + num(i) + " has a non-finite feature (column " + num(j) + ")");
}

std::vector<std::size_t> validateRidgeInput(std::span<const float> features, std::size_t n,
                                            std::size_t p, std::span<const std::int32_t> labels,
                                            int classes, const RidgeParams& params) {
    std::vector<std::size_t> rows =
        validateRidgeShape(features.size(), n, p, labels, classes, params);
    std::vector<std::size_t> columns(p);
    std::iota(columns.begin(), columns.end(), std::size_t(0));
    checkFiniteFeatures(features, p, rows, columns);
    return rows;
}

namespace {

// The standardised, centred training rows and their targets.
struct Training {
    Matrix xs;                         // nt x p
    Matrix y;                          // nt x classes, +1 / -1
    Matrix yc;                         // y centred per column
    std::vector<std::int32_t> labels;  // per training row
};

void storeWeights(RidgeModel& model, const Matrix& w) {
    const std::size_t p = model.features;
    const int classes = model.classes;
    model.weights.resize(p * std::size_t(classes));
    for (std::size_t j = 0; j < p; ++j)
        for (int k = 0; k < classes; ++k)
            model.weights[j * std::size_t(classes) + std::size_t(k)] =
                w(Eigen::Index(j), Eigen::Index(k));
}

// The Gram path (ridge.h): the n x n Gram matrix on the complement of the constant vector.
void fitGram(const Training& t, const std::vector<double>& alphas, RidgeModel& model,
             JobControl& job) {
    const Matrix& xs = t.xs;
    const std::size_t nt = std::size_t(xs.rows());
    const Eigen::Index rN = xs.rows();
    const int classes = model.classes;

    // K = Xs Xs^T, row blocks on their own threads (Eigen itself is single-threaded here).
    Matrix gram(rN, rN);
    {
        auto stage = job.stage("gram");
        const unsigned threads = std::clamp<unsigned>(
            unsigned(nt / 32), 1u, std::max(1u, std::thread::hardware_concurrency()));
        parallelRanges(nt, threads, &job, [&](std::size_t b, std::size_t e, unsigned) {
            if (e > b)
                gram.middleRows(Eigen::Index(b), Eigen::Index(e - b)).noalias() =
                    xs.middleRows(Eigen::Index(b), Eigen::Index(e - b)) * xs.transpose();
        });
        job.checkpoint();
    }

    // The features are centred, so K 1 = 0, and the intercept is not penalised: the
    // leave-one-out fit refits it. So G^-1 is taken on the complement of the constant vector
    // (scikit-learn cancels the same direction in _RidgeGCV._solve_eigen_gram); on the whole
    // space the constant direction adds 1 / (n alpha) to every (G^-1)_ii, the centring leaks the
    // left-out row and every leave-one-out prediction tends to its own target as alpha -> 0.
    // A Householder reflection H (symmetric, orthogonal) maps 1 / sqrt(n) to e_1; the Gram is
    // eigendecomposed in the basis of H's other n - 1 columns and mapped back: Q is n x (n - 1),
    // orthonormal, Q^T 1 = 0.
    Matrix q;
    Vector eig;
    {
        auto stage = job.stage("eigen");
        Vector v = Vector::Constant(rN, 1.0 / std::sqrt(double(nt)));
        v(0) -= 1.0;
        const double beta = 2.0 / v.squaredNorm();
        const Vector kv = gram * v;
        const double vkv = v.dot(kv);
        // H K H = K - beta v (Kv)^T - beta (Kv) v^T + beta^2 (v^T K v) v v^T
        Matrix hkh = gram;
        hkh.noalias() -= beta * v * kv.transpose();
        hkh.noalias() -= beta * kv * v.transpose();
        hkh.noalias() += (beta * beta * vkv) * v * v.transpose();
        const Matrix inner = hkh.bottomRightCorner(rN - 1, rN - 1);
        hkh = Matrix();
        Eigen::SelfAdjointEigenSolver<Matrix> solver(inner);
        if (solver.info() != Eigen::Success)
            throw Error("the ridge classifier's eigendecomposition did not converge");
        eig = solver.eigenvalues().cwiseMax(0.0);  // K is positive semi-definite
        Matrix padded = Matrix::Zero(rN, rN - 1);
        padded.bottomRows(rN - 1) = solver.eigenvectors();
        q = padded;
        q.noalias() -= beta * v * (v.transpose() * padded);
        job.checkpoint();
    }

    // Exact leave-one-out per alpha: C = G^-1 Yc, residual_i = C_i / (G^-1)_ii.
    const Matrix qtY = q.transpose() * t.yc;
    const Matrix q2 = q.cwiseAbs2();
    auto looResiduals = [&](double alpha, Matrix* dual) {
        const Vector w = (eig.array() + alpha).inverse().matrix();
        Matrix c = q * (w.asDiagonal() * qtY);
        const Vector diag = q2 * w;
        Matrix res = c.array().colwise() / diag.array();
        if (dual) *dual = std::move(c);
        return res;
    };
    Matrix bestResidual;
    {
        auto stage = job.stage("alpha");
        double bestError = std::numeric_limits<double>::infinity();
        std::size_t best = 0;
        for (std::size_t a = 0; a < alphas.size(); ++a) {
            Matrix res = looResiduals(alphas[a], nullptr);
            const double err = res.squaredNorm() / double(res.size());
            model.looError.push_back(err);
            if (err < bestError) {  // the first (smallest-listed) on ties
                bestError = err;
                best = a;
                bestResidual = std::move(res);
            }
        }
        model.alpha = alphas[best];
        const Matrix loo = t.y - bestResidual;
        std::size_t correct = 0;
        for (std::size_t r = 0; r < nt; ++r)
            correct += argmax(loo.row(Eigen::Index(r)), classes) == t.labels[r];
        model.looAccuracy = double(correct) / double(nt);
        job.checkpoint();
    }

    {
        auto stage = job.stage("weights");
        Matrix dual;
        looResiduals(model.alpha, &dual);
        storeWeights(model, xs.transpose() * dual);
    }
}

// The covariance path (ridge.h): the p x p matrix X^T X, all its eigenpairs.
void fitCovariance(const Training& t, const std::vector<double>& alphas, RidgeModel& model,
                   JobControl& job) {
    const Matrix& xs = t.xs;
    const std::size_t nt = std::size_t(xs.rows()), p = std::size_t(xs.cols());
    const Eigen::Index pN = xs.cols(), cN = Eigen::Index(model.classes);
    const Eigen::Index aN = Eigen::Index(alphas.size());

    // Only the lower triangle: the eigensolver reads no more. Fixed column blocks, so that the
    // rounding does not depend on the thread count.
    Matrix cov = Matrix::Zero(pN, pN);
    Matrix xty;
    {
        auto stage = job.stage("covariance");
        constexpr std::size_t kColumns = 32;
        parallelFor((p + kColumns - 1) / kColumns, &job, {}, [&](std::size_t b, unsigned) {
            const Eigen::Index j = Eigen::Index(b * kColumns);
            const Eigen::Index w = std::min<Eigen::Index>(Eigen::Index(kColumns), pN - j);
            cov.block(j, j, pN - j, w).noalias() =
                xs.rightCols(pN - j).transpose() * xs.middleCols(j, w);
        });
        xty.noalias() = xs.transpose() * t.yc;
        job.checkpoint();
    }

    Eigen::SelfAdjointEigenSolver<Matrix> solver;
    Vector eig;
    {
        auto stage = job.stage("eigen");
        solver.compute(cov);
        if (solver.info() != Eigen::Success)
            throw Error("the ridge classifier's eigendecomposition did not converge");
        cov = Matrix();
        eig = solver.eigenvalues().cwiseMax(0.0);  // X^T X is positive semi-definite
        job.checkpoint();
    }
    const Matrix& v = solver.eigenvectors();

    Matrix weights;  // p x (classes alphas): the weights of every alpha, side by side
    std::size_t best = 0;
    {
        auto stage = job.stage("alpha");
        // The shrink factors 1 / (s^2 + alpha) and the weights of every alpha side by side, so
        // that a block of rows meets them all in two products.
        Matrix shrink(pN, aN);
        weights.resize(pN, cN * aN);
        const Matrix vty = v.transpose() * xty;
        for (Eigen::Index a = 0; a < aN; ++a) {
            shrink.col(a) = (eig.array() + alphas[std::size_t(a)]).inverse().matrix();
            weights.middleCols(a * cN, cN).noalias() = v * (shrink.col(a).asDiagonal() * vty);
        }
        // Row blocks on their own threads, each with its own sums, added up in block order
        // below so that the thread count changes nothing. X V is never held whole.
        constexpr std::size_t kRows = 256;
        const std::size_t blocks = (nt + kRows - 1) / kRows;
        std::vector<double> squares(blocks * alphas.size(), 0.0);
        std::vector<std::size_t> hits(blocks * alphas.size(), 0);
        const double keep = 1.0 - 1.0 / double(nt);  // 1 - the intercept's hat
        parallelFor(blocks, &job, {}, [&](std::size_t b, unsigned) {
            const Eigen::Index r0 = Eigen::Index(b * kRows);
            const Eigen::Index len = std::min<Eigen::Index>(Eigen::Index(kRows), xs.rows() - r0);
            const auto xb = xs.middleRows(r0, len);
            Matrix xv = xb * v;
            const Matrix hat = xv.cwiseAbs2() * shrink;  // len x alphas
            xv = Matrix();
            const Matrix fit = xb * weights;  // len x (classes alphas)
            Eigen::RowVectorXd loo(cN);
            for (Eigen::Index a = 0; a < aN; ++a) {
                double sum = 0.0;
                std::size_t correct = 0;
                for (Eigen::Index r = 0; r < len; ++r) {
                    const double d = keep - hat(r, a);
                    for (Eigen::Index k = 0; k < cN; ++k) {
                        const double e = (t.yc(r0 + r, k) - fit(r, a * cN + k)) / d;
                        sum += e * e;
                        loo(k) = t.y(r0 + r, k) - e;
                    }
                    correct += argmax(loo, model.classes) == t.labels[std::size_t(r0 + r)];
                }
                squares[b * alphas.size() + std::size_t(a)] = sum;
                hits[b * alphas.size() + std::size_t(a)] = correct;
            }
        });
        double bestError = std::numeric_limits<double>::infinity();
        for (std::size_t a = 0; a < alphas.size(); ++a) {
            double sum = 0.0;
            for (std::size_t b = 0; b < blocks; ++b)
                sum += squares[b * alphas.size() + a];
            const double err = sum / double(nt * std::size_t(cN));
            model.looError.push_back(err);
            if (err < bestError) {  // the first (smallest-listed) on ties
                bestError = err;
                best = a;
            }
        }
        model.alpha = alphas[best];
        std::size_t correct = 0;
        for (std::size_t b = 0; b < blocks; ++b)
            correct += hits[b * alphas.size() + best];
        model.looAccuracy = double(correct) / double(nt);
        job.checkpoint();
    }

    {
        auto stage = job.stage("weights");
        storeWeights(model, weights.middleCols(Eigen::Index(best) * cN, cN));
    }
}

}  // namespace

RidgeSolver ridgeSolverFor(std::size_t trainRows, std::size_t p, RidgeSolver requested) {
    if (requested != RidgeSolver::Automatic) return requested;
    return trainRows <= p ? RidgeSolver::Gram : RidgeSolver::Covariance;
}

RidgeModel fitRidgeClassifier(std::span<const float> features, std::size_t n, std::size_t p,
                              std::span<const std::int32_t> labels, int classes,
                              const RidgeParams& params, JobControl& job) {
    const std::vector<std::size_t> rows =
        validateRidgeInput(features, n, p, labels, classes, params);
    const std::vector<double> alphas = ridgeAlphas(params);
    job.checkpoint();

    const std::size_t nt = rows.size();
    const Eigen::Index rN = Eigen::Index(nt), cN = Eigen::Index(classes);
    RidgeModel model;
    model.features = p;
    model.classes = classes;
    model.alphas = alphas;
    model.mean.assign(p, 0.0);
    model.scale.assign(p, 0.0);

    // Standardised training rows (population sd; a constant column becomes 0) and centred
    // one-vs-rest targets.
    Training t;
    t.xs.resize(rN, Eigen::Index(p));
    t.y = Matrix::Constant(rN, cN, -1.0);
    Vector yMean(cN);
    {
        auto stage = job.stage("standardise");
        // Row by row (the features are row-major): means, then squared deviations.
        std::vector<double> sum(p, 0.0), sq(p, 0.0);
        for (std::size_t r = 0; r < nt; ++r) {
            const float* x = features.data() + rows[r] * p;
            for (std::size_t j = 0; j < p; ++j)
                sum[j] += double(x[j]);
        }
        for (std::size_t j = 0; j < p; ++j)
            model.mean[j] = sum[j] / double(nt);
        for (std::size_t r = 0; r < nt; ++r) {
            const float* x = features.data() + rows[r] * p;
            for (std::size_t j = 0; j < p; ++j) {
                const double d = double(x[j]) - model.mean[j];
                sq[j] += d * d;
            }
        }
        for (std::size_t j = 0; j < p; ++j) {
            const double sd = std::sqrt(sq[j] / double(nt));
            model.scale[j] = sd > 0.0 ? 1.0 / sd : 0.0;
        }
        for (std::size_t r = 0; r < nt; ++r) {
            const float* x = features.data() + rows[r] * p;
            for (std::size_t j = 0; j < p; ++j)
                t.xs(Eigen::Index(r), Eigen::Index(j)) =
                    (double(x[j]) - model.mean[j]) * model.scale[j];
        }
        t.labels.resize(nt);
        for (std::size_t r = 0; r < nt; ++r) {
            t.labels[r] = labels[rows[r]];
            t.y(Eigen::Index(r), t.labels[r]) = 1.0;
        }
        yMean = t.y.colwise().mean().transpose();
        job.checkpoint();
    }
    t.yc = t.y.rowwise() - yMean.transpose();

    if (ridgeSolverFor(nt, p, params.solver) == RidgeSolver::Gram)
        fitGram(t, alphas, model, job);
    else
        fitCovariance(t, alphas, model, job);
    model.intercept.assign(yMean.data(), yMean.data() + classes);
    return model;
}

std::vector<double> ridgeScores(const RidgeModel& model, std::span<const float> features,
                                std::size_t n) {
    const std::size_t p = model.features, k = std::size_t(model.classes);
    if (features.size() != n * p)
        throw Error("ridge scores: " + num(features.size()) + " feature values for " + num(n) +
                    " rows of " + num(p) + " features");
    if (model.mean.size() != p || model.scale.size() != p || model.weights.size() != p * k ||
        model.intercept.size() != k)
        throw Error("ridge scores: the model is incomplete");
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const RowMajor> weights(model.weights.data(), Eigen::Index(p),
                                             Eigen::Index(k));
    const Eigen::Map<const Eigen::RowVectorXd> mean(model.mean.data(), Eigen::Index(p));
    const Eigen::Map<const Eigen::RowVectorXd> scale(model.scale.data(), Eigen::Index(p));
    const Eigen::Map<const Eigen::RowVectorXd> intercept(model.intercept.data(), Eigen::Index(k));
    std::vector<double> scores(n * k);
    // Blocks of rows on their own threads: standardised, then one matrix product each.
    parallelRanges(
        n, threadsFor(n * p * k, std::size_t(1) << 24), nullptr,
        [&](std::size_t begin, std::size_t end, unsigned) {
            constexpr std::size_t kBlock = 256;
            for (std::size_t b = begin; b < end; b += kBlock) {
                const std::size_t rows = std::min(kBlock, end - b);
                const Eigen::Map<
                    const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
                    x(features.data() + b * p, Eigen::Index(rows), Eigen::Index(p));
                RowMajor z = x.cast<double>();
                z.rowwise() -= mean;
                z.array().rowwise() *= scale.array();
                Eigen::Map<RowMajor> out(scores.data() + b * k, Eigen::Index(rows),
                                         Eigen::Index(k));
                out.noalias() = z * weights;
                out.rowwise() += intercept;
            }
        });
    return scores;
}

std::vector<std::int32_t> ridgePredict(const RidgeModel& model, std::span<const float> features,
                                       std::size_t n) {
    const auto scores = ridgeScores(model, features, n);
    const std::size_t k = std::size_t(model.classes);
    std::vector<std::int32_t> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::int32_t best = 0;
        for (std::size_t c = 1; c < k; ++c)
            if (scores[i * k + c] > scores[i * k + std::size_t(best)]) best = std::int32_t(c);
        out[i] = best;
    }
    return out;
}

}  // namespace cs
