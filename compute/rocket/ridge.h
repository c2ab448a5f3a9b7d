// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/core/job_control.h"

namespace cs {

// The ridge classifier ROCKET pairs with (scikit-learn's RidgeClassifierCV): features
// standardised per column on the training rows (mean 0, population standard deviation 1; a
// constant column is dropped to 0), one-vs-rest targets +1 / -1, centred targets (intercept),
// and the regularisation alpha chosen among `alphas` by exact leave-one-out squared error,
// computed from one eigendecomposition (in double) of whichever of two matrices is smaller, as
// scikit-learn's _RidgeGCV does: the n x n Gram matrix K = X X^T when n <= p (the "gram" path),
// the p x p covariance X^T X when n > p (the "covariance" path), X being the n x p standardised,
// centred training rows and Y their n x classes centred targets.
//
// Gram path: with K = Q diag(l) Q^T and G = K + alpha I, the dual coefficients are C = G^-1 Y
// and the leave-one-out residual of row i is C_i / (G^-1)_ii.
// The intercept is not penalised, so (as in scikit-learn's _RidgeGCV) G^-1 is taken on the
// complement of the constant vector: the features are centred, K 1 = 0, and Q, l above are the
// eigenpairs of K restricted to that complement (n - 1 of them). Taken on the whole space, the
// constant direction would add 1 / (n alpha) to every (G^-1)_ii: the centring leaks the left-out
// row, the residuals vanish as alpha -> 0, and the smallest alpha always wins with a
// leave-one-out accuracy of 1. So the residuals are exactly those of refitting the intercept
// and weights without row i (the features' standardisation fixed).
//
// Covariance path: with X^T X = V diag(s^2) V^T (all p eigenpairs), the weights are
// W = V diag(1 / (s^2 + alpha)) V^T X^T Y, the hat diagonal h_i = sum_j (X V)_ij^2 / (s_j^2 +
// alpha), and the leave-one-out residual of row i is (Y - X W)_i / (1 - 1/n - h_i), the 1/n
// being the unpenalised intercept's own hat. It is the Gram path's residual in exact
// arithmetic: on the complement of 1, alpha G^-1 = I - 11^T/n - H with H = X (X^T X + alpha
// I)^-1 X^T, so alpha C = Y - X W and alpha (G^-1)_ii = 1 - 1/n - h_i.
// Zero eigenvalues (constant columns, collinear features, n <= p) need nothing special on
// either path: here their directions hold no part of X, so they add nothing to X W or h; there
// they add 1 / alpha times |e_i's part outside the span of 1 and X's columns|^2 to (G^-1)_ii,
// which is the part of 1 - 1/n - h_i that does not depend on alpha. Eigenvalues that rounding
// makes negative are taken as 0 on both paths.
//
// looError is the mean over rows and classes of the squared residuals; the first alpha of the
// smallest error is chosen. On both paths the weights are W above (on the Gram path X^T C) and
// the intercepts the targets' means, so the model does not say which path fitted it.

/// Which matrix the ridge classifier eigendecomposes (see above).
enum class RidgeSolver {
    Automatic,   ///< the smaller: Gram when the labelled rows are <= p, else covariance
    Gram,        ///< the n x n Gram matrix, whatever the sizes
    Covariance,  ///< the p x p covariance, whatever the sizes
};

/// Ridge parameters.
struct RidgeParams {
    /// Candidate alphas; empty means 10 values logarithmically spaced in [1e-3, 1e3].
    std::vector<double> alphas;
    /// Automatic; the others force a path, for tests that compare the two (same model up to
    /// rounding, but the larger side's time and memory).
    RidgeSolver solver = RidgeSolver::Automatic;
};

/// A fitted ridge classifier over p features and `classes` classes.
struct RidgeModel {
    std::size_t features = 0;
    int classes = 0;
    std::vector<double> mean;       ///< p training means
    std::vector<double> scale;      ///< p: 1 / standard deviation (0 for constant columns)
    std::vector<double> weights;    ///< p x classes, row-major, on standardised features
    std::vector<double> intercept;  ///< classes
    double alpha = 0.0;             ///< the chosen alpha
    std::vector<double> alphas;     ///< the candidates
    std::vector<double> looError;   ///< mean squared leave-one-out error per candidate
    double looAccuracy = 0.0;       ///< accuracy of the leave-one-out predictions at alpha
};

/// Fits the classifier on n rows of p features (row-major floats) with labels in
/// [0, classes); rows with a negative label are skipped. Throws cs::Error for fewer than two
/// labelled rows, fewer than two classes present, sizes that do not match, or non-finite
/// features. Threads: the Gram's row blocks, or the covariance's column blocks and then the
/// leave-one-out's row blocks, on the hardware threads (Eigen itself runs single-threaded). Stages
/// "standardise", "gram" or "covariance" (ridgeSolverFor), "eigen", "alpha", "weights";
/// cs::Cancelled between them and between blocks. Memory: O(n p + min(n, p)^2) doubles for the n
/// labelled rows. A class in [0, classes) with no labelled row gets weights 0 and intercept -1.
/// @code auto m = cs::fitRidgeClassifier(f.values, f.n, f.columns(), labels, 2, {}, job);
/// auto predicted = cs::ridgePredict(m, f.values, f.n); @endcode
RidgeModel fitRidgeClassifier(std::span<const float> features, std::size_t n, std::size_t p,
                              std::span<const std::int32_t> labels, int classes,
                              const RidgeParams& params, JobControl& job);

/// The path a fit of `trainRows` labelled rows of p features takes: `requested` unless it is
/// Automatic, else Gram when trainRows <= p and Covariance otherwise. Never Automatic.
RidgeSolver ridgeSolverFor(std::size_t trainRows, std::size_t p, RidgeSolver requested);
/// params.alphas, or the default ten; throws cs::Error for an alpha that is not finite and > 0.
std::vector<double> ridgeAlphas(const RidgeParams& params);
/// The rows the classifier trains on (label >= 0, ascending). Throws cs::Error for a label >=
/// classes, fewer than two classes, fewer than two labelled rows or classes present.
std::vector<std::size_t> ridgeTrainingRows(std::span<const std::int32_t> labels, int classes);
/// The checks of validateRidgeInput but the features' finiteness (featureValues: how many there
/// are), for a backend that finds a non-finite feature another way (the CUDA backend: a column
/// whose mean is not finite); returns ridgeTrainingRows.
std::vector<std::size_t> validateRidgeShape(std::size_t featureValues, std::size_t n, std::size_t p,
                                            std::span<const std::int32_t> labels, int classes,
                                            const RidgeParams& params);
/// Throws cs::Error naming the first non-finite feature (rows in order, then columns in order)
/// among these rows and columns of an n x p row-major matrix.
void checkFiniteFeatures(std::span<const float> features, std::size_t p,
                         std::span<const std::size_t> rows, std::span<const std::size_t> columns);
/// Every check fitRidgeClassifier makes (sizes, labels, finite features, alphas), for backends
/// that fit elsewhere; returns ridgeTrainingRows.
std::vector<std::size_t> validateRidgeInput(std::span<const float> features, std::size_t n,
                                            std::size_t p, std::span<const std::int32_t> labels,
                                            int classes, const RidgeParams& params);

/// Class scores (n x classes, row-major) of n rows of p features.
std::vector<double> ridgeScores(const RidgeModel& model, std::span<const float> features,
                                std::size_t n);
/// The predicted class of each row (argmax of its scores; ties: the lower class).
std::vector<std::int32_t> ridgePredict(const RidgeModel& model, std::span<const float> features,
                                       std::size_t n);

}  // namespace cs
