"""A categorical column fitted on a Dask cluster compares its values at prediction as the
local fit does (``data/category_values.py``): ``202``, ``202.0`` and ``'202'`` are one value,
whatever dtype the column arrives in."""

import warnings

import numpy as np
import pandas as pd
import pytest

from confboost import BoostClassifier
from confboost.data.category_values import ColumnValueWarning

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
from confboost.dask import DaskBoostClassifier  # noqa: E402

RNG = np.random.default_rng(0)
N = 200
CODE = RNG.integers(200, 210, N)
SIZE = RNG.normal(size=N)
Y = ((CODE % 2 == 0) ^ (SIZE > 1.5)).astype(int)
KINDS = {"code": "categorical"}
LATER = {"float64": CODE.astype(np.float64),
         "float-with-nan": np.where(np.arange(N) == 0, np.nan, CODE),
         "str": np.asarray([str(c) for c in CODE], dtype=object)}


@pytest.fixture(scope="module")
def fitted():
    """The Dask model and the local one, fitted on the same integer codes."""
    table = pd.DataFrame({"code": CODE, "size": SIZE})
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        model = DaskBoostClassifier(12, feature_types=KINDS, client=client)
        model.fit(dd.from_pandas(table, npartitions=3), dd.from_pandas(pd.Series(Y),
                                                                     npartitions=3))
        local = BoostClassifier(12, feature_types=KINDS).fit(table, Y)
        yield model, local


@pytest.mark.parametrize("later", ["float64", "float-with-nan", "str"])
def test_a_dask_fitted_column_predicts_other_dtypes_as_the_local_model(fitted, later):
    model, local = fitted
    table = pd.DataFrame({"code": LATER[later], "size": SIZE})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnValueWarning)
        expected = local.predict(table)
        got = np.asarray(model.predict(dd.from_pandas(table, npartitions=2)).compute())
    assert (expected[1:] == Y[1:]).mean() > 0.95  # the local rule: one value, any dtype
    np.testing.assert_array_equal(got, expected)
