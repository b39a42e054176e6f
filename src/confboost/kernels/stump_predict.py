"""Prediction of a sum of stumps on raw feature values.

f(x, l) = Σ_t value[t, block_t(x), l], the α_t already folded into ``value``, with
block_t(x) = 2 if x[feature_t] is NaN, 0 if x[feature_t] <= threshold_t, else 1.
"""

import numpy as np

from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, nogil=True, inline="always")
def _block(x, threshold):
    """A stump's block of value ``x``, branch-free: 0 if x <= threshold, 2 if NaN, else 1.

    NaN fails every comparison, so 1 - [x <= t] is 1 for it and [x != x] adds the 1 more.
    Without branches, a stump whose test splits the rows at random costs no mispredictions
    (3x the rows per second of the branching form on 500 stumps, k = 1).
    """
    return 1 - np.intp(x <= threshold) + np.intp(x != x)


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def predict_stumps(X, features, thresholds, values, out):
    """Add the stumps' outputs to ``out``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
    features : ndarray of shape (n_stumps,), intp
    thresholds : ndarray of shape (n_stumps,), float64
    values : ndarray of shape (n_stumps, 3, k), float64
        α_t h_t on each block.
    out : ndarray of shape (n_samples, k), float64
        Incremented in place.
    """
    n_samples = X.shape[0]
    n_stumps = features.shape[0]
    k = values.shape[2]
    flat = values.reshape((n_stumps * 3, k))
    for i in prange(n_samples):
        row = X[i]
        if k == 1:
            total = 0.0  # a register, not a store-load chain through out[i, 0]
            for t in range(n_stumps):
                x = row[features[t]]
                total += flat[3 * t + _block(x, thresholds[t]), 0]
            out[i, 0] += total
        else:
            totals = np.zeros(k)
            for t in range(n_stumps):
                x = row[features[t]]
                stump_values = flat[3 * t + _block(x, thresholds[t])]
                for l in range(k):
                    totals[l] += stump_values[l]
            for l in range(k):
                out[i, l] += totals[l]


def predict_stumps_naive(X, features, thresholds, values):
    """Twin of ``predict_stumps``; returns f of shape (n_samples, k)."""
    out = np.zeros((X.shape[0], values.shape[2]))
    for t in range(features.shape[0]):
        column = X[:, features[t]]
        blocks = np.where(np.isnan(column), 2, np.where(column <= thresholds[t], 0, 1))
        out += values[t][blocks]
    return out
