"""Best-first growth of a tree by the largest drop in Z: the grower.

Every leaf holds its best split (``learners/splitter.py``), and the leaf whose split lowers
the tree's Z the most is split next, until ``max_leaves`` leaves, or no leaf has a split
that lowers Z (within ``max_depth``). Z and the gain of a split are
``kernels/criterion_numpy.py``'s: the node score s = Σ_l 2 sqrt(W+ W-) for real confidences
(Eq. 10, 16; Kearns & Mansour 1996), s = -Σ_l |W+ - W-| for ±1 ones (§3.1, Eq. 14), gain =
s(node) - s(left) - s(right).

Only the smaller child of a numeric split has its histogram built from its rows (on one
label column with ``kernels/node_histogram.build_node_histogram_binary``, one parallel
region of a feature range a thread over fixed row chunks; on 2-7 labels with
``build_node_histogram``, parallel over groups of four features and fixed row chunks; on 8
labels or more with
``build_histogram_masses``, 2k contiguous adds per example and feature); the larger child's
is the parent's minus the smaller's, so a tree costs about one stump pass plus passes over
ever smaller nodes (on binary 400k x 50, 16 leaves: 2.2 passes of the rows). The
subtraction and both children's split searches are one kernel call
(``kernels/node_split.children_splits``: one parallel region a split, not three). The
histograms of waiting leaves are kept under ``HISTOGRAM_MEMORY`` (``HistogramPool``).

A split is "a partition of the node's rows into two" (``kernels.tree_nodes.partition_rows`` for
a threshold), so every column kind plugs in the same way: the node's best categorical or
term split comes from the splitter's ``NodeSplits``, and each node records its kind
(``dtypes.NODE_THRESHOLD``, ``NODE_VALUE``, ``NODE_TERM``).

The grower reads rows only through a "row sets" object: fill a node's histogram, partition
a node by a split (-> the left child's size), the node's best split on the other kinds.
``LocalRows`` holds the rows of one machine, or of one shard of a cluster: a node's
histogram and the left child's size are summed through its ``Reducer``
(``engine/reduction.py``; the identity on one machine, an allreduce over the shards on a
Dask worker, ``confboost.dask.collective``), so the same code grows the same tree over rows
spread across a cluster.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

import numpy as np

from confboost.engine.learners.splitter import numeric_split
from confboost.engine.reduction import LOCAL
from confboost.kernels.histogram import N_HIST_BINS
from confboost.kernels.label_split import label_children_splits
from confboost.kernels.node_split import children_splits
from confboost.kernels.tree_nodes import partition_rows, range_blocks
from confboost.utils.dtypes import BLOCK_DTYPE, NODE_THRESHOLD, REAL, REAL_ABSTAIN, WEIGHT_DTYPE
from confboost.utils.lazy_numba import resolved
from confboost.utils.threads import kernel_threads

if TYPE_CHECKING:  # annotations only
    from confboost.engine.protocols import RowSets

#: Most bytes of node histograms a growing tree keeps for its waiting leaves (1 GiB). Past
#: it the histograms of the leaves of least gain are dropped, and rebuilt from their rows
#: if those leaves are split; the tree is the same. (One fashion-mnist histogram, 784
#: features x 256 bins x 10 labels x 2, is 32 MB.)
HISTOGRAM_MEMORY = 2**30


class HistogramPool:
    """Reusable node histograms of one shape (the learner keeps one across rounds)."""

    def __init__(self):
        self.shape = None
        self.free = []

    def get(self, shape):
        if shape != self.shape:
            self.shape, self.free = shape, []
        return self.free.pop() if self.free else np.empty(shape, dtype=WEIGHT_DTYPE)

    def put(self, hist):
        self.free.append(hist)


class WorkArrays:
    """Arrays a learner keeps across its rounds, by name (the learner keeps one).

    A round's large arrays (each example's masses, the row order of a tree's nodes, a node's
    gathered weights), taken afresh each round, go back to the C library's allocator at the
    round's end, which may hand their pages back to the system and map new ones on the
    next round: a page fault, and the system's time to clear the page, per 4 KiB touched.
    Whether it does depends on thresholds that earlier allocations in the process moved (a
    fit after a calibrated fit paid it, one after an uncalibrated fit did not). Kept here,
    each round writes on pages already mapped.
    """

    def __init__(self):
        self.arrays = {}

    def get(self, name, shape, dtype=WEIGHT_DTYPE):
        """The array ``name`` of ``shape`` and ``dtype``: the one of the last call when both
        are the same (holding what that call's user left in it), else a new one."""
        shape = tuple(shape)
        array = self.arrays.get(name)
        if array is None or array.shape != shape or array.dtype != dtype:
            array = self.arrays[name] = np.empty(shape, dtype=dtype)
        return array

    def made(self, name, key, make):
        """What ``make()`` returns, kept under ``name``: made again only when ``key`` is not
        the last call's (several arrays of one use, sized by the key)."""
        kept = self.arrays.get(name)
        if kept is None or kept[0] != key:
            kept = self.arrays[name] = (key, make())
        return kept[1]

    def row_order(self, name, n_rows):
        """The array ``name`` of shape (n_rows,), intp, set to 0, 1, ..., n_rows - 1 (from
        a kept copy of that order, not a new ``np.arange`` each call)."""
        order = self.arrays.get("row order")
        if order is None or order.shape != (n_rows,):
            order = self.arrays["row order"] = np.arange(n_rows, dtype=np.intp)
        rows = self.get(name, (n_rows,), np.intp)
        np.copyto(rows, order)
        return rows


class GrownTree:
    """The structure of a grown tree on bin codes (and value codes, term indices).

    Attributes
    ----------
    kind : ndarray of shape (n_nodes,), intp
        ``NODE_THRESHOLD``, ``NODE_VALUE`` or ``NODE_TERM`` (``utils/dtypes.py``).
    feature : ndarray of shape (n_nodes,), intp
        Threshold nodes: the row of ``Dataset.codes``; the other kinds: the index of the
        column in the splitter's list of categorical or text columns.
    threshold_bin : ndarray of shape (n_nodes,), intp
        Bin threshold (numeric: codes ``<= threshold_bin`` go left); for the other kinds the
        value code or term index that goes left.
    left, right : ndarray of shape (n_nodes,), intp
        Internal nodes (node 0 is the root); a child ``c < 0`` is leaf ``-c - 1``.
    missing_left : ndarray of shape (n_nodes,), bool
        Numeric splits only (False for the other kinds: a missing value goes right).
    train_blocks : ndarray of shape (n_samples,), uint8, or None
        Leaf of each training example; leaves are numbered left to right. None when the
        rows lie elsewhere (``confboost.dask``: each partition finds its own).
    n_leaves : int
    """

    def __init__(self, kind, feature, threshold_bin, missing_left, left, right, train_blocks,
                 n_leaves):
        self.kind = kind
        self.feature = feature
        self.threshold_bin = threshold_bin
        self.missing_left = missing_left
        self.left = left
        self.right = right
        self.train_blocks = train_blocks
        self.n_leaves = n_leaves


class LocalRows:
    """The row sets of a tree: one row array of the rows held here in which every node's
    rows are a contiguous range (``partition_rows`` keeps them so).

    The grower reads a node's rows only through this object (``fill``, ``partition``,
    ``best_other``, ``leaf_blocks``), and what it reads of all the rows, a node's histogram
    and its left child's size, is summed through ``reducer``: on one machine the rows held
    here are all of them; on a shard of a cluster (``confboost.dask``) the sums are over
    every shard, so each grows the same tree.

    Parameters
    ----------
    dataset : Dataset or None
        The binned numeric features; None when there are none.
    fill_histogram : callable or None
        ``fill_histogram(rows, hist)`` overwrites ``hist`` with the W+ and W- of the examples
        ``rows`` (intp; None for all) per (feature, bin, column). None with ``dataset``.
    other_splits : NodeSplits, optional
        Splits on the other column kinds (``learners/splitter.NodeSplits``):
        ``n_samples``; ``best(rows)`` -> (gain, split) or None, the node's best such split
        by the same gain as ``children_splits``, ``split = (kind, index, code, False)``;
        ``partition(split, rows, start, stop)`` -> n_left, which reorders
        ``rows[start:stop]`` as ``partition_rows`` does.
    work : WorkArrays, optional
        Where the row order and the partition's scratch are kept across trees (the
        learner's); default: arrays of this tree's own.
    reducer : Reducer, default=LOCAL
        Where a node's histogram and its left child's size are summed.
    n_samples : int, optional
        The rows of every shard (``reducer.total`` of the rows held here, which the
        learner sums once); default: the rows held here.
    max_leaves : int, optional
        The tree's ``max_leaves``: the left child's size of its last split is not summed
        (``grow_tree`` stops there: its children are leaves, neither searched nor picked by
        size); default: every size is summed.
    """

    def __init__(self, dataset, fill_histogram, other_splits=None, work=None, reducer=LOCAL,
                 n_samples=None, max_leaves=None):
        self.codes = None if dataset is None else dataset.codes
        self.fill_histogram = fill_histogram
        self.other_splits = other_splits
        self.reducer = reducer
        # the rows held here; ``n_samples`` is the rows the grower sees, over every shard
        self.n_rows = other_splits.n_samples if dataset is None else dataset.n_samples
        self.n_samples = self.n_rows if n_samples is None else n_samples
        self.splits_left = None if max_leaves is None else max_leaves - 1
        self._work = WorkArrays() if work is None else work
        # the row order, 0 .. n_rows - 1 until the root splits: written only when read
        # (the root's threshold partition reads the order itself, ``in_order``)
        self._rows = self._work.get("rows", (self.n_rows,), np.intp)
        self._in_order = True
        self.ranges = {0: (0, self.n_rows)}  # node -> (start, stop) in ``rows``
        self.scratch = (None if dataset is None
                        else self._work.get("partition scratch", (2, self.n_rows), np.intp))
        self._partition_rows = None  # the build of ``partition_rows``, chosen at its first call

    @property
    def rows(self):
        """The row array, every node's rows a contiguous range of it (see ``ranges``)."""
        if self._in_order:
            self._rows = self._work.row_order("rows", self.n_rows)
            self._in_order = False
        return self._rows

    def fill(self, node, hist):
        """Overwrite ``hist`` with the histogram of node ``node``'s rows (of every shard)."""
        start, stop = self.ranges[node]
        self.fill_histogram(None if node == 0 else self.rows[start:stop], hist)
        self.reducer.total(hist, out=hist)

    def partition(self, node, split, left, right):
        """Split node ``node``'s rows into nodes ``left`` and ``right``; returns the number
        that go left (of every shard, but at the tree's last split: of the rows here)."""
        start, stop = self.ranges[node]
        kind, index, code, missing_left = split
        if kind == NODE_THRESHOLD:
            in_order = self._in_order  # the root, its rows not written yet
            if self._partition_rows is None:
                self._partition_rows = resolved(partition_rows)
            n_left = self._partition_rows(self.codes[index], self._rows, start, stop, code,
                                          missing_left, self.scratch, in_order)
            self._in_order = False
        else:
            n_left = self.other_splits.partition(split, self.rows, start, stop)
        self.ranges[left] = (start, start + n_left)
        self.ranges[right] = (start + n_left, stop)
        if self.splits_left is not None:
            self.splits_left -= 1
            if self.splits_left == 0:
                return n_left
        return int(self.reducer.total(n_left))

    def best_other(self, node):
        """The node's best split on the other column kinds, (gain, split), or None."""
        if self.other_splits is None:
            return None
        start, stop = self.ranges[node]
        return self.other_splits.best(self.rows[start:stop])

    def leaf_blocks(self, leaf_of_node):
        """The leaf of every row, shape (n_samples,), uint8, from {node: leaf}
        (``kernels/tree_nodes.range_blocks``, in parallel over the rows)."""
        train_blocks = np.empty(self.n_rows, dtype=BLOCK_DTYPE)
        if self._in_order:  # the root never split: one leaf
            train_blocks.fill(leaf_of_node[0])
            return train_blocks
        # by start, an empty range before a range that starts where it does
        ranges = sorted((*self.ranges[node], leaf) for node, leaf in leaf_of_node.items())
        starts = np.array([start for start, _, _ in ranges] + [self.n_rows], dtype=np.intp)
        range_blocks(self._rows, starts, np.array([leaf for _, _, leaf in ranges],
                                                  dtype=BLOCK_DTYPE), train_blocks)
        return train_blocks


def grow_tree(row_sets: RowSets, n_bins, n_columns, mode, max_leaves, max_depth,
              min_leaf_weight, pool, root_hist=None, n_hist_bins=N_HIST_BINS):
    """Best-first growth by the largest drop in Z (see the module docstring).

    Parameters
    ----------
    row_sets : LocalRows or a stand-in with its methods
        ``n_samples``; ``fill(node, hist)``; ``partition(node, split, left, right)`` ->
        n_left; ``best_other(node)`` -> (gain, split) or None; ``leaf_blocks(leaf_of_node)``
        -> the training examples' leaves (or None).
    n_bins : ndarray of shape (n_features,) or None
        Value bins of each numeric feature; None when there are none (``best_other`` then
        proposes every split).
    n_columns : int
        Columns of the histograms (labels, or 1 for a Hamming tree).
    mode : int
        Confidence mode code.
    max_leaves : int
    max_depth : int or None
    min_leaf_weight : float
    pool : HistogramPool
    root_hist : ndarray of shape (n_features, n_hist_bins, k, 2), optional
        The root's histogram if already known (taken from ``pool``; it is given back).
    n_hist_bins : int, default=256
        Bins of a node histogram, the last one the missing bin: 256, or fewer when the row
        sets fill histograms from compacted codes (``learners/tree.compact_codes``).

    On equal gains a numeric split wins over the other kinds. The children's split search
    after a split is ``kernels/node_split.children_splits``; on histograms of one column
    under real confidences (a binary tree, a tree per label, a Hamming tree) it is
    ``kernels/label_split.label_children_splits``, the same splits to the bit without the
    loops over labels (``_children_search``). The root's is the same kernel's with one
    child (``n_children=1``): a tree compiles and loads one split search.

    Returns
    -------
    GrownTree
    """
    if n_bins is not None:
        n_features = n_bins.shape[0]
        shape = (n_features, n_hist_bins, n_columns, 2)
        # each feature's best split: row 0 the root's or the smaller child's, row 1 the larger's
        split_gains = np.empty((2, n_features), dtype=np.float64)
        split_bins = np.empty((2, n_features), dtype=np.intp)
        split_lefts = np.empty((2, n_features), dtype=bool)
        choices = np.empty((2, 3), dtype=np.intp)  # ``choose_split`` of each row
    # nodes: [size, depth, split or None, children or None]
    nodes = [[row_sets.n_samples, 0, None, None]]
    hists = {}
    candidates = []

    def consider(node_id, hist, row=None):
        # ``row``: the row of the split buffers that holds ``hist``'s features' best splits;
        # None: search them now (the root: the children's search of one child, into row 0)
        size, depth = nodes[node_id][:2]
        best = None
        if size >= 2 and (max_depth is None or depth < max_depth):
            if hist is not None:
                if row is None:
                    row = 0
                    children_search(hist, hist, n_bins, mode, min_leaf_weight, split_gains,
                                    split_bins, split_lefts, choices, threads, 1)
                best = numeric_split(hist, n_bins, split_gains[row], split_bins[row],
                                     choices[row])
            found = row_sets.best_other(node_id)
            if found is not None and found[0] > 0.0 and (best is None or found[0] > best[0]):
                best = found
        if best is None:
            if hist is not None:
                pool.put(hist)
            return
        heapq.heappush(candidates, (-best[0], node_id, best[1]))
        if hist is not None:
            hists[node_id] = hist
            while len(hists) > 1 and len(hists) * hist.nbytes > HISTOGRAM_MEMORY:
                # drop the histogram of the waiting leaf of least gain; rebuilt if it splits
                gains = {node: -priority for priority, node, _ in candidates if node in hists}
                pool.put(hists.pop(min(gains, key=gains.get)))

    if n_bins is not None:
        if root_hist is None:
            root_hist = pool.get(shape)
            row_sets.fill(0, root_hist)
        # the build each search calls, chosen once, and how it shares its features
        children_search = resolved(_children_search(n_columns, mode))
        threads = kernel_threads()
    consider(0, root_hist)
    n_leaves = 1
    while candidates and n_leaves < max_leaves:
        _, node_id, split = heapq.heappop(candidates)
        _offer_next_splits(row_sets, node_id, split, candidates, max_leaves - n_leaves)
        size, depth = nodes[node_id][:2]
        children = (len(nodes), len(nodes) + 1)
        n_left = row_sets.partition(node_id, split, *children)
        nodes[node_id][2] = split
        nodes[node_id][3] = children
        nodes.append([n_left, depth + 1, None, None])
        nodes.append([size - n_left, depth + 1, None, None])
        n_leaves += 1
        if n_leaves == max_leaves:  # the children will not split: no search for them
            break
        small, large = children if n_left <= size - n_left else children[::-1]
        if n_bins is None:
            consider(small, None)
            consider(large, None)
            continue
        small_hist = pool.get(shape)
        row_sets.fill(small, small_hist)
        large_hist = hists.pop(node_id, None)
        if large_hist is None:  # dropped under HISTOGRAM_MEMORY: the parent's, from its rows
            large_hist = pool.get(shape)
            row_sets.fill(node_id, large_hist)
        children_search(small_hist, large_hist, n_bins, mode, min_leaf_weight, split_gains,
                        split_bins, split_lefts, choices, threads, 2)
        consider(small, small_hist, 0)
        consider(large, large_hist, 1)
    for hist in hists.values():
        pool.put(hist)
    return _number_nodes(nodes, row_sets)


def _children_search(n_columns, mode):
    """The children's split search of ``grow_tree`` (its docstring says which), with
    ``node_split.children_splits``' arguments."""
    if n_columns == 1 and mode in (REAL, REAL_ABSTAIN):
        return _one_column_children_splits
    return children_splits


def _one_column_children_splits(small_hist, large_hist, n_bins, mode, min_leaf_weight,
                                best_gain, best_bin, best_missing_left, choice, threads,
                                n_children):
    """``label_children_splits`` (one column, real confidences: it takes no ``mode``)."""
    label_children_splits(small_hist, large_hist, n_bins, min_leaf_weight, best_gain,
                          best_bin, best_missing_left, choice, threads, n_children)


def _offer_next_splits(row_sets, node_id, split, candidates, n_splits):
    """Tell row sets that partition several nodes at once (an ``expand(splits)`` method,
    as ``confboost.dask``'s, for which each partition is a round trip) which nodes may split
    next: the node about to split, then the best ``n_splits - 1`` waiting leaves, as
    [(node, split), ...] best first. Only these can split before the tree is full (at most
    ``n_splits`` more splits, and a waiting leaf splits only after every better one), so
    row sets may partition them ahead; what they return for a node must not depend on
    when it was partitioned, and the tree is the same."""
    expand = getattr(row_sets, "expand", None)
    if expand is not None:
        expand([(node_id, split)] + [(node, waiting) for _, node, waiting
                                     in heapq.nsmallest(n_splits - 1, candidates)])


def _number_nodes(nodes, row_sets):
    """Node arrays from the growth records: internal nodes in split order, leaves left to
    right."""
    internal = [i for i, node in enumerate(nodes) if node[2] is not None]
    internal_index = {node_id: position for position, node_id in enumerate(internal)}
    leaf_index = {}
    stack = [0]
    while stack:  # depth-first, left child first
        node_id = stack.pop()
        if nodes[node_id][3] is None:
            leaf_index[node_id] = len(leaf_index)
        else:
            stack.extend(reversed(nodes[node_id][3]))

    def ref(node_id):
        return internal_index[node_id] if node_id in internal_index else -leaf_index[node_id] - 1

    n = len(internal)
    kind = np.empty(n, dtype=np.intp)
    feature = np.empty(n, dtype=np.intp)
    threshold_bin = np.empty(n, dtype=np.intp)
    missing_left = np.empty(n, dtype=bool)
    left = np.empty(n, dtype=np.intp)
    right = np.empty(n, dtype=np.intp)
    for position, node_id in enumerate(internal):
        (kind[position], feature[position], threshold_bin[position],
         missing_left[position]) = nodes[node_id][2]
        left[position], right[position] = (ref(c) for c in nodes[node_id][3])
    return GrownTree(kind, feature, threshold_bin, missing_left, left, right,
                     row_sets.leaf_blocks(leaf_index), len(leaf_index))
