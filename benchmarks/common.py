"""Shared pieces of the benchmarks: data, timers, one runner per library, and fresh processes.

Every library is timed on the same split, with the same number of rounds, on the same
threads (``THREADS``), each in its own fresh process (``fresh``): libraries in one process
share its OpenMP runtime, whose settings one of them may have chosen for all, and its
memory. The split goes to the child processes in a ``.npz`` file (``save_split``). Seconds
per round exclude data preparation (binning, DMatrix/Dataset construction), which
``bench_binning.py`` times on its own. Each timing is the median of ``REPEATS`` runs.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from confboost.datasets import load

ROOT = Path(__file__).resolve().parent.parent
#: This folder: the working directory of the benchmarks' child processes.
HERE = Path(__file__).resolve().parent

THREADS = int(os.environ.get("BENCH_THREADS", "2"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
LEARNING_RATE = 0.5


def fresh(module, function, *args, env=None):
    """``module.function(*args)`` run in a fresh interpreter; its JSON-encoded result.

    Parameters
    ----------
    module, function : str
        A module of this folder and a function in it.
    *args
        JSON-encodable arguments.
    env : dict of str to str or None
        Variables added to the child's environment (for that process only).

    Returns
    -------
    object
        The function's result, through JSON (tuples come back as lists, keys as strings).
    """
    code = (f"import json, sys, {module}\n"
            f"result = {module}.{function}(*json.loads(sys.argv[1]))\n"
            "print('RESULT ' + json.dumps(result))")
    completed = subprocess.run([sys.executable, "-c", code, json.dumps(args)], cwd=HERE,
                               env={**os.environ, **(env or {})}, capture_output=True,
                               text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{module}.{function}{args!r} failed in its process:\n"
                           f"{completed.stderr[-3000:]}")
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    return json.loads(lines[-1].removeprefix("RESULT "))


def save_split(split, folder, name):
    """Write (X, y, Xt, yt) to ``folder/name.npz`` for the child processes; its path."""
    path = str(Path(folder) / f"{name}.npz")
    np.savez(path, *split)
    return path


def load_split(path):
    """(X, y, Xt, yt) as ``save_split`` wrote them."""
    with np.load(path) as arrays:
        return tuple(arrays[f"arr_{i}"] for i in range(4))


def run_library(library, path, rounds, params=None):
    """In a child process: ``RUNNERS[library]`` on the split at ``path``."""
    X, y, Xt, yt = load_split(path)
    return RUNNERS[library](X, y, Xt, yt, rounds, **(params or {}))


def counted_trips():
    """A function giving the round trips the client has waited for (``Shards.trips`` of
    every set of shards made from now on; a round is one); 0 on one machine."""
    made = []
    try:
        from confboost.dask import shards
    except ImportError:  # no dask: the local rows only
        return lambda: 0
    init = shards.Shards.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)

    shards.Shards.__init__ = counted
    return lambda: sum(each.trips for each in made)


def median_time(function, repeats=REPEATS):
    """Median wall seconds of ``function()`` over ``repeats`` calls, and its last result."""
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def synthetic(n_train, n_classes=2, n_features=50):
    """make_classification as in docs/PERFORMANCE.md, float32, with a 20% test part."""
    from sklearn.datasets import make_classification

    n_total = int(n_train * 1.25)
    X, y = make_classification(n_samples=n_total, n_features=n_features, n_informative=10,
                               n_redundant=10, flip_y=0.01, n_classes=n_classes,
                               random_state=0)
    X = X.astype(np.float32)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def fashion_mnist():
    """Fashion-MNIST, official 60,000 / 10,000 split, 784 pixel features (float32)."""
    split = load("fashion-mnist", dtype=np.float32)
    return split.X_train, split.y_train, split.X_test, split.y_test


def skin_segmentation():
    """UCI skin segmentation (245k x 3), 1 = skin; fold 0 of load's seeded 5-fold split."""
    split = load("skin-segmentation", dtype=np.float32)
    return (split.X_train, (split.y_train == 1).astype(np.int64),
            split.X_test, (split.y_test == 1).astype(np.int64))


# ---------------------------------------------------------------- one runner per library
# Each returns (seconds per round, test accuracy) for `rounds` rounds.

def run_confboost(X, y, Xt, yt, rounds, **params):
    import numba

    from confboost import BoostClassifier
    from confboost.data.dataset import Dataset
    from confboost.engine.boosting import run_boosting
    from confboost.engine.learners import LEARNERS
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import mode_code

    numba.set_num_threads(THREADS)
    probe_rows = np.linspace(0, len(y) - 1, 200).astype(np.intp)  # rows of every class
    probe = BoostClassifier(n_estimators=1, n_jobs=THREADS, **params).fit(X[probe_rows],
                                                                          y[probe_rows])
    signs, _ = probe._encode_targets(y)
    single = signs.shape[1] > 1  # multiclass: single-label MH (binary data is k = 1)
    weight = np.ones(len(y))
    smoothing = 1.0 / (2.0 * len(y) * signs.shape[1])
    dataset = Dataset.from_array(X, 255, 0, weight)
    mode = mode_code(params.get("confidence", "real"))

    def boost():
        scheme = MHScheme(signs, weight, single)
        learner = LEARNERS["stump"](mode, smoothing, trim=params.get("trim", 0.0))
        return run_boosting(dataset, scheme, learner, rounds, "auto", mode, smoothing)

    seconds, _ = median_time(boost)
    clf = BoostClassifier(n_estimators=rounds, n_jobs=THREADS, random_state=0,
                          **{"weak_learner": "stump", **params})
    clf.fit(X, y)
    return seconds / rounds, float(np.mean(clf.predict(Xt) == yt))


def run_lightgbm(X, y, Xt, yt, rounds, lambda_l2=0.0):
    import lightgbm as lgb

    n_classes = len(np.unique(y))
    params = {"num_leaves": 2, "max_bin": 255, "learning_rate": LEARNING_RATE,
              "num_threads": THREADS, "verbose": -1, "lambda_l2": lambda_l2,
              "objective": "binary" if n_classes == 2 else "multiclass"}
    if n_classes > 2:
        params["num_class"] = n_classes
    train = lgb.Dataset(X, y, params={"max_bin": 255, "verbose": -1}).construct()
    seconds, booster = median_time(lambda: lgb.train(params, train, rounds))
    prob = booster.predict(Xt)
    predicted = (prob > 0.5).astype(int) if n_classes == 2 else prob.argmax(axis=1)
    return seconds / rounds, float(np.mean(predicted == yt))


def run_xgboost(X, y, Xt, yt, rounds):
    import xgboost as xgb

    n_classes = len(np.unique(y))
    params = {"max_depth": 1, "tree_method": "hist", "eta": LEARNING_RATE,
              "nthread": THREADS, "max_bin": 256, "verbosity": 0,
              "objective": "binary:logistic" if n_classes == 2 else "multi:softprob"}
    if n_classes > 2:
        params["num_class"] = n_classes
    train = xgb.QuantileDMatrix(X, y, max_bin=256, nthread=THREADS)
    seconds, booster = median_time(lambda: xgb.train(params, train, rounds))
    prob = booster.predict(xgb.DMatrix(Xt, nthread=THREADS))
    predicted = (prob > 0.5).astype(int) if n_classes == 2 else prob.argmax(axis=1)
    return seconds / rounds, float(np.mean(predicted == yt))


def run_sklearn(X, y, Xt, yt, rounds, repeats=REPEATS):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    def fit():
        return AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=rounds,
                                  learning_rate=1.0, random_state=0).fit(X, y)

    seconds, clf = median_time(fit, repeats)
    return seconds / rounds, float(np.mean(clf.predict(Xt) == yt))


#: The runners by library, for ``run_library``.
RUNNERS = {"confboost": run_confboost, "lightgbm": run_lightgbm, "xgboost": run_xgboost,
           "sklearn": run_sklearn}
