"""Checkpoints of a fit on Dask (``dask/cluster_checkpoint.py``): a resume gives the uninterrupted
fit.

A fit stopped after some rounds (here: asked for fewer) leaves a checkpoint that holds the
rounds and the changes its shards' schemes went through; a new fit of more rounds on the
same data resumes from it, replays those changes on its new shards, and ends with the model
of an uninterrupted Dask fit (to 1e-12: another fit may place the partitions on other
workers, which adds the shards' sums in another order) and of the local fit (f within
1e-9), training cover included. A file made by another kind of run is refused by name.
"""

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.engine.callbacks import TrainingCallback
from confboost.training.checkpoint import Checkpoint

distributed = pytest.importorskip("distributed")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from confboost.dask.cluster_checkpoint import Encoder, RecordingReducer  # noqa: E402
from confboost.engine.reduction import LOCAL  # noqa: E402
from tests.dask.test_dask import (  # noqa: E402
    _assert_same_model,
    _cluster,
    _dask,
    _data,
    _tolerance,
)


class Rounds(TrainingCallback):
    """The rounds a fit runs itself."""

    def __init__(self):
        self.run = []

    def after_iteration(self, env):
        self.run.append(env.round_index)
        return False


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize("kind, params", [
    ("multiclass", {}),
    pytest.param("multiclass", {"scheme": "mr"}, marks=pytest.mark.slow),
    pytest.param("binary", {"weak_learner": "tree", "max_leaves": 4,
                            "min_leaf_weight": 0.02}, marks=pytest.mark.slow),
    pytest.param("binary", {"weak_learner": "product"}, marks=pytest.mark.slow),
    pytest.param("multilabel", {"trim": 0.2}, marks=pytest.mark.slow),
    pytest.param("multilabel", {"scheme": "mr"}, marks=pytest.mark.slow),  # and its cuts
])
def test_a_resumed_fit_is_the_uninterrupted_one(client, tmp_path, kind, params):
    X, y = _data(kind)
    Xd, yd, _ = _dask(X, y)
    params = {"calibration": None, "weak_learner": "stump", **params}
    path = tmp_path / "run.ckpt"
    DaskBoostClassifier(6, client=client, **params).fit(
        Xd, yd, callbacks=[Checkpoint(path, every=3)])
    rounds = Rounds()
    resumed = DaskBoostClassifier(10, client=client, **params).fit(
        Xd, yd, callbacks=[Checkpoint(path, every=3), rounds])
    assert rounds.run == [6, 7, 8, 9]  # the first six restored
    whole = DaskBoostClassifier(10, client=client, **params).fit(Xd, yd)
    # (Dask may place the partitions otherwise: the sums' order, real MR's Newton steps)
    _assert_same_model(resumed, whole, _tolerance(params))
    local = BoostClassifier(10, **params).fit(X, y)
    _assert_same_model(resumed, local, max(_tolerance(params), 1e-9))
    if hasattr(local, "thresholds_"):  # the restored rounds' cuts and the later ones
        np.testing.assert_allclose(resumed.thresholds_, local.thresholds_, rtol=0, atol=1e-8)


def test_a_local_checkpoint_is_refused(client, tmp_path):
    X, y = _data("binary")
    path = tmp_path / "run.ckpt"
    BoostClassifier(3, calibration=None, weak_learner="stump").fit(
        X, y, callbacks=[Checkpoint(path, every=3)])
    with pytest.raises(ValueError, match="run.ckpt: fingerprint"):
        DaskBoostClassifier(5, client=client, calibration=None).fit(
            *_dask(X, y)[:2], callbacks=[Checkpoint(path, every=3)])


@pytest.mark.parametrize("saved, named", [
    ({"kept": "os:system", "args": ["true"]}, "'os:system' is not a function"),
    ({"function": "builtins:eval"}, "'builtins:eval' is not a function"),
    ({"array": "7"}, "array '7' is missing"),
    ({"list": [{"weird": 1}]}, r"\['weird'\] is not a saved value"),
])
def test_a_saved_step_names_only_known_functions(saved, named):
    """What a file says is read as data: a function outside ``FUNCTIONS`` is refused."""
    with pytest.raises(ValueError, match=named):
        Encoder(RecordingReducer(LOCAL)).decode(saved, None, {})
