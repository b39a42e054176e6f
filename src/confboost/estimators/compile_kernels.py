"""Compiling the kernels ahead of the first fit: ``compile_kernels`` (``confboost compile``).

numba compiles a kernel at its first call and caches the machine code on disk (next to the
installed modules, or in ``NUMBA_CACHE_DIR``); from the cache a kernel loads in a few
milliseconds. Right after an install the cache is empty, and the first default fit that
grows trees spends some 20-30 s of CPU compiling. ``compile_kernels`` pays that once, where
it is cheap to pay (a container image's build, a CI job's setup): it runs the fits whose
kernels the defaults use, on small synthetic data of the same shapes and types, on one
thread (the kernels' serial builds) and on all (their parallel builds), so that a later
default fit in any process that shares the cache loads what it needs instead of compiling.

The cache holds code for this machine's CPU: an image built on one CPU model and run on
another compiles again (numba then writes the new CPU's code beside the old).
"""

import time

import numpy as np

#: The fits ``compile_kernels`` runs: (name, examples, features, classes, estimator
#: parameters). The trees of k labels (``weak_learner="auto"`` above 2,500 examples), and of
#: many labels on few features (``learners/tree.py``'s label-mass histograms; a weight
#: update over ``threads.SERIAL_CELLS`` cells), the binary trees (one label), a tree per
#: label (more than 2,000 features × labels, ``training.params.default_learner``; more
#: cells than the binning's NumPy twin takes, ``lazy_numba.TWIN_CELLS``) and a long stump
#: fit (a small set's rounds, once the twins' cells are spent); float32 and float64
#: features (binning's two types).
FITS = (
    ("trees", 3000, 12, 6, {"n_estimators": 4}),
    ("trees of many labels", 3000, 12, 26, {"n_estimators": 3}),
    ("binary trees", 3000, 12, 2, {"n_estimators": 4}),
    ("a tree per label", 3000, 400, 10, {"n_estimators": 2}),
    ("stumps", 2000, 40, 3, {"n_estimators": 20}),
)


def _data(n_examples, n_features, n_classes, dtype, seed=0):
    """Synthetic features (``dtype``) and labels 0..n_classes-1, each class present."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_examples, n_features)).astype(dtype)
    scores = X[:, :min(n_features, 8)] @ rng.normal(size=(min(n_features, 8), n_classes))
    y = np.argmax(scores, axis=1)
    y[:n_classes] = np.arange(n_classes)
    return X, y


def compile_kernels(progress=None):
    """Compile (or load from numba's cache) every kernel the default fits run.

    Fits ``BoostClassifier`` with its defaults on small synthetic sets of each shape a
    default fit grows (``FITS``), with float32 and float64 features, on one thread and on
    every thread numba may use, and predicts with each model. Nothing else changes: the
    thread count is restored after each fit, as in any fit.

    Parameters
    ----------
    progress : callable or None, default=None
        Called as ``progress(name, n_jobs, seconds)`` after each fit (the command prints it).

    Returns
    -------
    float
        Wall seconds in all.
    """
    from confboost.estimators.classifier import BoostClassifier

    start = time.perf_counter()
    for n_jobs in (1, -1):
        for name, n_examples, n_features, n_classes, params in FITS:
            for dtype in (np.float64, np.float32):
                began = time.perf_counter()
                X, y = _data(n_examples, n_features, n_classes, dtype)
                model = BoostClassifier(n_jobs=n_jobs, **params).fit(X, y)
                model.predict_proba(X)
                if progress is not None:
                    progress(f"{name}, {np.dtype(dtype).name}", n_jobs,
                             time.perf_counter() - began)
    return time.perf_counter() - start
