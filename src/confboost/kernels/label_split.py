"""The split search of a tree grown on one label column with real confidences.

A tree per label (``engine/learners/label_trees.py``, paper §7.1) grows each tree on one
label's W+ and W-: a node's histogram has one column, and its best threshold split per
feature is the drop in Z of Eq. 10 and 16 with the real score s = 2 sqrt(W+ W-) of one
label. ``kernels/node_split.children_splits`` scans any number of labels; on one label its
per-bin label loops and side-by-side layout are most of the work of a label tree (784
features x 256 bins per child on fashion-mnist). Here a feature takes three loops:

1. the candidate thresholds, bin 0 and each bin with mass (an empty bin repeats the
   previous split, which wins the tie), listed without a branch (every bin written, the
   count advanced past a candidate only), then the left child's running W+, W- and mass
   at each candidate (an empty bin would add 0.0 to each: most bins of a small node);
2. both children's scores of every candidate, missing values left and right, in one loop
   LLVM vectorises (the square roots several at a time);
3. the first candidate of largest gain, missing values left before right at each.

The search is bound by memory more than by its arithmetic: a tree keeps a histogram per
waiting leaf (3.2 MB each on fashion-mnist), so the parent's and the smaller child's are
mostly out of the caches when a split comes, and each feature's cells are a page of their
own (256 bins x 2 x 8 bytes), where the hardware's prefetch stops. Before a feature is
subtracted and scanned, the lines of the next feature's cells that the search reads (its
value bins and its missing bin) are asked for (``kernels/prefetch.py``; on histograms of
``_ASK_BYTES`` or more, which outgrow a core's L2); the subtraction
touches those cells only: past a feature's value bins every histogram holds 0.0, and the
difference of two zeros is 0.0, so the larger child's histogram is the same. Together they
took the search from 0.93-0.95 to 0.78-0.79 ms of CPU a call in a default fashion-mnist fit
(one thread, three alternated processes each).

Every gain is ``children_splits``' to the bit (the same additions and square roots in the
same order; ``label_children_splits_naive`` is its naive twin), so a tree is the same.
"""

import numpy as np

from confboost.kernels import prefetch
from confboost.kernels.node_split import children_splits_naive, choose_split
from confboost.utils.dtypes import WEIGHT_DTYPE
from confboost.utils.lazy_numba import njit, prange

#: Features a task of ``label_children_splits`` subtracts and scans with one work space.
_FEATURES_PER_TASK = 8

#: Histogram cells (float64) in a 64-byte cache line: the step of ``_ask_cells``' hints.
_CELLS_PER_LINE = 8

#: Bytes of a histogram from which ``label_children_splits`` asks for the next feature's
#: cells: one that fits a core's L2 (1 MiB here; binary 200k x 50's is 200 kB) is mostly
#: there when the split comes, and the hints would only cost their instructions.
_ASK_BYTES = 1 << 20


@njit(cache=True, nogil=True)
def _ask_cells(cells, n_value_bins, missing):
    """Ask for the cache lines of the cells the search reads in one feature's flat
    histogram ``cells``: its value bins' (``0 .. 2 * n_value_bins``) and its missing bin's
    (``kernels/prefetch.py``: a hint, no value changes)."""
    for cell in range(0, 2 * n_value_bins, _CELLS_PER_LINE):
        prefetch.read(cells, np.uintp(cell))
    prefetch.read(cells, np.uintp(2 * missing))


@njit(cache=True, nogil=True)
def _subtract_cells(large, small, first, stop):
    """``large[c] -= small[c]`` on cells ``first:stop`` of one feature, by
    ``tree_nodes.subtract_features``' rule (a difference within 1e-13 of the parent's cell
    is 0.0, so rounding leaves no mass in an empty bin)."""
    for cell in range(first, stop):
        whole = large[cell]
        difference = whole - small[cell]
        large[cell] = difference if difference > 1e-13 * whole else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def _scan_one_label(cells, n_value_bins, missing, min_leaf_weight, left_pos, left_neg,
                    left_mass, gain_left, gain_right, candidate_bin):
    """One feature's best split (gain, bin, missing_left), or (-inf, -1, True).

    ``cells``: the feature's flat histogram, W+ and W- of bin b at 2b and 2b + 1, the
    missing bin at ``2 * missing``. The rest is work space of a bin each: the left child's
    running sums, each candidate's gain with missing values left and right, its bin.
    """
    n_candidates = 0
    for b in range(n_value_bins):
        candidate_bin[n_candidates] = b
        n_candidates += (b == 0) | (cells[2 * b] != 0.0) | (cells[2 * b + 1] != 0.0)
    pos_sum = 0.0
    neg_sum = 0.0
    mass_sum = 0.0
    for c in range(n_candidates):  # an empty bin would add 0.0 to each sum: no change
        b = candidate_bin[c]
        cell_pos = cells[2 * b]
        cell_neg = cells[2 * b + 1]
        pos_sum += cell_pos
        neg_sum += cell_neg
        mass_sum += cell_pos + cell_neg
        left_pos[c] = pos_sum
        left_neg[c] = neg_sum
        left_mass[c] = mass_sum
    miss_pos = cells[2 * missing]
    miss_neg = cells[2 * missing + 1]
    node_score = 2.0 * np.sqrt((pos_sum + miss_pos) * (neg_sum + miss_neg))
    missing_mass = miss_pos + miss_neg
    value_mass = pos_sum + neg_sum
    least_mass = max(min_leaf_weight, 1e-12 * (value_mass + missing_mass))
    with_missing = missing_mass > 0.0
    if with_missing:
        for c in range(n_candidates):
            pos, neg = left_pos[c], left_neg[c]
            right_pos = max(pos_sum - pos, 0.0)
            right_neg = max(neg_sum - neg, 0.0)
            score_left = 2.0 * np.sqrt(pos * neg)
            score_right = 2.0 * np.sqrt(right_pos * right_neg)
            gain_left[c] = (node_score - 2.0 * np.sqrt((pos + miss_pos) * (neg + miss_neg))
                            - score_right)
            gain_right[c] = node_score - score_left - 2.0 * np.sqrt(
                (right_pos + miss_pos) * (right_neg + miss_neg))
    else:  # both sides of the missing values are the same split
        for c in range(n_candidates):
            pos, neg = left_pos[c], left_neg[c]
            gain_left[c] = node_score - 2.0 * np.sqrt(pos * neg) - 2.0 * np.sqrt(
                max(pos_sum - pos, 0.0) * max(neg_sum - neg, 0.0))
    best_gain, best_bin, best_missing_left = -np.inf, -1, True
    for c in range(n_candidates):  # a child's least mass is tested only for a better gain
        if gain_left[c] > best_gain:
            mass = left_mass[c]
            right_mass = max(value_mass - mass, 0.0)
            if mass + missing_mass >= least_mass and right_mass >= least_mass:
                best_gain, best_bin, best_missing_left = gain_left[c], candidate_bin[c], True
        if with_missing and gain_right[c] > best_gain:
            mass = left_mass[c]
            right_mass = max(value_mass - mass, 0.0)
            if mass >= least_mass and right_mass + missing_mass >= least_mass:
                best_gain, best_bin, best_missing_left = gain_right[c], candidate_bin[c], False
    return best_gain, best_bin, best_missing_left


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def label_children_splits(small_hist, large_hist, n_bins, min_leaf_weight, best_gain,
                          best_bin, best_missing_left, choice):
    """Both children's best split per feature after a split, on one label column, real
    confidences: ``node_split.children_splits`` for k = 1, the same outputs to the bit.

    Parameters
    ----------
    small_hist : ndarray of shape (n_features, n_hist_bins, 1, 2), float64, C-contiguous
        The smaller child's histogram, built from its rows.
    large_hist : ndarray of the same shape
        The parent's histogram; overwritten with the larger child's (parent minus smaller,
        ``tree_nodes.subtract_features``' rule) on each feature's value bins and missing
        bin. The cells between (bins ``n_bins[f] .. n_hist_bins - 2``) hold 0.0 in every
        histogram of the feature's codes; they are neither read nor written.
    n_bins : ndarray of shape (n_features,), intp
    min_leaf_weight : float
    best_gain, best_bin, best_missing_left : ndarray of shape (2, n_features)
        Output: row 0 the smaller child's features' best splits, row 1 the larger's.
    choice : ndarray of shape (2, 3), intp
        Output: each child's ``node_split.choose_split``.
    """
    n_features, n_hist_bins = small_hist.shape[0], small_hist.shape[1]
    missing = n_hist_bins - 1
    small = small_hist.reshape((n_features, -1))
    large = large_hist.reshape((n_features, -1))
    n_tasks = (n_features + _FEATURES_PER_TASK - 1) // _FEATURES_PER_TASK
    ask = small.size * 8 >= _ASK_BYTES  # a histogram past L2: the next feature's lines
    for task in prange(2 * n_tasks):
        child = task % 2
        first = (task // 2) * _FEATURES_PER_TASK
        stop = min(first + _FEATURES_PER_TASK, n_features)
        hist = small if child == 0 else large
        left_pos = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
        left_neg = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
        left_mass = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
        gain_left = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
        gain_right = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
        candidate_bin = np.empty(n_hist_bins, dtype=np.intp)
        for feature in range(first, stop):
            if ask and feature + 1 < n_features:  # its lines, while this one runs
                if child == 1:
                    _ask_cells(large[feature + 1], n_bins[feature + 1], missing)
                _ask_cells(small[feature + 1], n_bins[feature + 1], missing)
            if child == 1:  # the larger child: the parent's cells less the smaller's
                _subtract_cells(large[feature], small[feature], np.intp(0),
                                2 * n_bins[feature])
                _subtract_cells(large[feature], small[feature], 2 * missing, 2 * missing + 2)
            best_gain[child, feature], best_bin[child, feature], \
                best_missing_left[child, feature] = _scan_one_label(
                    hist[feature], n_bins[feature], missing, min_leaf_weight,
                    left_pos, left_neg, left_mass, gain_left, gain_right, candidate_bin)
    choose_split(small_hist, n_bins, best_gain[0], best_bin[0], best_missing_left[0],
                 choice[0])
    choose_split(large_hist, n_bins, best_gain[1], best_bin[1], best_missing_left[1],
                 choice[1])


def label_children_splits_naive(small_hist, large_hist, n_bins, mode, min_leaf_weight):
    """Twin of ``label_children_splits``: ``node_split.children_splits_naive`` (the
    subtraction, then every label's scalar scan), which it must match bit for bit."""
    return children_splits_naive(small_hist, large_hist, n_bins, mode, min_leaf_weight)
