"""Round trips of the distributed fit: a round's update brings back the next round's first
sum, so a stump round is one trip; a tree's batches take the children found ahead. The
models stay the local ones (``tests/dask/test_dask.py`` checks them to rounding)."""

import pytest

distributed = pytest.importorskip("distributed")
from confboost import BoostClassifier  # noqa: E402
from confboost.dask import cluster_fit  # noqa: E402
from confboost.dask.dask_classifier import DaskBoostClassifier  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


def _trips(client, monkeypatch, n_estimators, **params):
    """(round trips of a fit, the fitted model), uncalibrated: one run, one set of
    shards."""
    made = []

    class Counted(cluster_fit.Shards):
        def __init__(self, *args):
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(cluster_fit, "Shards", Counted)
    X, y = _data("multiclass")
    Xd, yd, _ = _dask(X, y)
    model = DaskBoostClassifier(n_estimators=n_estimators, client=client, calibration=None,
                                **params).fit(Xd, yd)
    assert len(made) == 1
    return made[0].trips, model


def test_a_stump_round_is_one_round_trip(client, monkeypatch):
    """Each further round costs one trip: its update, which also sums the next round's
    histogram (the first round's histogram and the final covers: one trip each)."""
    few, _ = _trips(client, monkeypatch, 4, weak_learner="stump")
    more, model = _trips(client, monkeypatch, 7, weak_learner="stump")
    assert more - few == 3
    assert few == 4 + 2
    _assert_same_model(model, BoostClassifier(n_estimators=7, weak_learner="stump",
                                                calibration=None).fit(
        *_data("multiclass")))


def test_a_tree_round_costs_fewer_trips_than_its_splits(client, monkeypatch):
    """Trees of 8 leaves: 7 splits and an update a round, in fewer trips than the 7 that
    a split per trip would take (the histogram of the round's root comes with the last
    update)."""
    few, _ = _trips(client, monkeypatch, 2, weak_learner="tree", max_leaves=8)
    more, model = _trips(client, monkeypatch, 5, weak_learner="tree", max_leaves=8)
    assert (more - few) / 3 < 7
    assert [h.values.shape[0] for h in model.model_.hypotheses] == [8] * 5
