"""Split search for stumps: the threshold of least Z on each feature (Eq. 10, 16; §3.3).

A stump on feature f with bin threshold b partitions the examples into three blocks: codes
``<= b`` (block 0), codes ``> b`` (block 1) and the missing bin (block 2). From the histogram
(see ``histogram.py``) the block statistics of every threshold follow by a running sum, and
the criterion Z of the confidence mode is evaluated for each (mass of all blocks = ``total``):

- real: Z = Σ_j Σ_l 2 sqrt(W+[j,l] W-[j,l])                       (Eq. 10, 16)
- discrete: Z = sqrt(total² - r²), r = Σ_j Σ_l |W+[j,l] - W-[j,l]|     (§3.1, Eq. 14)
- abstain: Z = W0 + 2 sqrt(A D), A = Σ_{j<2,l} max(W+, W-), D = Σ_{j<2,l} min(W+, W-),
  W0 = mass of the missing block                                     (§3.3)
- real-abstain: Z = W0 + Σ_{j<2} Σ_l 2 sqrt(W+[j,l] W-[j,l])

Thresholds run over ``b = 0 .. n_bins[f] - 1``; ``b = n_bins[f] - 1`` sends every non-missing
value to block 0 (the paper's oblivious hypothesis, with a missing block).
"""

import numpy as np
from numba import njit

from confboost._dtypes import MISSING_BIN, WEIGHT_DTYPE

# confidence mode codes, as in confidence.py (numba kernels take plain ints)
_REAL, _DISCRETE, _ABSTAIN, _REAL_ABSTAIN = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _criterion(left_pos, left_neg, right_pos, right_neg, miss_pos, miss_neg, mode, total):
    """Z of one three-block partition; each argument has shape (k,)."""
    k = left_pos.shape[0]
    if mode == _REAL:
        z = 0.0
        for l in range(k):
            z += 2.0 * (np.sqrt(left_pos[l] * left_neg[l]) + np.sqrt(right_pos[l] * right_neg[l])
                        + np.sqrt(miss_pos[l] * miss_neg[l]))
        return z
    if mode == _DISCRETE:
        r = 0.0
        for l in range(k):
            r += (abs(left_pos[l] - left_neg[l]) + abs(right_pos[l] - right_neg[l])
                  + abs(miss_pos[l] - miss_neg[l]))
        return np.sqrt(max(total * total - r * r, 0.0))
    abstained = 0.0
    for l in range(k):
        abstained += miss_pos[l] + miss_neg[l]
    if mode == _ABSTAIN:
        agree = 0.0
        disagree = 0.0
        for l in range(k):
            agree += max(left_pos[l], left_neg[l]) + max(right_pos[l], right_neg[l])
            disagree += min(left_pos[l], left_neg[l]) + min(right_pos[l], right_neg[l])
        return abstained + 2.0 * np.sqrt(agree * disagree)
    z = abstained
    for l in range(k):
        z += 2.0 * (np.sqrt(left_pos[l] * left_neg[l]) + np.sqrt(right_pos[l] * right_neg[l]))
    return z


@njit(cache=True, nogil=True)
def value_totals(feature_hist, n_value_bins):
    """W+ and W- of a feature's value bins (the missing bin left out), shape (k,) each.

    Parameters
    ----------
    feature_hist : ndarray of shape (256, k, 2)
        One feature's histogram.
    n_value_bins : int
    """
    k = feature_hist.shape[1]
    all_pos = np.zeros(k, dtype=WEIGHT_DTYPE)
    all_neg = np.zeros(k, dtype=WEIGHT_DTYPE)
    for b in range(n_value_bins):
        for l in range(k):
            all_pos[l] += feature_hist[b, l, 0]
            all_neg[l] += feature_hist[b, l, 1]
    return all_pos, all_neg


@njit(cache=True, nogil=True)
def best_thresholds(hist, n_bins, mode, total, best_z, best_bin):
    """Least-Z threshold of every feature.

    Parameters
    ----------
    hist : ndarray of shape (n_features, 256, k, 2)
        W+ (``[..., 0]``) and W- (``[..., 1]``) per feature, bin and label.
    n_bins : ndarray of shape (n_features,), intp
        Value bins per feature.
    mode : int
        Confidence mode code.
    total : float
        Total weight mass (1 for normalised weights).
    best_z : ndarray of shape (n_features,), float64
        Output: the least Z on each feature (inf if the feature has no threshold).
    best_bin : ndarray of shape (n_features,), intp
        Output: the bin threshold reaching it (first one on ties).
    """
    # serial: the work is n_features × 256 × k, too little to pay for waking a thread team
    n_features = hist.shape[0]
    k = hist.shape[2]
    for feature in range(n_features):
        all_pos, all_neg = value_totals(hist[feature], n_bins[feature])
        miss_pos = hist[feature, MISSING_BIN, :, 0].copy()
        miss_neg = hist[feature, MISSING_BIN, :, 1].copy()
        left_pos = np.zeros(k, dtype=WEIGHT_DTYPE)
        left_neg = np.zeros(k, dtype=WEIGHT_DTYPE)
        right_pos = np.empty(k, dtype=WEIGHT_DTYPE)
        right_neg = np.empty(k, dtype=WEIGHT_DTYPE)
        feature_best = np.inf
        feature_bin = -1
        for b in range(n_bins[feature]):
            for l in range(k):
                left_pos[l] += hist[feature, b, l, 0]
                left_neg[l] += hist[feature, b, l, 1]
                right_pos[l] = max(all_pos[l] - left_pos[l], 0.0)
                right_neg[l] = max(all_neg[l] - left_neg[l], 0.0)
            z = _criterion(left_pos, left_neg, right_pos, right_neg, miss_pos, miss_neg,
                           mode, total)
            if z < feature_best:
                feature_best = z
                feature_bin = b
        best_z[feature] = feature_best
        best_bin[feature] = feature_bin


def stump_block_stats_naive(codes, weights, sign_index, feature, threshold_bin):
    """Brute-force W+ and W- of the three blocks of one stump, from the examples.

    Returns
    -------
    weight_pos, weight_neg : ndarray of shape (3, k)
    """
    column = codes[feature]
    blocks = np.where(column == MISSING_BIN, 2, np.where(column <= threshold_bin, 0, 1))
    k = weights.shape[1]
    weight_pos = np.zeros((3, k), dtype=WEIGHT_DTYPE)
    weight_neg = np.zeros((3, k), dtype=WEIGHT_DTYPE)
    for j in range(3):
        for l in range(k):
            in_block = blocks == j
            weight_pos[j, l] = weights[in_block & (sign_index[:, l] == 0), l].sum()
            weight_neg[j, l] = weights[in_block & (sign_index[:, l] == 1), l].sum()
    return weight_pos, weight_neg


def criterion_naive(weight_pos, weight_neg, mode, total):
    """Z of a three-block partition from its (3, k) statistics, written from the formulas."""
    if mode == _REAL:
        return float(2 * np.sqrt(weight_pos * weight_neg).sum())
    if mode == _DISCRETE:
        r = np.abs(weight_pos - weight_neg).sum()
        return float(np.sqrt(max(total**2 - r**2, 0.0)))
    abstained = weight_pos[2].sum() + weight_neg[2].sum()
    if mode == _ABSTAIN:
        agree = np.maximum(weight_pos[:2], weight_neg[:2]).sum()
        disagree = np.minimum(weight_pos[:2], weight_neg[:2]).sum()
        return float(abstained + 2 * np.sqrt(agree * disagree))
    return float(abstained + 2 * np.sqrt(weight_pos[:2] * weight_neg[:2]).sum())


def best_thresholds_naive(codes, weights, sign_index, n_bins, mode, total):
    """Twin of ``best_thresholds`` by brute force over every threshold, from the examples.

    Returns
    -------
    best_z : ndarray of shape (n_features,)
    best_bin : ndarray of shape (n_features,)
    """
    n_features = codes.shape[0]
    best_z = np.full(n_features, np.inf)
    best_bin = np.full(n_features, -1, dtype=np.intp)
    for feature in range(n_features):
        for b in range(n_bins[feature]):
            weight_pos, weight_neg = stump_block_stats_naive(codes, weights, sign_index,
                                                             feature, b)
            z = criterion_naive(weight_pos, weight_neg, mode, total)
            if z < best_z[feature]:
                best_z[feature] = z
                best_bin[feature] = b
    return best_z, best_bin
