"""AdaBoost.MR's multi-label cut on Dask (``dask/cut.py``): the local cut, the local model.

The cut found from histograms of the scores summed over row sets is
``hamming_threshold``'s on their union (no cluster needed: the sets are summed in the
test), with ties between scores, -0.0 beside 0.0, zero weights, and cuts below the least
score or above the greatest; on one two-worker cluster, multi-label MR gives the local
model, cuts (``thresholds_``) and predictions.
"""

import types

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.engine.schemes.mr import hamming_threshold

distributed = pytest.importorskip("distributed")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from confboost.dask.cut import cluster_threshold, key_value, score_keys  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402


class Pieces:
    """A reducer over row sets held in the test: ``apply`` sums the function's results."""

    def __init__(self, pieces):
        self.pieces = pieces
        self.calls = 0

    def apply(self, function, scheme, *args):
        self.calls += 1
        return sum(function(piece, *args) for piece in self.pieces)


def _pieces(scores, signs, weight, bounds):
    return [types.SimpleNamespace(scores=s, _sample_weight=w,
                                  labels=types.SimpleNamespace(signs=y))
            for s, y, w in zip(np.split(scores, bounds), np.split(signs, bounds),
                               np.split(weight, bounds), strict=True)]


def test_keys_keep_the_order_of_the_scores():
    values = np.array([-np.inf, -3.5, -1e-300, -0.0, 0.0, 5e-324, 1.0, 2.0, np.inf])
    keys = score_keys(values)
    assert np.all(keys[1:] >= keys[:-1]) and keys[3] == keys[4]
    assert [key_value(key) for key in keys[1:-1]] == [float(v) + 0.0 for v in values[1:-1]]


@pytest.mark.parametrize("case", range(6))
def test_the_summed_histograms_give_the_local_cut(case):
    rng = np.random.default_rng(case)
    n, k = 300, 4
    scores = np.round(rng.normal(size=(n, k)) * (1, 3, 10, 0.01)[case % 4], 1 + case % 3)
    if case == 1:
        scores[::5] = -0.0  # ties with 0.0
    signs = np.where(rng.random((n, k)) < (0.3 if case != 4 else 0.02), 1, -1).astype(np.int8)
    if case == 5:
        signs[:] = 1  # every pair positive: the cut below the least score
    weight = rng.integers(0, 4, n).astype(np.float64)  # integer weights, some zero
    reducer = Pieces(_pieces(scores, signs, weight, [70, 71, 200]))
    assert cluster_threshold(reducer, None) == hamming_threshold(signs, scores, weight)
    assert reducer.calls <= 2 * 4 + 1


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.slow  # cluster fits; the exact cut is tested above, its trips in test_dask_trips
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
