"""Round trips of the distributed fit: a round, whatever its learner or option, is one task
per worker and one wait of the client (``collective.shard_rounds``, a trip of one round
here), so a tree of 8 leaves costs what a stump costs, and a trimmed stump's cut or
multi-label MR's cut (their sums allreduced inside the round's task) no more. Counted,
never timed: the client's waits (``Shards.trips``) and the tasks the scheduler ran (its
task stream). The models stay the local ones (``tests/dask/test_dask.py`` checks them to
rounding)."""

import pytest

distributed = pytest.importorskip("distributed")
from confboost import BoostClassifier  # noqa: E402
from confboost.dask import cluster_fit, shards  # noqa: E402
from confboost.dask.dask_classifier import DaskBoostClassifier  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


def shards_made(monkeypatch, trip_seconds=0.0):
    """The list every ``Shards`` a fit makes from now on is appended to (their ``trips``:
    the client's waits), a trip carrying ``trip_seconds`` of rounds (``shards.TRIP_SECONDS``;
    0, one round: the counts below are a round's; ``test_dask_batches.py`` counts trips of
    several)."""
    made = []
    monkeypatch.setattr(shards, "TRIP_SECONDS", trip_seconds)

    class Counted(cluster_fit.Shards):
        def __init__(self, *args):
            made.append(self)
            super().__init__(*args)

    monkeypatch.setattr(cluster_fit, "Shards", Counted)
    return made


def _counted(client, monkeypatch, n_estimators, kind="multiclass", **params):
    """(the client's waits, the round tasks the scheduler ran, the shards, the model) of a
    fit, uncalibrated: one run, one set of shards."""
    made = shards_made(monkeypatch)
    X, y = _data(kind)
    Xd, yd, _ = _dask(X, y)
    with distributed.get_task_stream(client) as stream:
        model = DaskBoostClassifier(n_estimators=n_estimators, client=client,
                                    calibration=None, **params).fit(Xd, yd)
    assert len(made) == 1
    rounds = sum(str(task["key"]).startswith("shard_rounds") for task in stream.data)
    return made[0].trips, rounds, len(made[0].workers), model


@pytest.mark.parametrize("params", [
    {"weak_learner": "stump"},
    {"weak_learner": "tree", "max_leaves": 8},
    {"weak_learner": "hamming_tree", "max_leaves": 8, "init": "balanced"},
    {"weak_learner": "product"},
    {"scheme": "mr", "weak_learner": "tree", "max_leaves": 4},
    {"weak_learner": "stump", "trim": 0.2},
    {"kind": "multilabel", "scheme": "mr", "weak_learner": "stump"}],
    ids=["stump", "tree", "hamming", "product", "mr-tree", "trim", "multilabel-mr-cut"])
def test_a_round_is_one_trip_and_one_task_per_worker(client, monkeypatch, params):
    """Each round costs one wait and one task per shard, for every learner and option;
    the rest of a fit (the shards' placement, the collective's rendezvous) is a fixed few
    trips, and the hypotheses' covers none (each round takes its own)."""
    params = dict(params)
    kind = params.pop("kind", "multiclass")
    for rounds in (2, 5):
        trips, tasks, shards, model = _counted(client, monkeypatch, rounds, kind, **params)
        # the shards' placement, rank 0's listening socket (with more than one shard), a
        # trip a round
        assert trips == 1 + (shards > 1) + rounds
        assert tasks == rounds * shards
    if params.get("weak_learner") == "tree":  # every tree full: its splits in the one trip
        assert [h.values.shape[0] for h in model.model_.hypotheses] == [
            params["max_leaves"]] * 5
    _assert_same_model(model, BoostClassifier(n_estimators=5, calibration=None,
                                              **params).fit(*_data(kind)),
                       1e-8 if params.get("scheme") == "mr" or "trim" in params else 1e-12)
