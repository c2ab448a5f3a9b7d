# SPDX-License-Identifier: MIT
"""The estimators: thin wrappers that shape the arrays, call clusterscope._core and keep what a
run found as fitted attributes (trailing underscore), as scikit-learn's estimators do, without
importing scikit-learn. The engine checks the parameters (each algorithm's descriptor, as
clusterscope-cli checks its options) and the defaults here are the engine's (the tests compare
them with _core.defaults()), so a run here and the same run of clusterscope-cli agree."""

import inspect

import numpy as np

from . import _core


class NotFittedError(ValueError, AttributeError):
    """An estimator was asked for something that only fit() provides."""


def backends():
    """Every compute backend of this build, best first, as dicts with name, available, detail
    (what it runs on, or why it cannot run here) and versions. backend="auto" takes the first
    available one."""
    return _core.backends()


def _points(X):
    X = np.ascontiguousarray(X, dtype=np.float32)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array of points (n_samples, n_features), not {X.ndim}-D")
    return X


def _series(X):
    """(n_series, length) or (n_series, n_channels, length) as C-ordered float32, 3-D."""
    X = np.ascontiguousarray(X, dtype=np.float32)
    if X.ndim == 2:
        X = X[:, np.newaxis, :]
    if X.ndim != 3:
        raise ValueError(
            "X must be a 2-D (n_series, length) or 3-D (n_series, n_channels, length) array of "
            f"series, not {X.ndim}-D")
    return X


class _Estimator:
    """get_params / set_params / repr from the constructor's keywords, as scikit-learn's
    BaseEstimator makes them (so sklearn.base.clone and grid searches work)."""

    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values() if p.name != "self"]

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        names = self._param_names()
        for key, value in params.items():
            if key not in names:
                raise ValueError(
                    f"{type(self).__name__} has no parameter {key!r}; it has {', '.join(names)}")
            setattr(self, key, value)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _check_fitted(self, attribute):
        if not hasattr(self, attribute):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet: call fit() before using it")


class DBSCAN(_Estimator):
    """The engine's exact DBSCAN (compute/dbscan/dbscan.h) on points (n_samples, n_features).

    eps: the neighbourhood radius (a distance <= eps counts).
    min_samples: points within eps of a point, the point itself included, for it to be a core
        point. It is scikit-learn's min_samples and clusterscope-cli's --min-pts (the engine's
        minPts) unchanged: DBSCAN(eps, min_samples) here and sklearn.cluster.DBSCAN(eps,
        min_samples) find the same core points and the same clusters of them.
    path: the neighbour search, "auto", "grid" (up to 3 dimensions), "brute" or "kdtree".
    star: DBSCAN*: border points become noise.
    backend: "auto" (CUDA when usable, else CPU), "cpu" or "cuda".

    Border points (not core, within eps of a core point) join the cluster of their nearest core
    point (ties: the lowest index), where scikit-learn gives them to the first cluster that
    reaches them; noise is -1; clusters are numbered in the order of their smallest member index.

    Fitted: labels_, core_sample_indices_, components_ (the core points), n_clusters_, path_ (the
    search that ran), backend_, stages_ms_, n_features_in_.
    """

    def __init__(self, eps=1.0, min_samples=10, path="auto", star=False, backend="auto"):
        self.eps = eps
        self.min_samples = min_samples
        self.path = path
        self.star = star
        self.backend = backend

    def fit(self, X, y=None):
        X = _points(X)
        params = {"eps": self.eps, "min_samples": self.min_samples, "path": self.path,
                  "star": self.star}
        r = _core.dbscan(X, params, self.backend)
        self.labels_ = r["labels"]
        self.core_sample_indices_ = np.flatnonzero(r["is_core"])
        self.components_ = X[self.core_sample_indices_]
        self.n_clusters_ = r["n_clusters"]
        self.path_ = r["path"]
        self.backend_ = r["backend"]
        self.stages_ms_ = r["stages_ms"]
        self.n_features_in_ = X.shape[1]
        return self

    def fit_predict(self, X, y=None):
        return self.fit(X).labels_


class KNNGraph(_Estimator):
    """The approximate k-nearest-neighbour graph of points (n_samples, n_features) from a forest
    of random-projection trees (PyRKNN's scheme, compute/knn/knn_graph.h); the same graph, index
    for index, on every backend and in clusterscope-cli knn.

    k: neighbours per point, the point itself not counted.
    trees: most trees to build; target_recall: stop adding trees once the recall sampled on
    recall_sample points reaches it (0: build them all); leaf_size: the largest leaf, at least
    2 (k + 1); seed: the random directions and the recall sample. exact: every pair of points
    instead of the trees (the true k nearest; on the GPU, tensor cores with a proven error bound
    and an exact re-rank); the tree parameters are then unused.

    Fitted: indices_ and distances_ (n_samples x k, nearest first), recall_, recall_by_tree_,
    trees_built_, exact_, backend_, stages_ms_, n_features_in_.
    """

    def __init__(self, k=10, trees=8, leaf_size=512, target_recall=0.95, recall_sample=256, seed=1,
                 exact=False, backend="auto"):
        self.exact = exact
        self.k = k
        self.trees = trees
        self.leaf_size = leaf_size
        self.target_recall = target_recall
        self.recall_sample = recall_sample
        self.seed = seed
        self.backend = backend

    def fit(self, X, y=None):
        X = _points(X)
        params = {"k": self.k, "trees": self.trees, "leaf_size": self.leaf_size,
                  "target_recall": self.target_recall, "recall_sample": self.recall_sample,
                  "seed": self.seed, "exact": self.exact}
        r = _core.knn_graph(X, params, self.backend)
        self.indices_ = r["indices"]
        self.distances_ = r["distances"]
        self.recall_ = r["recall"]
        self.recall_by_tree_ = r["recall_by_tree"]
        self.trees_built_ = r["trees_built"]
        self.exact_ = r["exact"]
        self.backend_ = r["backend"]
        self.stages_ms_ = r["stages_ms"]
        self.n_features_in_ = X.shape[1]
        return self

    def kneighbors(self):
        """(distances_, indices_) of the fitted points, as scikit-learn's kneighbors() without X."""
        self._check_fitted("indices_")
        return self.distances_, self.indices_


class KShape(_Estimator):
    """k-Shape clustering (Paparrizos & Gravano, compute/kshape/kshape.h) of series
    (n_series, length) or (n_series, n_channels, length): all channels together (multivariate
    k-Shape, one shift per series) or one channel.

    n_clusters: clusters (at most the number of series); max_iter: refinement iterations at most;
    seed: the initial random assignment; channel: the channel clustered, or -1 (the default) for
    all channels together.

    Fitted: labels_, cluster_centers_ (n_clusters x length, or n_clusters x n_channels x length
    for all channels of a multichannel set; z-normalised; zeros for an empty cluster), distances_ (each series' shape-based distance to its centroid), shifts_, n_iter_,
    converged_, cluster_sizes_, empty_clusters_, backend_, stages_ms_.
    predict() and transform() measure the shape-based distance directly (in double, length^2
    work per series and centroid) to the fitted centroids; on the training series they agree with labels_ except where two distances
    are within float rounding of each other.
    """

    def __init__(self, n_clusters=3, max_iter=100, seed=1, channel=-1, backend="auto"):
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.seed = seed
        self.channel = channel
        self.backend = backend

    def fit(self, X, y=None):
        X = _series(X)
        params = {"n_clusters": self.n_clusters, "max_iter": self.max_iter, "seed": self.seed,
                  "channel": self.channel}
        r = _core.kshape(X, params, self.backend)
        self.labels_ = r["labels"]
        self.cluster_centers_ = r["centroids"]
        self.distances_ = r["distances"]
        self.shifts_ = r["shifts"]
        self.n_iter_ = r["iterations"]
        self.converged_ = r["converged"]
        self.cluster_sizes_ = np.asarray(r["cluster_sizes"])
        self.empty_clusters_ = r["empty_clusters"]
        self.backend_ = r["backend"]
        self.stages_ms_ = r["stages_ms"]
        self.n_channels_ = X.shape[1]
        return self

    def fit_predict(self, X, y=None):
        return self.fit(X).labels_

    def transform(self, X):
        """Shape-based distances (n_series x n_clusters) of the series to the fitted centroids."""
        self._check_fitted("cluster_centers_")
        return _core.kshape_distances(_series(X), self.cluster_centers_, self.channel)

    def predict(self, X):
        """The nearest fitted centroid of each series (ties: the lower cluster)."""
        return np.argmin(self.transform(X), axis=1).astype(np.int32)


class Rocket(_Estimator):
    """ROCKET (Dempster, Petitjean and Webb; compute/rocket/rocket.h) features of series
    (n_series, length) or (n_series, n_channels, length), and the ridge classifier it pairs with
    (scikit-learn's RidgeClassifierCV: leave-one-out choice of alpha).

    variant: "rocket" (random kernels, PPV and MAX), "minirocket" (84 fixed kernels at fitted
        dilations and biases, PPV) or "multirocket" (MiniRocket's kernels on the series and its
        first difference; PPV, MPV, MIPV, LSPV); compute/rocket/minirocket.h.
    num_kernels: ROCKET: random convolution kernels, two features each (PPV and MAX);
        MiniRocket: features (rounded down to a multiple of 84); MultiRocket: features per
        pooling and representation (6250 gives the authors' 49,728 features).
    seed: the kernels' random draws; alphas: the ridge's candidates (None: 10 values from 1e-3
    to 1e3).
    normalise: ROCKET z-normalises every channel of every series first (the paper's way); False
        keeps the levels, for sets whose classes differ in level (JapaneseVowels: 0.84 -> 0.99).
        MiniRocket and MultiRocket never normalise.

    fit(X) draws the kernels for X's length and channels (MiniRocket, MultiRocket: fits the
    dilations and biases on X); fit(X, y) also fits the classifier on the features of X.
    transform(X): the n_series x n_features_out_ features ([PPV, MAX] per kernel for ROCKET);
    predict(X), decision_function(X), score(X, y) use the classifier.

    Fitted: kernels_, n_features_out_, and with y: classes_, alpha_, alphas_, loo_accuracy_,
    loo_error_.
    """

    def __init__(self, variant="rocket", num_kernels=10000, seed=1, alphas=None, normalise=True,
                 backend="auto"):
        self.variant = variant
        self.num_kernels = num_kernels
        self.seed = seed
        self.alphas = alphas
        self.normalise = normalise
        self.backend = backend

    def _check_variant(self):
        if self.variant not in _core.ROCKET_VARIANTS:
            have = ", ".join(repr(v) for v in _core.ROCKET_VARIANTS)
            raise ValueError(
                f"variant={self.variant!r} is not available: this engine has {have}")

    def fit(self, X, y=None):
        self._check_variant()
        X = _series(X)
        kernels = _core.rocket_fit_kernels(
            X, {"num_kernels": self.num_kernels, "seed": self.seed, "variant": self.variant,
                "normalise": bool(self.normalise)}, self.backend)
        model = None
        if y is not None:
            y = np.asarray(y)
            if y.ndim != 1 or len(y) != len(X):
                raise ValueError(
                    f"y must hold one label per series ({len(X)}), not shape {y.shape}")
            classes, encoded = np.unique(y, return_inverse=True)
            alphas = [] if self.alphas is None else [float(a) for a in self.alphas]
            model = _core.rocket_fit(X, encoded.astype(np.int32), len(classes), kernels, alphas,
                                     self.backend)
        # Set together, after everything has run: a failed fit leaves the estimator as it was.
        for name in ("classes_", "model_", "alpha_", "alphas_", "loo_accuracy_", "loo_error_"):
            self.__dict__.pop(name, None)
        self.kernels_ = kernels
        self.n_features_out_ = kernels.features
        if model is not None:
            self.classes_ = classes
            self.model_ = model
            self.alpha_ = model.alpha
            self.alphas_ = np.asarray(model.alphas)
            self.loo_accuracy_ = model.loo_accuracy
            self.loo_error_ = np.asarray(model.loo_error)
        return self

    def transform(self, X):
        self._check_fitted("kernels_")
        return _core.rocket_transform(_series(X), self.kernels_, self.backend)

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)

    def _predict(self, X):
        self._check_fitted("model_")
        return _core.rocket_predict(_series(X), self.kernels_, self.model_, self.backend)

    def decision_function(self, X):
        """Class scores (n_series x classes, in the order of classes_)."""
        return self._predict(X)[1]

    def predict(self, X):
        predicted = self._predict(X)[0]
        return self.classes_[predicted]

    def score(self, X, y):
        """Accuracy of predict(X) against y."""
        return float(np.mean(self.predict(X) == np.asarray(y)))
