"""Distributed fits at scale: confboost, LightGBM and XGBoost on one Dask cluster, and the
cost model of a distributed round.

A process ``LocalCluster`` of ``BENCH_SCALE_WORKERS`` workers (default 4, one thread each)
holds ``BENCH_SCALE_ROWS`` x 50 float32 rows (default 4,000,000), generated on the workers
in 16 partitions (a seeded ``dask.array`` draw: 10 informative columns, one interaction,
noise) and persisted before the clock starts. Each library, in its own fresh process and
cluster, fits stumps and trees of 8 leaves for ``BENCH_SCALE_ROUNDS`` rounds (default 5):
``DaskBoostClassifier``; LightGBM's ``DaskLGBMClassifier`` (``num_leaves`` 2 or 8);
XGBoost's ``xgboost.dask`` (``max_depth=1``, or ``lossguide`` with ``max_leaves=8``); and
``BoostClassifier`` on the same rows gathered into one process (``THREADS`` threads) as the
local reference. Per round = (fit of R rounds - fit of 1 round) / (R - 1), which leaves out
binning and start-up; "whole fit" is the fit of R rounds; "peak MB/worker" is the largest
peak resident memory of a worker process (data included), the local row the process's.

The cost model of a confboost round (``model``): t = c_rows · rows/workers + c_reduce ·
(bytes summed per round · log2 workers) + c_trip · round trips, its three constants fitted
by non-negative least squares to this run's confboost rounds: on ``BENCH_SCALE_WORKERS`` and
on each of ``BENCH_SCALE_MODEL_WORKERS`` (default "1,2") workers, stumps and trees.
Run alone: ``python benchmarks/bench_dask_scale.py``.
"""

import os
import resource
import sys
import time

import common
import numpy as np

ROWS = int(os.environ.get("BENCH_SCALE_ROWS", "4000000"))
WORKERS = int(os.environ.get("BENCH_SCALE_WORKERS", "4"))
ROUNDS = int(os.environ.get("BENCH_SCALE_ROUNDS", "5"))
MODEL_WORKERS = [int(n) for n in os.environ.get("BENCH_SCALE_MODEL_WORKERS", "1,2").split(",")
                 if n]
N_FEATURES = 50
PARTITIONS = 16
LIBRARIES = ("confboost local", "confboost dask", "lightgbm dask", "xgboost dask")
LEARNERS = ("stumps", "trees of 8 leaves")


def data():
    """(X, y) as dask arrays: a seeded draw, the same in every process."""
    import dask.array as da

    chunk = -(-ROWS // PARTITIONS)
    X = da.random.RandomState(0).standard_normal((ROWS, N_FEATURES), chunks=(chunk, N_FEATURES))
    X = X.astype(np.float32)
    weights = np.random.default_rng(1).normal(size=10)
    noise = da.random.RandomState(2).standard_normal(ROWS, chunks=chunk)
    logit = X[:, :10] @ weights + 2.0 * X[:, 0] * X[:, 1] + noise
    return X, (logit > 0).astype(np.int64)


def _peak_mb():
    """This process's peak resident memory, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _params(library, learner):
    tree = learner != "stumps"
    rate = common.LEARNING_RATE
    if library.startswith("confboost"):
        return ({"weak_learner": "tree", "max_leaves": 8} if tree else
                {"weak_learner": "stump"})
    if library == "lightgbm dask":
        return {"num_leaves": 8 if tree else 2, "learning_rate": rate, "max_bin": 255,
                "min_child_samples": 1, "verbose": -1, "num_threads": 1}
    return ({"grow_policy": "lossguide", "max_leaves": 8, "max_depth": 0} if tree else
            {"max_depth": 1}) | {"learning_rate": rate, "tree_method": "hist", "max_bin": 256,
                                 "nthread": 1}


def _fitter(library, learner, X, y, client):
    """fit(rounds) for one library, and a counter of confboost's round trips per tree."""
    params = _params(library, learner)
    trips = []
    if library == "confboost local":
        from confboost import BoostClassifier

        return (lambda rounds: BoostClassifier(n_estimators=rounds, n_jobs=common.THREADS,
                                               calibration=None, **params).fit(X, y)), trips
    if library == "confboost dask":
        from confboost.dask import DaskBoostClassifier, collective

        fit_round = collective.CollectiveLearner.fit

        def counted(learner, *args):  # a tree's trips beyond its round's one (cost model)
            before = learner.shards.trips
            fit = fit_round(learner, *args)
            trips.append(learner.shards.trips - before - 1)
            return fit

        collective.CollectiveLearner.fit = counted
        return (lambda rounds: DaskBoostClassifier(n_estimators=rounds, client=client,
                                                   **params).fit(X, y)), trips
    if library == "lightgbm dask":
        from lightgbm import DaskLGBMClassifier

        return (lambda rounds: DaskLGBMClassifier(n_estimators=rounds, client=client,
                                                  **params).fit(X, y)), trips
    from xgboost.dask import DaskXGBClassifier

    return (lambda rounds: DaskXGBClassifier(n_estimators=rounds, **params).fit(X, y)), trips


def run_one(library, learner, n_workers=WORKERS):
    """In a fresh process: [s/round, whole fit s, peak MB per worker, trips per tree]."""
    from distributed import Client, LocalCluster

    X, y = data()
    if library == "confboost local":
        X, y = X.compute(scheduler="threads"), y.compute(scheduler="threads")
        fit, trips = _fitter(library, learner, X, y, None)
        fit(2)  # compile
        seconds, whole = _per_round(fit)
        return [seconds, whole, _peak_mb(), None]
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      memory_limit=0, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        X, y = client.persist([X, y])
        fit, trips = _fitter(library, learner, X, y, client)
        fit(2)  # compile on the workers, warm the connections
        trips.clear()
        seconds, whole = _per_round(fit)
        peak = max(client.run(_peak_mb).values())
    return [seconds, whole, peak, float(np.mean(trips)) if trips else None]


def _per_round(fit):
    start = time.perf_counter()
    fit(1)
    one = time.perf_counter() - start
    start = time.perf_counter()
    fit(ROUNDS)
    whole = time.perf_counter() - start
    return (whole - one) / (ROUNDS - 1), whole


def round_bytes(learner):
    """Bytes the reduction sums in a round: the update's histogram (50 features x 256 bins x
    W+/W-, float64) and, for trees of 8 leaves, a histogram for each of the 6 splits whose
    children may split (the last split's children need none)."""
    hist = N_FEATURES * 256 * 2 * 8
    return hist if learner == "stumps" else hist + 6 * hist


def model(points):
    """(c_rows, c_reduce, c_trip) fitted to [rows, workers, bytes, trips, s/round] rows by
    non-negative least squares."""
    from scipy.optimize import nnls

    A = np.array([[rows / workers, nbytes * np.log2(workers), trips]
                  for rows, workers, nbytes, trips, _ in points])
    t = np.array([point[-1] for point in points])
    return nnls(A, t)[0]


def main():
    runs = [(library, learner, WORKERS) for learner in LEARNERS for library in LIBRARIES]
    runs += [("confboost dask", learner, n) for learner in LEARNERS for n in MODEL_WORKERS
             if n != WORKERS]
    results = {}
    for library, learner, n_workers in runs:
        try:
            results[library, learner, n_workers] = common.fresh(
                "bench_dask_scale", "run_one", library, learner, n_workers)
        except RuntimeError as error:  # reported, the other libraries still run
            print(f"{library}, {learner}: failed: {str(error)[-300:]}", file=sys.stderr)
    print(f"| {ROWS:,} x {N_FEATURES} binary, {ROUNDS} rounds (local: {common.THREADS} "
          f"threads) | s/round | whole fit (s) | peak MB/worker | trips/tree |\n"
          f"|---|---|---|---|---|")
    points = []
    for (library, learner, n_workers), (seconds, whole, peak, trips) in results.items():
        where = "" if library == "confboost local" else f", {n_workers} workers x 1 thread"
        print(f"| {learner}, {library}{where} | {seconds:.3f} | {whole:.2f} | {peak:.0f} | "
              f"{'' if trips is None else f'{trips:.2f}'} |")
        if library == "confboost dask":
            points.append([ROWS, n_workers, round_bytes(learner), 1 + (trips or 0), seconds])
    c_rows, c_reduce, c_trip = model(points)
    for rows, workers, nbytes, trips, seconds in points:
        fitted = c_rows * rows / workers + c_reduce * nbytes * np.log2(workers) + c_trip * trips
        print(f"model check: {workers} workers, {trips:.2f} trips: measured {seconds:.3f}, "
              f"model {fitted:.3f} s/round")
    print(f"\ncost model from {len(points)} rounds: c_rows = {c_rows:.3g} s/row, c_reduce = "
          f"{c_reduce:.3g} s/byte, c_trip = {c_trip:.3g} s/trip")
    for learner in LEARNERS:
        trips = 1 + (results.get(("confboost dask", learner, WORKERS), [0] * 4)[3] or 0)
        for rows, workers in ((ROWS, WORKERS), (10**9, 100)):
            t = (c_rows * rows / workers + c_reduce * round_bytes(learner)
                 * np.log2(workers) + c_trip * trips)
            print(f"predicted {learner} ({trips:.2f} trips), {rows:,} rows on {workers} "
                  f"workers: {t:.3f} s/round")


if __name__ == "__main__":
    main()
