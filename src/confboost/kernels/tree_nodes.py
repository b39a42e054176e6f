"""Kernels of the tree learners: node histograms, node split search, row partition, walk.

A tree is grown over a row index array ``rows`` in which every node owns a contiguous slice
``rows[start:stop]``. For a node the kernels here

- build its histogram of W+ and W- per (feature, bin, column) over its rows only, from
  two mass columns per example (``node_histogram``: the Hamming tree's agreeing and
  disagreeing masses; a label tree uses ``kernels/histogram.build_histogram_masses``); the
  larger child's histogram is the parent's minus the smaller child's (``subtract_sibling``;
  the grower's ``node_split.children_splits`` subtracts as it searches);
- find each feature's split of largest drop in Z (``kernels/node_split.children_splits``):
  the node's score minus its children's, with the score of the confidence mode (paper §4.1,
  Eq. 10 and 16; §3.1 and Eq. 14 for ±1 hypotheses):

  - real: s = Σ_l 2 sqrt(W+[l] W-[l]), and the tree's Z = Σ_leaves s          (Eq. 10, 16)
  - discrete: s = -Σ_l |W+[l] - W-[l]|, and the tree's Z = sqrt(T² - r²) with
    r = -Σ_leaves s; Z falls as r grows, so the largest r gain is the largest Z drop;

  a missing value goes to the side of the split that gives the larger gain;
- (a text column's term splits of a node are ``kernels/node_terms.py``'s, by the same
  gain);
- find a factorised stump's edge per feature (``best_factorized_splits``), which sets the
  vote vector of a Hamming tree (Kégl 2014);
- partition a node's rows into its two children (``partition_rows``), and give each
  example its leaf from the leaves' row ranges (``range_blocks``);
- walk a fitted tree's node arrays on raw feature values (``tree_blocks``);
- say which way an example goes at a node of each kind (``threshold_goes_left`` and
  ``code_goes_left``, ``value_goes_left``, ``term_goes_left``): the one rule that
  training, prediction and the distributed fit share.

The histograms take per-example masses ``pos`` and ``neg`` of shape (n_samples, k): the
regular tree passes ``W * [Y = +1]`` and ``W * [Y = -1]`` (k label columns), the Hamming
tree the agreeing and disagreeing mass of each example under its vote vector (one column).

Node arrays of a tree with ``n`` internal nodes (node 0 is the root): ``feature``,
``threshold`` (raw value, ``x <= threshold`` goes left), ``missing_left`` (1 if NaN goes
left), and ``left``, ``right``: a child ``c >= 0`` is an internal node, ``c < 0`` is leaf
``-c - 1``. A tree with no internal node is one leaf, 0.
"""

import numpy as np

from confboost.utils.dtypes import BLOCK_DTYPE, MISSING_BIN, WEIGHT_DTYPE
from confboost.utils.lazy_numba import njit, prange

# --- the go-left rule of each node kind ------------------------------------------------
# Training (the row partition), prediction (the walks) and the distributed fit (each
# shard's leaves) send an example left by these functions only, as scikit-learn's trees
# have one ``sample_goes_left``. Each is a numba function for the kernels; numpy code calls
# the same expression on whole arrays through its ``py_func`` (no compilation).


@njit(cache=True, nogil=True, inline="always")
def threshold_goes_left(x, threshold, missing_left):
    """A threshold node on a raw value: ``x <= threshold`` goes left; a missing value
    (NaN, for which ``x <= threshold`` is false) goes left iff ``missing_left``."""
    return (x <= threshold) | (missing_left & (x != x))


@njit(cache=True, nogil=True, inline="always")
def code_goes_left(code, threshold_bin, missing_left):
    """A threshold node on a bin code: ``code <= threshold_bin`` goes left; the missing bin
    (``MISSING_BIN``, above every value bin and so above ``threshold_bin``) goes left iff
    ``missing_left``. The node's raw threshold is the upper edge of bin ``threshold_bin``
    (``Dataset.raw_threshold``), so a value and its code go the same way."""
    return (code <= threshold_bin) | (missing_left & (code == MISSING_BIN))


@njit(cache=True, nogil=True, inline="always")
def value_goes_left(value_code, code):
    """A categorical value node: an example whose value has code ``code`` goes left; any
    other value and a missing value (code -1) go right. Prediction passes the block of the
    test ``x == v`` (``Frame.categorical_blocks``: 0 for v) with ``code`` 0."""
    return value_code == code


def term_goes_left(term_documents, rows, present):
    """A term node: the documents of ``rows`` that hold the term go left, the others (a
    missing text holds no term) right; shape (n_rows,), bool.

    Parameters
    ----------
    term_documents : ndarray of shape (n_postings,), integer
        The documents holding the term (its postings).
    rows : ndarray of shape (n_rows,), intp
    present : ndarray of shape (n_samples,), bool
        Work space, all False; left all False.
    """
    present[term_documents] = True
    left = present[rows]
    present[term_documents] = False
    return left


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def node_histogram(codes, rows, pos, neg, hist):
    """Fill ``hist`` with the W+ and W- of the given rows per (feature, bin, column).

    One task per feature, as in ``kernels/histogram.build_histogram``; the histogram is
    addressed flat with unsigned indices, ``(code * k + l) * 2 + sign``, so no negative-index
    test sits in the loop.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
        Binned features, feature-major.
    rows : ndarray of shape (n_rows,), intp
        The node's rows (any order).
    pos, neg : ndarray of shape (n_samples, k), float64, C-contiguous
        Positive and negative mass of each example and column.
    hist : ndarray of shape (n_features, 256, k, 2), float64, C-contiguous
        Output; overwritten. ``[..., 0]`` is W+, ``[..., 1]`` is W-.
    """
    n_features = codes.shape[0]
    k = pos.shape[1]
    width = np.uintp(2 * k)
    flat = hist.reshape((n_features, hist.shape[1] * 2 * k))
    for feature in prange(n_features):
        feature_hist = flat[feature]
        feature_hist[:] = 0.0
        feature_codes = codes[feature]
        for p in range(rows.shape[0]):
            i = rows[p]
            base = np.uintp(feature_codes[i]) * width
            pos_row = pos[i]
            neg_row = neg[i]
            for l in range(k):
                cell = base + np.uintp(2 * l)
                feature_hist[cell] += pos_row[l]
                feature_hist[cell + np.uintp(1)] += neg_row[l]


@njit(cache=True, parallel=True, nogil=True)
def subtract_sibling(parent_hist, sibling_hist):
    """Turn a parent's histogram into its larger child's: parent - sibling, in place.

    A difference within 1e-13 of the parent's cell is rounding, not mass: it is set to 0,
    so a child with no mass of a kind has exactly none (as its histogram built from its
    rows would), and no split is made on the square root of a rounding residue.

    Parameters
    ----------
    parent_hist : ndarray of shape (n_features, n_hist_bins, k, 2), float64, C-contiguous
        The parent's histogram (any number of bins); overwritten with the child's.
    sibling_hist : ndarray of the same shape
        The other child's (directly built) histogram.
    """
    n_features = parent_hist.shape[0]
    parent = parent_hist.reshape((n_features, -1))
    sibling = sibling_hist.reshape((n_features, -1))
    for feature in prange(n_features):
        subtract_features(parent, sibling, feature, feature + 1)


@njit(cache=True, nogil=True)
def subtract_features(parent, sibling, first, stop):
    """``subtract_sibling`` of the features ``first:stop`` (serial), on histograms flattened
    to shape (n_features, cells)."""
    for feature in range(first, stop):
        for cell in range(parent.shape[1]):
            whole = parent[feature, cell]
            difference = whole - sibling[feature, cell]
            parent[feature, cell] = difference if difference > 1e-13 * whole else 0.0


def node_histogram_naive(codes, rows, pos, neg):
    """Twin of ``node_histogram``: one masked sum per cell; returns the histogram."""
    n_features = codes.shape[0]
    k = pos.shape[1]
    hist = np.zeros((n_features, 256, k, 2), dtype=WEIGHT_DTYPE)
    for feature in range(n_features):
        node_codes = codes[feature, rows]
        for b in np.unique(node_codes):
            in_bin = rows[node_codes == b]
            hist[feature, b, :, 0] = pos[in_bin].sum(axis=0)
            hist[feature, b, :, 1] = neg[in_bin].sum(axis=0)
    return hist


@njit(cache=True, parallel=True, nogil=True)
def best_factorized_splits(hist, n_bins, best_edge, best_bin, best_missing_left):
    """Each feature's best factorised stump h(x, l) = v_l φ(x), φ = +1 left, -1 right.

    For the split with per-column margins d_side[l] = W+[side, l] - W-[side, l], the best
    vote is v_l = sign(d_left[l] - d_right[l]) and the edge is Σ_l |d_left[l] - d_right[l]|
    (Kégl 2014, the discrete AdaBoost.MH stump). A missing value goes to the side of the
    larger edge (left on ties).

    Parameters
    ----------
    hist : ndarray of shape (n_features, 256, k, 2)
    n_bins : ndarray of shape (n_features,), intp
    best_edge : ndarray of shape (n_features,), float64
        Output: the largest edge (-inf if the feature has no value bin).
    best_bin : ndarray of shape (n_features,), intp
        Output: its bin threshold (first one on ties).
    best_missing_left : ndarray of shape (n_features,), bool
        Output.
    """
    n_features = hist.shape[0]
    k = hist.shape[2]
    for feature in prange(n_features):
        all_margin = np.zeros(k, dtype=WEIGHT_DTYPE)
        for b in range(n_bins[feature]):
            for l in range(k):
                all_margin[l] += hist[feature, b, l, 0] - hist[feature, b, l, 1]
        left_margin = np.zeros(k, dtype=WEIGHT_DTYPE)
        feature_edge = -np.inf
        feature_bin = -1
        feature_missing_left = True
        for b in range(n_bins[feature]):
            edge_missing_left = 0.0
            edge_missing_right = 0.0
            for l in range(k):
                left_margin[l] += hist[feature, b, l, 0] - hist[feature, b, l, 1]
                right_margin = all_margin[l] - left_margin[l]
                missing = hist[feature, MISSING_BIN, l, 0] - hist[feature, MISSING_BIN, l, 1]
                edge_missing_left += abs(left_margin[l] + missing - right_margin)
                edge_missing_right += abs(left_margin[l] - right_margin - missing)
            if edge_missing_left > feature_edge:
                feature_edge = edge_missing_left
                feature_bin = b
                feature_missing_left = True
            if edge_missing_right > feature_edge:
                feature_edge = edge_missing_right
                feature_bin = b
                feature_missing_left = False
        best_edge[feature] = feature_edge
        best_bin[feature] = feature_bin
        best_missing_left[feature] = feature_missing_left


def best_factorized_splits_naive(codes, pos, neg, n_bins):
    """Twin of ``best_factorized_splits`` by brute force over the examples.

    Returns
    -------
    best_edge, best_bin, best_missing_left : ndarray of shape (n_features,)
    """
    n_features = codes.shape[0]
    best_edge = np.full(n_features, -np.inf)
    best_bin = np.full(n_features, -1, dtype=np.intp)
    best_missing_left = np.ones(n_features, dtype=bool)
    margin = pos - neg
    for feature in range(n_features):
        column = codes[feature]
        for b in range(n_bins[feature]):
            for missing_left in (True, False):
                is_missing = column == MISSING_BIN
                goes_left = ((column <= b) & ~is_missing) | (is_missing & missing_left)
                edge = np.abs(margin[goes_left].sum(axis=0) - margin[~goes_left].sum(axis=0))
                if edge.sum() > best_edge[feature]:
                    best_edge[feature] = edge.sum()
                    best_bin[feature] = b
                    best_missing_left[feature] = missing_left
    return best_edge, best_bin, best_missing_left


#: Rows a task of ``partition_rows`` takes (a stable partition is one order, whatever the
#: chunks: they set only how the work is shared).
PARTITION_CHUNK = 1 << 14


@njit(cache=True, parallel=True, nogil=True)
def partition_rows(column_codes, rows, start, stop, threshold_bin, missing_left, scratch,
                   in_order=False):
    """Stably reorder ``rows[start:stop]`` into the left child's rows, then the right's.

    In parallel over chunks of ``PARTITION_CHUNK`` rows: each chunk writes every row to both
    ``scratch[0]`` and ``scratch[1]`` at its part, advancing the cursor of the row's side
    only (two stores a row at addresses that need no branch: a threshold's side is a coin
    flip to the branch predictor), so its left rows lie in order in ``scratch[0]`` and its
    right rows in ``scratch[1]``; then each chunk copies its left rows to their place after
    the earlier chunks' and its right rows after all the left rows, two forward copies (one
    scratch row written from both ends, the right rows reversed, took 1.2-1.6x the time).
    A row's side is one load from a table of the 256 codes' sides (``code_goes_left`` of
    each, made once a call), and the cursors are unsigned (a signed index costs a
    negative-index test a store): the first pass in 0.25-0.4x the time of the rule
    evaluated a row with signed cursors (one thread, 50,000-400,000 sorted rows).

    Parameters
    ----------
    column_codes : ndarray of shape (n_samples,), uint8
        Codes of the split feature.
    rows : ndarray of shape (n_samples,), intp
        Modified in place on ``[start, stop)``.
    start, stop : int
    threshold_bin : int
        Codes ``<= threshold_bin`` go left (the missing bin goes by ``missing_left``).
    missing_left : bool
    scratch : ndarray of shape (2, n_samples), intp
        Work space.
    in_order : bool, default=False
        ``rows[start:stop]`` is taken to hold ``start, ..., stop - 1`` (a tree's root, whose
        rows are then not written before the call) and is not read.

    Returns
    -------
    n_left : int
    """
    n_rows = stop - start
    n_chunks = max(1, (n_rows + PARTITION_CHUNK - 1) // PARTITION_CHUNK)
    threshold = np.uint8(threshold_bin)
    sides = np.empty(256, dtype=np.uint8)  # 1 where a code goes left
    for code in range(256):
        sides[code] = code_goes_left(np.uint8(code), threshold, missing_left)
    left_counts = np.empty(n_chunks, dtype=np.intp)
    if n_chunks == 1:  # no parallel region (each costs a wake-up of the threads)
        # np.intp(0), not 0: a literal argument compiles the helper a second time
        _partition_chunk(column_codes, rows, start, np.intp(0), n_rows, sides, scratch,
                         left_counts, in_order)
    else:
        for chunk in prange(n_chunks):
            _partition_chunk(column_codes, rows, start, chunk * PARTITION_CHUNK,
                             min((chunk + 1) * PARTITION_CHUNK, n_rows), sides, scratch,
                             left_counts, in_order)
    left_at = np.empty(n_chunks, dtype=np.intp)
    n_left = np.intp(0)  # not 0: it reaches ``_place_chunk``, which a literal compiles again
    for chunk in range(n_chunks):
        left_at[chunk] = n_left
        n_left += left_counts[chunk]
    if n_chunks == 1:
        _place_chunk(rows, start, np.intp(0), n_rows, n_left, left_at, left_counts, scratch)
    else:
        for chunk in prange(n_chunks):
            _place_chunk(rows, start, chunk, n_rows, n_left, left_at, left_counts, scratch)
    return n_left


@njit(cache=True, nogil=True)
def _partition_chunk(column_codes, rows, start, first, stop, sides, scratch, left_counts,
                     in_order):
    """``partition_rows``'s first pass over the node's positions ``first:stop``: the left
    rows to ``scratch[0]``, the right rows to ``scratch[1]``, each from ``first`` up (the
    rows ``start + first, ...`` themselves when ``in_order``); ``sides[code]`` is 1 where
    ``code`` goes left, else 0. Indices are unsigned (no negative-index test)."""
    left_rows = scratch[0]
    right_rows = scratch[1]
    one = np.uintp(1)
    to_left = np.uintp(first)
    to_right = np.uintp(first)
    if in_order:
        for q in range(np.uintp(first), np.uintp(stop)):
            row = np.uintp(start) + q
            goes_left = np.uintp(sides[np.uintp(column_codes[row])])
            left_rows[to_left] = row
            right_rows[to_right] = row
            to_left += goes_left
            to_right += one - goes_left
    else:
        for q in range(np.uintp(first), np.uintp(stop)):
            row = rows[np.uintp(start) + q]
            goes_left = np.uintp(sides[np.uintp(column_codes[np.uintp(row)])])
            left_rows[to_left] = row
            right_rows[to_right] = row
            to_left += goes_left
            to_right += one - goes_left
    left_counts[first // PARTITION_CHUNK] = to_left - np.uintp(first)


@njit(cache=True, nogil=True)
def _place_chunk(rows, start, chunk, n_rows, n_left, left_at, left_counts, scratch):
    """``partition_rows``'s second pass for one chunk: its left rows after the earlier
    chunks', its right rows after all the left rows and the earlier chunks' right rows.

    A call, not inlined: in the parallel build a copy outside ``prange`` becomes a parallel
    loop of its own, so a one-chunk node woke the threads twice (a node of 1,000 rows of
    4,435 took 8.6 µs on two threads and 4.1 on one, against 1.5 as a call). The copies
    are loops with unsigned indices, not slice assignments: numba's array-to-array slice
    assignment (broadcasting, an overlap test) took 4.6 of the kernel's 6.3 s of compile
    on an empty cache."""
    first = chunk * PARTITION_CHUNK
    n_chunk_left = left_counts[chunk]
    n_chunk_right = min(first + PARTITION_CHUNK, n_rows) - first - n_chunk_left
    # the indices in signed arithmetic, then unsigned (signed + unsigned is a float)
    from_at = np.uintp(first)
    to_left = np.uintp(start + left_at[chunk])
    to_right = np.uintp(start + n_left + first - left_at[chunk])
    for q in range(np.uintp(n_chunk_left)):
        rows[to_left + q] = scratch[0, from_at + q]
    for q in range(np.uintp(n_chunk_right)):
        rows[to_right + q] = scratch[1, from_at + q]


@njit(cache=True, parallel=True, nogil=True)
def range_blocks(rows, starts, values, out):
    """``out[rows[q]] = values[j]`` for every position ``q`` of range ``j``,
    ``starts[j] <= q < starts[j + 1]``: the leaf of each training example from the row
    ranges of a tree's leaves, in parallel over chunks of ``PARTITION_CHUNK`` positions
    (each example is written once, so any chunking gives the same array).

    Parameters
    ----------
    rows : ndarray of shape (n_rows,), intp
        A permutation of the examples (``out``'s indices).
    starts : ndarray of shape (n_ranges + 1,), intp
        Increasing; ``starts[0] = 0``, ``starts[-1] = n_rows``.
    values : ndarray of shape (n_ranges,), uint8
    out : ndarray of shape (n_samples,), uint8
        Output.
    """
    n_rows = rows.shape[0]
    for chunk in prange((n_rows + PARTITION_CHUNK - 1) // PARTITION_CHUNK):
        first = chunk * PARTITION_CHUNK
        _range_chunk(rows, starts, values, out, first, min(first + PARTITION_CHUNK, n_rows))


@njit(cache=True, nogil=True)
def _range_chunk(rows, starts, values, out, first, stop):
    """``range_blocks`` on positions ``first:stop`` (a serial function: the loops inside
    the parallel one took 6x this time)."""
    j = np.searchsorted(starts, first, side="right") - 1
    while starts[j] < stop:
        value = values[j]
        for p in range(max(starts[j], first), min(starts[j + 1], stop)):
            out[np.uintp(rows[p])] = value  # unsigned: no negative-index test
        j += 1


def range_blocks_naive(rows, starts, values, out):
    """Twin of ``range_blocks``: one fancy-indexed assignment per range."""
    for j in range(values.shape[0]):
        out[rows[starts[j]: starts[j + 1]]] = values[j]


def partition_rows_naive(column_codes, rows, threshold_bin, missing_left):
    """Twin of ``partition_rows`` on a whole row array; returns (left rows, right rows)."""
    codes = column_codes[rows]
    is_missing = codes == MISSING_BIN
    goes_left = ((codes <= threshold_bin) & ~is_missing) | (is_missing & missing_left)
    return rows[goes_left], rows[~goes_left]


@njit(cache=True, parallel=True, nogil=True)
def tree_blocks(X, feature, threshold, missing_left, left, right, out):
    """Leaf of each example by walking the node arrays (see the module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
    feature : ndarray of shape (n_nodes,), intp
    threshold : ndarray of shape (n_nodes,), float64
    missing_left : ndarray of shape (n_nodes,), bool
    left, right : ndarray of shape (n_nodes,), intp
    out : ndarray of shape (n_samples,), uint8
        Output: the leaf index.
    """
    n_nodes = feature.shape[0]
    for i in prange(X.shape[0]):
        if n_nodes == 0:
            out[i] = 0
            continue
        node = 0
        while node >= 0:
            if threshold_goes_left(X[i, feature[node]], threshold[node], missing_left[node]):
                node = left[node]
            else:
                node = right[node]
        out[i] = -node - 1


def tree_blocks_naive(X, feature, threshold, missing_left, left, right):
    """Twin of ``tree_blocks``: every row walked one at a time in Python."""
    out = np.zeros(X.shape[0], dtype=BLOCK_DTYPE)
    if feature.shape[0] == 0:
        return out
    for i in range(X.shape[0]):
        node = 0
        while node >= 0:
            x = X[i, feature[node]]
            goes_left = bool(missing_left[node]) if np.isnan(x) else x <= threshold[node]
            node = left[node] if goes_left else right[node]
        out[i] = -node - 1
    return out
