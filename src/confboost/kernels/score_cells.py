"""Histograms of scores over cells of their order-preserving keys, in one pass.

AdaBoost.MR's multi-label cut (``engine/schemes/mr_cut.py``) reads the training scores
f(x, l) through order-preserving uint64 keys: a float's bits, with every bit flipped for a
negative one and the sign bit set for a positive one (-0.0 read as 0.0), so that the keys
sort as the scores do. A cell of level L holds the keys whose top ``bits``·L bits are its
prefix; its histogram has one entry per value of the next ``bits`` bits: the weight of
the positive pairs (Y = +1) there, of the negative ones, and their count.
``score_cell_histograms`` fills the histograms of several disjoint cells in one pass over
the scores (sequential, in row order: the sums are the same bits on any thread count).
"""

import numpy as np

from confboost.utils.lazy_numba import njit

_SIGN = np.uint64(1 << 63)


def score_keys(scores):
    """Order-preserving uint64 keys of the scores (flattened), -0.0 read as 0.0.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, k)

    Returns
    -------
    keys : ndarray of shape (n_samples * k,), uint64
    """
    bits = (np.asarray(scores, dtype=np.float64).ravel() + 0.0).view(np.uint64)
    return np.where(bits & _SIGN, ~bits, bits | _SIGN)


def key_value(key):
    """The score of an order-preserving key (``score_keys``' inverse)."""
    key = np.uint64(key)
    bits = key & ~_SIGN if key & _SIGN else ~key
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


@njit(cache=True, nogil=True)
def score_cell_histograms(bits, signs, sample_weight, level_of, starts, prefixes, cells,
                          width, out):
    """Add each score's weight and count to its cell's histogram.

    Parameters
    ----------
    bits : ndarray of shape (n_samples, k), uint64
        The scores' float64 bits (``scores.view(np.uint64)``).
    signs : ndarray of shape (n_samples, k), int8
        Y[i, l].
    sample_weight : ndarray of shape (n_samples,), float64
    level_of : ndarray of shape (n_levels,), int64
        The distinct levels of the asked cells, increasing.
    starts : ndarray of shape (n_levels + 1,), int64
        The asked cells of level ``level_of[j]`` are ``starts[j]:starts[j + 1]`` of
        ``prefixes`` and ``cells``.
    prefixes : ndarray of shape (n_cells,), uint64
        Each asked cell's prefix, increasing within a level.
    cells : ndarray of shape (n_cells,), int64
        Each asked cell's row of ``out``.
    width : int
        Bits per level (``out`` has 2**width entries a cell).
    out : ndarray of shape (n_cells, 2**width, 3), float64
        Zero on entry: W+, W- and the count per cell and sub-cell.
    """
    n_samples, k = bits.shape
    sign_bit = np.uint64(1) << np.uint64(63)
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    for i in range(n_samples):
        weight = sample_weight[i]
        for l in range(k):
            raw = bits[i, l]
            if raw == sign_bit:  # -0.0
                raw = np.uint64(0)
            key = ~raw if raw & sign_bit else raw | sign_bit
            for j in range(level_of.shape[0]):
                level = level_of[j]
                lo, hi = starts[j], starts[j + 1]
                top = np.uint64(0) if level == 0 else key >> np.uint64(64 - width * level)
                while lo < hi:  # the first prefix >= top
                    mid = (lo + hi) // 2
                    if prefixes[mid] < top:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < starts[j + 1] and prefixes[lo] == top:
                    sub = (key >> np.uint64(64 - width * (level + 1))) & mask
                    row = cells[lo]
                    if signs[i, l] > 0:
                        out[row, sub, 0] += weight
                    else:
                        out[row, sub, 1] += weight
                    out[row, sub, 2] += 1.0
                    break


def score_cell_histograms_naive(scores, signs, sample_weight, levels, prefixes, width):
    """Twin of ``score_cell_histograms`` with NumPy: per asked cell, a mask of its keys and
    three ``bincount``s.

    Parameters
    ----------
    scores, signs : ndarray of shape (n_samples, k)
    sample_weight : ndarray of shape (n_samples,)
    levels : ndarray of shape (n_cells,), int64
    prefixes : ndarray of shape (n_cells,), uint64
    width : int

    Returns
    -------
    out : ndarray of shape (n_cells, 2**width, 3)
    """
    keys = score_keys(scores)
    weight = np.repeat(np.asarray(sample_weight, dtype=np.float64), scores.shape[1])
    positive = np.asarray(signs).ravel() > 0
    size = 1 << width
    out = np.zeros((len(levels), size, 3))
    for index, (level, prefix) in enumerate(zip(levels.tolist(), prefixes.tolist(),
                                                strict=True)):
        inside = (np.ones(keys.shape[0], dtype=bool) if level == 0
                  else (keys >> np.uint64(64 - width * level)) == np.uint64(prefix))
        sub = ((keys[inside] >> np.uint64(64 - width * (level + 1)))
               & np.uint64(size - 1)).astype(np.intp)
        w, pos = weight[inside], positive[inside]
        out[index, :, 0] = np.bincount(sub, weights=np.where(pos, w, 0.0), minlength=size)
        out[index, :, 1] = np.bincount(sub, weights=np.where(pos, 0.0, w), minlength=size)
        out[index, :, 2] = np.bincount(sub, minlength=size)
    return out
