"""Trips of several rounds (``Shards.round``, ``shards.batch_size``): the workers run a
trip's rounds one after the other and the client takes them one by one, so wherever the
client's loop stops inside a trip (early stopping, a callback, no edge left), whatever
``n_estimators`` is against the rounds a trip carries and whatever worker is lost inside
one, the model is the local fit's, and rounds the workers ran past the stop are dropped
(a warm start after a stop goes on from the client's round). The trips' sizes are forced
here (``TRIP_SECONDS`` and ``MAX_ROUNDS_A_TRIP``); counted, never timed."""

import math
import os

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
from confboost import BoostClassifier  # noqa: E402
from confboost.dask import shards  # noqa: E402
from confboost.dask.dask_classifier import DaskBoostClassifier  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402
from tests.dask.test_dask_trips import shards_made  # noqa: E402
from tests.dask.test_faults import LIMIT, _kill_at_partition, _within  # noqa: E402

TREES = {"weak_learner": "tree", "max_leaves": 4, "min_leaf_weight": 0.02}


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def made(monkeypatch):
    """Trips of ``MAX_ROUNDS_A_TRIP`` rounds after the first (whatever a round takes): the
    list every ``Shards`` a fit makes from now on is appended to."""
    return shards_made(monkeypatch, trip_seconds=1e9)


def test_batch_size_rule():
    """One round for a run's first trip or unknown rounds left; then enough rounds for
    ``TRIP_SECONDS`` at the last trip's pace, within the cap and the rounds left."""
    assert shards.batch_size(None, 10) == 1
    assert shards.batch_size(0.01, None) == 1
    assert shards.batch_size(shards.TRIP_SECONDS * 2, 10) == 1
    assert shards.batch_size(shards.TRIP_SECONDS / 3, 10) == 3
    assert shards.batch_size(shards.TRIP_SECONDS / 3, 2) == 2
    assert shards.batch_size(1e-9, 1000) == shards.MAX_ROUNDS_A_TRIP


@pytest.mark.parametrize("n_estimators, cap", [(8, 3), (10, 4), (5, 16)])
def test_rounds_not_a_multiple_of_the_trip(client, made, monkeypatch, n_estimators, cap):
    """A first trip of one round, then trips of ``cap`` rounds, the last one short: the
    client's waits are the shards' placement, the listening socket and those trips; the
    model is the local one."""
    monkeypatch.setattr(shards, "MAX_ROUNDS_A_TRIP", cap)
    X, y = _data("multiclass")
    Xd, yd, _ = _dask(X, y)
    with distributed.get_task_stream(client) as stream:
        mine = DaskBoostClassifier(n_estimators=n_estimators, client=client, calibration=None,
                                   **TREES).fit(Xd, yd)
    trips = 1 + math.ceil((n_estimators - 1) / cap)
    (fit_shards,) = made
    assert fit_shards.trips == 1 + (len(fit_shards.workers) > 1) + trips
    tasks = sum(str(task["key"]).startswith("shard_rounds") for task in stream.data)
    assert tasks == trips * len(fit_shards.workers)
    assert len(fit_shards.steps) == n_estimators and not fit_shards.ahead
    _assert_same_model(mine, BoostClassifier(n_estimators=n_estimators, calibration=None,
                                             **TREES).fit(X, y))


def test_early_stopping_inside_a_trip_gives_the_local_model(client, made):
    """Early stopping on an eval_set stops inside a trip of 16 rounds: the rounds the
    workers ran past the stop are dropped, and the model, its history and its validation
    scores are the local fit's."""
    X, y = _data("binary")
    Xv, yv = X[300:], y[300:]
    X, y = X[:300], y[:300]
    params = {"n_estimators": 200, "early_stopping": True, "n_iter_no_change": 3,
              "calibration": None, **TREES}
    theirs = BoostClassifier(**params).fit(X, y, eval_set=[(Xv, yv)])
    assert theirs.n_estimators_ < params["n_estimators"]
    Xd = da.from_array(X, chunks=(100, X.shape[1]))
    yd = da.from_array(y, chunks=(100,))
    mine = DaskBoostClassifier(client=client, **params).fit(
        Xd, yd, eval_set=[(Xv, yv)])
    (fit_shards,) = made
    ran = len(fit_shards.steps)  # the rounds the client took, the best round's and after
    assert (ran - 1) % shards.MAX_ROUNDS_A_TRIP != 0  # it stopped inside a trip
    assert fit_shards.futures is None  # the shards that ran ahead were let go
    _assert_same_model(mine, theirs, 1e-9)
    np.testing.assert_allclose(mine.history_["validation_score"],
                               theirs.history_["validation_score"], rtol=1e-9)


def test_no_edge_left_ends_the_trip_where_the_local_loop_ends(client, made):
    """Rows with no edge left after a few rounds (Z_t = 1): the workers end their trip of 16
    at the round where the local loop stops (``boosting.no_edge``), so nothing runs
    ahead and nothing is dropped; the model is the local one. The two halves of x0 have
    different class ratios: with equal ratios the split and one block tie exactly in
    the criterion, and the order of the shards' sums breaks the tie either way."""
    X = np.zeros((200, 3))
    X[:100, 0] = 1.0
    y = (np.random.default_rng(0).random(200) > np.where(X[:, 0] > 0, 0.5, 0.7)).astype(int)
    theirs = BoostClassifier(50, calibration=None).fit(X, y)
    assert 2 < theirs.n_estimators_ < 17  # it stops inside the second trip
    mine = DaskBoostClassifier(50, client=client, calibration=None).fit(
        da.from_array(X, chunks=(50, 3)), da.from_array(y, chunks=(50,)))
    (fit_shards,) = made
    assert fit_shards.trips == 1 + (len(fit_shards.workers) > 1) + 2
    assert len(fit_shards.steps) == theirs.n_estimators_ and fit_shards.futures is not None
    assert mine.n_estimators_ == theirs.n_estimators_
    for key in ("alpha", "z"):
        np.testing.assert_allclose(mine.history_[key], theirs.history_[key], rtol=1e-9)
    np.testing.assert_allclose(mine.decision_function(X), theirs.decision_function(X),
                               atol=1e-8)


def test_a_callback_stops_inside_a_trip_then_a_warm_start_goes_on(client, made):
    """A user callback stops the fit at round 4 of a trip of 16: the model is the local
    fit's stopped there; a warm start to 9 rounds then rebuilds the shards at the client's
    round (the rounds ran ahead dropped) and gives the local model of 9 rounds."""
    X, y = _data("multiclass")
    Xd, yd, _ = _dask(X, y)

    def stop_at_4(round_index, record):
        return round_index == 3

    local = BoostClassifier(n_estimators=9, calibration=None, warm_start=True, **TREES)
    local.fit(X, y, callbacks=[stop_at_4])
    mine = DaskBoostClassifier(n_estimators=9, client=client, calibration=None,
                               warm_start=True, **TREES)
    mine.fit(Xd, yd, callbacks=[stop_at_4])
    assert mine.n_estimators_ == 4
    _assert_same_model(mine, local)
    (fit_shards,) = made
    assert fit_shards.futures is None and not fit_shards.ahead
    mine.fit(Xd, yd)
    local.fit(X, y)
    assert mine.n_estimators_ == 9
    _assert_same_model(mine, local)
    assert len(fit_shards.steps) == 9 and fit_shards.futures is not None


@pytest.mark.slow
def test_a_worker_killed_inside_a_trip(monkeypatch):
    """SIGKILL the worker processes in the middle of a trip of 5 rounds (at the fit's third
    tree, the trip's second; both workers are armed, as Dask may put every partition on
    one): the trip is run again on rebuilt shards (the rounds before it replayed) and the
    fit ends with the local model."""
    monkeypatch.setattr(shards, "TRIP_SECONDS", 1e9)
    X, y = _data("multiclass")
    params = {"n_estimators": 6, "calibration": None, **TREES}
    theirs = BoostClassifier(**params).fit(X, y)
    with _cluster(2, processes=True) as cluster, distributed.Client(cluster) as client:
        Xd, yd, _ = _dask(X, y)
        pids = set(client.run(os.getpid).values())
        # a tree of 4 leaves is 3 partitions: the 9th is in the third round, the second of
        # the trip that follows the first round's
        client.run(_kill_at_partition, 9)
        mine = _within(LIMIT, lambda: DaskBoostClassifier(
            client=client, timeout=20, **params).fit(Xd, yd))
        assert pids - set(client.run(os.getpid).values())  # a worker was killed
    assert not isinstance(mine, Exception), mine
    _assert_same_model(mine, theirs)
