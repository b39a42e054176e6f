"""Binning of numeric features: quantile thresholds, the missing-value bin, codes.

Owns ``BinMapper``, which turns a raw ``(n_samples, n_features)`` float matrix into the
feature-major ``uint8`` codes that every histogram kernel reads. NumPy only.

A feature with at most ``max_bins`` distinct values gets one bin per value (exact); a feature
with more gets ``max_bins`` quantile bins. NaN goes to its own bin, ``MISSING_BIN``. Each
boundary between adjacent bins is the midpoint of the largest value of the lower bin and the
smallest value of the upper bin, so a split found on codes (``code <= b``) is the same test as
``x <= threshold[b]`` on raw values, and a model predicts on raw feature values.
"""

import numpy as np

from confboost._dtypes import MAX_BINS, MISSING_BIN, X_BINNED_DTYPE, X_DTYPE


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
    distinct = np.unique(values)
    if distinct.size <= 1:
        return np.empty(0, dtype=X_DTYPE)
    if distinct.size <= max_bins:
        return (distinct[:-1] + distinct[1:]) / 2.0
    quantiles = np.quantile(values, np.linspace(0.0, 1.0, max_bins + 1)[1:-1], method="linear")
    # Snap each quantile to the observed values around it, then take the midpoint, so that
    # every boundary lies strictly between two observed values.
    upper_index = np.searchsorted(distinct, quantiles, side="right")
    upper_index = np.unique(np.clip(upper_index, 1, distinct.size - 1))
    return (distinct[upper_index - 1] + distinct[upper_index]) / 2.0


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
        X : ndarray of shape (n_samples, n_features)
            Raw values; NaN is missing.
        sample_weight : ndarray of shape (n_samples,), optional
            Rows of zero weight are left out, so they cannot move a boundary.
        """
        if not 2 <= self.max_bins <= MAX_BINS:
            raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {self.max_bins!r}")
        X = np.asarray(X, dtype=X_DTYPE)
        if sample_weight is not None:
            X = X[np.asarray(sample_weight) > 0]
        sample = X
        if self.subsample is not None and X.shape[0] > self.subsample:
            rng = np.random.default_rng(
                self.random_state if not isinstance(self.random_state, np.random.RandomState)
                else self.random_state.randint(2**31)
            )
            rows = rng.choice(X.shape[0], self.subsample, replace=False)
            sample = X[np.sort(rows)]
        self.thresholds_ = []
        for feature in range(X.shape[1]):
            column = sample[:, feature]
            column = column[~np.isnan(column)]
            distinct_in_full = None
            if sample is not X:
                # exact binning must see every distinct value, not only the subsample's
                full_column = X[:, feature]
                distinct_in_full = np.unique(full_column[~np.isnan(full_column)])
                if distinct_in_full.size <= self.max_bins:
                    column = distinct_in_full
            self.thresholds_.append(_feature_thresholds(column, self.max_bins))
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
        X = np.asarray(X, dtype=X_DTYPE)
        codes = np.empty((X.shape[1], X.shape[0]), dtype=X_BINNED_DTYPE)
        for feature, thresholds in enumerate(self.thresholds_):
            column = X[:, feature]
            # bin b holds thresholds[b-1] < x <= thresholds[b]: searchsorted(side="left")
            codes[feature] = np.searchsorted(thresholds, column, side="left")
            codes[feature, np.isnan(column)] = MISSING_BIN
        return codes

    def fit_transform(self, X, sample_weight=None):
        """``fit(X, sample_weight)`` then ``transform(X)``."""
        return self.fit(X, sample_weight).transform(X)

    def threshold(self, feature, bin_index):
        """The raw-value threshold of the split ``code <= bin_index`` on ``feature``."""
        return float(self.thresholds_[feature][bin_index])
