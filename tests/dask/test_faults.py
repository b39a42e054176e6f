"""Faults and concurrency of the distributed fit, on LocalClusters: what LightGBM-Dask users
report (a hang after a worker restart, several fits at once, early stopping, a worker
without data).

A fit that meets a fault finishes with the model of an undisturbed fit, or raises a
``RuntimeError`` that names the round; it never hangs. Each fit here runs in a thread with
a hard limit (``_within``), so a hang fails the test instead of stopping the suite.
"""

import os
import signal
import threading
import time

import numpy as np
import pytest

from confboost import BoostClassifier

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
from confboost.dask import DaskBoostClassifier, shards  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402

#: The most seconds a fit that meets a fault may take to finish or fail.
LIMIT = 60


def _within(seconds, fit):
    """``fit()``'s result, or the exception it raised, if it ends within ``seconds``."""
    outcome = []

    def run():
        try:
            outcome.append(fit())
        except Exception as error:  # returned to the test's thread
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=seconds)
    assert not thread.is_alive(), f"the fit did not end within {seconds} s"
    return outcome[0]


def _kill_at_partition(count):
    """Arm this worker process to SIGKILL itself at its ``count``-th node partition (in
    the middle of a round's tree, its task waiting on the other worker's)."""
    from confboost.engine.learners import grower

    partition, calls = grower.LocalRows.partition, []

    def partition_then_kill(self, *args):
        calls.append(1)
        if len(calls) == count:
            os.kill(os.getpid(), signal.SIGKILL)
        return partition(self, *args)

    grower.LocalRows.partition = partition_then_kill


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_tree():
    """SIGKILL one of two worker processes in the middle of the second tree (its shard and
    the collective's sockets are lost, the other worker's round fails on its socket, the
    nanny starts a new process): the fit finishes within a minute with the model of one
    machine."""
    X, y = _data("multiclass")
    params = {"n_estimators": 6, "weak_learner": "tree", "max_leaves": 4,
              "min_leaf_weight": 0.02}
    theirs = BoostClassifier(**params).fit(X, y)
    with _cluster(2, processes=True) as cluster, distributed.Client(cluster) as client:
        Xd, yd, _ = _dask(X, y)
        pids = client.run(os.getpid)  # the workers are up before the clock starts
        armed = min(pids, key=pids.get)
        client.run(_kill_at_partition, 5, workers=[armed])  # the second tree, its root split done
        mine = _within(LIMIT, lambda: DaskBoostClassifier(
            client=client, timeout=20, **params).fit(Xd, yd))
        assert pids[armed] not in client.run(os.getpid).values()  # it was killed
    assert not isinstance(mine, Exception), mine
    _assert_same_model(mine, theirs, 1e-9)


@pytest.mark.slow
def test_a_cluster_that_loses_every_worker_fails_clearly_within_a_minute(monkeypatch):
    """Every worker leaves after round 3: no result comes within ``timeout``, the shards
    cannot be rebuilt, and after ``max_retries`` the fit raises a ``RuntimeError`` naming
    the round, well within a minute (LightGBM-Dask hangs here). A trip a round
    (``TRIP_SECONDS`` 0), so that round 4 is the one that waits."""
    monkeypatch.setattr(shards, "TRIP_SECONDS", 0.0)
    X, y = _data("binary")
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        Xd, yd, _ = _dask(X, y)

        def close_every_worker(round_index, record):
            if round_index == 2:
                cluster.scale(0)
                deadline = time.monotonic() + 30
                while client.scheduler_info()["workers"] and time.monotonic() < deadline:
                    time.sleep(0.05)

        start = time.monotonic()
        error = _within(LIMIT, lambda: DaskBoostClassifier(
            n_estimators=8, client=client, timeout=2, max_retries=1).fit(
                Xd, yd, callbacks=[close_every_worker]))
        seconds = time.monotonic() - start
    assert isinstance(error, RuntimeError), error
    assert "round 4" in str(error) and "2 tries" in str(error)
    assert seconds < LIMIT


@pytest.mark.parametrize("kind, params", [
    ("binary", {"weak_learner": "tree", "max_leaves": 4, "min_leaf_weight": 0.02}),
    ("multiclass", {"weak_learner": "hamming_tree", "max_leaves": 4, "init": "balanced",
                    "min_leaf_weight": 0.02}),
    pytest.param("multiclass", {"scheme": "mr"}, marks=pytest.mark.slow),
    pytest.param("multiclass", {"scheme": "mr", "weak_learner": "tree", "max_leaves": 4,
                                "min_leaf_weight": 0.02}, marks=pytest.mark.slow)])
def test_a_worker_without_partitions_grows_the_local_model(kind, params):
    """Three workers, two partitions: the worker that holds no rows has no shard, and
    trees, Hamming trees and AdaBoost.MR give the local model."""
    X, y = _data(kind)
    theirs = BoostClassifier(n_estimators=5, **params).fit(X, y)
    with _cluster(3) as cluster, distributed.Client(cluster) as client:
        Xd = da.from_array(X, chunks=(X.shape[0] // 2, X.shape[1]))
        yd = da.from_array(y, chunks=(X.shape[0] // 2,))
        mine = _within(LIMIT, lambda: DaskBoostClassifier(
            n_estimators=5, client=client, **params).fit(Xd, yd))
    assert not isinstance(mine, Exception), mine
    _assert_same_model(mine, theirs, 1e-9)


def test_early_stopping_on_an_eval_set_stops_where_the_local_fit_does():
    """Early stopping on a held-out Dask collection stops at the local fit's round, with its
    model (LightGBM-Dask users report it ignored)."""
    X, y = _data("binary")
    Xv, yv = X[300:], y[300:]
    X, y = X[:300], y[:300]
    params = {"n_estimators": 200, "early_stopping": True, "n_iter_no_change": 3,
              "weak_learner": "tree", "max_leaves": 4, "min_leaf_weight": 0.02}
    theirs = BoostClassifier(**params).fit(X, y, eval_set=[(Xv, yv)])
    assert theirs.n_estimators_ < params["n_estimators"]
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        Xd = da.from_array(X, chunks=(100, X.shape[1]))
        yd = da.from_array(y, chunks=(100,))
        Xvd = da.from_array(Xv, chunks=(50, X.shape[1]))
        yvd = da.from_array(yv, chunks=(50,))
        mine = _within(LIMIT, lambda: DaskBoostClassifier(client=client, **params).fit(
            Xd, yd, eval_set=[(Xvd, yvd)]))
    if isinstance(mine, Exception):
        raise mine
    _assert_same_model(mine, theirs, 1e-9)
    np.testing.assert_allclose(mine.history_["validation_score"],
                               theirs.history_["validation_score"], rtol=1e-9)
