"""Column kinds in the open: feature_kinds_, dates refused, doubtful guesses warned."""

import datetime
import warnings

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.data.columns import ColumnKindWarning

pd = pytest.importorskip("pandas")


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    cities = [f"San {chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(126)]
    return pd.DataFrame({
        "x": rng.normal(size=n),
        "colour": rng.choice(["red", "blue", "green"], n),
        "note": [" ".join(rng.choice(["good", "bad", "fair", "very", "not"], 4))
                 + f" {i}" for i in range(n)],
        "city": rng.choice(cities, n),
        "id": [f"u{i:05d}" for i in range(n)],
    })


def test_feature_kinds_and_the_two_warnings():
    X = _table(3000)
    y = (X["x"] > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = BoostClassifier(5).fit(X, y)
    messages = [str(w.message) for w in caught if w.category is ColumnKindWarning]
    assert len(messages) == 2, messages
    assert any("'id' looks like an identifier (3000 distinct values in 3000 rows)" in m
               for m in messages)
    assert any("'city' was read as text" in m and "126 distinct values in 3000 rows" in m
               for m in messages)
    assert caught[0].filename == __file__  # the warning points at the user's fit
    assert clf.feature_kinds_.tolist() == ["continuous", "categorical", "text", "text",
                                           "categorical"]
    # naming the kinds silences the warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", ColumnKindWarning)
        clf = BoostClassifier(5, feature_types={"id": "ignore", "city": "categorical"}).fit(X, y)
    assert clf.feature_kinds_.tolist() == ["continuous", "categorical", "text", "categorical",
                                           "ignore"]


def test_numeric_arrays_are_continuous():
    X = np.random.default_rng(0).normal(size=(30, 3))
    clf = BoostClassifier(3).fit(X, X[:, 0] > 0)
    assert clf.feature_kinds_.tolist() == ["continuous"] * 3


@pytest.mark.parametrize("column", [
    pd.date_range("2020-01-01", periods=40),
    pd.date_range("2020-01-01", periods=40, tz="UTC"),
    pd.to_timedelta(np.arange(40), unit="h"),
    [datetime.date(2020, 1, 1 + i % 28) for i in range(40)],
])
def test_dates_are_refused_with_the_way_to_convert_them(column):
    X = pd.DataFrame({"x": np.arange(40.0), "when": column})
    y = np.arange(40) % 2
    with pytest.raises(ValueError, match=r"column 'when' holds dates or times.*astype\('int64'\)"):
        BoostClassifier(3).fit(X, y)
    with pytest.raises(ValueError, match="column 'when' holds dates"):
        BoostClassifier(3, feature_types={"when": "categorical"}).fit(X, y)
    clf = BoostClassifier(3, feature_types={"when": "ignore"}).fit(X, y)
    assert clf.feature_kinds_.tolist() == ["continuous", "ignore"]


@pytest.mark.parametrize("values", [
    np.array([1.5, np.nan, -2.0, 0.0]), np.array([1, 2, -3], dtype=np.int64),
    np.array([True, False]), np.array([0.1, np.nan], dtype=np.float32),
    np.array([2**60 + 1, 3], dtype=np.uint64)])
def test_continuous_values_of_an_array_equal_its_values_one_by_one(values):
    from confboost.data.columns import continuous_values

    one_by_one = continuous_values(list(values), "c")  # the per-value reading
    np.testing.assert_array_equal(continuous_values(values, "c"), one_by_one)
    assert continuous_values(values, "c").dtype == np.float64


def test_continuous_values_of_an_array_refuse_infinity_naming_the_row():
    from confboost.data.columns import continuous_values

    with pytest.raises(ValueError, match=r"column 'c': row 2 holds np.float64\(inf\)"):
        continuous_values(np.array([1.0, np.nan, np.inf]), "c")


def test_issparse_without_scipy_is_scipys():
    import scipy.sparse as sp

    from confboost.utils.sparse import issparse

    for X in (sp.csr_matrix(np.eye(2)), sp.csc_array(np.eye(2)), np.eye(2), [[1]], None):
        assert issparse(X) == sp.issparse(X)
