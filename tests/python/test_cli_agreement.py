# SPDX-License-Identifier: MIT
"""The estimators give clusterscope-cli's results on the same data: the suite writes the data
(points as .npy, series as .ts), runs the built CLI (CS_CLI) with its output options, and
compares the files it wrote with the fitted attributes, exactly (both run the CPU backend)."""

import json
import os
import subprocess
import sys
import unittest

try:
    import numpy as np
except ImportError:
    print("NumPy is not installed for this python3: the suite cannot run", file=sys.stderr)
    sys.exit(77)

import clusterscope as cs

SEED = 20261202
CLI = os.environ.get("CS_CLI", "")
TMP = os.path.join(os.environ.get("CS_TEST_TMP", "."), "cli_agreement")


def cli(*args):
    """Runs clusterscope-cli with --json and returns its JSON line."""
    run = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise AssertionError(f"clusterscope-cli {' '.join(args)} exited {run.returncode}: "
                             f"{run.stderr}")
    return json.loads(run.stdout)


def path(name):
    return os.path.join(TMP, name)


def write_ts(file, X, y):
    """A univariate .ts file, every value written so that it reads back as the same float32."""
    classes = sorted(set(y))
    with open(file, "w") as out:
        out.write(f"@problemName generated\n@timeStamps false\n@univariate true\n"
                  f"@equalLength true\n@seriesLength {X.shape[1]}\n"
                  f"@classLabel true {' '.join(classes)}\n@data\n")
        for row, label in zip(X, y):
            out.write(",".join(repr(float(v)) for v in row) + f":{label}\n")


def shapes(n, length, seed):
    """Noisy sine, square and triangle waves at random phases; labels 'sine', 'square', 'tri'."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 4 * np.pi, length, endpoint=False)
    names = np.array(["sine", "square", "tri"])
    y = rng.integers(0, 3, size=n)
    phase = rng.uniform(0, 2 * np.pi, size=n)
    waves = [np.sin(t + p) for p in phase]
    X = np.array([w if c == 0 else np.sign(w) if c == 1 else np.arcsin(w)
                  for w, c in zip(waves, y)])
    X = X * rng.uniform(0.5, 2.0, size=(n, 1)) + rng.normal(scale=0.2, size=X.shape)
    return X.astype(np.float32), names[y]


class TestAgainstTheCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not CLI or not os.access(CLI, os.X_OK):
            raise AssertionError(f"CS_CLI does not name the built clusterscope-cli: {CLI!r}")
        os.makedirs(TMP, exist_ok=True)

    def test_knn_graph(self):
        rng = np.random.default_rng(SEED)
        X = rng.normal(size=(3000, 6)).astype(np.float32)
        X[:1500] += 4.0
        np.save(path("points.npy"), X)
        # Several trees of small leaves: an approximate graph, so that the trees must match too.
        args = ["--k", "7", "--trees", "3", "--leaf-size", "64", "--target-recall", "0",
                "--seed", "5"]
        summary = cli("knn", path("points.npy"), *args, "--backend", "cpu", "--out",
                      path("graph.npy"))
        g = cs.KNNGraph(k=7, trees=3, leaf_size=64, target_recall=0, seed=5, backend="cpu").fit(X)
        np.testing.assert_array_equal(g.indices_, np.load(path("graph.npy")))
        np.testing.assert_array_equal(g.distances_, np.load(path("graph_distances.npy")))
        self.assertEqual(g.trees_built_, summary["trees_built"])
        self.assertEqual(g.recall_by_tree_, summary["recall_by_tree"])
        self.assertLess(g.recall_, 1.0)  # approximate indeed
        # With the defaults on both sides too (k 10, 8 trees, target recall 0.95, seed 1).
        summary = cli("knn", path("points.npy"), "--backend", "cpu", "--out", path("default.npy"))
        g = cs.KNNGraph(backend="cpu").fit(X)
        np.testing.assert_array_equal(g.indices_, np.load(path("default.npy")))
        self.assertEqual(g.trees_built_, summary["trees_built"])

    def test_kshape(self):
        X, y = shapes(90, 96, SEED + 1)
        write_ts(path("shapes.ts"), X, y)
        summary = cli("kshape", path("shapes.ts"), "--k", "3", "--seed", "4", "--backend", "cpu",
                      "--out", path("kshape.csv"), "--centroids", path("centroids.npy"))
        k = cs.KShape(n_clusters=3, seed=4, backend="cpu").fit(X)
        rows = np.loadtxt(path("kshape.csv"), delimiter=",", comments="#", skiprows=2)
        np.testing.assert_array_equal(k.labels_, rows[:, 1].astype(np.int32))
        np.testing.assert_array_equal(k.shifts_, rows[:, 3].astype(np.int32))
        np.testing.assert_array_equal(k.distances_, rows[:, 2].astype(np.float32))
        np.testing.assert_array_equal(k.cluster_centers_, np.load(path("centroids.npy")))
        self.assertEqual(k.n_iter_, summary["iterations"])
        self.assertEqual(k.converged_, summary["converged"])
        self.assertEqual(k.cluster_sizes_.tolist(), summary["cluster_sizes"])
        # The defaults (k 3, seed 1, 100 iterations) on both sides.
        summary = cli("kshape", path("shapes.ts"), "--backend", "cpu", "--centroids",
                      path("default_centroids.npy"))
        k = cs.KShape(backend="cpu").fit(X)
        np.testing.assert_array_equal(k.cluster_centers_, np.load(path("default_centroids.npy")))
        self.assertEqual(k.cluster_sizes_.tolist(), summary["cluster_sizes"])

    def test_rocket(self):
        X, y = shapes(120, 80, SEED + 2)
        Xtrain, ytrain, Xtest, ytest = X[:50], y[:50], X[50:], y[50:]
        write_ts(path("shapes_train.ts"), Xtrain, ytrain)
        write_ts(path("shapes_test.ts"), Xtest, ytest)
        summary = cli("rocket", path("shapes_train.ts"), "--test", path("shapes_test.ts"),
                      "--kernels", "300", "--seed", "9", "--backend", "cpu",
                      "--features", path("features.npy"), "--predictions", path("predictions.csv"))
        r = cs.Rocket(num_kernels=300, seed=9, backend="cpu").fit(Xtrain, ytrain)
        # The CLI's features: the training rows, then the test rows.
        features = np.vstack([r.transform(Xtrain), r.transform(Xtest)])
        np.testing.assert_array_equal(features, np.load(path("features.npy")))
        # Its classifier: the same alpha, leave-one-out accuracy and predictions.
        self.assertEqual(r.alpha_, summary["alpha"])
        self.assertEqual(r.loo_accuracy_, summary["loo_accuracy"])
        np.testing.assert_array_equal(r.alphas_, summary["alphas"])
        np.testing.assert_allclose(r.loo_error_, summary["loo_error"], rtol=1e-12)
        predicted = np.loadtxt(path("predictions.csv"), delimiter=",", comments="#", skiprows=2,
                               dtype=str, usecols=3)
        np.testing.assert_array_equal(r.predict(Xtrain), predicted[:50])
        np.testing.assert_array_equal(r.predict(Xtest), predicted[50:])
        self.assertEqual(r.score(Xtest, ytest), summary["test_accuracy"])


if __name__ == "__main__":
    unittest.main()
