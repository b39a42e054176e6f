"""Local = one shard: the engine's learners and schemes over the reducer of the Dask layer,
with one shard held in this process (no cluster), give the local model bit for bit:
stumps on a table and products, under MH, MO and MR.

The shards stand-in below runs the Dask layer's own shard functions (``shard_sum``,
``shard_apply``, ``shard_covers``, ``OnShards``) and its pairwise sum (``_add``) where
``Shards`` submits them to workers; the learners and schemes see the header Dataset and
scheme of no rows, as ``DaskBoostClassifier`` gives them.
"""

import dataclasses

import numpy as np
import pytest
from sklearn.datasets import make_classification

pytest.importorskip("distributed")
from confboost.dask.cluster_fit import ClusterCover  # noqa: E402
from confboost.dask.shards import ClusterReducer, Shard, _add  # noqa: E402
from confboost.data.columns import FrameEncoder  # noqa: E402
from confboost.engine.boosting import BoostingRun  # noqa: E402
from confboost.engine.learners import make_learner  # noqa: E402
from confboost.engine.reduction import LOCAL  # noqa: E402
from confboost.engine.schemes.mh import MHScheme  # noqa: E402
from confboost.engine.schemes.mo import MOScheme, build_code  # noqa: E402
from confboost.engine.schemes.mr import MRScheme  # noqa: E402
from confboost.explain.contributions import record_cover  # noqa: E402
from confboost.kernels.criterion_numpy import MODES  # noqa: E402


class InProcessShards:
    """``Shards``' ``reduce`` and ``run`` over shards held in this process."""

    def __init__(self, shards):
        self.shards = shards

    def reduce(self, function, *args):
        return _add(*[function(shard, *args) for shard in self.shards])

    def run(self, function, *args):
        self.shards = [function(shard, *args) for shard in self.shards]
        return _add(*[shard.result for shard in self.shards])


def _table(n_classes, with_values):
    """A table of 300 rows: five continuous columns, and a categorical one
    (``with_values``)."""
    X, y = make_classification(300, 5, n_informative=4, n_redundant=0, n_classes=n_classes,
                               random_state=3)
    X[::7, 2] = np.nan
    # a city that tells the class four times in five, missing on every eleventh row
    noisy = np.where(np.random.default_rng(0).random(300) < 0.8, y, (y + 1) % n_classes)
    city = np.array(["paris", "oslo", "rome", "lima"], dtype=object)[noisy]
    city[::11] = None
    columns = {f"x{j}": X[:, j] for j in range(5)} | ({"city": city} if with_values else {})
    kinds = {"city": "categorical"} if with_values else None
    dataset = FrameEncoder.from_table(columns, kinds).fit_dataset(columns, 64)
    return dataset, y


def _header(dataset):
    """The dataset's bins and vocabularies without its rows."""
    return dataclasses.replace(
        dataset, codes=dataset.codes[:, :0],
        categorical=[dataclasses.replace(c, codes=c.codes[:0]) for c in dataset.categorical])


def _schemes(name, y, weight, reducer):
    """The local scheme of the rows, and the header scheme over ``reducer``."""
    k = np.unique(y).size
    if name == "mo":
        code = build_code("random", k, random_state=0)
        return (MOScheme(y, code, "loss", weight, reducer=LOCAL),
                MOScheme(np.empty(0, dtype=np.intp), code, "loss", np.empty(0),
                         weight.sum(), reducer))
    signs = np.where(y[:, None] == np.arange(k), 1, -1).astype(np.int8)
    if name == "mr":
        return (MRScheme(signs, weight),
                MRScheme(np.empty((0, k), dtype=np.int8), np.empty(0),
                         total_weight=weight.sum(), reducer=reducer))
    return (MHScheme(signs, weight, True, "balanced"),
            MHScheme(np.empty((0, k), dtype=np.int8), np.empty(0), True, "balanced",
                     weight.sum(), reducer))


@pytest.mark.parametrize("learner", ["stump", "product"])
@pytest.mark.parametrize("scheme", ["mh", "mo", "mr"])
@pytest.mark.parametrize("confidence", ["real", "discrete"])
def test_local_and_one_shard_give_the_same_model_bit_for_bit(learner, scheme, confidence):
    dataset, y = _table(3, learner == "stump")
    weight = np.linspace(0.5, 2.0, y.size)
    mode = MODES[confidence]
    local, _ = _schemes(scheme, y, weight, LOCAL)
    runs = [BoostingRun(dataset, local, make_learner(learner, dataset, mode, 0.01), "auto",
                        mode, 0.01)]
    shard_scheme, _ = _schemes(scheme, y, weight, LOCAL)
    reducer = ClusterReducer(InProcessShards([Shard(dataset, shard_scheme, weight)]))
    _, header_scheme = _schemes(scheme, y, weight, reducer)
    header = _header(dataset)
    runs.append(BoostingRun(header, header_scheme,
                            make_learner(learner, header, mode, 0.01, reducer=reducer),
                            "auto", mode, 0.01))
    runs[0].run(12, [lambda env: record_cover(env.record["fit"], weight)])
    runs[1].run(12, [ClusterCover(reducer)])
    local_run, shard_run = runs
    assert len(local_run.hypotheses) == len(shard_run.hypotheses) == 12
    for mine, theirs in zip(shard_run.hypotheses, local_run.hypotheses, strict=True):
        assert mine.to_dict() == theirs.to_dict()
        assert np.array_equal(mine.values, theirs.values)
        assert np.array_equal(mine.cover, theirs.cover)
        if learner == "product":
            assert all(np.array_equal(a, b)
                       for a, b in zip(mine.pattern_cover, theirs.pattern_cover, strict=True))
    kinds = {type(h).__name__ for h in local_run.hypotheses}
    assert kinds == ({"StumpHypothesis", "CategoricalHypothesis"} if learner == "stump"
                     else {"ProductHypothesis"})  # both kinds of stump were chosen
    for key, values in local_run.history.items():
        assert np.array_equal(shard_run.history[key], values), key
