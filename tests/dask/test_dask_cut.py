"""AdaBoost.MR's multi-label cut on Dask: the scheme's own (``engine/schemes/mr_cut.py``),
its histograms summed over the shards, the local cut and model.

One shard held in this process (no cluster: ``test_dask_seam``'s shards, the client's
scheme of no rows reading the round's log) gives the local cuts bit for bit; three, their
ranks in threads over the collective's sockets, to rounding; on one two-worker cluster,
multi-label MR gives the local model, cuts (``thresholds_``) and predictions. The cut
itself against the sort is ``tests/engine/test_mr_cut.py``'s.
"""

import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification

from confboost import BoostClassifier

distributed = pytest.importorskip("distributed")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from confboost.dask.round_learner import RoundSpec  # noqa: E402
from confboost.dask.shards import ClusterReducer, Shard  # noqa: E402
from confboost.data.columns import FrameEncoder  # noqa: E402
from confboost.engine.boosting import BoostingRun  # noqa: E402
from confboost.engine.learners import make_learner  # noqa: E402
from confboost.engine.schemes.mr import MRScheme  # noqa: E402
from confboost.kernels.criterion_numpy import MODES  # noqa: E402
from confboost.training.calibration import dataset_rows  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402
from tests.dask.test_dask_seam import TREE, InProcessShards, _header  # noqa: E402


def _runs(learner, confidence, n_shards):
    """(the local run, the run over ``n_shards`` shards) of multi-label MR, 10 rounds each,
    on 300 rows of 5 labels with integer sample weights."""
    X, Y = make_multilabel_classification(300, 5, n_classes=5, random_state=4)
    X[::7, 2] = np.nan
    signs = np.where(Y > 0, 1, -1).astype(np.int8)
    weight = np.random.default_rng(0).integers(1, 4, 300).astype(np.float64)
    columns = {f"x{j}": X[:, j] for j in range(5)}
    dataset = FrameEncoder.from_table(columns).fit_dataset(columns, 64)
    mode = MODES[confidence]
    tree = TREE if "tree" in learner else {}
    local = BoostingRun(dataset, MRScheme(signs, weight, True),
                        make_learner(learner, dataset, mode, 0.01, **tree), "auto", mode, 0.01)
    parts = np.array_split(np.arange(300), n_shards)
    # v_1 over the whole set: Σ w over the rows with a crucial pair (``initial_pair_weights``)
    total = float(weight[(signs > 0).any(axis=1) & (signs < 0).any(axis=1)].sum())
    shards = InProcessShards([
        Shard(dataset_rows(dataset, rows),
              MRScheme(signs[rows], weight[rows], True, total if n_shards > 1 else None),
              weight[rows])
        for rows in parts])
    reducer = ClusterReducer(shards)
    client_scheme = MRScheme(np.empty((0, 5), dtype=np.int8), np.empty(0), True, total, reducer)
    spec = RoundSpec(learner, mode, 0.01, "auto", 1.0, {"n_terms": 3, **tree})
    sharded = BoostingRun(_header(dataset), client_scheme, reducer.learner(spec), "auto", mode,
                          0.01)
    local.run(10)
    sharded.run(10)
    return local, sharded


@pytest.mark.parametrize("learner, confidence", [
    ("stump", "real"), ("stump", "discrete"), ("tree", "real"), ("hamming_tree", "real")])
def test_one_shard_gives_the_local_cuts_bit_for_bit(learner, confidence):
    local, sharded = _runs(learner, confidence, 1)
    assert len(local.scheme.thresholds) == 10
    assert sharded.scheme.thresholds == local.scheme.thresholds
    for mine, theirs in zip(sharded.hypotheses, local.hypotheses, strict=True):
        assert np.array_equal(mine.values, theirs.values)


@pytest.mark.parametrize("learner", ["stump", "tree"])
def test_three_shards_over_the_collective_give_the_local_cuts(learner):
    """Real MR's confidences to 1e-8 (where a Newton solve stops), so the cuts too."""
    local, sharded = _runs(learner, "real", 3)
    np.testing.assert_allclose(sharded.scheme.thresholds, local.scheme.thresholds, rtol=0,
                               atol=1e-8)
    for shard in sharded.learner.shards.shards:  # every worker took the same cuts
        assert shard.scheme.thresholds == sharded.scheme.thresholds


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.slow  # cluster fits; the one-trip round in test_dask_trips
@pytest.mark.parametrize("params", [
    {"weak_learner": "stump"},
    {"weak_learner": "tree", "max_leaves": 4, "min_leaf_weight": 0.02},
    {"weak_learner": "stump", "calibration": "temperature"},
])
def test_multilabel_mr_gives_the_local_model(client, params):
    X, y = _data("multilabel")
    params = {"n_estimators": 8, "scheme": "mr", "calibration": None, **params}
    theirs = BoostClassifier(**params).fit(X, y)
    Xd, yd, _ = _dask(X, y)
    mine = DaskBoostClassifier(client=client, **params).fit(Xd, yd)
    _assert_same_model(mine, theirs, 1e-8)
    # the same cut each round, between scores equal to the model's tolerance
    np.testing.assert_allclose(mine.thresholds_, theirs.thresholds_, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(mine.predict(Xd).compute(), theirs.predict(X))
