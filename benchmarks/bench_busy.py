"""Threads on a busy machine: the default ``n_jobs`` against ``n_jobs=1`` with two busy
processes on the cores.

Starts two ``while True: pass`` processes at this process's nice level, times whole fits
(binning included) with the default threads and with one thread, interleaved, the median of
``BUSY_REPEATS`` (default 5) runs each, or more until each way has run ``BUSY_SECONDS``
(default 3), then a 4-fold ``cross_val_score`` on satimage with ``n_jobs=2`` against serial,
for confboost and for scikit-learn's HistGradientBoosting (the first parallel call of either
pays joblib's worker start-up), and stops the busy processes. The fits run in one fresh
process, each cross-validation in another. Run alone: ``python benchmarks/bench_busy.py``.
A ratio above 1 means the default threads were slower.
"""

import os
import subprocess
import sys
import time

import common
import numpy as np

REPEATS = int(os.environ.get("BUSY_REPEATS", "5"))
#: Seconds of fits each way, at least (BUSY_SECONDS).
MIN_SECONDS = float(os.environ.get("BUSY_SECONDS", "3"))


def shuttle_like():
    """43.5k x 9, 7 classes: the shape of UCI shuttle, synthetic."""
    from sklearn.datasets import make_classification

    X, y = make_classification(43_500, 9, n_informative=6, n_redundant=2, n_classes=7,
                               n_clusters_per_class=1, random_state=0)
    return X.astype(np.float32), y


def satimage():
    from confboost.datasets import load

    data = load("satimage")  # $CONFBOOST_DATA, else ../shared/data beside the checkout
    return data.X_train, data.y_train


#: task -> (loader, estimator parameters)
TASKS = {
    "binary 10k x 50, 100 stumps": (lambda: common.synthetic(10_000)[:2], {"n_estimators": 100}),
    "binary 100k x 50, 50 stumps": (lambda: common.synthetic(100_000)[:2], {"n_estimators": 50}),
    "binary 1M x 50, 5 stumps": (lambda: common.synthetic(1_000_000)[:2], {"n_estimators": 5}),
    "10 classes 100k x 50, 10 stumps": (lambda: common.synthetic(100_000, n_classes=10)[:2],
                                        {"n_estimators": 10}),
    "skin-segmentation, 100 stumps": (lambda: common.skin_segmentation()[:2],
                                      {"n_estimators": 100}),
    "fashion-mnist, 3 stumps": (lambda: common.fashion_mnist()[:2], {"n_estimators": 3}),
    "satimage, 300 stumps": (satimage, {"n_estimators": 300}),
    "shuttle-like 43.5k x 9, 50 8-leaf trees": (
        shuttle_like, {"n_estimators": 50, "weak_learner": "tree", "max_leaves": 8}),
}


#: The task also timed with n_jobs=1 in both columns: how far from 1 a ratio strays when
#: nothing differs but the moment (busy cores give a 0.5 s fit a ~15% spread).
NOISE_TASK = "satimage, 300 stumps"


def _fit_times(X, y, params, first=None):
    """Median seconds of whole fits with ``n_jobs=first`` (default: None, the default
    threads) and with ``n_jobs=1``, on busy cores."""
    from confboost import BoostClassifier

    params = {"weak_learner": "stump", **params}  # the tasks name trees; the rest are stumps
    small = {**params, "n_estimators": 2}
    spread = np.linspace(0, len(y) - 1, min(2000, len(y))).astype(np.intp)  # every class
    BoostClassifier(**small, n_jobs=1).fit(X[spread], y[spread])  # kernels from the cache
    BoostClassifier(**small).fit(X[spread], y[spread])
    default, single = [], []
    # interleaved, as the load moves; at least REPEATS fits and MIN_SECONDS of each: a fit of
    # 0.1 s loses a 4 ms time slice to a busy process a random number of times (0 to ~20)
    # (in turn first: a fit pays for what the one before it left, e.g. freed memory)
    while len(default) < REPEATS or sum(default) + sum(single) < 2 * MIN_SECONDS:
        pair = ((first, default), (1, single))
        for n_jobs, times in pair if len(default) % 2 == 0 else pair[::-1]:
            start = time.perf_counter()
            BoostClassifier(**params, n_jobs=n_jobs).fit(X, y)
            times.append(time.perf_counter() - start)
    return float(np.median(default)), float(np.median(single))


def _cross_validation(estimator, X, y, one_thread):
    """{"1": [first call s, second call s], "2": [...]} of a 4-fold ``cross_val_score``,
    n_jobs 1, 2 (``one_thread``: each serial fit on one OpenMP thread, as in joblib's
    workers).

    The first n_jobs=2 call starts joblib's workers, which import scikit-learn (its task
    function is scikit-learn's) and the estimator's library; the second finds them running.
    """
    from sklearn.model_selection import cross_val_score
    from threadpoolctl import threadpool_limits

    times = {}
    for n_jobs in (1, 2, 1, 2):
        start = time.perf_counter()
        # HistGradientBoosting: one OpenMP thread per fit, serial as in joblib's workers
        # (its spinning threads take minutes on busy cores); confboost: its default threads
        with threadpool_limits(1 if one_thread else None, user_api="openmp"):
            cross_val_score(estimator, X, y, cv=4, n_jobs=n_jobs)
        times.setdefault(str(n_jobs), []).append(time.perf_counter() - start)
    return times


#: The cross-validated estimators: name -> (library, one OpenMP thread per serial fit).
CROSS_VALIDATED = {"confboost, 100 stumps": ("confboost", False),
                   "HistGradientBoosting, 100 iterations": ("sklearn", True)}


def cross_validation_of(name):
    """In a child process: ``_cross_validation`` of ``CROSS_VALIDATED[name]`` on satimage,
    or None without the data."""
    try:
        X, y = satimage()
    except (OSError, ValueError) as error:
        print(f"skipped cross_val_score: {error}", file=sys.stderr)
        return None
    library, one_thread = CROSS_VALIDATED[name]
    if library == "confboost":
        from confboost import BoostClassifier

        estimator = BoostClassifier(100, weak_learner="stump")
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        estimator = HistGradientBoostingClassifier(max_iter=100, early_stopping=False)
    return _cross_validation(estimator, X, y, one_thread)


def fit_rows():
    """In a child process: rows (task, default s, n_jobs=1 s) of ``TASKS``."""
    rows = []
    for task, (loader, params) in TASKS.items():
        try:
            X, y = loader()
        except (OSError, ValueError) as error:  # a data set that is not here
            print(f"skipped {task}: {error}", file=sys.stderr)
            continue
        rows.append((task, *_fit_times(X, y, params)))
        print(rows[-1], file=sys.stderr, flush=True)
        if task == NOISE_TASK:  # the same measure of n_jobs=1 against itself
            rows.append((f"{task}: n_jobs=1 in both columns (the measure's noise)",
                         *_fit_times(X, y, params, first=1)))
    return rows


def run():
    """Rows (task, default s, n_jobs=1 s) and the cross-validation times, under load."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.5)
        rows = common.fresh("bench_busy", "fit_rows")
        cv = {name: common.fresh("bench_busy", "cross_validation_of", name)
              for name in CROSS_VALIDATED}
        cv = {name: times for name, times in cv.items() if times is not None} or None
        load = os.getloadavg()[0]
    finally:
        for process in busy:
            process.kill()
            process.wait()
    return {"rows": rows, "cv": cv, "load": load}


def table(result):
    """Markdown lines for ``run()``'s result."""
    lines = [f"Two busy processes on the cores (load average {result['load']:.1f} at the end); "
             f"whole fits, median of {REPEATS} or more (at least {MIN_SECONDS:g} s of "
             "fits each way), interleaved.", "",
             "| task | default n_jobs (s) | n_jobs=1 (s) | default / n_jobs=1 |",
             "|---|---|---|---|"]
    for task, default, single in result["rows"]:
        lines.append(f"| {task} | {default:.2f} | {single:.2f} | {default / single:.2f} |")
    for name, times in (result["cv"] or {}).items():
        serial, parallel = times["1"], times["2"]
        lines.append(f"| satimage cross_val_score 4-fold, {name}: n_jobs=2 vs serial "
                     f"(first call; second) | {parallel[0]:.2f}; {parallel[1]:.2f} | "
                     f"{serial[0]:.2f}; {serial[1]:.2f} | {parallel[0] / serial[0]:.2f}; "
                     f"{parallel[1] / serial[1]:.2f} |")
    return lines


if __name__ == "__main__":
    print("\n".join(table(run())))
