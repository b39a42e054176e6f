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

from confboost.kernels.criterion_numba import cell, is_abstaining, needs_v, z_from_sums
from confboost.kernels.criterion_numpy import partition_z
from confboost.utils.dtypes import MISSING_BIN, WEIGHT_DTYPE
from confboost.utils.lazy_numba import njit

#: The stump's abstaining block: the missing-value block (block 2).
STUMP_ABSTAINING = np.array([False, False, True])


@njit(cache=True, nogil=True)
def best_thresholds(hist, n_bins, mode, total, best_z, best_bin):
    """Least-Z threshold of every feature.

    Parameters
    ----------
    hist : ndarray of shape (n_features, n_hist_bins, k, 2)
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
    # serial: the work is n_features × 256 × k, too little to pay for waking a thread team.
    # A feature takes three passes: each label's running W+ and W- over the bins (the one
    # chain of dependent adds), then per label the criterion's terms of every threshold
    # added into the threshold's sums, a loop over the bins with no dependence between
    # them, which LLVM vectorises (the square roots four at a time), then the first least
    # Z. Each threshold's sums take the labels' terms in label order, as a scalar sum per
    # threshold would: binary 10k x 50, one thread, 0.3x the time of one pass per bin.
    n_features = hist.shape[0]
    k = hist.shape[2]
    abstaining = is_abstaining(mode)
    with_v = needs_v(mode)
    # one allocation each, no helper kernel: each call of another kernel or NumPy overload
    # is one more compilation on an empty cache
    left_pos = np.empty((k, hist.shape[1]), dtype=WEIGHT_DTYPE)  # W+ of bins <= b, per label
    left_neg = np.empty((k, hist.shape[1]), dtype=WEIGHT_DTYPE)
    sum_u = np.empty(hist.shape[1], dtype=WEIGHT_DTYPE)  # Σ of ``cell`` over blocks 0 and 1
    sum_v = np.empty(hist.shape[1], dtype=WEIGHT_DTYPE)  # Σ of min(W+, W-) over them
    for feature in range(n_features):
        bins = n_bins[feature]
        # the missing block, the same for every threshold: the abstaining mass W0, or an
        # informative block like the others
        missing_u = 0.0
        abstained = 0.0
        for l in range(k):
            miss_pos = hist[feature, MISSING_BIN, l, 0]
            miss_neg = hist[feature, MISSING_BIN, l, 1]
            if abstaining:
                abstained += miss_pos + miss_neg
            else:
                missing_u += cell(miss_pos, miss_neg, mode)
            pos = 0.0
            neg = 0.0
            for b in range(bins):
                pos += hist[feature, b, l, 0]
                neg += hist[feature, b, l, 1]
                left_pos[l, b] = pos
                left_neg[l, b] = neg
        sum_u[:bins] = 0.0
        sum_v[:bins] = 0.0
        for l in range(k):
            # the feature's value bins (the missing bin left out): the last running sum
            all_pos = left_pos[l, bins - 1]
            all_neg = left_neg[l, bins - 1]
            label_pos = left_pos[l]
            label_neg = left_neg[l]
            for b in range(bins):
                pos = label_pos[b]
                neg = label_neg[b]
                right_pos = max(all_pos - pos, 0.0)
                right_neg = max(all_neg - neg, 0.0)
                sum_u[b] += cell(pos, neg, mode) + cell(right_pos, right_neg, mode)
                if with_v:
                    sum_v[b] += min(pos, neg) + min(right_pos, right_neg)
        feature_best = np.inf
        feature_bin = -1
        for b in range(bins):
            z = z_from_sums(sum_u[b] + missing_u, sum_v[b], abstained, mode, total)
            if z < feature_best:
                feature_best = z
                feature_bin = b
        best_z[feature] = feature_best
        best_bin[feature] = feature_bin


@njit(cache=True, nogil=True)
def best_stump(hist, n_bins, mode, total, best_z, best_bin, weight_pos, weight_neg):
    """``best_thresholds``, then the stump of least Z over the features and its blocks'
    W+ and W-: the learner's search in one call.

    The feature is the first of least ``best_z`` (``np.argmin``'s); block 0 sums its bins
    up to the threshold, block 1 the value bins above it, one bin at a time in bin order
    (the bits of NumPy's ``sum(axis=0)`` over those bins), block 2 is the missing bin.

    Parameters
    ----------
    hist, n_bins, mode, total, best_z, best_bin
        As ``best_thresholds``.
    weight_pos, weight_neg : ndarray of shape (3, k), float64
        Output: W+ and W- of the chosen stump's three blocks.

    Returns
    -------
    feature : int
    threshold_bin : int
        ``best_bin[feature]`` (-1 where no feature has a threshold).
    """
    best_thresholds(hist, n_bins, mode, total, best_z, best_bin)
    feature = 0
    for f in range(1, best_z.shape[0]):
        if best_z[f] < best_z[feature]:
            feature = f
    threshold_bin = best_bin[feature]
    weight_pos[:] = 0.0
    weight_neg[:] = 0.0
    for b in range(n_bins[feature]):
        block = 0 if b <= threshold_bin else 1
        for l in range(hist.shape[2]):
            weight_pos[block, l] += hist[feature, b, l, 0]
            weight_neg[block, l] += hist[feature, b, l, 1]
    for l in range(hist.shape[2]):
        weight_pos[2, l] = hist[feature, MISSING_BIN, l, 0]
        weight_neg[2, l] = hist[feature, MISSING_BIN, l, 1]
    return feature, threshold_bin


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
    """Z of a stump's three blocks from their (3, k) statistics (block 2, missing, abstains)."""
    return partition_z(weight_pos, weight_neg, STUMP_ABSTAINING, mode, total)


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
