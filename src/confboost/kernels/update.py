"""The weight update of a boosting round (Figure 1, Figure 2; Eq. 3).

For a partition hypothesis with value v[j, l] on block j, example i in block b_i:

    scores[i, l]  += α v[b_i, l]
    weights[i, l] *= exp(-α Y[i, l] v[b_i, l]) / Z,   Z = Σ_{i,l} weights[i, l] exp(...)

One pass updates the scores and the weights and returns Z; a second pass renormalises.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True, nogil=True)
def update_weights(weights, signs, blocks, values, alpha, scores):
    """Apply one round's hypothesis to the weights and scores in place.

    Parameters
    ----------
    weights : ndarray of shape (n_samples, k), float64
        D_t, summing to 1; becomes D_{t+1}.
    signs : ndarray of shape (n_samples, k), int8
        Y[i, l].
    blocks : ndarray of shape (n_samples,), uint8
        Block of each training example under the hypothesis.
    values : ndarray of shape (n_blocks, k), float64
        The hypothesis' value per block and label.
    alpha : float
    scores : ndarray of shape (n_samples, k), float64
        f(x_i, l), incremented by α h(x_i, l).

    Returns
    -------
    z : float
        The normaliser Z_t (the sum of the unnormalised new weights).
    """
    n_samples, k = weights.shape
    z = 0.0
    for i in prange(n_samples):
        block = blocks[i]
        row_sum = 0.0
        for l in range(k):
            step = alpha * values[block, l]
            scores[i, l] += step
            w = weights[i, l] * np.exp(-signs[i, l] * step)
            weights[i, l] = w
            row_sum += w
        z += row_sum
    if z > 0.0:
        inverse = 1.0 / z
        for i in prange(n_samples):
            for l in range(k):
                weights[i, l] *= inverse
    return z


def update_weights_naive(weights, signs, blocks, values, alpha, scores):
    """Twin of ``update_weights`` in NumPy; same arguments, same effect, returns Z."""
    step = alpha * values[blocks]
    scores += step
    new_weights = weights * np.exp(-signs * step)
    z = new_weights.sum()
    weights[:] = new_weights / z if z > 0 else new_weights
    return float(z)


@njit(cache=True, parallel=True, nogil=True)
def stump_blocks(column_codes, threshold_bin, missing_bin, blocks):
    """Blocks of a stump on the training codes: 0 (<= b), 1 (> b), 2 (missing).

    Parameters
    ----------
    column_codes : ndarray of shape (n_samples,), uint8
    threshold_bin : int
    missing_bin : int
    blocks : ndarray of shape (n_samples,), uint8
        Output.
    """
    for i in prange(column_codes.shape[0]):
        code = column_codes[i]
        if code == missing_bin:
            blocks[i] = 2
        elif code <= threshold_bin:
            blocks[i] = 0
        else:
            blocks[i] = 1


def stump_blocks_naive(column_codes, threshold_bin, missing_bin):
    """Twin of ``stump_blocks``; returns the blocks."""
    return np.where(column_codes == missing_bin, 2,
                    np.where(column_codes <= threshold_bin, 0, 1)).astype(np.uint8)
