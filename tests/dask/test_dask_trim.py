"""Weight trimming on Dask: the engine's trimmed stump over the collective's reducer gives
the local model.

On one two-worker cluster, ``DaskBoostClassifier(trim=β)`` gives
``BoostClassifier(trim=β)``'s model (f within 1e-9), the rounds that fell back to every row
included. Bucket masses summed over row sets give the cut of their union
(``tests/kernels/test_kernels.py``); shards in this process, no cluster, give the local model
bit for bit on one shard (``tests/dask/test_dask_seam.py``).
"""

import numpy as np
import pytest

from confboost import BoostClassifier

distributed = pytest.importorskip("distributed")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster, _dask, _data  # noqa: E402


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
