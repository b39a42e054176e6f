"""Confidences of a domain-partitioning hypothesis from its block statistics (paper §4, §7.1).

A domain-partitioning weak hypothesis is constant on each block X_j of a partition (a stump's
sides, a tree's leaves, a term's presence or absence), per label column l. Given the weight
mass W+[j, l] (examples in block j with Y[i, l] = +1) and W-[j, l], the confidence rule gives
the value h(x, l) on each block. Every weak learner shares this one small function.

Modes (the ``confidence`` parameter of the estimators):

- ``"real"``: c = ½ ln((W+ + ε) / (W- + ε)) on every block (Eq. 9 and 16, smoothed by §4.2),
  ln being the C library's (``utils.libm``: icsiboost's, and the same bits on every CPU).
- ``"discrete"``: c = sign(W+ - W-) in {-1, +1} on every block (ties give +1), scaled by α
  (§3.1, §7 "discrete AdaBoost.MH").
- ``"abstain"``: c = sign(W+ - W-) on the informative blocks and 0 on the abstaining block
  (the missing-value block of a stump, the "term absent" block of a text learner), scaled by
  α of §3.3: h takes values in {-1, 0, +1}.
- ``"real-abstain"``: Eq. 9 on the informative blocks, 0 on the abstaining block (BoosTexter's
  "real abstaining AdaBoost.MH").

The mode names, their integer codes (what the kernels receive) and the criterion Z of each
are in ``kernels/criterion_numpy.py``.
"""

import numpy as np

from confboost.kernels.criterion_numpy import ABSTAINING_MODES, REAL, REAL_ABSTAIN
from confboost.utils import libm
from confboost.utils.dtypes import SCORE_DTYPE

#: Smallest smoothing ε: a block's confidence ½ ln((W₊ + ε) / (W₋ + ε)) (§4.2) has W₊ ≤ 1
#: (the weights D sum to 1), so it stays below ½ ln(1e300) ≈ 345; a subnormal ε made it
#: infinite.
MIN_SMOOTHING = 1e-300


def default_smoothing(sample_weight, n_labels):
    """ε = 1/(2mk), half the initial weight of one (example, label) pair (§4.2, §10).

    m counts the examples with positive weight, and an integer sample weight as that many
    repetitions: m = max(Σ w_i, #{w_i > 0}), so that weighting an example by 2 is the same
    as repeating it, and weights normalised to sum 1 still give the usual 1/(2mk).

    Parameters
    ----------
    sample_weight : ndarray of shape (n_samples,)
    n_labels : int
    """
    return smoothing_from_totals(float(np.sum(sample_weight)),
                                 int(np.count_nonzero(sample_weight)), n_labels)


def smoothing_from_totals(total_weight, n_positive, n_labels):
    """``default_smoothing`` from Σ w_i and #{w_i > 0} (a distributed fit adds them up);
    at least ``MIN_SMOOTHING`` (weights summing near the float maximum)."""
    return max(1.0 / (2.0 * max(float(total_weight), float(n_positive)) * n_labels),
               MIN_SMOOTHING)


def block_confidences(weight_pos, weight_neg, abstaining, mode, smoothing):
    """The value h(x, l) on each block.

    Parameters
    ----------
    weight_pos, weight_neg : ndarray of shape (n_blocks, k)
        W+ and W- per block and label column.
    abstaining : ndarray of shape (n_blocks,), bool
        Blocks on which the abstaining modes output 0.
    mode : int
        One of ``REAL``, ``DISCRETE``, ``ABSTAIN``, ``REAL_ABSTAIN``.
    smoothing : float
        ε of §4.2 (used by the real modes).

    Returns
    -------
    values : ndarray of shape (n_blocks, k)
    """
    weight_pos = np.asarray(weight_pos, dtype=SCORE_DTYPE)
    weight_neg = np.asarray(weight_neg, dtype=SCORE_DTYPE)
    if mode in (REAL, REAL_ABSTAIN):
        values = 0.5 * libm.log((weight_pos + smoothing) / (weight_neg + smoothing))
    else:
        values = np.where(weight_pos >= weight_neg, 1.0, -1.0)
    if mode in ABSTAINING_MODES:
        values[np.asarray(abstaining, dtype=bool)] = 0.0
    return values
