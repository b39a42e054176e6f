"""Other libraries in a process where confboost has run: as fast as in a fresh one?

LightGBM, XGBoost and scikit-learn's HistGradientBoosting train on letter (16,000 x 16,
26 classes; a synthetic set of that shape without the data), ``ROUNDS`` rounds on
``common.THREADS`` threads, three ways, each in its own fresh process, interleaved:

- ``fresh``: the library alone;
- ``after confboost``: confboost's kernels have run first in that process (stump and tree
  fits on the same data, on the same threads);
- ``OMP_WAIT_POLICY=PASSIVE``: the library alone, with the two variables confboost's kernels
  wrote into the environment before they stopped (``KMP_BLOCKTIME=0`` too): the slowdown
  this row exists to catch;
- ``after confboost (workqueue)`` (not run unless ``NEIGHBOUR_WAYS`` names it): as ``after
  confboost``, with numba's ``workqueue`` threading layer instead of TBB.

Seconds are the median of ``REPEATS`` processes, each the median of ``TRAININGS`` trainings
(data preparation apart; ``NEIGHBOUR_ROUNDS`` and ``NEIGHBOUR_TRAININGS``, default 30 and
3); each repeat runs the ways in another order (rotated), so that a drift of the machine's
load falls on every way alike, and the ratio column is the median (and range) of each
repeat's own after / fresh. CPU seconds (the process's, over the same trainings) read less
of the load than wall seconds. The ``after confboost`` processes also measure the CPU
time the process's threads take in the half second after confboost's last fit, before the
library starts: a worker of confboost's that spins or runs on would show there.
``NEIGHBOURS`` (a comma-separated list of lightgbm, xgboost, sklearn; default all three)
chooses the libraries, ``NEIGHBOUR_WAYS`` the ways: on a loaded machine
HistGradientBoosting's 780 trees take minutes a process. Run alone: ``python
benchmarks/bench_neighbours.py``.
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
ALL_WAYS = {"fresh": {}, "after confboost": {},
            "OMP_WAIT_POLICY=PASSIVE": {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"},
            "after confboost (workqueue)": {"NUMBA_THREADING_LAYER": "workqueue"}}
WAYS = {way: ALL_WAYS[way] for way in os.environ.get(
    "NEIGHBOUR_WAYS", "fresh,after confboost,OMP_WAIT_POLICY=PASSIVE").split(",")}
#: Seconds the process stays idle after confboost's fits while its threads' CPU is read.
IDLE_SECONDS = 0.5
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


def idle_cpu(seconds):
    """CPU seconds the process's threads take while this one sleeps ``seconds``."""
    start = time.process_time()
    time.sleep(seconds)
    return time.process_time() - start


def time_library(library, way):
    """In a child process: ``TRAININGS`` trainings of ``library``, the ``way`` asks.

    Returns
    -------
    dict
        ``wall`` and ``cpu``: the median seconds of a training; ``idle_cpu``: CPU seconds
        of the process in the ``IDLE_SECONDS`` after confboost's fits (None for the ways
        without them).
    """
    X, y, _ = letter()
    idle = None
    if way.startswith("after confboost"):
        from confboost import BoostClassifier

        for params in ({"weak_learner": "stump"}, {"weak_learner": "tree", "max_leaves": 8}):
            BoostClassifier(20, n_jobs=common.THREADS, calibration=None, **params).fit(X, y)
        idle = idle_cpu(IDLE_SECONDS)
    train = _trainer(library, X, y)
    walls, cpus = [], []
    for _ in range(TRAININGS):
        start, cpu = time.perf_counter(), time.process_time()
        train()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "idle_cpu": idle}


def run():
    """The measures of every repeat, {library: {way: [time_library's dict, ...]}}, the
    data's name and the load at the start and at the end."""
    load = os.getloadavg()[0]
    times = {library: {way: [] for way in WAYS} for library in LIBRARIES}
    ways = list(WAYS)
    for repeat in range(common.REPEATS):
        shift = repeat % len(ways)
        for library in LIBRARIES:
            for way in ways[shift:] + ways[:shift]:
                times[library][way].append(common.fresh("bench_neighbours", "time_library",
                                                        library, way, env=WAYS[way]))
                print(library, way, times[library][way][-1], file=sys.stderr, flush=True)
    return {"runs": times, "data": letter()[2], "loads": (load, os.getloadavg()[0])}


def table(result):
    """Markdown lines for ``run()``'s result."""
    names = {"lightgbm": "LightGBM", "xgboost": "XGBoost",
             "sklearn": "HistGradientBoosting"}
    ways = [way for way in WAYS if way != "fresh"]
    lines = [f"{result['data']}, {ROUNDS} rounds, {common.THREADS} threads, each way in its "
             f"own fresh processes, {common.REPEATS} repeats in rotated order, the median "
             f"(load average {result['loads'][0]:.1f} at the start, {result['loads'][1]:.1f} "
             "at the end). Seconds are wall / CPU of one training; a ratio is the median "
             "(range) of each repeat's way / fresh, wall. after / fresh = 1: confboost leaves "
             "the other libraries' speed alone. Idle CPU: the process's CPU in the "
             f"{IDLE_SECONDS} s after confboost's fits.", "",
             "| library | way | seconds (wall / CPU) | way / fresh (wall) | way / fresh (CPU) "
             "| idle CPU after confboost (ms) |", "|---|---|---|---|---|---|"]
    for library, runs in result["runs"].items():
        fresh = runs["fresh"]
        lines.append(f"| {names[library]} | fresh | {_seconds(fresh)} | | | |")
        for way in ways:
            idle = [run["idle_cpu"] for run in runs[way] if run["idle_cpu"] is not None]
            lines.append(f"| {names[library]} | {way} | {_seconds(runs[way])} | "
                         f"{_ratios(runs[way], fresh, 'wall')} | "
                         f"{_ratios(runs[way], fresh, 'cpu')} | "
                         + (f"{1000 * max(idle):.0f} (most)" if idle else "") + " |")
    return lines


def _seconds(runs):
    return " / ".join(f"{statistics.median(run[key] for run in runs):.2f}"
                      for key in ("wall", "cpu"))


def _ratios(runs, fresh, key):
    ratios = [run[key] / base[key] for run, base in zip(runs, fresh, strict=True)]
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


if __name__ == "__main__":
    print("\n".join(table(run())))
