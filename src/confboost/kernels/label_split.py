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

#: Features a task of ``label_children_splits`` subtracts and scans with one work space,
#: on several threads (on one, a task takes all of a child's).
_FEATURES_PER_TASK = 8

#: Histogram cells (float64) in a 64-byte cache line: the step of ``_label_features``' hints.
_CELLS_PER_LINE = 8

#: Bytes of a histogram from which ``label_children_splits`` asks for the next feature's
#: cells: one that fits a core's L2 (1 MiB here; binary 200k x 50's is 200 kB) is mostly
#: there when the split comes, and the hints would only cost their instructions.
_ASK_BYTES = 1 << 20


@njit(cache=True, nogil=True, error_model="numpy")
def _label_features(small, large, child, first, stop, n_bins, min_leaf_weight, ask,
                    best_gain, best_bin, best_missing_left):
    """Each feature's best split (gain, bin, missing_left), or (-inf, -1, True), of features
    ``first:stop`` of one child into the outputs: the smaller's (``child`` 0) from
    ``small``, the larger's (1) from ``large``, each feature made first, the parent's cells
    less the smaller's, by ``tree_nodes.subtract_features``' rule (a difference within
    1e-13 of the parent's cell is 0.0, so rounding leaves no mass in an empty bin). With
    ``ask``, the next feature's lines are asked for first (``kernels/prefetch.py``).

    ``small``, ``large``: flat histograms, shape (n_features, 2 n_hist_bins), W+ and W- of
    bin b at 2b and 2b + 1, the missing bin last. The features are a loop here, with no call
    and no view each: a call takes a reference on each array it is given (an atomic add and
    its release), and with a dozen a feature those were 9% of a default fashion-mnist
    round. The work space is a bin each, allocated once a call: the left child's running
    sums, each candidate's gain with missing values left and right, its bin.
    """
    n_hist_bins = small.shape[1] // 2
    missing = n_hist_bins - 1
    n_features = small.shape[0]
    left_pos = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
    left_neg = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
    left_mass = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
    gain_left = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
    gain_right = np.empty(n_hist_bins, dtype=WEIGHT_DTYPE)
    candidate_bin = np.empty(n_hist_bins, dtype=np.intp)
    small_cells = small.reshape(-1)
    large_cells = large.reshape(-1)
    hist = small if child == 0 else large
    for feature in range(first, stop):
        n_value_bins = n_bins[feature]
        if ask and feature + 1 < n_features:  # its lines, while this one runs
            row = np.uintp(feature + 1) * np.uintp(2 * n_hist_bins)
            for cell in range(0, 2 * n_bins[feature + 1], _CELLS_PER_LINE):
                if child == 1:
                    prefetch.read(large_cells, row + np.uintp(cell))
                prefetch.read(small_cells, row + np.uintp(cell))
            if child == 1:
                prefetch.read(large_cells, row + np.uintp(2 * missing))
            prefetch.read(small_cells, row + np.uintp(2 * missing))
        if child == 1:  # the larger child: the parent's cells less the smaller's
            for cell in range(2 * n_value_bins):
                whole = large[feature, cell]
                difference = whole - small[feature, cell]
                large[feature, cell] = difference if difference > 1e-13 * whole else 0.0
            for cell in range(2 * missing, 2 * missing + 2):
                whole = large[feature, cell]
                difference = whole - small[feature, cell]
                large[feature, cell] = difference if difference > 1e-13 * whole else 0.0
        n_candidates = 0
        for b in range(n_value_bins):
            candidate_bin[n_candidates] = b
            n_candidates += ((b == 0) | (hist[feature, 2 * b] != 0.0)
                             | (hist[feature, 2 * b + 1] != 0.0))
        pos_sum = 0.0
        neg_sum = 0.0
        mass_sum = 0.0
        for c in range(n_candidates):  # an empty bin would add 0.0 to each sum: no change
            b = candidate_bin[c]
            cell_pos = hist[feature, 2 * b]
            cell_neg = hist[feature, 2 * b + 1]
            pos_sum += cell_pos
            neg_sum += cell_neg
            mass_sum += cell_pos + cell_neg
            left_pos[c] = pos_sum
            left_neg[c] = neg_sum
            left_mass[c] = mass_sum
        miss_pos = hist[feature, 2 * missing]
        miss_neg = hist[feature, 2 * missing + 1]
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
                gain_left[c] = (node_score
                                - 2.0 * np.sqrt((pos + miss_pos) * (neg + miss_neg))
                                - score_right)
                gain_right[c] = node_score - score_left - 2.0 * np.sqrt(
                    (right_pos + miss_pos) * (right_neg + miss_neg))
        else:  # both sides of the missing values are the same split
            for c in range(n_candidates):
                pos, neg = left_pos[c], left_neg[c]
                gain_left[c] = node_score - 2.0 * np.sqrt(pos * neg) - 2.0 * np.sqrt(
                    max(pos_sum - pos, 0.0) * max(neg_sum - neg, 0.0))
        feature_gain, feature_bin, feature_missing_left = -np.inf, -1, True
        for c in range(n_candidates):  # a child's least mass is tested only for a better gain
            if gain_left[c] > feature_gain:
                mass = left_mass[c]
                right_mass = max(value_mass - mass, 0.0)
                if mass + missing_mass >= least_mass and right_mass >= least_mass:
                    feature_gain, feature_bin, feature_missing_left = (
                        gain_left[c], candidate_bin[c], True)
            if with_missing and gain_right[c] > feature_gain:
                mass = left_mass[c]
                right_mass = max(value_mass - mass, 0.0)
                if mass >= least_mass and right_mass + missing_mass >= least_mass:
                    feature_gain, feature_bin, feature_missing_left = (
                        gain_right[c], candidate_bin[c], False)
        best_gain[feature] = feature_gain
        best_bin[feature] = feature_bin
        best_missing_left[feature] = feature_missing_left


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def label_children_splits(small_hist, large_hist, n_bins, min_leaf_weight, best_gain,
                          best_bin, best_missing_left, choice, threads, n_children):
    """Both children's best split per feature after a split, on one label column, real
    confidences: ``node_split.children_splits`` for k = 1, the same outputs to the bit
    (with ``n_children`` 1, ``small_hist``'s node alone: a tree's root).

    A task (``_label_features``) takes all of one child's features on one thread,
    ``_FEATURES_PER_TASK`` on several.

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
    threads : int
        The calling thread's kernel threads (``utils.threads.kernel_threads``); it sets only
        the tasks.
    n_children : int
        2: both children; 1: ``small_hist``'s node only, into row 0 of the outputs
        (``large_hist`` is neither read nor written; row 1 is left as it was).
    """
    n_features = small_hist.shape[0]
    small = small_hist.reshape((n_features, -1))
    large = large_hist.reshape((n_features, -1))
    per_task = n_features if threads <= 1 else _FEATURES_PER_TASK
    n_tasks = (n_features + per_task - 1) // per_task
    ask = small.size * 8 >= _ASK_BYTES  # a histogram past L2: the next feature's lines
    for task in prange(n_children * n_tasks):
        child = task % n_children
        first = (task // n_children) * per_task
        _label_features(small, large, child, first, min(first + per_task, n_features), n_bins,
                        min_leaf_weight, ask, best_gain[child], best_bin[child],
                        best_missing_left[child])
    choose_split(small_hist, n_bins, best_gain[0], best_bin[0], best_missing_left[0],
                 choice[0])
    if n_children == 2:
        choose_split(large_hist, n_bins, best_gain[1], best_bin[1], best_missing_left[1],
                     choice[1])


def label_children_splits_naive(small_hist, large_hist, n_bins, mode, min_leaf_weight):
    """Twin of ``label_children_splits``: ``node_split.children_splits_naive`` (the
    subtraction, then every label's scalar scan), which it must match bit for bit."""
    return children_splits_naive(small_hist, large_hist, n_bins, mode, min_leaf_weight)
