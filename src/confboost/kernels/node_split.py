"""A tree node's best threshold split per feature: the drop in Z of every bin threshold.

From a node's histogram of W+ and W- per (feature, bin, column) (``kernels/histogram.py``),
each feature's thresholds are scanned by a running sum over the bins, and each split scored
by the node's score minus its children's, with the score of the confidence mode (paper §4.1,
Eq. 10 and 16; §3.1 and Eq. 14 for ±1 hypotheses; ``kernels/criterion_numba.node_score``):

- real: s = Σ_l 2 sqrt(W+[l] W-[l]), and the tree's Z = Σ_leaves s          (Eq. 10, 16)
- discrete: s = -Σ_l |W+[l] - W-[l]|, and the tree's Z = sqrt(T² - r²) with
  r = -Σ_leaves s; Z falls as r grows, so the largest r gain is the largest Z drop.

A missing value goes to the side of the split that gives the larger gain (left on ties). A
bin with no mass repeats the previous threshold's split, which wins the tie, so only bin 0
and the bins with mass are candidates.

Real confidences take two square roots per (candidate, label), four with missing values:
``_scan_real`` lists a feature's candidates (a block of them when they pass
``_SIDE_BYTES``), lays out their left child's running W+ and W- side by side, label-major
(a label at a time; the running sums after the last bin are then the value bins' totals,
the same additions in the same order as a pass of their own), and for each label scores
every candidate's children in one loop vectorised across the candidates (their count
padded to ``_CHUNK``), adding each score to its candidate's sum (in label order). The
children's masses, which only decide whether a child is heavy enough, are summed in that
loop too, in another order, and a test their rounding could decide goes to the scalar
loop's sum. Bins are read from the histogram flat, by unsigned index. ±1 confidences,
whose score is one subtraction, and features of few bins and labels (``_SCAN_MIN_CELLS``)
keep one scalar loop per (bin, label), which the vector loops' bookkeeping would slow down
(birds-like count features of 5 values: 2x the round). Both give each gain to the bit.

After a split the grower makes one call (``children_splits``): the larger child's histogram
(parent minus smaller child), both children's searches and choices (``choose_split``), in
one parallel region; the root's, with one child (a second parallel kernel compiled the
helpers again: 1.9 s more on an empty cache). ``best_node_splits`` (serial) is its reference.
"""

import numpy as np

from confboost.kernels.criterion_numba import node_score as _score
from confboost.kernels.criterion_numpy import node_score as node_score_naive
from confboost.kernels.tree_nodes import subtract_features, subtract_sibling
from confboost.utils.dtypes import MISSING_BIN, REAL, REAL_ABSTAIN, WEIGHT_DTYPE
from confboost.utils.lazy_numba import njit, prange

#: Features ``_scan_real`` scans (real confidences): those of at least ``_SCAN_FEW_BINS``
#: value bins whose bins hold at least ``_SCAN_MIN_CELLS`` (bin, label) cells. The scalar
#: loop is as fast or faster on the others: the vector scan took 1.3x its time on 5 bins x
#: 19 labels and on 16 bins x 1 label, 0.73x on 16 x 6, 0.5x on 16 x 19.
_SCAN_FEW_BINS = 8
_SCAN_MIN_CELLS = 64

#: Bytes of the left child's running W+ and W- that ``_scan_real`` lays out at once: a
#: feature's candidates go in blocks of ``_SIDE_BYTES // (16 k)``, at least ``_MIN_BLOCK``;
#: past the L1/L2 cache the layout costs more than it saves (255 bins in one block: 0.66x
#: the time of blocks of 32 at 6 labels, 1.4x at 26, 2.3x at 101).
_MIN_BLOCK = 32
_SIDE_BYTES = 1 << 16

#: Features a task of ``children_splits`` scans with one work space on several threads (an
#: allocation per feature cost a third of a small node's search).
_SPLIT_FEATURES = 4

#: Bytes of histogram (256 KiB) ``children_splits`` subtracts, then scans, at once in a task,
#: so the cells are scanned in cache (a whole task took fashion-mnist's tree round, 41 kB a
#: feature, 1.07-1.1x the time of blocks of four).
_BLOCK_BYTES = 1 << 18

#: Cells of a bin (2 k) up to which ``_scan_real`` tests all of a bin's cells for mass
#: without a branch; above, label 0's two cells first, the rest only where those hold none.
#: On a small node empty and full bins alternate: the branch's misses cost satimage's round
#: (6 labels) 4% more than the whole test.
_WHOLE_TEST_CELLS = 16

#: ``_scan_real`` scores a block's candidates in a count rounded up to a multiple of this
#: (the last one repeated): LLVM's vector loop of 8 doubles covers them, no remainder.
_CHUNK = 8


@njit(cache=True, nogil=True)
def best_node_splits(hist, n_bins, mode, min_leaf_weight, best_gain, best_bin,
                     best_missing_left):
    """Each feature's split of a node with the largest drop in Z (module docstring), in one
    serial call: ``children_splits``' reference. Both children must hold a mass above
    ``1e-12`` of the node's and at least ``min_leaf_weight``.

    Parameters
    ----------
    hist : ndarray of shape (n_features, n_hist_bins, k, 2)
        The node's histogram; its last bin is the missing one (``MISSING_BIN`` with 256
        bins; ``learners/tree.compact_codes`` makes fewer).
    n_bins : ndarray of shape (n_features,), intp
        Value bins per feature.
    mode : int
        Confidence mode code.
    min_leaf_weight : float
        Least mass (Σ over columns of W+ + W-) of a child.
    best_gain : ndarray of shape (n_features,), float64
        Output: score(node) - score(left) - score(right) of the best split (-inf if none).
    best_bin : ndarray of shape (n_features,), intp
        Output: its bin threshold (first one on ties).
    best_missing_left : ndarray of shape (n_features,), bool
        Output: whether its missing values go left.
    """
    _split_features(hist, n_bins, mode, min_leaf_weight, 0, hist.shape[0], best_gain,
                    best_bin, best_missing_left)


@njit(cache=True, parallel=True, nogil=True)
def children_splits(small_hist, large_hist, n_bins, mode, min_leaf_weight, best_gain, best_bin,
                    best_missing_left, choice, threads, n_children):
    """Both children's ``best_node_splits`` after a split, in one parallel region (with
    ``n_children`` 1, the search of ``small_hist``'s node alone: a tree's root).

    ``large_hist`` holds the parent's histogram and becomes the larger child's, parent minus
    smaller child by ``subtract_sibling``'s rule; then each child's features are scanned as
    ``best_node_splits`` scans them. A task takes all of one child's features on one thread,
    ``_SPLIT_FEATURES`` on several (for the larger child it subtracts them a block of
    ``_BLOCK_BYTES`` at a time, each block scanned while in cache): one fork and join per
    split of the tree where subtracting and two searches took three, and the same numbers
    to the bit (``children_splits_naive``). Then each child's best feature is picked
    (``choose_split``).

    Parameters
    ----------
    small_hist : ndarray of shape (n_features, n_hist_bins, k, 2), float64, C-contiguous
        The smaller child's histogram, built from its rows.
    large_hist : ndarray of the same shape
        The parent's histogram; overwritten with the larger child's.
    n_bins : ndarray of shape (n_features,), intp
    mode : int
    min_leaf_weight : float
    best_gain : ndarray of shape (2, n_features), float64
        Output: row 0 the smaller child's ``best_node_splits`` gains, row 1 the larger's.
    best_bin : ndarray of shape (2, n_features), intp
        Output, as ``best_gain``.
    best_missing_left : ndarray of shape (2, n_features), bool
        Output, as ``best_gain``.
    choice : ndarray of shape (2, 3), intp
        Output: each child's ``choose_split``.
    threads : int
        The calling thread's kernel threads (``utils.threads.kernel_threads``); it sets only
        the tasks: one a child on one thread (each pays for its work space and arrays: tasks
        of four took 5% more of a satimage round), small ones to share on several.
    n_children : int
        2: both children, as above; 1: ``small_hist``'s node only, into row 0 of the
        outputs (``large_hist`` is neither read nor written; row 1 is left as it was).
    """
    n_features = small_hist.shape[0]
    small = small_hist.reshape((n_features, -1))
    large = large_hist.reshape((n_features, -1))
    per_task = n_features if threads <= 1 else _SPLIT_FEATURES
    n_tasks = (n_features + per_task - 1) // per_task
    block = max(_SPLIT_FEATURES, _BLOCK_BYTES // (small.shape[1] * 8))
    for task in prange(n_children * n_tasks):
        child = task % n_children
        first = (task // n_children) * per_task
        stop = min(first + per_task, n_features)
        hist = small_hist if child == 0 else large_hist
        for block_first in range(first, stop, block):
            block_stop = min(block_first + block, stop)
            if child == 1:
                subtract_features(large, small, block_first, block_stop)
            _split_features(hist, n_bins, mode, min_leaf_weight, block_first, block_stop,
                            best_gain[child], best_bin[child], best_missing_left[child])
    choose_split(small_hist, n_bins, best_gain[0], best_bin[0], best_missing_left[0],
                 choice[0])
    if n_children == 2:
        choose_split(large_hist, n_bins, best_gain[1], best_bin[1], best_missing_left[1],
                     choice[1])


#: Relative gap below which ``choose_split`` leaves the side of an unseen missing value
#: undecided: above the rounding of two sums of non-negative cells in any order (at most
#: n 2^-53 of each for n cells: under 1e-9 of their total up to 2^22 cells, 8,000 labels),
#: so a side it decides is the one NumPy's sums decide.
_SIDE_GAP = 1e-9


@njit(cache=True, nogil=True)
def choose_split(hist, n_bins, best_gain, best_bin, best_missing_left, choice):
    """A node's threshold split from its features' best splits: the feature of largest
    gain (the first on equal gains, a NaN first, as ``np.argmax``), and its missing side.

    A node that saw no missing value on that feature sends it to the child of larger
    training weight: left iff the value bins up to the threshold hold at least the mass of
    the rest, as ``learners/splitter.numeric_split`` compares NumPy's two sums. The sums
    here are plain loops; where they differ by less than ``_SIDE_GAP`` of their total, only
    NumPy's can say, and the choice is left undecided.

    Parameters
    ----------
    hist : ndarray of shape (n_features, n_hist_bins, k, 2)
    n_bins : ndarray of shape (n_features,), intp
    best_gain, best_bin, best_missing_left : ndarray of shape (n_features,)
        Each feature's best split (``best_node_splits``).
    choice : ndarray of shape (3,), intp
        Output: the feature (-1 when no gain is above 0), its missing side (1 left, 0
        right), and 1 where that side is undecided, else 0.
    """
    feature = 0
    for f in range(1, best_gain.shape[0]):
        if best_gain[feature] != best_gain[feature]:
            break
        if best_gain[f] > best_gain[feature] or best_gain[f] != best_gain[f]:
            feature = f
    choice[2] = 0
    if not best_gain[feature] > 0.0:
        choice[0], choice[1] = -1, 0
        return
    choice[0] = feature
    choice[1] = 1 if best_missing_left[feature] else 0
    feature_hist = hist[feature]
    missing_bin = feature_hist.shape[0] - 1
    for l in range(feature_hist.shape[1]):
        if feature_hist[missing_bin, l, 0] != 0.0 or feature_hist[missing_bin, l, 1] != 0.0:
            return
    left, right = 0.0, 0.0
    for b in range(n_bins[feature]):
        for l in range(feature_hist.shape[1]):
            mass = feature_hist[b, l, 0] + feature_hist[b, l, 1]
            if b <= best_bin[feature]:
                left += mass
            else:
                right += mass
    if abs(left - right) <= _SIDE_GAP * (left + right):
        choice[2] = 1
    else:
        choice[1] = 1 if left >= right else 0


def unseen_missing_left(hist, n_bins, feature, threshold_bin):
    """The side of a missing value the node never saw on ``feature``: left iff NumPy's sum
    of the value bins up to ``threshold_bin`` is at least that of the rest."""
    return bool(hist[feature, : threshold_bin + 1].sum()
                >= hist[feature, threshold_bin + 1: n_bins[feature]].sum())


def choose_split_naive(hist, n_bins, best_gain, best_bin, best_missing_left):
    """Twin of ``choose_split`` by ``np.argmax`` and NumPy's sums: (feature, missing
    left), or None when no gain is above 0."""
    feature = int(np.argmax(best_gain))
    if not best_gain[feature] > 0.0:
        return None
    if hist[feature, -1].any():
        return feature, bool(best_missing_left[feature])
    return feature, unseen_missing_left(hist, n_bins, feature, int(best_bin[feature]))


def children_splits_naive(small_hist, large_hist, n_bins, mode, min_leaf_weight):
    """Twin of ``children_splits``: ``subtract_sibling``, then ``best_node_splits`` of each
    child; returns (gain, bin, missing_left), each of shape (2, n_features) (the choice is
    ``choose_split_naive``'s)."""
    n_features = small_hist.shape[0]
    gain = np.empty((2, n_features), dtype=np.float64)
    split_bin = np.empty((2, n_features), dtype=np.intp)
    missing_left = np.empty((2, n_features), dtype=bool)
    subtract_sibling(large_hist, small_hist)
    for child, hist in enumerate((small_hist, large_hist)):
        best_node_splits(hist, n_bins, mode, min_leaf_weight, gain[child], split_bin[child],
                         missing_left[child])
    return gain, split_bin, missing_left


@njit(cache=True, nogil=True)
def _split_features(hist, n_bins, mode, min_leaf_weight, first, stop, best_gain, best_bin,
                    best_missing_left):
    """``best_node_splits`` of the features ``first:stop``, with one work space: those
    ``_scan_real`` takes in one call, the rest a scalar loop per (bin, label)."""
    k = hist.shape[2]
    n_hist_bins = hist.shape[1]
    real = mode == REAL or mode == REAL_ABSTAIN
    all_pos = np.empty(k, dtype=WEIGHT_DTYPE)
    all_neg = np.empty(k, dtype=WEIGHT_DTYPE)
    left_pos = np.empty(k, dtype=WEIGHT_DTYPE)
    left_neg = np.empty(k, dtype=WEIGHT_DTYPE)
    if real:
        _scan_real(hist, n_bins, min_leaf_weight, first, stop, all_pos, all_neg, left_pos,
                   left_neg, best_gain, best_bin, best_missing_left)
    for feature in range(first, stop):
        n_value_bins = n_bins[feature]
        if real and _scanned(n_value_bins, k):
            continue
        _value_totals(hist, feature, n_value_bins, all_pos, all_neg)
        node_score, missing_mass, value_mass, least_mass = _node_terms(
            hist, feature, all_pos, all_neg, mode, min_leaf_weight)
        missing_bin = n_hist_bins - 1
        left_pos[:] = 0.0
        left_neg[:] = 0.0
        feature_gain = -np.inf
        feature_bin = -1
        feature_missing_left = True
        left_mass = 0.0
        for b in range(n_bins[feature]):
            if b > 0:  # an empty bin repeats the previous split, which wins the tie
                bin_mass = 0.0
                for l in range(k):
                    bin_mass += hist[feature, b, l, 0] + hist[feature, b, l, 1]
                if bin_mass == 0.0:
                    continue
            score_left_miss = 0.0  # missing values left: left and right scores
            score_right = 0.0
            score_left = 0.0  # missing values right
            score_right_miss = 0.0
            for l in range(k):
                left_pos[l] += hist[feature, b, l, 0]
                left_neg[l] += hist[feature, b, l, 1]
                left_mass += hist[feature, b, l, 0] + hist[feature, b, l, 1]
                right_pos = max(all_pos[l] - left_pos[l], 0.0)
                right_neg = max(all_neg[l] - left_neg[l], 0.0)
                score_right += _score(right_pos, right_neg, mode)
                score_left += _score(left_pos[l], left_neg[l], mode)
                if missing_mass > 0.0:
                    miss_pos = hist[feature, missing_bin, l, 0]
                    miss_neg = hist[feature, missing_bin, l, 1]
                    score_left_miss += _score(left_pos[l] + miss_pos, left_neg[l] + miss_neg,
                                              mode)
                    score_right_miss += _score(right_pos + miss_pos, right_neg + miss_neg, mode)
            if missing_mass == 0.0:  # both directions are the same split
                score_left_miss = score_left
                score_right_miss = score_right
            right_mass = max(value_mass - left_mass, 0.0)
            if left_mass + missing_mass >= least_mass and right_mass >= least_mass:
                gain = node_score - score_left_miss - score_right
                if gain > feature_gain:
                    feature_gain = gain
                    feature_bin = b
                    feature_missing_left = True
            if left_mass >= least_mass and right_mass + missing_mass >= least_mass:
                gain = node_score - score_left - score_right_miss
                if gain > feature_gain:
                    feature_gain = gain
                    feature_bin = b
                    feature_missing_left = False
        best_gain[feature] = feature_gain
        best_bin[feature] = feature_bin
        best_missing_left[feature] = feature_missing_left


@njit(cache=True, nogil=True, inline="always")
def _value_totals(hist, feature, n_value_bins, all_pos, all_neg):
    """A feature's W+ and W- per label over its value bins (``value_totals``), each summed
    in bin order from 0.0."""
    all_pos[:] = 0.0
    all_neg[:] = 0.0
    for b in range(n_value_bins):
        for l in range(hist.shape[2]):
            all_pos[l] += hist[feature, b, l, 0]
            all_neg[l] += hist[feature, b, l, 1]


@njit(cache=True, nogil=True, inline="always")
def _node_terms(hist, feature, all_pos, all_neg, mode, min_leaf_weight):
    """A feature's node score (its value bins' totals ``all_pos``, ``all_neg`` and its
    missing bin), missing mass, value mass and least child mass, each summed in label
    order."""
    missing_bin = hist.shape[1] - 1
    node_score = 0.0
    missing_mass = 0.0
    value_mass = 0.0
    for l in range(hist.shape[2]):
        miss_pos = hist[feature, missing_bin, l, 0]
        miss_neg = hist[feature, missing_bin, l, 1]
        node_score += _score(all_pos[l] + miss_pos, all_neg[l] + miss_neg, mode)
        missing_mass += miss_pos + miss_neg
        value_mass += all_pos[l] + all_neg[l]
    least_mass = max(min_leaf_weight, 1e-12 * (value_mass + missing_mass))
    return node_score, missing_mass, value_mass, least_mass


@njit(cache=True, nogil=True, inline="always")
def _scanned(n_value_bins, k):
    """Whether ``_scan_real`` scans a feature of ``n_value_bins`` value bins and ``k``
    labels (``_SCAN_FEW_BINS``, ``_SCAN_MIN_CELLS``)."""
    return n_value_bins >= _SCAN_FEW_BINS and n_value_bins * k >= _SCAN_MIN_CELLS


@njit(cache=True, nogil=True)
def _scan_real(hist, n_bins, min_leaf_weight, first, stop, all_pos, all_neg, left_pos,
               left_neg, best_gain, best_bin, best_missing_left):
    """Each feature's best split, as the scalar loop of ``_split_features`` finds it to the
    bit (module docstring; real confidences only), for the features of ``first:stop`` that
    ``_scanned`` takes: (gain, bin, missing_left) into the outputs, or (-inf, -1, True).

    A block's candidates (bin 0 and the bins with mass; every candidate of the feature when
    they fit ``candidate_bin``) are listed first (``_WHOLE_TEST_CELLS``): a bin of no mass
    (every cell ±0.0: the masses are >= 0) adds 0.0 to every running sum and repeats the
    previous split. Then, a
    label at a time, its running W+ and W- over the candidates are laid out side by side
    (the same additions, in the same order, as the scalar loop's). For each label one loop
    vectorised across the candidates scores both children (and both with the missing bin)
    and adds each score to its candidate's sum, in label order from 0.0; the same loop sums
    each candidate's left mass in another order than the scalar loop. That mass is only
    compared with the least child mass, and it lies within ``slack`` of the scalar loop's
    (``_mass_checks``); a comparison the bound cannot decide takes the scalar loop's sum
    (``_left_mass``). The value bins' totals the right child needs are, for one block, its
    running sums after the last bin, and for several a pass of their own first.

    The features are a loop here, not a call each: a call or an inlined helper takes a
    reference on each array it is given (an atomic add and its release: with a dozen arrays
    a feature, 8% of a satimage round). Work space: ``all_pos``, ``all_neg``, ``left_pos``,
    ``left_neg`` (k,), the caller's; ``side_pos``, ``side_neg`` (k, padded block); ``sums``
    (5, padded block): each candidate's score sums (left, right with missing values right;
    left, right with them left), then its mass checks; ``candidate_mass`` (padded block,),
    ``candidate_bin`` (block,).
    """
    k = hist.shape[2]
    n_hist_bins = hist.shape[1]
    block = min(n_hist_bins, max(_MIN_BLOCK, _SIDE_BYTES // (16 * k)))
    padded = (block + _CHUNK - 1) // _CHUNK * _CHUNK
    side_pos = np.empty((k, padded), dtype=WEIGHT_DTYPE)
    side_neg = np.empty((k, padded), dtype=WEIGHT_DTYPE)
    sums = np.empty((5, padded), dtype=WEIGHT_DTYPE)
    candidate_mass = np.empty(padded, dtype=WEIGHT_DTYPE)
    candidate_bin = np.empty(block, dtype=np.intp)
    cells = hist.reshape(-1)
    bits = cells.view(np.uint64)
    width = np.uintp(2 * k)
    missing_bin = n_hist_bins - 1
    for feature in range(first, stop):
        n_value_bins = n_bins[feature]
        if not _scanned(n_value_bins, k):
            continue
        first_cell = np.uintp(feature) * np.uintp(n_hist_bins) * width
        one_block = n_value_bins <= block
        node_score, missing_mass, value_mass, least_mass = 0.0, 0.0, 0.0, 0.0
        if not one_block:
            _value_totals(hist, feature, n_value_bins, all_pos, all_neg)
            node_score, missing_mass, value_mass, least_mass = _node_terms(
                hist, feature, all_pos, all_neg, REAL, min_leaf_weight)
        left_pos[:] = 0.0
        left_neg[:] = 0.0
        feature_gain, feature_missing_left, feature_bin = -np.inf, True, -1
        # both left masses round sums of at most k (n_value_bins + 2) non-negative terms:
        # each is within that many units in the last place (2^-53) of the exact sum, so of
        # each other
        slack = 8.0 * k * (n_value_bins + 2) * 2.0**-53
        b = 0
        while b < n_value_bins:
            n_candidates = 0
            while b < n_value_bins and n_candidates < block:
                base = first_cell + np.uintp(b) * width
                nonzero = bits[base] | bits[base + np.uintp(1)]
                if width <= _WHOLE_TEST_CELLS or nonzero << np.uint64(1) == 0:
                    for cell in range(width):
                        nonzero |= bits[base + cell]
                # each bin takes the next slot and keeps it if a cell is other than +-0.0
                candidate_bin[n_candidates] = b
                n_candidates += (nonzero << np.uint64(1) != 0) | (b == 0)
                b += 1
            n_padded = (n_candidates + _CHUNK - 1) // _CHUNK * _CHUNK
            for l in range(k):
                running_pos, running_neg = left_pos[l], left_neg[l]
                pos, neg = side_pos[l], side_neg[l]
                offset = first_cell + np.uintp(2 * l)
                for c in range(n_candidates):
                    at = np.uintp(candidate_bin[c]) * width + offset
                    running_pos += cells[at]
                    running_neg += cells[at + np.uintp(1)]
                    pos[c] = running_pos
                    neg[c] = running_neg
                for c in range(n_candidates, n_padded):
                    pos[c] = running_pos
                    neg[c] = running_neg
                left_pos[l], left_neg[l] = running_pos, running_neg
            if one_block:  # by element: an array copied into a slice compiles numba's error
                for l in range(k):
                    all_pos[l], all_neg[l] = left_pos[l], left_neg[l]
                node_score, missing_mass, value_mass, least_mass = _node_terms(
                    hist, feature, all_pos, all_neg, REAL, min_leaf_weight)
            with_missing = missing_mass > 0.0
            sums[:, :n_padded] = 0.0
            candidate_mass[:n_padded] = 0.0
            sum_left, sum_right, sum_left_miss, sum_right_miss = (sums[0], sums[1], sums[2],
                                                                  sums[3])
            for l in range(k):
                total_pos, total_neg = all_pos[l], all_neg[l]
                pos, neg = side_pos[l], side_neg[l]
                for c in range(n_padded):
                    candidate_mass[c] += pos[c] + neg[c]
                    sum_left[c] += _score(pos[c], neg[c], REAL)
                    sum_right[c] += _score(max(total_pos - pos[c], 0.0),
                                           max(total_neg - neg[c], 0.0), REAL)
                if with_missing:
                    miss_pos = hist[feature, missing_bin, l, 0]
                    miss_neg = hist[feature, missing_bin, l, 1]
                    for c in range(n_padded):
                        sum_left_miss[c] += _score(pos[c] + miss_pos, neg[c] + miss_neg, REAL)
                        sum_right_miss[c] += _score(max(total_pos - pos[c], 0.0) + miss_pos,
                                                    max(total_neg - neg[c], 0.0) + miss_neg,
                                                    REAL)
            for c in range(n_padded):  # the sums' rows become gains and mass checks
                score_left = sums[0, c]  # missing values right
                score_right = sums[1, c]
                score_left_miss = score_left  # missing values left
                score_right_miss = score_right
                if with_missing:
                    score_left_miss = sums[2, c]
                    score_right_miss = sums[3, c]
                sums[0, c] = node_score - score_left_miss - score_right
                sums[1, c] = node_score - score_left - score_right_miss
                mass = candidate_mass[c]
                low = _mass_checks(mass * (1.0 - slack) - _TINY_MASS, missing_mass, value_mass,
                                   least_mass)
                high = _mass_checks(mass * (1.0 + slack) + _TINY_MASS, missing_mass,
                                    value_mass, least_mass)
                sums[4, c] = low if low == high else _UNDECIDED
            for c in range(n_candidates):
                checks = sums[4, c]
                if checks == _UNDECIDED:
                    checks = _mass_checks(_left_mass(cells, first_cell, width, candidate_bin[c]),
                                          missing_mass, value_mass, least_mass)
                gain_left, gain_right = sums[0, c], sums[1, c]
                code = int(checks)
                if code & 3 == 3 and gain_left > feature_gain:
                    feature_gain, feature_bin, feature_missing_left = (
                        gain_left, candidate_bin[c], True)
                if code & 12 == 12 and gain_right > feature_gain:
                    feature_gain, feature_bin, feature_missing_left = (
                        gain_right, candidate_bin[c], False)
        best_gain[feature] = feature_gain
        best_bin[feature] = feature_bin
        best_missing_left[feature] = feature_missing_left


#: ``_scan_real``'s mark of a candidate whose mass checks the bound cannot decide.
_UNDECIDED = -1.0

#: Below every mass the bound of ``_scan_real`` is relative to: subnormal sums round by
#: at most 2^-1074 an addition.
_TINY_MASS = 1e-300


@njit(cache=True, nogil=True, inline="always")
def _mass_checks(mass, missing_mass, value_mass, least_mass):
    """The scalar loop's four tests of a candidate of left mass ``mass``, as a sum of
    flags: 1 left + missing and 2 right are heavy enough (missing values left), 4 left and
    8 right + missing (missing values right). Tests 1 and 4 never turn false as ``mass``
    grows, 2 and 8 never turn true (rounding is monotone), so where a mass's bounds give
    the same flags, so does every mass between them."""
    right_mass = max(value_mass - mass, 0.0)
    checks = 0.0
    if mass + missing_mass >= least_mass:
        checks += 1.0
    if right_mass >= least_mass:
        checks += 2.0
    if mass >= least_mass:
        checks += 4.0
    if right_mass + missing_mass >= least_mass:
        checks += 8.0
    return checks


@njit(cache=True, nogil=True)
def _left_mass(cells, first_cell, width, last_bin):
    """The left mass of the split at ``last_bin`` as the scalar loop sums it: W+ + W- of
    each label, bin by bin in label order, from 0.0 (an empty bin adds 0.0); the feature's
    bins start at ``cells[first_cell]``."""
    mass = 0.0
    for b in range(last_bin + 1):
        base = first_cell + np.uintp(b) * width
        for cell in range(0, width, 2):
            mass += cells[base + np.uintp(cell)] + cells[base + np.uintp(cell + 1)]
    return mass


def best_node_splits_naive(codes, rows, pos, neg, n_bins, mode, min_leaf_weight):
    """Twin of ``best_node_splits`` by brute force over the examples of the node.

    Returns
    -------
    best_gain : ndarray of shape (n_features,)
    best_bin : ndarray of shape (n_features,)
    best_missing_left : ndarray of shape (n_features,), bool
    """
    n_features = codes.shape[0]
    best_gain = np.full(n_features, -np.inf)
    best_bin = np.full(n_features, -1, dtype=np.intp)
    best_missing_left = np.ones(n_features, dtype=bool)
    node_score = node_score_naive(pos[rows].sum(axis=0), neg[rows].sum(axis=0), mode)
    node_mass = pos[rows].sum() + neg[rows].sum()
    least = max(min_leaf_weight, 1e-12 * node_mass)
    for feature in range(n_features):
        column = codes[feature, rows]
        for b in range(n_bins[feature]):
            for missing_left in (True, False):
                is_missing = column == MISSING_BIN
                goes_left = (column <= b) & ~is_missing
                if missing_left:
                    goes_left |= is_missing
                left, right = rows[goes_left], rows[~goes_left]
                if (pos[left].sum() + neg[left].sum() < least
                        or pos[right].sum() + neg[right].sum() < least):
                    continue
                gain = node_score - (
                    node_score_naive(pos[left].sum(axis=0), neg[left].sum(axis=0), mode)
                    + node_score_naive(pos[right].sum(axis=0), neg[right].sum(axis=0), mode))
                if gain > best_gain[feature]:
                    best_gain[feature] = gain
                    best_bin[feature] = b
                    best_missing_left[feature] = missing_left
    return best_gain, best_bin, best_missing_left
