"""Binning kernels: distinct-value scans and the code transform.

``BinMapper`` (``data/bin_mapper.py``) orchestrates; these kernels do the per-value work in
parallel. The transform reads the raw matrix row-major once, in row blocks, and writes the
feature-major codes, so binning and the transpose are one pass.
"""

import numpy as np

from confboost.utils.lazy_numba import njit, prange

#: Rows per block of the transform (each block is one parallel task).
TRANSFORM_BLOCK_ROWS = 4096

#: Padded width of a feature's threshold row in the transform (``MAX_BINS`` thresholds
#: at most 254, padded with +inf so the branch-free search runs exactly 8 steps).
THRESHOLD_WIDTH = 256


@njit(cache=True, nogil=True)
def _insert_sorted(values, count, x):
    """Insert ``x`` into the sorted prefix ``values[:count]`` unless present; new count."""
    lo = np.searchsorted(values[:count], x)
    if lo < count and values[lo] == x:
        return count
    for j in range(count, lo, -1):
        values[j] = values[j - 1]
    values[lo] = x
    return count + 1


@njit(cache=True, parallel=True, nogil=True)
def distinct_up_to(X, features, known, n_known, limit, out, n_out):
    """Distinct non-NaN values of some columns, stopping once a column has more than ``limit``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_all_features)
    features : ndarray of shape (n_features,), intp
        The columns to scan.
    known : ndarray of shape (n_features, limit + 1), float64
        Sorted distinct values already known (e.g. the subsample's), ``n_known`` of each row.
    n_known : ndarray of shape (n_features,), intp
    limit : int
    out : ndarray of shape (n_features, limit + 1), float64
        Output: sorted distinct values of each column (valid only if ``n_out <= limit``).
    n_out : ndarray of shape (n_features,), intp
        Output: how many; ``limit + 1`` means "more than ``limit``" (the scan stopped).
    """
    n_samples = X.shape[0]
    for j in prange(features.shape[0]):
        feature = features[j]
        values = out[j]
        count = n_known[j]
        values[:count] = known[j, :count]
        for i in range(n_samples):
            x = X[i, feature]
            if np.isnan(x):
                continue
            count = _insert_sorted(values, count, np.float64(x))
            if count > limit:
                break
        n_out[j] = count


def distinct_up_to_naive(X, features, limit):
    """Twin of ``distinct_up_to``: the sorted distinct values per column (a list), or None
    where a column has more than ``limit``."""
    result = []
    for feature in features:
        column = np.asarray(X[:, feature], dtype=np.float64)
        distinct = np.unique(column[~np.isnan(column)])
        result.append(distinct if distinct.size <= limit else None)
    return result


@njit(cache=True, nogil=True, inline="always")
def _code(row, x, missing_bin):
    """Count of ``row``'s (256 padded) thresholds below ``x``, branch-free; NaN: missing."""
    pos = 0
    pos += 128 * (row[pos + 127] < x)
    pos += 64 * (row[pos + 63] < x)
    pos += 32 * (row[pos + 31] < x)
    pos += 16 * (row[pos + 15] < x)
    pos += 8 * (row[pos + 7] < x)
    pos += 4 * (row[pos + 3] < x)
    pos += 2 * (row[pos + 1] < x)
    pos += row[pos] < x
    return pos if x == x else missing_bin


@njit(cache=True, parallel=True, nogil=True)
def transform_codes(X, thresholds, missing_bin, codes):
    """Bin codes of raw values: ``codes[f, i]`` = the count of thresholds of f below X[i, f].

    That is ``searchsorted(thresholds_f, x, side="left")``: bin b holds
    ``thresholds[b-1] < x <= thresholds[b]``; NaN gets ``missing_bin``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32 or float64
    thresholds : ndarray of shape (n_features, 256), float64
        Each feature's increasing thresholds, padded with +inf.
    missing_bin : int
    codes : ndarray of shape (n_features, n_samples), uint8
        Output.
    """
    n_samples, n_features = X.shape
    n_blocks = (n_samples + TRANSFORM_BLOCK_ROWS - 1) // TRANSFORM_BLOCK_ROWS
    for block in prange(n_blocks):
        start = block * TRANSFORM_BLOCK_ROWS
        stop = min(start + TRANSFORM_BLOCK_ROWS, n_samples)
        for i in range(start, stop):
            for feature in range(n_features):
                codes[feature, i] = _code(thresholds[feature], np.float64(X[i, feature]),
                                          missing_bin)


def transform_codes_naive(X, thresholds_list, missing_bin):
    """Twin of ``transform_codes`` with ``np.searchsorted``; thresholds as a list of arrays."""
    X = np.asarray(X, dtype=np.float64)
    codes = np.empty((X.shape[1], X.shape[0]), dtype=np.uint8)
    for feature, thresholds in enumerate(thresholds_list):
        column = X[:, feature]
        codes[feature] = np.searchsorted(thresholds, column, side="left")
        codes[feature, np.isnan(column)] = missing_bin
    return codes


@njit(cache=True, parallel=True, nogil=True)
def transform_codes_csc(indptr, indices, data, thresholds, missing_bin, codes):
    """``transform_codes`` of a CSC matrix: implicit zeros take the code of 0.0.

    Parameters
    ----------
    indptr, indices, data : the CSC arrays (column ``f``'s stored entries are
        ``data[indptr[f]:indptr[f + 1]]`` at rows ``indices[...]``).
    thresholds : ndarray of shape (n_features, 256), float64, +inf padded
    missing_bin : int
    codes : ndarray of shape (n_features, n_samples), uint8
        Output (dense: n_features × n_samples bytes whatever the sparsity).
    """
    n_features = codes.shape[0]
    for feature in prange(n_features):
        row = thresholds[feature]
        out = codes[feature]
        out[:] = _code(row, 0.0, missing_bin)
        for j in range(indptr[feature], indptr[feature + 1]):
            out[indices[j]] = _code(row, np.float64(data[j]), missing_bin)
