# SPDX-License-Identifier: MIT
"""clusterscope.DBSCAN against scikit-learn's DBSCAN on generated blobs.

min_samples means the same in both: the points within eps of a point (distance <= eps), the
point itself included, for it to be core (the engine's minPts, clusterscope-cli --min-pts). So
DBSCAN(eps, min_samples) is compared with sklearn.cluster.DBSCAN(eps, min_samples) unchanged:
the same core points, the same clusters of them up to relabelling, the same noise. Border points
may differ: scikit-learn gives one to the first cluster whose expansion reaches it, the engine
to the cluster of its nearest core point.

scikit-learn measures in double, the engine in float, so eps is moved to the middle of a gap
between pairwise distances (no pair within a relative 1e-5 of it): the two then count the same
neighbours. Every case has points with exactly min_samples neighbours, so that a min_samples
off by one would change the core set.
"""

import sys
import unittest

try:
    import numpy as np
    from sklearn.cluster import DBSCAN as SkDBSCAN
except ImportError as e:
    print(f"{e}: the comparison with scikit-learn cannot run", file=sys.stderr)
    sys.exit(77)

import clusterscope as cs

SEED = 1201


def blobs(n, dims, seed):
    """Five Gaussian blobs of different spreads, and 5% uniform noise around them."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-8, 8, size=(5, dims))
    spreads = rng.uniform(0.3, 1.2, size=5)
    which = rng.integers(0, 5, size=n)
    X = centres[which] + rng.normal(size=(n, dims)) * spreads[which, None]
    noise = rng.random(n) < 0.05
    X[noise] = rng.uniform(-11, 11, size=(noise.sum(), dims))
    return X.astype(np.float32)


def neighbourhoods(X, eps):
    """eps moved to the middle of the nearest gap between two pairwise distances that is wider
    than 2e-5 eps (100 float roundings, a 1e-5 margin each side), and each point's count of
    points within it, itself included."""
    X = X.astype(np.float64)
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    pairs = np.sort(d[np.triu_indices(len(X), 1)])
    gaps = np.flatnonzero(np.diff(pairs) > 2e-5 * eps)
    j = gaps[np.argmin(np.abs(pairs[gaps] - eps))]
    eps = float((pairs[j] + pairs[j + 1]) / 2)
    return eps, (d <= eps).sum(axis=1)


class TestAgainstScikitLearn(unittest.TestCase):
    CASES = [
        # dims, n, eps, min_samples, path (auto: grid up to 3-D, else brute or kd-tree)
        (2, 1500, 0.35, 5, "auto"),
        (2, 1500, 0.5, 25, "auto"),
        (2, 1500, 0.2, 1, "auto"),
        (3, 1500, 0.7, 8, "auto"),
        (3, 1500, 0.7, 8, "brute"),
        (5, 1200, 1.4, 6, "auto"),
        (5, 1200, 1.4, 6, "kdtree"),
        (16, 800, 4.0, 4, "brute"),
    ]

    def check(self, dims, n, eps, min_samples, path, seed):
        X = blobs(n, dims, seed)
        eps, counts = neighbourhoods(X, eps)
        self.assertGreater(np.count_nonzero(counts == min_samples), 0,
                           "no point at the threshold: the case cannot tell min_samples +- 1")
        ours = cs.DBSCAN(eps=eps, min_samples=min_samples, path=path, backend="cpu").fit(X)
        theirs = SkDBSCAN(eps=eps, min_samples=min_samples).fit(X.astype(np.float64))

        # The same core points.
        np.testing.assert_array_equal(ours.core_sample_indices_, theirs.core_sample_indices_)
        core = ours.core_sample_indices_
        self.assertGreater(len(core), 0)

        # Their clusters the same up to relabelling: a one-to-one map between the labels.
        a, b = ours.labels_[core], theirs.labels_[core]
        self.assertTrue(np.all(a >= 0) and np.all(b >= 0))
        pairs = set(zip(a.tolist(), b.tolist()))
        self.assertEqual(len(pairs), len(set(a.tolist())), "a cluster of ours is split")
        self.assertEqual(len(pairs), len(set(b.tolist())), "a cluster of scikit-learn's is split")
        self.assertEqual(ours.n_clusters_, len(set(b.tolist())))

        # The same noise (and so the same border points): a point is in a cluster in both when
        # and only when it is within eps of a core point.
        np.testing.assert_array_equal(ours.labels_ == -1, theirs.labels_ == -1)
        return ours

    def test_core_partition_and_noise(self):
        for i, (dims, n, eps, min_samples, path) in enumerate(self.CASES):
            seed = SEED + i
            with self.subTest(dims=dims, n=n, eps=eps, min_samples=min_samples, path=path,
                              seed=seed):
                ours = self.check(dims, n, eps, min_samples, path, seed)
                if path != "auto":
                    self.assertEqual(ours.path_, path)

    def test_min_samples_is_not_shifted(self):
        # One more or one fewer required neighbour changes the core set on these blobs: the
        # mapping above is the identity, not min_samples +- 1.
        X = blobs(1500, 2, SEED)
        eps, _ = neighbourhoods(X, 0.35)
        theirs = SkDBSCAN(eps=eps, min_samples=5).fit(X.astype(np.float64))
        for shifted in (4, 6):
            ours = cs.DBSCAN(eps=eps, min_samples=shifted, backend="cpu").fit(X)
            self.assertNotEqual(len(ours.core_sample_indices_), len(theirs.core_sample_indices_))


if __name__ == "__main__":
    unittest.main()
