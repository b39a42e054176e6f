"""Other libraries in a process where confboost has run: as fast as in a fresh one?

LightGBM, XGBoost and scikit-learn's HistGradientBoosting train on letter (16,000 x 16,
26 classes; a synthetic set of that shape without the data), ``ROUNDS`` rounds on
``common.THREADS`` threads, three ways, each in its own fresh process, interleaved:

- ``fresh``: the library alone;
- ``after confboost``: confboost's kernels have run first in that process (stump and tree
  fits on the same data, on the same threads);
- ``OMP_WAIT_POLICY=PASSIVE``: the library alone, with the two variables confboost's kernels
  wrote into the environment before they stopped (``KMP_BLOCKTIME=0`` too): the slowdown
  this row exists to catch.

Seconds are the median of ``REPEATS`` processes, each the median of ``TRAININGS`` trainings
(data preparation apart; ``NEIGHBOUR_ROUNDS`` and ``NEIGHBOUR_TRAININGS``, default 30 and
3). ``NEIGHBOURS`` (a comma-separated list of lightgbm, xgboost, sklearn; default all
three) chooses the libraries: on a loaded machine HistGradientBoosting's 780 trees take
minutes a process. Run alone: ``python benchmarks/bench_neighbours.py``.
"""

import os
import statistics
import sys
import time

import common

ROUNDS = int(os.environ.get("NEIGHBOUR_ROUNDS", "30"))
#: Trainings timed in each process (their median).
TRAININGS = int(os.environ.get("NEIGHBOUR_TRAININGS", "3"))
#: way -> environment variables of its processes
WAYS = {"fresh": {}, "after confboost": {},
        "OMP_WAIT_POLICY=PASSIVE": {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"}}
LIBRARIES = tuple(os.environ.get("NEIGHBOURS", "lightgbm,xgboost,sklearn").split(","))


def letter():
    """letter's train part, or make_classification of its shape without the data."""
    try:
        from confboost.datasets import load

        split = load("letter")
        return split.X_train.astype("float32"), split.y_train, "letter"
    except (OSError, ValueError):
        X, y, _, _ = common.synthetic(16_000, n_classes=26, n_features=16)
        return X, y, "synthetic 16k x 16, 26 classes"


def _trainer(library, X, y):
    """A function that trains ``library`` once on prepared data."""
    import numpy as np

    labels = np.unique(y, return_inverse=True)[1]
    if library == "lightgbm":
        import lightgbm as lgb

        params = {"objective": "multiclass", "num_class": int(labels.max()) + 1,
                  "num_threads": common.THREADS, "verbose": -1}
        data = lgb.Dataset(X, labels, params={"verbose": -1}).construct()
        return lambda: lgb.train(params, data, ROUNDS)
    if library == "xgboost":
        import xgboost as xgb

        params = {"objective": "multi:softprob", "num_class": int(labels.max()) + 1,
                  "tree_method": "hist", "nthread": common.THREADS, "verbosity": 0}
        data = xgb.QuantileDMatrix(X, labels, nthread=common.THREADS)
        return lambda: xgb.train(params, data, ROUNDS)
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_limits

    def fit():
        with threadpool_limits(common.THREADS, user_api="openmp"):
            HistGradientBoostingClassifier(max_iter=ROUNDS, early_stopping=False).fit(X, labels)
    return fit


def time_library(library, way):
    """In a child process: median seconds of ``TRAININGS`` trainings of ``library``, the
    ``way`` asks."""
    X, y, _ = letter()
    if way == "after confboost":
        from confboost import BoostClassifier

        for params in ({"weak_learner": "stump"}, {"weak_learner": "tree", "max_leaves": 8}):
            BoostClassifier(20, n_jobs=common.THREADS, calibration=None, **params).fit(X, y)
    train = _trainer(library, X, y)
    times = []
    for _ in range(TRAININGS):
        start = time.perf_counter()
        train()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run():
    """{library: {way: median seconds}}, the data's name and the load at the end."""
    times = {library: {way: [] for way in WAYS} for library in LIBRARIES}
    for _ in range(common.REPEATS):
        for library in LIBRARIES:
            for way, env in WAYS.items():
                times[library][way].append(
                    common.fresh("bench_neighbours", "time_library", library, way, env=env))
                print(library, way, times[library][way][-1], file=sys.stderr, flush=True)
    return {"seconds": {library: {way: statistics.median(values)
                                  for way, values in ways.items()}
                        for library, ways in times.items()},
            "data": letter()[2], "load": os.getloadavg()[0]}


def table(result):
    """Markdown lines for ``run()``'s result."""
    names = {"lightgbm": "LightGBM", "xgboost": "XGBoost",
             "sklearn": "HistGradientBoosting"}
    lines = [f"{result['data']}, {ROUNDS} rounds, {common.THREADS} threads, each way in its "
             f"own fresh processes, median of {common.REPEATS} (load average "
             f"{result['load']:.1f} at the end). after / fresh = 1: confboost leaves the other "
             "libraries' speed alone.", "",
             "| library | fresh process (s) | after confboost's kernels ran (s) | fresh, "
             "OMP_WAIT_POLICY=PASSIVE (s) | after / fresh | passive / fresh |",
             "|---|---|---|---|---|---|"]
    for library, seconds in result["seconds"].items():
        fresh, after, passive = (seconds[way] for way in WAYS)
        lines.append(f"| {names[library]} | {fresh:.2f} | {after:.2f} | {passive:.2f} | "
                     f"{after / fresh:.2f} | {passive / fresh:.2f} |")
    return lines


if __name__ == "__main__":
    print("\n".join(table(run())))
