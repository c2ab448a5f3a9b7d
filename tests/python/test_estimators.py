# SPDX-License-Identifier: MIT
"""The estimators' contract: scikit-learn-style parameters and fitted attributes, the engine's
defaults and messages, NumPy arrays in and out, and the GIL released while computing."""

import inspect
import _thread
import os
import pickle
import sys
import threading
import time
import unittest
import warnings

try:
    import numpy as np
except ImportError:
    print("NumPy is not installed for this python3: the suite cannot run", file=sys.stderr)
    sys.exit(77)

import clusterscope as cs
from clusterscope import _core

SEED = 20261201


def blobs(n, dims, seed=SEED):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10, 10, size=(3, dims))
    return (centres[rng.integers(0, 3, size=n)] + rng.normal(size=(n, dims))).astype(np.float32)


def shapes(n, length, seed=SEED):
    """Three noisy shapes (sine, square, ramp), randomly shifted; labels 0, 1, 2."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 2 * np.pi, length, endpoint=False)
    bases = [np.sin(t), np.sign(np.sin(t)), (t / np.pi) - 1]
    y = rng.integers(0, 3, size=n)
    X = np.stack([np.roll(bases[c], rng.integers(-length // 8, length // 8)) for c in y])
    X = X + rng.normal(scale=0.1, size=X.shape)
    return X.astype(np.float32), y


class TestModule(unittest.TestCase):
    def test_imported_from_the_build_tree(self):
        where = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0]
        self.assertTrue(where, "PYTHONPATH names the build tree's python/ folder")
        self.assertTrue(os.path.realpath(cs.__file__).startswith(os.path.realpath(where)),
                        f"{cs.__file__} is not under {where}")

    def test_backends_lists_the_cpu(self):
        statuses = cs.backends()
        names = [s["name"] for s in statuses]
        self.assertIn("cpu", names)
        cpu = statuses[names.index("cpu")]
        self.assertTrue(cpu["available"])
        self.assertRegex(cpu["detail"], r"^CPU · [0-9]+ threads")
        for s in statuses:
            self.assertEqual(set(s), {"name", "available", "detail", "versions"})
            if not s["available"]:
                self.assertTrue(s["detail"], f"{s['name']} is unavailable and says why")

    def test_unknown_and_unavailable_backends(self):
        X = blobs(50, 2)
        with self.assertRaisesRegex(cs.BackendUnavailable, r"unknown backend 'tpu'.*cpu"):
            cs.DBSCAN(eps=1.0, min_samples=3, backend="tpu").fit(X)
        cuda = [s for s in cs.backends() if s["name"] == "cuda"]
        if not cuda or not cuda[0]["available"]:
            with self.assertRaises(cs.BackendUnavailable):
                cs.DBSCAN(eps=1.0, min_samples=3, backend="cuda").fit(X)

    def test_version(self):
        self.assertRegex(cs.__version__, r"^[0-9]+\.[0-9]+\.[0-9]+$")


class TestParameters(unittest.TestCase):
    ESTIMATORS = {"dbscan": cs.DBSCAN, "knn": cs.KNNGraph, "kshape": cs.KShape,
                  "rocket": cs.Rocket}

    def test_defaults_are_the_engines(self):
        # The signatures repeat the descriptors' defaults (for get_params and help()); they must
        # not drift from them.
        for algorithm, estimator in self.ESTIMATORS.items():
            engine = _core.defaults(algorithm)
            signature = inspect.signature(estimator.__init__).parameters
            for name, value in engine.items():
                with self.subTest(estimator=estimator.__name__, parameter=name):
                    self.assertIn(name, signature)
                    self.assertEqual(signature[name].default, value)
                    self.assertIs(type(signature[name].default), type(value))

    def test_get_and_set_params(self):
        d = cs.DBSCAN(eps=0.3, min_samples=4)
        self.assertEqual(d.get_params(), {"eps": 0.3, "min_samples": 4, "path": "auto",
                                          "star": False, "backend": "auto"})
        self.assertIs(d.set_params(min_samples=7, backend="cpu"), d)
        self.assertEqual((d.min_samples, d.backend), (7, "cpu"))
        with self.assertRaisesRegex(ValueError, "no parameter 'min_pts'"):
            d.set_params(min_pts=3)
        self.assertEqual(repr(cs.KShape(n_clusters=2)),
                         "KShape(n_clusters=2, max_iter=100, seed=1, channel=-1, backend='auto')")
        # What sklearn.base.clone does.
        r = cs.Rocket(num_kernels=50, seed=4)
        self.assertEqual(type(r)(**r.get_params()).get_params(), r.get_params())

    def test_engine_messages(self):
        X = blobs(20, 2)
        cases = [
            (cs.DBSCAN(min_samples=0), X, r"^min_samples: minPts = 0 is outside its range: "
                                          r"expected an integer in \[1, 100000\]$"),
            (cs.DBSCAN(min_samples=21), X, r"min_samples: minPts = 21 is too large: it must be "
                                           r"at most the number of points \(20\)"),
            (cs.DBSCAN(eps=-1.0), X, r"^eps: eps = -1 is outside its range"),
            (cs.DBSCAN(path="octree"), X, r"path: path = octree is not one of: auto, grid"),
            (cs.DBSCAN(min_samples=2.5), X, r"min_samples: minPts must be an integer"),
            (cs.KNNGraph(k=20), X, r"k: k = 20 is too large: it must be below the number of "
                                   r"points \(20\)"),
            (cs.KNNGraph(k=10, leaf_size=20), X, r"leaf_size: leafSize = 20 is too small: it "
                                                 r"must be at least 2 \(k \+ 1\) = 22"),
            (cs.KNNGraph(seed=-1), X, r"seed: seed = -1 is outside its range"),
        ]
        for estimator, data, message in cases:
            with self.subTest(estimator=repr(estimator)):
                with self.assertRaisesRegex(cs.Error, message):
                    estimator.fit(data)
        self.assertTrue(issubclass(cs.Error, ValueError))

    def test_numpy_integers_and_floats_are_accepted(self):
        X = blobs(200, 2)
        a = cs.DBSCAN(eps=np.float32(1.5), min_samples=np.int64(5), backend="cpu").fit_predict(X)
        b = cs.DBSCAN(eps=1.5, min_samples=5, backend="cpu").fit_predict(X)
        np.testing.assert_array_equal(a, b)

    def test_bad_arrays(self):
        X = blobs(20, 2)
        X[3, 1] = np.nan
        with self.assertRaisesRegex(ValueError, "finite"):
            cs.DBSCAN(eps=1.0, min_samples=3).fit(X)
        with self.assertRaisesRegex(ValueError, "2-D array of points"):
            cs.KNNGraph(k=2).fit(np.zeros(10))
        with self.assertRaisesRegex(ValueError, "3-D"):
            cs.KShape().fit(np.zeros((4, 2, 3, 5)))

    def test_rocket_variants(self):
        X, y = shapes(20, 32)
        with self.assertRaisesRegex(ValueError, r"variant='ROCKET' is not available: "
                                                r"this engine has 'rocket', 'minirocket', "
                                                r"'multirocket'"):
            cs.Rocket(variant="ROCKET", num_kernels=10).fit(X, y)
        for variant, features in (("minirocket", 168), ("multirocket", 8 * 168)):
            with self.subTest(variant=variant):
                r = cs.Rocket(variant=variant, num_kernels=200, backend="cpu").fit(X, y)
                self.assertEqual(r.n_features_out_, features)
                F = r.transform(X)
                self.assertEqual(F.shape, (20, features))
                self.assertGreaterEqual(r.score(X, y), 0.9)
                # A pickled model transforms alike.
                again = pickle.loads(pickle.dumps(r))
                np.testing.assert_array_equal(again.transform(X), F)

    def test_rocket_normalise(self):
        X, y = shapes(30, 40)
        # z-normalised first (the default), an affine change of a series changes no feature;
        # normalise=False sees the levels, and its choice survives a pickle.
        moved = X * 3.0 + 5.0
        on = cs.Rocket(num_kernels=100, seed=3, backend="cpu").fit(X, y)
        np.testing.assert_allclose(on.transform(moved), on.transform(X), atol=1e-4)
        off = cs.Rocket(num_kernels=100, seed=3, normalise=False, backend="cpu").fit(X, y)
        self.assertEqual(off.get_params()["normalise"], False)
        self.assertFalse(np.allclose(off.transform(moved), off.transform(X), atol=1e-2))
        self.assertFalse(np.allclose(off.transform(X), on.transform(X), atol=1e-2))
        again = pickle.loads(pickle.dumps(off))
        np.testing.assert_array_equal(again.transform(moved), off.transform(moved))
        np.testing.assert_array_equal(again.decision_function(X), off.decision_function(X))

    def test_not_fitted(self):
        X, _ = shapes(10, 32)
        with self.assertRaises(cs.NotFittedError):
            cs.Rocket(num_kernels=10).transform(X)
        with self.assertRaises(cs.NotFittedError):
            cs.Rocket(num_kernels=10).fit(X).predict(X)  # fitted without y: no classifier
        with self.assertRaises(cs.NotFittedError):
            cs.KShape().predict(X)
        self.assertTrue(issubclass(cs.NotFittedError, AttributeError))


class TestResults(unittest.TestCase):
    def test_dbscan(self):
        X = blobs(600, 3)
        d = cs.DBSCAN(eps=0.8, min_samples=6, backend="cpu").fit(X)
        self.assertEqual(d.labels_.shape, (600,))
        self.assertEqual(d.labels_.dtype, np.int32)
        self.assertEqual(d.n_clusters_, int(d.labels_.max()) + 1)
        self.assertGreater(d.n_clusters_, 0)
        self.assertTrue(np.all(d.labels_[d.core_sample_indices_] >= 0))
        np.testing.assert_array_equal(d.components_, X[d.core_sample_indices_])
        self.assertEqual(d.path_, "grid")
        self.assertEqual(d.backend_, "cpu")
        self.assertEqual(d.n_features_in_, 3)
        # DBSCAN* turns the border points into noise, and keeps the core ones.
        s = cs.DBSCAN(eps=0.8, min_samples=6, star=True, backend="cpu").fit(X)
        np.testing.assert_array_equal(s.core_sample_indices_, d.core_sample_indices_)
        border = np.setdiff1d(np.flatnonzero(d.labels_ >= 0), d.core_sample_indices_)
        self.assertGreater(len(border), 0)
        self.assertTrue(np.all(s.labels_[border] == -1))
        # A list of lists and float64 are taken as float32 points.
        np.testing.assert_array_equal(
            cs.DBSCAN(eps=0.8, min_samples=6, backend="cpu").fit_predict(X.astype(float).tolist()),
            d.labels_)

    def test_dbscan_warns_before_a_costly_run(self):
        # 100,000 points by brute force: 1e10 distance evaluations, the CLI's threshold. With
        # warnings as errors the warning stops the run before it starts.
        X = blobs(100_000, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with self.assertRaisesRegex(RuntimeWarning, r"^DBSCAN \(brute search\) of 100000 "
                                                        r"points: about N\^2 = 1\.0e\+10 distance "
                                                        r"evaluations, this may take minutes$"):
                cs.DBSCAN(eps=0.5, min_samples=5, path="brute", backend="cpu").fit(X)
            # The grid settles dense cells as wholes: no warning (here an error) on 3-D points.
            cs.DBSCAN(eps=0.5, min_samples=5, backend="cpu").fit(X[:, :3])

    def test_knn_graph_is_exact_in_one_leaf(self):
        X = blobs(300, 4)
        g = cs.KNNGraph(k=5, backend="cpu").fit(X)  # 300 points < leaf size 512: one leaf, exact
        self.assertEqual(g.indices_.shape, (300, 5))
        self.assertEqual(g.distances_.dtype, np.float32)
        self.assertEqual(g.trees_built_, 1)
        self.assertEqual(g.recall_, 1.0)
        diff = X[:, None, :].astype(np.float64) - X[None, :, :]
        dist = np.sqrt((diff ** 2).sum(axis=2))
        np.fill_diagonal(dist, np.inf)
        exact = np.argsort(dist, axis=1, kind="stable")[:, :5]
        np.testing.assert_array_equal(g.indices_, exact)
        np.testing.assert_allclose(g.distances_, np.take_along_axis(dist, exact, 1), rtol=1e-5)
        distances, indices = g.kneighbors()
        self.assertIs(indices, g.indices_)

    def test_exact_knn_graph(self):
        # 2,000 points: the trees would not be exact; exact=True is, ties to the lower index.
        X = blobs(2_000, 6)
        g = cs.KNNGraph(k=7, exact=True, backend="cpu").fit(X)
        self.assertTrue(g.exact_)
        self.assertEqual(g.trees_built_, 0)
        self.assertEqual(g.recall_, 1.0)
        diff = X[:, None, :].astype(np.float64) - X[None, :, :]
        dist = np.sqrt((diff ** 2).sum(axis=2))
        np.fill_diagonal(dist, np.inf)
        exact = np.argsort(dist, axis=1, kind="stable")[:, :7]
        np.testing.assert_array_equal(g.indices_, exact)
        self.assertFalse(cs.KNNGraph(k=7, trees=1, leaf_size=64, target_recall=0,
                                     backend="cpu").fit(X).exact_)

    def test_kshape(self):
        X, _ = shapes(60, 64)
        k = cs.KShape(n_clusters=3, seed=3, backend="cpu").fit(X)
        self.assertEqual(k.labels_.shape, (60,))
        self.assertEqual(k.labels_.dtype, np.int32)
        self.assertEqual(k.cluster_centers_.shape, (3, 64))
        self.assertEqual(k.cluster_sizes_.tolist(), np.bincount(k.labels_, minlength=3).tolist())
        self.assertTrue(k.converged_)
        self.assertLessEqual(k.n_iter_, 100)
        # predict() measures the distances directly, fit the FFT's: the same nearest centroid.
        np.testing.assert_array_equal(k.predict(X), k.labels_)
        distances = k.transform(X)
        self.assertEqual(distances.shape, (60, 3))
        np.testing.assert_allclose(distances[np.arange(60), k.labels_], k.distances_, atol=1e-5)
        # 2-D and (n, 1, length) are the same series.
        np.testing.assert_array_equal(
            cs.KShape(n_clusters=3, seed=3, backend="cpu").fit_predict(X[:, None, :]), k.labels_)

    def test_kshape_all_channels(self):
        # Three channels clustered together (the default, channel=-1): k x C x m centroids, and
        # predict() by the multichannel distance finds the fitted labels again; channel=1 clusters
        # that channel alone.
        X, _ = shapes(60, 64)
        rng = np.random.default_rng(5)
        X3 = np.stack([X, np.roll(X, 7, axis=1), X + 0.1 * rng.standard_normal(X.shape)],
                      axis=1).astype(np.float32)
        k = cs.KShape(n_clusters=3, seed=3, backend="cpu").fit(X3)
        self.assertEqual(k.cluster_centers_.shape, (3, 3, 64))
        np.testing.assert_array_equal(k.predict(X3), k.labels_)
        distances = k.transform(X3)
        np.testing.assert_allclose(distances[np.arange(60), k.labels_], k.distances_, atol=1e-5)
        one = cs.KShape(n_clusters=3, seed=3, channel=1, backend="cpu").fit(X3)
        self.assertEqual(one.cluster_centers_.shape, (3, 64))
        np.testing.assert_array_equal(one.predict(X3), one.labels_)

    def test_rocket_classifies_the_shapes(self):
        X, y = shapes(80, 64)
        names = np.array(["sine", "square", "ramp"])[y]
        r = cs.Rocket(num_kernels=200, seed=2, backend="cpu").fit(X[:40], names[:40])
        self.assertEqual(list(r.classes_), ["ramp", "sine", "square"])
        self.assertEqual(r.n_features_out_, 400)
        features = r.transform(X)
        self.assertEqual(features.shape, (80, 400))
        self.assertEqual(features.dtype, np.float32)
        self.assertTrue(np.all((features[:, 0::2] >= 0) & (features[:, 0::2] <= 1)))  # PPV
        self.assertGreaterEqual(r.score(X[40:], names[40:]), 0.9)
        self.assertEqual(r.decision_function(X[40:]).shape, (40, 3))
        self.assertIn(r.alpha_, list(r.alphas_))
        # The kernels are drawn once, at fit: transform() of a part is that part of the whole.
        np.testing.assert_array_equal(r.transform(X[40:]), features[40:])
        # fit without y draws the same kernels (they depend on the seed, length and channels).
        np.testing.assert_array_equal(
            cs.Rocket(num_kernels=200, seed=2, backend="cpu").fit_transform(X), features)
        with self.assertRaisesRegex(cs.Error, "length"):
            r.transform(X[:, :50])

    def test_fitted_estimators_pickle(self):
        X, y = shapes(40, 48)
        fitted = [cs.Rocket(num_kernels=100, seed=6, backend="cpu").fit(X, y),
                  cs.KShape(n_clusters=3, backend="cpu").fit(X),
                  cs.DBSCAN(eps=0.5, min_samples=3, backend="cpu").fit(X),
                  cs.KNNGraph(k=4, backend="cpu").fit(X)]
        for estimator in fitted:
            with self.subTest(estimator=type(estimator).__name__):
                copy = pickle.loads(pickle.dumps(estimator))
                self.assertEqual(copy.get_params(), estimator.get_params())
                if isinstance(estimator, cs.Rocket):
                    np.testing.assert_array_equal(copy.transform(X), estimator.transform(X))
                    np.testing.assert_array_equal(copy.decision_function(X),
                                                  estimator.decision_function(X))
                elif isinstance(estimator, cs.KShape):
                    np.testing.assert_array_equal(copy.transform(X), estimator.transform(X))
                result = "indices_" if isinstance(estimator, cs.KNNGraph) else "labels_"
                if hasattr(estimator, result):
                    np.testing.assert_array_equal(getattr(copy, result),
                                                  getattr(estimator, result))


class TestGil(unittest.TestCase):
    def test_other_threads_run_while_the_engine_computes(self):
        # While a fit is inside the engine this thread keeps running, and sees the worker on the
        # line that calls into _core from the call's start to its end. Were the GIL held, this
        # thread could only see that line in the instant before the call, never during it.
        X = blobs(100_000, 8, seed=SEED + 1)
        graph = cs.KNNGraph(k=16, trees=2, leaf_size=256, target_recall=0, backend="cpu")
        source, first = inspect.getsourcelines(cs.KNNGraph.fit)
        line = first + next(i for i, text in enumerate(source) if "_core.knn_graph" in text)
        worker = threading.Thread(target=graph.fit, args=(X,))
        seen = []
        start = time.monotonic()
        worker.start()
        while worker.is_alive():
            frame = sys._current_frames().get(worker.ident)
            if frame is not None and frame.f_code.co_name == "fit" and frame.f_lineno == line:
                seen.append(time.monotonic())
        worker.join()
        took = time.monotonic() - start
        self.assertTrue(hasattr(graph, "indices_"))
        self.assertGreater(took, 0.2, "the job is too short to tell; make it larger")
        self.assertTrue(seen, "never saw the worker inside _core.knn_graph")
        self.assertGreater(seen[-1] - seen[0], 0.5 * took,
                           f"saw the worker inside _core.knn_graph for {seen[-1] - seen[0]:.3f} s "
                           f"of the {took:.3f} s the fit took")


    def test_ctrl_c_stops_a_fit(self):
        # A simulated Ctrl-C (_thread.interrupt_main) 0.1 s into a fit that takes seconds: the
        # engine checks for signals at its progress reports, so the fit ends soon after with
        # KeyboardInterrupt. Without that check the fit would run to its end first.
        X = blobs(200_000, 8, seed=SEED + 2)
        # More trees until the fit takes long enough to tell, whatever the machine's speed (4
        # trees took 0.78 s on a quiet 2-core machine).
        trees = 4
        while True:
            graph = cs.KNNGraph(k=16, trees=trees, leaf_size=256, target_recall=0, backend="cpu")
            start = time.monotonic()
            graph.fit(X)
            whole = time.monotonic() - start
            if whole > 0.8 or trees >= 64:
                break
            trees *= 2
        self.assertGreater(whole, 0.8, "the job is too short to tell; make it larger")
        fresh = cs.KNNGraph(**graph.get_params())
        timer = threading.Timer(0.1, _thread.interrupt_main)
        start = time.monotonic()
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                fresh.fit(X)
        finally:
            timer.cancel()
        stopped = time.monotonic() - start
        self.assertLess(stopped, 0.5 * whole, f"stopped after {stopped:.3f} s of {whole:.3f} s")
        self.assertFalse(hasattr(fresh, "indices_"))
        # And the backend runs the next job as usual.
        np.testing.assert_array_equal(fresh.fit(X[:5000]).indices_,
                                      cs.KNNGraph(**graph.get_params()).fit(X[:5000]).indices_)


if __name__ == "__main__":
    unittest.main()
