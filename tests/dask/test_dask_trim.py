"""Weight trimming on Dask (``dask/trim.py``): the local kept rows and the local model.

The cut from bucket masses summed over row sets is the kernel's cut on their union (no
cluster needed); on one two-worker cluster, ``DaskBoostClassifier(trim=β)`` gives
``BoostClassifier(trim=β)``'s model (f within 1e-9), the rounds that fell back to every
row included.
"""

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.kernels.weight_trim import trim_rows

distributed = pytest.importorskip("distributed")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from confboost.dask.trim import _mass_keys, cut_bucket, weight_buckets  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402


@pytest.mark.parametrize("k, beta", [(1, 0.1), (4, 0.3), (3, 0.9)])
def test_summed_buckets_keep_the_kernels_rows(k, beta):
    rng = np.random.default_rng(k)
    weights = rng.exponential(size=(500, k)) ** 3
    weights[::7] = 0.0  # rows without weight: always below the cut
    weights /= weights.sum()
    pieces = [weight_buckets(None, part, None) for part in np.split(weights, [120, 121, 380])]
    cut = cut_bucket(sum(piece[0] for piece in pieces), sum(piece[1] for piece in pieces),
                     beta)
    mass = np.ascontiguousarray(weights.sum(axis=1) if k > 1 else weights[:, 0])
    rows = np.empty(mass.shape[0], dtype=np.uint32)
    count = trim_rows(mass, mass.view(np.uint64), beta, rows)
    np.testing.assert_array_equal(np.flatnonzero(_mass_keys(weights)[1] >= cut), rows[:count])
    assert 0 < count < mass.shape[0]


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize("kind, params", [
    ("binary", {"trim": 0.2}),
    pytest.param("multiclass", {"trim": 0.1, "confidence": "real-abstain"},
                 marks=pytest.mark.slow),
    pytest.param("multilabel", {"trim": 0.3, "scheme": "mr"}, marks=pytest.mark.slow),
])
def test_trim_gives_the_local_model(client, kind, params):
    X, y = _data(kind)
    if params.get("scheme") == "mr":  # single-label MR on the cluster
        y = np.argmax(y * np.arange(1, y.shape[1] + 1), axis=1)
    params = {"n_estimators": 12, "calibration": None, "weak_learner": "stump", **params}
    theirs = BoostClassifier(**params).fit(X, y)
    mine = DaskBoostClassifier(client=client, **params).fit(*_dask(X, y)[:2])
    _assert_same_model(mine, theirs, 1e-9)
    np.testing.assert_allclose(mine.decision_function(X), theirs.decision_function(X),
                               rtol=0, atol=1e-9)
