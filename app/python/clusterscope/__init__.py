# SPDX-License-Identifier: MIT
"""Clusterscope's engine in Python: DBSCAN, kNN graphs, k-Shape and ROCKET as scikit-learn-style
estimators, on the CPU or a CUDA GPU, with NumPy arrays in and out.

>>> import numpy as np, clusterscope as cs
>>> X = np.random.default_rng(0).normal(size=(1000, 3)).astype(np.float32)
>>> labels = cs.DBSCAN(eps=0.3, min_samples=10).fit_predict(X)

Points are (n_samples, n_features) arrays; series are (n_series, length) or
(n_series, n_channels, length) arrays (aeon's layout), all computed in float32.
The GIL is released while the engine computes.
"""

from ._core import BackendUnavailable, DeviceError, Error, __version__
from ._estimators import DBSCAN, KNNGraph, KShape, NotFittedError, Rocket, backends

__all__ = [
    "DBSCAN",
    "KNNGraph",
    "KShape",
    "Rocket",
    "backends",
    "Error",
    "BackendUnavailable",
    "DeviceError",
    "NotFittedError",
    "__version__",
]
