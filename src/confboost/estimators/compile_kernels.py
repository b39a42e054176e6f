"""Compiling the kernels ahead of the first fit: ``compile_kernels`` (``confboost compile``).

numba compiles a kernel at its first call and caches the machine code on disk (next to the
installed modules, or in ``NUMBA_CACHE_DIR``); from the cache a kernel loads in a few
milliseconds. Right after an install the cache is empty, and the first default fit that
grows trees spends some 7-19 s of CPU compiling. ``compile_kernels`` pays that once, where
it is cheap to pay (a container image's build, a CI job's setup): it runs the fits whose
kernels the defaults use, on small synthetic data of the same shapes and types, on one
thread (the kernels' serial builds) and on all (their parallel builds), so that a later
default fit in any process that shares the cache loads what it needs instead of compiling.

The cache holds code for this machine's CPU: an image built on one CPU model and run on
another compiles again (numba then writes the new CPU's code beside the old).

numba compiles one kernel at a time in a process, so the fits run in worker processes
(``processes``, by default one per core, at most one per unit of ``units()``), each filling
the shared cache: on a machine of many cores the step takes about its longest unit's time
(a default tree fit's kernels, one build). numba writes each cache file whole (a temporary
file, then a rename), but it reads a kernel's index, adds its entry and writes it back, so
two processes that save two signatures of one kernel at the same moment could lose one, or
point one at the other's code; the workers take a file lock around each save
(``_locked_cache_saves``). Without a way to take it (no ``fcntl``, or numba's cache class
changed) the fits run in this process, one after another.
"""

import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

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


def units():
    """The units of work, one a process at a time: (fit name of ``FITS``, n_jobs), each fit
    on one thread (the kernels' serial builds) and on all (their parallel builds), the
    two of a fit side by side (their builds are different kernels)."""
    return [(name, n_jobs) for name, *_ in FITS for n_jobs in (1, -1)]


def compile_unit(name, n_jobs):
    """Fit ``FITS``' fit ``name`` with ``n_jobs``, on float64 then float32 features, and
    predict with each model; the wall seconds of each: [(dtype name, seconds), ...]."""
    from confboost.estimators.classifier import BoostClassifier

    n_examples, n_features, n_classes, params = next(fit[1:] for fit in FITS if fit[0] == name)
    seconds = []
    for dtype in (np.float64, np.float32):
        began = time.perf_counter()
        X, y = _data(n_examples, n_features, n_classes, dtype)
        model = BoostClassifier(n_jobs=n_jobs, **params).fit(X, y)
        model.predict_proba(X)
        seconds.append((np.dtype(dtype).name, time.perf_counter() - began))
    return seconds


def compile_kernels(progress=None, processes=None):
    """Compile (or load from numba's cache) every kernel the default fits run.

    Fits ``BoostClassifier`` with its defaults on small synthetic sets of each shape a
    default fit grows (``FITS``), with float64 and float32 features, on one thread and on
    every thread numba may use, and predicts with each model. Nothing else changes: the
    thread count is restored after each fit, as in any fit.

    Parameters
    ----------
    progress : callable or None, default=None
        Called as ``progress(name, n_jobs, seconds)`` after each fit (the command prints it;
        ``name`` is the fit's and its features' type), in the order the fits end.
    processes : int or None, default=None
        Worker processes that share the units (``units()``); None: one per core, at most
        one per unit. 1, or where saves cannot be locked (``_locked_cache_saves``): every
        fit in this process, in ``units()``' order.

    Returns
    -------
    float
        Wall seconds in all.
    """
    start = time.perf_counter()
    work = units()
    if processes is None:
        processes = min(os.cpu_count() or 1, len(work))
    if processes < 1:
        raise ValueError(f"processes must be at least 1, got {processes}")
    if processes == 1 or not _can_lock():
        for name, n_jobs in work:
            _report(progress, name, n_jobs, compile_unit(name, n_jobs))
        return time.perf_counter() - start
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    left = list(work)
    try:
        with tempfile.TemporaryDirectory() as folder:
            lock = os.path.join(folder, "cache.lock")
            # spawn: a forked child would inherit numba's threads (TBB) half-started
            with ProcessPoolExecutor(processes, initializer=_locked_cache_saves,
                                     mp_context=multiprocessing.get_context("spawn"),
                                     initargs=(lock,)) as pool:
                running = {pool.submit(compile_unit, *unit): unit for unit in work}
                for done in as_completed(running):
                    _report(progress, *running[done], done.result())
                    left.remove(running[done])
    except BrokenProcessPool:  # e.g. a script without a __main__ guard: its workers re-run it
        for name, n_jobs in left:
            _report(progress, name, n_jobs, compile_unit(name, n_jobs))
    return time.perf_counter() - start


def _report(progress, name, n_jobs, seconds):
    if progress is not None:
        for dtype, wall in seconds:
            progress(f"{name}, {dtype}", n_jobs, wall)


def _can_lock():
    """Whether a worker can lock numba's cache saves: POSIX file locks, and numba's cache
    file class with the ``save(key, data)`` that ``_locked_cache_saves`` wraps."""
    try:
        import fcntl  # noqa: F401

        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return False
    return callable(getattr(IndexDataCacheFile, "save", None))


def _locked_cache_saves(lock):
    """In a worker process of ``compile_kernels``: numba saves a kernel's cache entry (its
    index read, changed and written, then its code) holding an exclusive lock on the file
    ``lock``, which every worker shares, so that no two saves interleave."""
    import fcntl

    from numba.core.caching import IndexDataCacheFile

    save = IndexDataCacheFile.save

    def locked_save(self, key, data):
        with open(lock, "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            try:
                return save(self, key, data)
            finally:
                fcntl.flock(held, fcntl.LOCK_UN)

    IndexDataCacheFile.save = locked_save
