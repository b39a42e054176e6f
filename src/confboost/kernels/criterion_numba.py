"""The criterion Z and the node score of every confidence mode: the numba home.

The formulas are those of ``kernels/criterion_numpy.py`` (paper Eq. 10, 16; §3.1; §3.3),
written for the kernels' inner loops, which scan many candidate partitions and accumulate
block statistics in scalars. A kernel sums ``cell(W+, W-, mode)`` over the informative
(block, label) cells into a scalar u, and min(W+, W-) into v where ``needs_v(mode)``; it adds
up the mass W0 of the abstaining blocks and ends with ``z_from_sums(u, v, W0, mode, total)``:

- real: u = Σ sqrt(W+ W-), Z = 2u (every block informative, W0 = 0)
- discrete: u = Σ |W+ - W-| (= r), Z = sqrt(total² - u²) (W0 = 0)
- abstain: u = Σ max(W+, W-), v = Σ min(W+, W-), Z = W0 + 2 sqrt(u v)
- real-abstain: u = Σ sqrt(W+ W-) over the informative blocks, Z = W0 + 2u

``is_abstaining(mode)`` says whether a block that abstains goes to W0 (abstaining modes) or
is an informative block like the others. A tree node's score (``node_score``) is 2 sqrt(W+
W-) for real modes and -|W+ - W-| for ±1 modes; a split's gain is the node's score minus its
children's. The mode codes come from ``utils/dtypes.py``.
"""

import numpy as np

from confboost.utils.dtypes import ABSTAIN, DISCRETE, REAL, REAL_ABSTAIN
from confboost.utils.lazy_numba import njit


@njit(cache=True, nogil=True, inline="always")
def is_abstaining(mode):
    """Whether the mode outputs 0 on an abstaining block (whose mass then goes to W0)."""
    return mode == ABSTAIN or mode == REAL_ABSTAIN


@njit(cache=True, nogil=True, inline="always")
def cell(pos, neg, mode):
    """u of one informative (block, label) cell: sqrt(W+ W-), |W+ - W-| or max(W+, W-)."""
    if mode == REAL or mode == REAL_ABSTAIN:
        return np.sqrt(pos * neg)
    if mode == DISCRETE:
        return abs(pos - neg)
    return max(pos, neg)


@njit(cache=True, nogil=True, inline="always")
def needs_v(mode):
    """Whether the mode's Z needs v = Σ min(W+, W-) besides u (abstain only)."""
    return mode == ABSTAIN


@njit(cache=True, nogil=True, inline="always")
def z_from_sums(u, v, abstained, mode, total):
    """Z from the sums of ``cell`` over the informative cells and the abstaining mass."""
    if mode == REAL:
        return 2.0 * u
    if mode == DISCRETE:
        return np.sqrt(max(total * total - u * u, 0.0))
    if mode == ABSTAIN:
        return abstained + 2.0 * np.sqrt(u * v)
    return abstained + 2.0 * u


@njit(cache=True, nogil=True, inline="always")
def node_score(pos, neg, mode):
    """A tree node's score of one column's masses: 2 sqrt(W+ W-) or -|W+ - W-|."""
    if mode == REAL or mode == REAL_ABSTAIN:
        return 2.0 * np.sqrt(pos * neg)
    return -abs(pos - neg)


@njit(cache=True, nogil=True, inline="always")
def base_mode(mode):
    """The mode of a partition with no abstaining block (``criterion_numpy.base_mode``)."""
    if mode == REAL or mode == REAL_ABSTAIN:
        return REAL
    return DISCRETE


@njit(cache=True, nogil=True)
def node_scores(pos, neg, mode, out):
    """``node_score`` of many cells at once: ``out[i] = node_score(pos[i], neg[i], mode)``.

    One branch-free loop per mode, which LLVM vectorises (the square roots of a split search
    several at a time); each value is ``node_score``'s to the bit.

    Parameters
    ----------
    pos, neg : ndarray of shape (n,), float64
    mode : int
    out : ndarray of shape (n,), float64
        Output.
    """
    if mode == REAL or mode == REAL_ABSTAIN:
        for i in range(out.shape[0]):
            out[i] = 2.0 * np.sqrt(pos[i] * neg[i])
    else:
        for i in range(out.shape[0]):
            out[i] = -abs(pos[i] - neg[i])
