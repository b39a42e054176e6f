"""A run on some of the training rows codes its categorical columns with the values those
rows hold, as the local encoder does (``cluster_fit.ClusterFit._categorical_columns``):
the main run beside early stopping's held-out rows, and the calibration runs on a table
with text columns (binned afresh on their own rows). Checked on the runs' Datasets
(``warm_start`` keeps the fit's runs) against the local fit's, on a table whose rare
values fall in some runs' rows only, and on the models (f within 1e-9)."""

import numpy as np
import pytest

from confboost import BoostClassifier

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from confboost.dask.partitions import held_codes, recoded  # noqa: E402
from tests.dask.test_dask import _assert_same_model, _cluster  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


def _table(n=400, seed=0):
    """A numeric, a categorical (three common values, twelve that occur once, some missing)
    and a text column."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    city = rng.choice(["paris", "oslo", "rome"], n).astype(object)
    city[np.arange(12) * 31 + 5] = [f"v{i:02d}" for i in range(12)]
    city[::17] = None
    docs = [" ".join(rng.choice(["alpha", "beta", "gamma", "delta"], 2)) for _ in range(n)]
    y = ((x > 0) ^ (city == "oslo")).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return pd.DataFrame({"x": x, "city": city, "note": docs}), y


def _vocabularies(model):
    """Each run's categorical values (the main run's, then the calibration runs')."""
    state = model._warm
    return [[column.values for column in part.run.dataset.categorical]
            for part in (state.main, *state.folds)]


@pytest.mark.parametrize("params", [
    {"early_stopping": True, "calibration": None, "n_iter_no_change": 50},
    pytest.param({"calibration": "temperature"}, marks=pytest.mark.slow),
], ids=["early-stopping", "calibration"])
def test_a_run_on_some_rows_has_their_values(client, params):
    frame, y = _table()
    params = {"n_estimators": 8, "weak_learner": "stump", "warm_start": True,
              "feature_types": {"city": "categorical", "note": "text"}, **params}
    theirs = BoostClassifier(**params).fit(frame, y)
    mine = DaskBoostClassifier(client=client, **params).fit(
        dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3))
    local = _vocabularies(theirs)
    assert any(len(run[0]) < 15 for run in local)  # a rare value outside some run's rows
    assert _vocabularies(mine) == local
    _assert_same_model(mine, theirs, 1e-9)
    np.testing.assert_allclose(mine.predict_proba(frame), theirs.predict_proba(frame),
                               rtol=1e-9)


def test_a_partitions_codes_are_mapped_to_the_runs_values():
    """No cluster: the values a partition holds, and its codes mapped to a run's values
    (missing stays missing; a text column's documents pass unchanged)."""
    codes = [np.array([2, -1, 4, 2], dtype=np.int32), np.array([0, 0, -1, 1], dtype=np.int32)]
    documents = np.array(["a b", None, "c", "d"], dtype=object)
    held = held_codes(codes, [5, 3])
    assert [each.tolist() for each in held] == [[False, False, True, False, True],
                                                 [True, True, False]]
    maps = [np.array([-1, -1, 0, -1, 1], dtype=np.int32), np.array([0, 1, -1], dtype=np.int32)]
    X, y, w, mapped = recoded("X", "y", "w", [*codes, documents], maps)
    assert (X, y, w) == ("X", "y", "w")
    assert [each.tolist() for each in mapped[:2]] == [[0, -1, 1, 0], [0, 0, -1, 1]]
    assert mapped[2] is documents
