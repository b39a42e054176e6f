"""Block weights of categorical value tests: W+ and W- per (value, label) in one pass.

A categorical stump tests ``x[column] == v`` and partitions the examples into three blocks:
"= v", "≠ v" (another known value) and "missing". ``value_histogram`` sums the weights per
value code and label, with the missing examples in a last row; the "≠ v" block of every v
is then the known total minus row v, so all V tests cost O(n · k + V · k).
"""

import numpy as np

from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, parallel=True, nogil=True)
def value_histogram(codes, n_values, weights, signs):
    """W+ and W- per value code (rows 0 .. n_values - 1) and for missing (row n_values).

    Parameters
    ----------
    codes : ndarray of shape (n_samples,), int32
        Value code of each example, ``-1`` where missing.
    n_values : int
    weights : ndarray of shape (n_samples, k), float64
    signs : ndarray of shape (n_samples, k), int8

    Returns
    -------
    w_plus, w_minus : ndarray of shape (n_values + 1, k), float64
    """
    n_samples, k = weights.shape
    # each label zeroes its own column (``np.zeros`` would be a parallel region of its own)
    w_plus = np.empty((n_values + 1, k), dtype=weights.dtype)
    w_minus = np.empty((n_values + 1, k), dtype=weights.dtype)
    for l in prange(k):
        for row in range(n_values + 1):
            w_plus[row, l] = 0.0
            w_minus[row, l] = 0.0
        for i in range(n_samples):
            code = codes[i]
            row = n_values if code < 0 else code
            if signs[i, l] > 0:
                w_plus[row, l] += weights[i, l]
            else:
                w_minus[row, l] += weights[i, l]
    return w_plus, w_minus


def value_histogram_naive(codes, n_values, weights, signs):
    """Twin of ``value_histogram``: one masked sum per (value, label)."""
    k = weights.shape[1]
    w_plus = np.zeros((n_values + 1, k))
    w_minus = np.zeros((n_values + 1, k))
    rows = np.where(codes < 0, n_values, codes)
    for row in range(n_values + 1):
        for l in range(k):
            here = rows == row
            w_plus[row, l] = weights[here & (signs[:, l] > 0), l].sum()
            w_minus[row, l] = weights[here & (signs[:, l] < 0), l].sum()
    return w_plus, w_minus
