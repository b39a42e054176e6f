"""The criterion Z and the split gain of every confidence mode: the NumPy home.

A domain-partitioning hypothesis (paper §4.1) is judged by Z, the normaliser the next
round's weights would have, from the statistics W+[j, l], W-[j, l] of its blocks j and label
columns l (``total`` is the whole weight mass, 1 for normalised weights):

- ``"real"``: Z = 2 Σ_j Σ_l sqrt(W+ W-)                                 (Eq. 10, 16)
- ``"discrete"``: Z = sqrt(total² - r²), r = Σ_j Σ_l |W+ - W-|            (§3.1, Eq. 14)
- ``"abstain"``: Z = W0 + 2 sqrt(A D) over the informative blocks, A = Σ max(W+, W-),
  D = Σ min(W+, W-), W0 the mass of the abstaining blocks                  (§3.3)
- ``"real-abstain"``: Z = W0 + 2 Σ_{j informative} Σ_l sqrt(W+ W-)

A tree grows by the drop in Z of a split (Kearns & Mansour's criterion): with the node
score s = Σ_l 2 sqrt(W+ W-) (real modes) or s = -Σ_l |W+ - W-| (±1 modes), a split's gain
is s(node) - s(left) - s(right). A tree has no abstaining block, so an abstaining mode
grows the tree of its base mode (``base_mode``).

This module owns the mode names and these formulas in NumPy (used by the learners that
score candidates in NumPy and by every kernel's naive twin); ``kernels/criterion_numba.py`` is
the numba home of the same formulas, for the kernels. The integer codes live in
``utils/dtypes.py``, where kernels read them.
"""

import numpy as np

from confboost.utils.dtypes import ABSTAIN, DISCRETE, REAL, REAL_ABSTAIN

MODES = {"real": REAL, "discrete": DISCRETE, "abstain": ABSTAIN, "real-abstain": REAL_ABSTAIN}

#: Modes whose hypotheses are ±1 (or 0) and need an α to scale them.
SIGN_MODES = (DISCRETE, ABSTAIN)

#: Modes that output 0 on a hypothesis' abstaining block.
ABSTAINING_MODES = (ABSTAIN, REAL_ABSTAIN)


def cell(pos, neg, mode):
    """A block's and label's term u of Z (arrays or numbers, elementwise; the numba home's
    ``cell``): sqrt(W+ W-) (real modes), |W+ - W-| (discrete) or max(W+, W-) (abstain)."""
    if mode in (REAL, REAL_ABSTAIN):
        return np.sqrt(pos * neg)
    if mode == DISCRETE:
        return np.abs(pos - neg)
    return np.maximum(pos, neg)


def z_from_sums(u, v, abstained, mode, total):
    """Z from u = Σ ``cell`` over the informative blocks and labels, v = Σ min(W+, W-)
    (abstain), the abstaining mass W0 and ``total`` (the module docstring's formulas; the
    numba home's ``z_from_sums``)."""
    if mode == REAL:
        return 2.0 * u
    if mode == DISCRETE:
        return np.sqrt(np.maximum(total * total - u * u, 0.0))
    if mode == ABSTAIN:
        return abstained + 2.0 * np.sqrt(u * v)
    return abstained + 2.0 * u


def mode_code(confidence):
    """The kernel code of a confidence mode name; ValueError naming the valid ones."""
    try:
        return MODES[confidence]
    except (KeyError, TypeError):
        raise ValueError(
            f"confidence must be one of {sorted(MODES)}, got {confidence!r}"
        ) from None


def base_mode(mode):
    """The mode of a partition with no abstaining block: REAL for real modes, else DISCRETE."""
    return REAL if mode in (REAL, REAL_ABSTAIN) else DISCRETE


def partition_z(weight_pos, weight_neg, abstaining, mode, total):
    """Z of one or many candidate partitions from their block statistics.

    Parameters
    ----------
    weight_pos, weight_neg : ndarray of shape (..., n_blocks, k)
        W+ and W- of each candidate's blocks.
    abstaining : ndarray of shape (n_blocks,), bool, or None
        Blocks the abstaining modes output 0 on. None: the partition has no abstaining
        block (a tree, a product), and an abstaining mode scores as its ``base_mode``.
    mode : int
        Confidence mode code.
    total : float
        Total weight mass (read by ``DISCRETE`` only).

    Returns
    -------
    z : ndarray of shape (...), or float for a single (n_blocks, k) partition
    """
    weight_pos = np.asarray(weight_pos, dtype=np.float64)
    weight_neg = np.asarray(weight_neg, dtype=np.float64)
    if abstaining is None:
        mode = base_mode(mode)
    axes = (-2, -1)
    if mode in ABSTAINING_MODES:
        abstaining = np.asarray(abstaining, dtype=bool)
        informative = ~abstaining
        pos, neg = weight_pos[..., informative, :], weight_neg[..., informative, :]
        abstained = (weight_pos[..., abstaining, :]
                     + weight_neg[..., abstaining, :]).sum(axis=axes)
    else:  # every block: C-contiguous, as the copies of a mask would be (the same sums)
        pos, neg = np.ascontiguousarray(weight_pos), np.ascontiguousarray(weight_neg)
    if mode == REAL:
        z = 2.0 * np.sqrt(pos * neg).sum(axis=axes)
    elif mode == DISCRETE:
        r = np.abs(pos - neg).sum(axis=axes)
        z = np.sqrt(np.maximum(total * total - r * r, 0.0))
    elif mode == ABSTAIN:
        agree = np.maximum(pos, neg).sum(axis=axes)
        disagree = np.minimum(pos, neg).sum(axis=axes)
        z = abstained + 2.0 * np.sqrt(agree * disagree)
    else:
        z = abstained + 2.0 * np.sqrt(pos * neg).sum(axis=axes)
    return float(z) if np.ndim(z) == 0 else z


def node_score(weight_pos, weight_neg, mode):
    """The score s of a tree node from its masses (module docstring), over the last axis.

    Parameters
    ----------
    weight_pos, weight_neg : ndarray of shape (..., k)
    mode : int
        Confidence mode code (an abstaining mode scores as its ``base_mode``).

    Returns
    -------
    ndarray of shape (...)
    """
    weight_pos = np.asarray(weight_pos, dtype=np.float64)
    weight_neg = np.asarray(weight_neg, dtype=np.float64)
    if base_mode(mode) == REAL:
        return 2.0 * np.sqrt(weight_pos * weight_neg).sum(axis=-1)
    return -np.abs(weight_pos - weight_neg).sum(axis=-1)


def split_gain(node_pos, node_neg, left_pos, left_neg, mode):
    """The drop in Z of splitting a node in two, s(node) - s(left) - s(right).

    Parameters
    ----------
    node_pos, node_neg : ndarray of shape (k,)
        The node's W+ and W-.
    left_pos, left_neg : ndarray of shape (..., k)
        The left child's, for one or many candidate splits (the right child is the rest).
    mode : int

    Returns
    -------
    gain : ndarray of shape (...)
    """
    right_pos = np.maximum(node_pos - left_pos, 0.0)
    right_neg = np.maximum(node_neg - left_neg, 0.0)
    return (node_score(node_pos, node_neg, mode) - node_score(left_pos, left_neg, mode)
            - node_score(right_pos, right_neg, mode))
