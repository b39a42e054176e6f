"""The weight update of a round whose hypothesis has a block per example and label.

A domain-partitioning hypothesis on X × Y (paper §7.1) may split each label's examples its
own way: with one tree per label, the blocks are X_j^l × {l}, and the pair (i, l) lies in
block b[i, l]. With the value v[j, l] of block j on label l (0 off the block's own label)
the round is, as in ``weight_update.apply_partition``,

    scores[i, l]  += α v[b[i, l], l]
    weights[i, l] *= exp(-α Y[i, l] v[b[i, l], l]) / Z

with the factors exp(∓α v) / Z as a table of 2 × n_blocks × k numbers, and the training
loss measured on the new scores in the same pass. Sums are taken in fixed chunks of rows,
added in chunk order (``weight_update.REDUCTION_CHUNK``), so the result does not depend on
the number of threads.
"""

import numpy as np

from confboost.kernels.weight_update import (
    LOSS_ARGMAX,
    LOSS_PAIRS,
    REDUCTION_CHUNK,
    _n_chunks,
    _ordered_sum,
    argmax_wrong,
)
from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def apply_label_partition(weights, sign_index, blocks, steps, factors, scores, loss_kind,
                          loss_weights):
    """One pass of the round's update for blocks per example and label.

    Parameters
    ----------
    weights : ndarray of shape (n_samples, k), float64
        D_t; becomes ``D_t * factors[blocks[i, l], l, sign]``.
    sign_index : ndarray of shape (n_samples, k), uint8
        0 where Y[i, l] = +1, 1 where it is -1.
    blocks : ndarray of shape (n_samples, k), uint16
        Block of each pair (i, l).
    steps : ndarray of shape (n_blocks, k), float64
        α h on each block and label: added to the scores.
    factors : ndarray of shape (n_blocks, k, 2), float64
        ``exp(-α v[j, l]) / z`` for sign index 0 (Y = +1), ``exp(α v[j, l]) / z`` for 1.
    scores : ndarray of shape (n_samples, k), float64
        f(x_i, l), incremented.
    loss_kind : int
        ``LOSS_PAIRS`` or ``LOSS_ARGMAX``, as ``weight_update.apply_partition``.
    loss_weights : ndarray of shape (n_samples, k) or (n_samples, 1), float64

    Returns
    -------
    total : float
        Σ of the new weights.
    loss : float
    """
    n_samples, k = weights.shape
    one_column = loss_weights.shape[1] == 1
    # each chunk writes its own (``np.zeros`` would be a parallel region of its own)
    partial_total = np.empty(_n_chunks(n_samples), dtype=np.float64)
    partial_loss = np.empty(_n_chunks(n_samples), dtype=np.float64)
    for c in prange(partial_total.shape[0]):
        chunk_total = 0.0
        chunk_loss = 0.0
        for i in range(c * REDUCTION_CHUNK, min((c + 1) * REDUCTION_CHUNK, n_samples)):
            row_loss = 0.0
            for l in range(k):
                block = blocks[i, l]
                sign = sign_index[i, l]
                score = scores[i, l] + steps[block, l]
                scores[i, l] = score
                w = weights[i, l] * factors[block, l, sign]
                weights[i, l] = w
                chunk_total += w
                if loss_kind == LOSS_PAIRS:
                    row_loss += (loss_weights[i, 0 if one_column else l]
                                 * (score * (1.0 - 2.0 * sign) <= 0.0))
            if loss_kind == LOSS_ARGMAX and argmax_wrong(scores[i], sign_index[i]):
                row_loss = loss_weights[i, 0]
            chunk_loss += row_loss
        partial_total[c] = chunk_total
        partial_loss[c] = chunk_loss
    return _ordered_sum(partial_total), _ordered_sum(partial_loss)


def apply_label_partition_naive(weights, sign_index, blocks, steps, factors, scores, loss_kind,
                                loss_weights):
    """Twin of ``apply_label_partition`` in NumPy; same arguments and effect, returns the
    same."""
    n_samples, k = weights.shape
    columns = np.arange(k)[None, :]
    weights *= factors[blocks, columns, sign_index]
    scores += steps[blocks, columns]
    signs = np.where(sign_index == 0, 1, -1)
    if loss_kind == LOSS_PAIRS:
        loss = np.broadcast_to(loss_weights, scores.shape)[signs * scores <= 0].sum()
    else:
        predicted = np.argmax(scores, axis=1)
        top = scores[np.arange(n_samples), predicted]
        tied = (scores == top[:, None]).sum(axis=1) > 1
        wrong = signs[np.arange(n_samples), predicted] < 0
        loss = loss_weights[wrong | tied, 0].sum()
    return float(weights.sum()), float(loss)
