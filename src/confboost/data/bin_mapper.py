"""Binning of numeric features: quantile thresholds, the missing-value bin, codes.

Owns ``BinMapper``, which turns a raw ``(n_samples, n_features)`` float matrix into the
feature-major ``uint8`` codes that every histogram kernel reads. NumPy only.

A feature with at most ``max_bins`` distinct values gets one bin per value (exact); a feature
with more gets ``max_bins`` quantile bins. NaN goes to its own bin, ``MISSING_BIN``. Each
boundary between adjacent bins is the midpoint of the largest value of the lower bin and the
smallest value of the upper bin, so a split found on codes (``code <= b``) is the same test as
``x <= threshold[b]`` on raw values, and a model predicts on raw feature values.

The per-value work (scanning a column for its distinct values, the transform) runs in the
parallel kernels of ``kernels/bin_codes.py``; this module keeps the NumPy logic that decides the
thresholds, one feature per task on numba's number of threads (NumPy's sort releases the
GIL), so finding them scales with the cores like the rest of a fit. float32 input is binned
as is (no float64 copy): thresholds are float64 midpoints, so the raw test is the same on
either dtype.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from confboost.kernels.bin_codes import (
    THRESHOLD_WIDTH,
    distinct_up_to,
    transform_codes,
    transform_codes_csc,
    transform_codes_naive,
)
from confboost.utils.dtypes import MAX_BINS, MISSING_BIN, X_BINNED_DTYPE, X_DTYPE
from confboost.utils.lazy_numba import prefer_twin
from confboost.utils.sparse import issparse

#: Raw dtypes binned without conversion.
RAW_DTYPES = (np.float64, np.float32)


def _as_raw(X):
    """``X`` as a C-contiguous float64 or float32 array (float32 kept: no copy)."""
    X = np.asarray(X)
    dtype = X.dtype if X.dtype in RAW_DTYPES else X_DTYPE
    return np.ascontiguousarray(X, dtype=dtype)


def _feature_thresholds(values, max_bins):
    """Bin boundaries of one feature.

    Parameters
    ----------
    values : ndarray of shape (n,)
        The feature's non-missing values (any order).
    max_bins : int
        Most value bins.

    Returns
    -------
    thresholds : ndarray of shape (n_bins - 1,)
        Increasing midpoints; bin ``b`` holds ``thresholds[b-1] < x <= thresholds[b]``.
    """
    return _thresholds_from_sorted(np.sort(values), max_bins)


def _thresholds_from_sorted(values, max_bins, distinct=None):
    """``_feature_thresholds`` of already sorted non-missing values (``distinct`` if known)."""
    if distinct is None:
        keep = np.empty(values.size, dtype=bool)
        keep[:1] = True
        np.not_equal(values[1:], values[:-1], out=keep[1:])
        distinct = values[keep]
    if distinct.size <= 1:
        return np.empty(0, dtype=X_DTYPE)
    if distinct.size <= max_bins:
        return _midpoints(distinct[:-1], distinct[1:])
    quantiles = np.quantile(values, np.linspace(0.0, 1.0, max_bins + 1)[1:-1], method="linear")
    # Snap each quantile to the observed values around it, then take the midpoint, so that
    # every boundary lies strictly between two observed values.
    upper_index = np.searchsorted(distinct, quantiles, side="right")
    upper_index = np.unique(np.clip(upper_index, 1, distinct.size - 1))
    return _midpoints(distinct[upper_index - 1], distinct[upper_index])


def _midpoints(lower, upper):
    """(lower + upper) / 2 without overflow: halves first where the sum leaves float64
    (values beyond about 9e307), so lower <= midpoint <= upper always holds."""
    with np.errstate(over="ignore"):
        middle = (lower + upper) / 2.0
    return np.where(np.isfinite(middle), middle, lower / 2.0 + upper / 2.0)


def _sorted_values(column):
    """The non-missing values of ``column`` sorted as float64, and their distinct values.

    NumPy's SIMD sort beats a numba sort several times over and releases the GIL, so
    ``_map_in_threads`` runs one per feature on every thread.
    """
    values = np.sort(column.astype(np.float64))  # NaN sorts last
    values = values[:values.size - np.count_nonzero(np.isnan(values))]
    keep = np.empty(values.size, dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values, values[keep]


#: Below this many sampled values the features are sorted in a plain loop: starting and
#: joining a thread pool costs more than it saves, and far more on busy cores, where every
#: wake-up may wait for a time slice. Measured on 2 cores (BinMapper.fit of n x 50, median of
#: 15; 2 threads / 1): quiet 1.33 at 0.25M values, 1.11 at 0.5M, 0.86 at 1M, 0.70 at 2M;
#: with two busy processes 1.80, 1.40, 1.18, 0.95.
THREADED_SORT_VALUES = 1_000_000


def _map_in_threads(task, n_tasks, n_values):
    """``[task(i) for i in range(n_tasks)]`` on numba's current number of threads.

    The tasks are NumPy calls that release the GIL (sorts), so Python threads run them in
    parallel; a thread waiting for work sleeps (no spinning). One thread, or fewer than
    ``THREADED_SORT_VALUES`` values (``n_values``) in all: a plain loop.
    """
    from confboost.utils.lazy_numba import load_numba  # numba's threads start on its layer

    n_threads = (min(load_numba().get_num_threads(), n_tasks)
                 if n_values >= THREADED_SORT_VALUES else 1)
    if n_threads <= 1:
        return [task(i) for i in range(n_tasks)]
    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(task, range(n_tasks)))


class BinMapper:
    """Per-feature quantile binning with a missing-value bin.

    Parameters
    ----------
    max_bins : int, default=255
        Most value bins per feature, in ``[2, 255]``; the missing bin comes on top.
    subsample : int or None, default=200_000
        Quantiles are computed from at most this many rows (drawn with ``random_state``);
        features whose distinct values all fit stay exact regardless. None: all rows.
    random_state : int, RandomState or None
        Seed of the subsample.

    Attributes
    ----------
    thresholds_ : list of ndarray
        One increasing array of bin boundaries per feature.
    n_bins_ : ndarray of shape (n_features,)
        Number of value bins per feature (``len(thresholds_[f]) + 1``).
    """

    def __init__(self, max_bins=MAX_BINS, subsample=200_000, random_state=None):
        self.max_bins = max_bins
        self.subsample = subsample
        self.random_state = random_state

    def fit(self, X, sample_weight=None):
        """Find the bin boundaries of every feature.

        Parameters
        ----------
        X : ndarray or scipy sparse matrix of shape (n_samples, n_features)
            Raw values; NaN is missing; a sparse matrix's implicit entries are 0.
        sample_weight : ndarray of shape (n_samples,), optional
            Rows of zero weight are left out, so they cannot move a boundary.
        """
        if self.max_bins is None or not 2 <= self.max_bins <= MAX_BINS:
            raise ValueError(f"max_bins must be in [2, {MAX_BINS}] (None, every threshold, is "
                             f"for Dataset.from_array), got {self.max_bins!r}")
        X = X.tocsr() if issparse(X) else _as_raw(X)
        if sample_weight is not None and not np.all(np.asarray(sample_weight) > 0):
            X = X[np.asarray(sample_weight) > 0]
        sample = X
        if self.subsample is not None and X.shape[0] > self.subsample:
            rng = np.random.default_rng(
                self.random_state if not isinstance(self.random_state, np.random.RandomState)
                else self.random_state.randint(2**31)
            )
            rows = rng.choice(X.shape[0], self.subsample, replace=False)
            sample = X[np.sort(rows)]
        if issparse(X):
            return self._fit_sparse(X, sample)
        n_features = X.shape[1]
        exact = sample is X

        def feature_task(feature):
            values, distinct = _sorted_values(sample[:, feature])
            if exact or distinct.size > self.max_bins:
                return _thresholds_from_sorted(values, self.max_bins, distinct), None
            return None, distinct

        found = _map_in_threads(feature_task, n_features, sample.shape[0] * n_features)
        thresholds = [t for t, _ in found]
        # exact binning must see every distinct value of the full data, not only the
        # subsample's: rescan the columns whose subsample has few distinct values
        few = [f for f in range(n_features) if thresholds[f] is None]
        if few:
            limit = self.max_bins
            known = np.zeros((len(few), limit + 1))
            n_known = np.array([found[f][1].size for f in few], dtype=np.intp)
            for j, f in enumerate(few):
                known[j, :n_known[j]] = found[f][1]
            full = np.empty_like(known)
            n_full = np.empty(len(few), dtype=np.intp)
            distinct_up_to(X, np.array(few, dtype=np.intp), known, n_known, limit, full,
                           n_full)
            for j, f in enumerate(few):
                if n_full[j] <= limit:
                    thresholds[f] = _thresholds_from_sorted(full[j, :n_full[j]], limit,
                                                            full[j, :n_full[j]])
                else:  # more in the full data than bins: the sample's distinct values
                    distinct = found[f][1]
                    thresholds[f] = _thresholds_from_sorted(distinct, limit, distinct)
        self.thresholds_ = thresholds
        self.n_bins_ = np.array([t.size + 1 for t in self.thresholds_], dtype=np.intp)
        return self

    def _fit_sparse(self, X, sample):
        """``fit`` of a CSR matrix: the same thresholds as for ``X.toarray()``.

        A column's implicit zeros are the value 0; only its stored entries are sorted, and the
        sorted sample column (stored values with the zeros merged in) is built only for the
        columns that need quantiles.
        """
        full = X.tocsc()
        columns = full if sample is X else sample.tocsc()
        n_rows = columns.shape[0]
        thresholds = []
        for feature in range(X.shape[1]):
            stored = np.sort(columns.data[columns.indptr[feature]:columns.indptr[feature + 1]]
                             .astype(np.float64))
            n_implicit = n_rows - stored.size
            stored = stored[~np.isnan(stored)]
            distinct = np.unique(np.append(stored, 0.0) if n_implicit else stored)
            if sample is not X and distinct.size <= self.max_bins:
                values = full.data[full.indptr[feature]:full.indptr[feature + 1]]
                values = values[~np.isnan(values)].astype(np.float64)
                if full.indptr[feature + 1] - full.indptr[feature] < full.shape[0]:
                    values = np.append(values, 0.0)
                full_distinct = np.unique(values)
                if full_distinct.size <= self.max_bins:
                    thresholds.append(_thresholds_from_sorted(full_distinct, self.max_bins,
                                                              full_distinct))
                    continue
            if distinct.size <= self.max_bins:
                thresholds.append(_thresholds_from_sorted(distinct, self.max_bins, distinct))
                continue
            split = np.searchsorted(stored, 0.0, side="left")
            merged = np.concatenate([stored[:split], np.zeros(n_implicit), stored[split:]])
            thresholds.append(_thresholds_from_sorted(merged, self.max_bins, distinct))
        self.thresholds_ = thresholds
        self.n_bins_ = np.array([t.size + 1 for t in self.thresholds_], dtype=np.intp)
        return self

    def transform(self, X):
        """Codes of ``X``, feature-major.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)

        Returns
        -------
        codes : ndarray of shape (n_features, n_samples), dtype uint8
            ``codes[f, i]`` is the bin of ``X[i, f]``; ``MISSING_BIN`` where it is NaN.
        """
        padded = np.full((len(self.thresholds_), THRESHOLD_WIDTH), np.inf)
        for feature, thresholds in enumerate(self.thresholds_):
            padded[feature, :thresholds.size] = thresholds
        codes = np.empty((X.shape[1], X.shape[0]), dtype=X_BINNED_DTYPE)
        if issparse(X):
            # codes stay dense: n_features × n_samples bytes, whatever the sparsity
            X = X.tocsc()
            X.sort_indices()
            transform_codes_csc(X.indptr, X.indices, X.data, padded, MISSING_BIN, codes)
        else:
            X = _as_raw(X)
            if prefer_twin(transform_codes, X.size):  # the same codes, without numba
                codes[:] = transform_codes_naive(X, self.thresholds_, MISSING_BIN)
            else:
                transform_codes(X, padded, MISSING_BIN, codes)
        return codes

    def fit_transform(self, X, sample_weight=None):
        """``fit(X, sample_weight)`` then ``transform(X)``."""
        return self.fit(X, sample_weight).transform(X)

    def threshold(self, feature, bin_index):
        """The raw-value threshold of the split ``code <= bin_index`` on ``feature``."""
        return float(self.thresholds_[feature][bin_index])
