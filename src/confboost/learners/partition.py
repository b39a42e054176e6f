"""The criterion Z of many candidate partitions at once, from their block statistics.

Shared by the categorical and term learners (and the naive twins of their kernels): given
W+ and W- of every candidate's blocks, shape (n_candidates, n_blocks, k), and which blocks the
abstaining modes abstain on, Z follows the same formulas as the stump's split search
(``kernels/split.py``; paper Eq. 10 and 16, §3.1, §3.3):

- real: Z = 2 Σ_j Σ_l sqrt(W+[j,l] W-[j,l])
- discrete: Z = sqrt(total² - r²), r = Σ_j Σ_l |W+[j,l] - W-[j,l]|
- abstain: Z = W0 + 2 sqrt(A D) over the informative blocks (A: agreeing, D: disagreeing mass)
- real-abstain: Z = W0 + 2 Σ_{j informative} Σ_l sqrt(W+ W-)

W0 is the mass of the abstaining blocks.
"""

import numpy as np

from confboost.confidence import ABSTAIN, DISCRETE, REAL


def partition_criterion(weight_pos, weight_neg, abstaining, mode, total):
    """Z of each candidate partition.

    Parameters
    ----------
    weight_pos, weight_neg : ndarray of shape (n_candidates, n_blocks, k)
    abstaining : ndarray of shape (n_blocks,), bool
    mode : int
        Confidence mode code.
    total : float
        Total weight mass.

    Returns
    -------
    z : ndarray of shape (n_candidates,)
    """
    weight_pos = np.asarray(weight_pos, dtype=np.float64)
    weight_neg = np.asarray(weight_neg, dtype=np.float64)
    abstaining = np.asarray(abstaining, dtype=bool)
    if mode == REAL:
        return 2.0 * np.sqrt(weight_pos * weight_neg).sum(axis=(1, 2))
    if mode == DISCRETE:
        r = np.abs(weight_pos - weight_neg).sum(axis=(1, 2))
        return np.sqrt(np.maximum(total * total - r * r, 0.0))
    informative = ~abstaining
    abstained = (weight_pos[:, abstaining] + weight_neg[:, abstaining]).sum(axis=(1, 2))
    pos, neg = weight_pos[:, informative], weight_neg[:, informative]
    if mode == ABSTAIN:
        agree = np.maximum(pos, neg).sum(axis=(1, 2))
        disagree = np.minimum(pos, neg).sum(axis=(1, 2))
        return abstained + 2.0 * np.sqrt(agree * disagree)
    return abstained + 2.0 * np.sqrt(pos * neg).sum(axis=(1, 2))
