"""The waits before training take ``timeout``: partitions that never come (a stuck input
collection) make ``fit`` raise a TimeoutError naming what it waited for, within about
``timeout`` seconds, instead of hanging."""

import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
from dask import delayed  # noqa: E402

from confboost.dask import DaskBoostClassifier  # noqa: E402
from tests.dask.test_dask import _cluster, _data  # noqa: E402

#: Released at the end of each test: the stuck partitions' tasks then end.
RELEASE = threading.Event()


def _stuck(value):
    """``value``, once ``RELEASE`` is set (at most 60 s): a partition that does not come."""
    RELEASE.wait(60)
    return value


@pytest.fixture
def client():
    RELEASE.clear()
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client
        RELEASE.set()


def _fit_within(client, X, y, seconds=30):
    """The error ``fit`` raises with timeout=1, and the seconds it took."""
    start = time.perf_counter()
    with pytest.raises(TimeoutError) as raised:
        DaskBoostClassifier(n_estimators=2, client=client, timeout=1).fit(X, y)
    elapsed = time.perf_counter() - start
    assert elapsed < seconds
    return str(raised.value)


def test_stuck_partitions_of_an_array_name_what_was_waited_for(client):
    X, y = _data("binary")
    Xd = da.from_delayed(delayed(_stuck)(X), X.shape, X.dtype)
    message = _fit_within(client, Xd, da.from_array(y, chunks=X.shape[0]))
    assert "timeout=1 s" in message
    assert "the partitions' row counts, labels and weights" in message


def test_stuck_partitions_of_a_table_name_what_was_waited_for(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = _data("binary")
    frame = pd.DataFrame({"a": X[:, 0], "city": np.where(y == 1, "oslo", "rome")})
    Xd = dd.from_delayed([delayed(_stuck)(frame)], meta=frame.iloc[:0])
    message = _fit_within(client, Xd, da.from_array(y, chunks=X.shape[0]))
    assert "the values of the columns ['city'] in X's partitions" in message
