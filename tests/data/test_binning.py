import numpy as np
import pytest

from confboost.data.bin_mapper import BinMapper
from confboost.utils.dtypes import MISSING_BIN


def test_exact_bins_when_few_distinct_values(rng):
    X = rng.integers(0, 10, size=(500, 3)).astype(float)
    mapper = BinMapper(max_bins=255).fit(X)
    codes = mapper.transform(X)
    for f in range(3):
        distinct = np.unique(X[:, f])
        assert mapper.n_bins_[f] == distinct.size
        # one code per distinct value, in order
        np.testing.assert_array_equal(codes[f], np.searchsorted(distinct, X[:, f]))
        np.testing.assert_allclose(mapper.thresholds_[f], (distinct[:-1] + distinct[1:]) / 2)


def test_quantile_bins_respect_max_bins_and_order(rng):
    X = rng.normal(size=(5000, 2))
    mapper = BinMapper(max_bins=16).fit(X)
    codes = mapper.transform(X)
    assert mapper.n_bins_.max() <= 16
    for f in range(2):
        order = np.argsort(X[:, f])
        assert np.all(np.diff(codes[f][order].astype(int)) >= 0)
        counts = np.bincount(codes[f])
        # quantile bins hold roughly equal counts
        assert counts.min() > 0.5 * 5000 / 16


def test_threshold_is_midpoint_and_code_test_equals_raw_test(rng):
    X = rng.normal(size=(3000, 1))
    mapper = BinMapper(max_bins=32).fit(X)
    codes = mapper.transform(X)[0]
    for b in range(mapper.n_bins_[0] - 1):
        threshold = mapper.threshold(0, b)
        np.testing.assert_array_equal(codes <= b, X[:, 0] <= threshold)
        below = X[:, 0][X[:, 0] <= threshold].max()
        above = X[:, 0][X[:, 0] > threshold].min()
        assert threshold == pytest.approx((below + above) / 2)


def test_nan_goes_to_missing_bin(rng):
    X = rng.normal(size=(100, 2))
    X[::7, 1] = np.nan
    codes = BinMapper().fit_transform(X)
    assert np.all(codes[1, ::7] == MISSING_BIN)
    assert np.all(codes[0] != MISSING_BIN)
    assert np.all(codes[1][~np.isnan(X[:, 1])] < MISSING_BIN)


def test_all_nan_and_constant_features_get_one_bin():
    X = np.column_stack([np.full(10, np.nan), np.ones(10)])
    mapper = BinMapper().fit(X)
    np.testing.assert_array_equal(mapper.n_bins_, [1, 1])
    codes = mapper.transform(X)
    assert np.all(codes[0] == MISSING_BIN) and np.all(codes[1] == 0)


def test_subsample_keeps_exact_bins_for_few_distinct_values(rng):
    X = rng.integers(0, 50, size=(3000, 1)).astype(float)
    X[0, 0] = 1000.0  # a single rare value the subsample will likely miss
    mapper = BinMapper(subsample=100, random_state=0).fit(X)
    assert mapper.n_bins_[0] == np.unique(X).size


def test_bad_max_bins():
    with pytest.raises(ValueError, match="max_bins"):
        BinMapper(max_bins=256).fit(np.zeros((3, 1)))


def _serial_thresholds(X, max_bins):
    """Brute force: every feature's thresholds from its own sorted full column."""
    from confboost.data.bin_mapper import _feature_thresholds

    return [_feature_thresholds(X[~np.isnan(X[:, f]), f], max_bins) for f in range(X.shape[1])]


@pytest.mark.parametrize("threads", [1, 2])
def test_thresholds_found_in_threads_equal_the_serial_ones(rng, threads, monkeypatch):
    import numba

    monkeypatch.setattr("confboost.data.bin_mapper.THREADED_SORT_VALUES", 0)  # threads here too
    X = rng.normal(size=(3000, 7))
    X[:, 1] = rng.integers(0, 5, size=3000)  # few distinct values: exact bins
    X[rng.random(3000) < 0.1, 2] = np.nan
    X[:, 3] = 1.5  # constant
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        mapper = BinMapper(max_bins=32).fit(X.astype(np.float32))
    finally:
        numba.set_num_threads(previous)
    expected = _serial_thresholds(X.astype(np.float32).astype(np.float64), 32)
    assert len(mapper.thresholds_) == len(expected)
    for ours, theirs in zip(mapper.thresholds_, expected, strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_subsample_with_more_distinct_values_in_the_full_data():
    # the subsample sees the 4 common values, the full column 14 > max_bins: the sample's
    # distinct values give the bins (as before the parallel search)
    X = (np.arange(5000) % 4).astype(np.float64)[:, None]
    X[::500, 0] = 100.0 + np.arange(10)
    mapper = BinMapper(max_bins=4, subsample=50, random_state=0).fit(X)
    np.testing.assert_array_equal(mapper.thresholds_[0], [0.5, 1.5, 2.5])


def test_few_values_are_sorted_without_a_thread_pool(monkeypatch):
    import numba

    from confboost.data import bin_mapper as binning

    def no_pool(n_threads):
        raise AssertionError(f"a pool of {n_threads} threads for too few values")

    monkeypatch.setattr(binning, "ThreadPoolExecutor", no_pool)
    square = [0, 1, 4, 9]
    assert binning._map_in_threads(lambda i: i * i, 4, binning.THREADED_SORT_VALUES - 1) == square
    if numba.get_num_threads() > 1:  # enough values: the pool is used
        with pytest.raises(AssertionError, match="a pool of"):
            binning._map_in_threads(lambda i: i * i, 4, binning.THREADED_SORT_VALUES)
