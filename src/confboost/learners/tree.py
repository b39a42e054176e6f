"""Decision trees grown by Z (Kearns & Mansour's criterion), and Hamming trees.

Owns ``TreeLearner`` and ``HammingTreeLearner``, their hypotheses, and the best-first growth
they share. A tree is a domain-partitioning hypothesis (paper §4.1): its leaves are the
blocks, and the confidence rule (``confidence.block_confidences``) sets the value of each
leaf.

Growth (``grow_tree``) is best-first: every leaf holds its best split, and the leaf whose
split lowers the tree's Z the most is split next, until ``max_leaves`` leaves, or no leaf
has a split that lowers Z (within ``max_depth`` and ``min_leaf_weight``). The Z of a set of
leaves is the criterion of the confidence mode (``kernels/tree.py``): 2 Σ_j Σ_l
sqrt(W+[j,l] W-[j,l]) for real confidences (Eq. 10, 16; Kearns & Mansour 1996), and
sqrt(T² - r²) with r = Σ_j Σ_l |W+[j,l] - W-[j,l]| for ±1 confidences (§3.1, Eq. 14).
Only the smaller child of a split has its histogram built from its rows (a label tree's
with the stump's kernel, ``kernels/histogram.build_histogram_rows``: one add per example,
feature and label); the larger child's is the parent's minus the smaller's, so a tree costs
about one stump pass plus passes over ever smaller nodes.

Missing values: each split sends a missing value to the side that lowers Z more (learned
from the node's training rows with a missing value); a node that saw none sends it to the
child of larger training weight. A tree's leaves are a partition in two at each node, so
there is no abstaining block: under ``confidence="abstain"`` a tree is the discrete tree,
and under ``"real-abstain"`` the real tree.

A split is "a partition of the node's rows into two" (``kernels.tree.partition_rows``), so
other feature kinds (categorical subsets, term presence) plug in as other partitions.
"""

import heapq

import numpy as np

from confboost._dtypes import BLOCK_DTYPE, MISSING_BIN, WEIGHT_DTYPE
from confboost.confidence import REAL, REAL_ABSTAIN, block_confidences
from confboost.kernels.histogram import N_HIST_BINS, build_histogram, build_histogram_rows
from confboost.kernels.tree import (
    best_factorized_splits,
    best_node_splits,
    node_histogram,
    partition_rows,
    subtract_sibling,
    tree_blocks,
)
from confboost.learners.base import PartitionFit, PartitionHypothesis

#: The most leaves of a tree: leaf indices are ``BLOCK_DTYPE`` (uint8).
MAX_LEAVES = int(np.iinfo(BLOCK_DTYPE).max)


def partition_criterion(weight_pos, weight_neg, mode, total):
    """Z of a partition with no abstaining block, from its (n_blocks, k) statistics.

    Real modes: 2 Σ_j Σ_l sqrt(W+ W-) (Eq. 10, 16); ±1 modes: sqrt(total² - r²),
    r = Σ_j Σ_l |W+ - W-| (§3.1).
    """
    if mode in (REAL, REAL_ABSTAIN):
        return float(2.0 * np.sqrt(weight_pos * weight_neg).sum())
    r = float(np.abs(weight_pos - weight_neg).sum())
    return float(np.sqrt(max(total * total - r * r, 0.0)))


def leaf_statistics(train_blocks, n_leaves, pos, neg):
    """Σ of ``pos`` and ``neg`` over each leaf's examples, shape (n_leaves, k) each."""
    k = pos.shape[1]
    weight_pos = np.empty((n_leaves, k), dtype=WEIGHT_DTYPE)
    weight_neg = np.empty((n_leaves, k), dtype=WEIGHT_DTYPE)
    for l in range(k):
        weight_pos[:, l] = np.bincount(train_blocks, pos[:, l], minlength=n_leaves)
        weight_neg[:, l] = np.bincount(train_blocks, neg[:, l], minlength=n_leaves)
    return weight_pos, weight_neg


def label_masses(weights, labels):
    """W[i, l] split by label sign: (W * [Y = +1], W * [Y = -1]), shape (n, k) each."""
    positive = labels.sign_index == 0
    return (np.where(positive, weights, 0.0).astype(WEIGHT_DTYPE),
            np.where(positive, 0.0, weights).astype(WEIGHT_DTYPE))


class _HistogramPool:
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


class GrownTree:
    """The structure of a grown tree on bin codes.

    Attributes
    ----------
    feature, threshold_bin, left, right : ndarray of shape (n_nodes,), intp
        Internal nodes (node 0 is the root); a child ``c < 0`` is leaf ``-c - 1``.
    missing_left : ndarray of shape (n_nodes,), bool
    train_blocks : ndarray of shape (n_samples,), uint8
        Leaf of each training example; leaves are numbered left to right.
    n_leaves : int
    """

    def __init__(self, feature, threshold_bin, missing_left, left, right, train_blocks,
                 n_leaves):
        self.feature = feature
        self.threshold_bin = threshold_bin
        self.missing_left = missing_left
        self.left = left
        self.right = right
        self.train_blocks = train_blocks
        self.n_leaves = n_leaves

    def raw_thresholds(self, dataset):
        """Raw-value thresholds of the nodes (``inf`` where every value goes left)."""
        return np.array([dataset.bin_mapper.threshold(f, b) if b < dataset.n_bins[f] - 1
                         else np.inf for f, b in zip(self.feature, self.threshold_bin,
                                                     strict=True)], dtype=np.float64)


def grow_tree(dataset, fill_histogram, n_columns, mode, max_leaves, max_depth,
              min_leaf_weight, pool, root_hist=None):
    """Best-first growth by the largest drop in Z (see the module docstring).

    Parameters
    ----------
    dataset : Dataset
    fill_histogram : callable
        ``fill_histogram(rows, hist)`` overwrites ``hist`` with the W+ and W- of the examples
        ``rows`` (intp; None for all) per (feature, bin, column).
    n_columns : int
        Columns of the histograms (labels, or 1 for a Hamming tree).
    mode : int
        Confidence mode code.
    max_leaves : int
    max_depth : int or None
    min_leaf_weight : float
    pool : _HistogramPool
    root_hist : ndarray of shape (n_features, 256, k, 2), optional
        The root's histogram if already known (taken from ``pool``; it is given back).

    Returns
    -------
    GrownTree
    """
    codes, n_bins = dataset.codes, dataset.n_bins
    n_features, n_samples = codes.shape
    shape = (n_features, N_HIST_BINS, n_columns, 2)
    rows = np.arange(n_samples, dtype=np.intp)
    scratch = np.empty(n_samples, dtype=np.intp)
    gain = np.empty(n_features, dtype=np.float64)
    split_bin = np.empty(n_features, dtype=np.intp)
    split_missing_left = np.empty(n_features, dtype=bool)
    # nodes: [start, stop, depth, split or None, children or None]
    nodes = [[0, n_samples, 0, None, None]]
    hists = {}
    candidates = []

    def consider(node_id, hist):
        start, stop, depth = nodes[node_id][:3]
        if stop - start < 2 or (max_depth is not None and depth >= max_depth):
            pool.put(hist)
            return
        best_node_splits(hist, n_bins, mode, min_leaf_weight, gain, split_bin,
                         split_missing_left)
        feature = int(np.argmax(gain))
        if not gain[feature] > 0.0:
            pool.put(hist)
            return
        b = int(split_bin[feature])
        missing_left = bool(split_missing_left[feature])
        if not hist[feature, MISSING_BIN].any():
            # no missing value seen here: send it to the child of larger training weight
            missing_left = bool(hist[feature, : b + 1].sum()
                                >= hist[feature, b + 1: n_bins[feature]].sum())
        hists[node_id] = hist
        heapq.heappush(candidates, (-float(gain[feature]), node_id, feature, b, missing_left))

    if root_hist is None:
        root_hist = pool.get(shape)
        fill_histogram(None, root_hist)
    consider(0, root_hist)
    n_leaves = 1
    while candidates and n_leaves < max_leaves:
        _, node_id, feature, b, missing_left = heapq.heappop(candidates)
        start, stop, depth = nodes[node_id][:3]
        n_left = partition_rows(codes[feature], rows, start, stop, b, missing_left, scratch)
        children = (len(nodes), len(nodes) + 1)
        nodes[node_id][3] = (feature, b, missing_left)
        nodes[node_id][4] = children
        nodes.append([start, start + n_left, depth + 1, None, None])
        nodes.append([start + n_left, stop, depth + 1, None, None])
        n_leaves += 1
        small, large = children if n_left <= stop - start - n_left else children[::-1]
        small_hist = pool.get(shape)
        fill_histogram(rows[nodes[small][0]: nodes[small][1]], small_hist)
        large_hist = hists.pop(node_id)
        subtract_sibling(large_hist, small_hist)
        consider(small, small_hist)
        consider(large, large_hist)
    for hist in hists.values():
        pool.put(hist)
    return _number_nodes(nodes, n_samples, rows)


def _number_nodes(nodes, n_samples, rows):
    """Node arrays from the growth records: internal nodes in split order, leaves left to
    right."""
    internal = [i for i, node in enumerate(nodes) if node[3] is not None]
    internal_index = {node_id: position for position, node_id in enumerate(internal)}
    leaf_index = {}
    stack = [0]
    while stack:  # depth-first, left child first
        node_id = stack.pop()
        if nodes[node_id][4] is None:
            leaf_index[node_id] = len(leaf_index)
        else:
            stack.extend(reversed(nodes[node_id][4]))

    def ref(node_id):
        return internal_index[node_id] if node_id in internal_index else -leaf_index[node_id] - 1

    n = len(internal)
    feature = np.empty(n, dtype=np.intp)
    threshold_bin = np.empty(n, dtype=np.intp)
    missing_left = np.empty(n, dtype=bool)
    left = np.empty(n, dtype=np.intp)
    right = np.empty(n, dtype=np.intp)
    for position, node_id in enumerate(internal):
        feature[position], threshold_bin[position], missing_left[position] = nodes[node_id][3]
        left[position], right[position] = (ref(c) for c in nodes[node_id][4])
    train_blocks = np.empty(n_samples, dtype=BLOCK_DTYPE)
    for node_id, leaf in leaf_index.items():
        train_blocks[rows[nodes[node_id][0]: nodes[node_id][1]]] = leaf
    return GrownTree(feature, threshold_bin, missing_left, left, right, train_blocks,
                     len(leaf_index))


class TreeHypothesis(PartitionHypothesis):
    """A decision tree on raw features with a value per leaf and label.

    Parameters
    ----------
    feature : array-like of shape (n_nodes,), int
    threshold : array-like of shape (n_nodes,), float
        ``x[feature] <= threshold`` goes left (``inf``: every non-missing value).
    missing_left : array-like of shape (n_nodes,), bool
        Whether a missing value goes left.
    left, right : array-like of shape (n_nodes,), int
        Children: ``c >= 0`` an internal node, ``c < 0`` leaf ``-c - 1``.
    values : ndarray of shape (n_nodes + 1, k)
        h(x, l) on each leaf.
    """

    type_name = "tree"

    def __init__(self, feature, threshold, missing_left, left, right, values):
        self.feature = np.asarray(feature, dtype=np.intp)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.missing_left = np.asarray(missing_left, dtype=bool)
        self.left = np.asarray(left, dtype=np.intp)
        self.right = np.asarray(right, dtype=np.intp)
        self.values = np.asarray(values, dtype=np.float64)

    def features(self):
        return sorted(set(self.feature.tolist()))

    def blocks(self, X):
        X = np.ascontiguousarray(X, dtype=np.float64)
        out = np.empty(X.shape[0], dtype=BLOCK_DTYPE)
        tree_blocks(X, self.feature, self.threshold, self.missing_left, self.left, self.right,
                    out)
        return out

    def _structure_dict(self):
        return {"type": self.type_name, "feature": self.feature.tolist(),
                "threshold": [t if np.isfinite(t) else "inf" for t in self.threshold.tolist()],
                "missing_left": self.missing_left.tolist(), "left": self.left.tolist(),
                "right": self.right.tolist()}

    def to_dict(self):
        return {**self._structure_dict(), "values": self.values.tolist()}

    @staticmethod
    def _structure_from_dict(data, n_leaves_name):
        """Validated node arrays of a saved tree; ValueError naming what is malformed."""
        thresholds = [np.inf if t == "inf" else t for t in data["threshold"]]
        if not all(isinstance(t, (int, float)) for t in thresholds):
            raise ValueError("tree thresholds must be numbers or 'inf'")
        arrays = [np.asarray(data[key]) for key in ("feature", "missing_left", "left", "right")]
        n = len(thresholds)
        if any(a.shape != (n,) for a in arrays):
            raise ValueError("tree node arrays must all have one entry per node")
        feature, missing_left, left, right = arrays
        children = np.concatenate([left, right]).astype(np.intp)
        internal = np.sort(children[children >= 0])
        leaves = np.sort(-children[children < 0] - 1)
        if n and (not np.array_equal(internal, np.arange(1, n))
                  or not np.array_equal(leaves, np.arange(n + 1))):
            raise ValueError(f"tree children must name nodes 1..{n - 1} and leaves "
                             f"0..{n} once each ({n_leaves_name} has {n + 1} rows)")
        if n and feature.min() < 0:
            raise ValueError("tree features must be non-negative")
        return feature, np.asarray(thresholds, dtype=np.float64), missing_left, left, right

    @classmethod
    def from_dict(cls, data):
        feature, threshold, missing_left, left, right = cls._structure_from_dict(data, "values")
        values = np.asarray(data["values"], dtype=np.float64)
        if values.ndim != 2 or values.shape[0] != feature.shape[0] + 1:
            raise ValueError(f"tree values must have shape (n_nodes + 1, k), got {values.shape}")
        return cls(feature, threshold, missing_left, left, right, values)


class HammingTreeHypothesis(TreeHypothesis):
    """A Hamming tree: h(x, l) = v_l c_{leaf(x)} (Kégl 2014).

    One vote vector v in {-1, +1}^k for the whole tree and one scalar confidence per leaf:
    the partition is the same for every label, and a label's output is the leaf's
    confidence signed by its vote.

    Parameters
    ----------
    feature, threshold, missing_left, left, right
        As in ``TreeHypothesis``.
    vote : array-like of shape (k,)
        v, entries ±1.
    leaf_values : array-like of shape (n_nodes + 1,)
        c_j of each leaf.
    """

    type_name = "hamming_tree"

    def __init__(self, feature, threshold, missing_left, left, right, vote, leaf_values):
        self.vote = np.asarray(vote, dtype=np.float64)
        self.leaf_values = np.asarray(leaf_values, dtype=np.float64)
        super().__init__(feature, threshold, missing_left, left, right,
                         np.outer(self.leaf_values, self.vote))

    def to_dict(self):
        return {**self._structure_dict(), "vote": self.vote.tolist(),
                "leaf_values": self.leaf_values.tolist()}

    @classmethod
    def from_dict(cls, data):
        feature, threshold, missing_left, left, right = cls._structure_from_dict(
            data, "leaf_values")
        vote = np.asarray(data["vote"], dtype=np.float64)
        leaf_values = np.asarray(data["leaf_values"], dtype=np.float64)
        if vote.ndim != 1 or not np.all(np.abs(vote) == 1):
            raise ValueError("a Hamming tree's vote must be a vector of -1 and +1")
        if leaf_values.shape != (feature.shape[0] + 1,):
            raise ValueError(f"leaf_values must have shape (n_nodes + 1,), got "
                             f"{leaf_values.shape}")
        return cls(feature, threshold, missing_left, left, right, vote, leaf_values)


class TreeLearner:
    """Finds a tree of small Z under the given weights, with per-label leaf values.

    Parameters
    ----------
    mode : int
        Confidence mode code (``confidence.MODES``).
    smoothing : float
        ε for the real confidences.
    max_leaves : int
        Most leaves, 2 .. 255 (2 leaves: the stump without its missing block).
    max_depth : int or None
        Most splits from the root to a leaf.
    min_leaf_weight : float
        Least weight (Σ_l W+ + W-, of the round's weights that sum to 1) of a leaf.
    """

    def __init__(self, mode, smoothing, max_leaves=8, max_depth=None, min_leaf_weight=0.0):
        self.mode = mode
        self.smoothing = smoothing
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.min_leaf_weight = min_leaf_weight
        self._pool = _HistogramPool()

    def _grow(self, dataset, fill_histogram, n_columns, root_hist=None):
        return grow_tree(dataset, fill_histogram, n_columns, self.mode, self.max_leaves,
                         self.max_depth, self.min_leaf_weight, self._pool, root_hist)

    def fit(self, dataset, weights, labels):
        """Best-first tree for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        codes, sign_index = dataset.codes, labels.sign_index

        def fill_histogram(rows, hist):
            if rows is None:
                build_histogram(codes, weights, sign_index, hist)
            else:
                build_histogram_rows(codes, rows, weights[rows], sign_index[rows], hist)

        tree = self._grow(dataset, fill_histogram, weights.shape[1])
        pos, neg = label_masses(weights, labels)
        weight_pos, weight_neg = leaf_statistics(tree.train_blocks, tree.n_leaves, pos, neg)
        values = block_confidences(weight_pos, weight_neg, np.zeros(tree.n_leaves, dtype=bool),
                                   self.mode, self.smoothing)
        hypothesis = TreeHypothesis(tree.feature, tree.raw_thresholds(dataset),
                                    tree.missing_left, tree.left, tree.right, values)
        return PartitionFit(hypothesis=hypothesis, train_blocks=tree.train_blocks,
                            weight_pos=weight_pos, weight_neg=weight_neg,
                            criterion=partition_criterion(weight_pos, weight_neg, self.mode,
                                                          float(weights.sum())))


class HammingTreeLearner(TreeLearner):
    """Multi-class Hamming trees (B. Kégl, "The return of AdaBoost.MH: multi-class Hamming
    trees", ICLR 2014).

    The hypothesis is h(x, l) = v_l c_{j(x)}: one vote vector v in {-1, +1}^k, one
    label-independent partition into leaves j, one scalar confidence c_j per leaf. With
    ±1 confidences (``"discrete"``) this is Kégl's α v φ(x), φ(x) = c_{j(x)} in {-1, +1} a
    tree-structured scalar classifier, α from §3.1. With real confidences each leaf gets
    c_j = ½ ln((A_j + ε)/(D_j + ε)), where A_j and D_j are the leaf's mass agreeing and
    disagreeing with v (A_j = Σ_{i in j} Σ_l W[i,l] [Y[i,l] = v_l]): Eq. 9 on the pairs
    relabelled by v.

    How it is found: v is the vote of the best factorised stump h(x, l) = v_l φ(x) at the
    root (largest edge Σ_l |d_left[l] - d_right[l]|, Kégl's discrete AdaBoost.MH stump,
    v_l = sign(d_left[l] - d_right[l])), from one histogram pass over all labels; then with
    v fixed every example carries the masses (A_i, D_i), and the tree is grown best-first
    on that one-column problem by the mode's Z (2 Σ_j sqrt(A_j D_j) for real, sqrt(1 - r²)
    with r = Σ_j |A_j - D_j| for ±1). Its root histogram is the all-label one collapsed by
    v, so a Hamming tree costs one stump pass plus one-column passes over the nodes.
    Kégl grows the tree with his factorised stumps at every node; here v is fixed at the
    root and only the partition and the c_j follow it.
    """

    def __init__(self, mode, smoothing, max_leaves=8, max_depth=None, min_leaf_weight=0.0):
        super().__init__(mode, smoothing, max_leaves, max_depth, min_leaf_weight)
        self._label_hist = None

    def fit(self, dataset, weights, labels):
        """Best-first Hamming tree for weights ``W`` (n_samples, k) and ``labels``.

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        codes, n_bins = dataset.codes, dataset.n_bins
        n_features, n_samples = codes.shape
        pos, neg = label_masses(weights, labels)
        k = pos.shape[1]
        label_hist = self._pool_labels(n_features, k)
        build_histogram(codes, weights, labels.sign_index, label_hist)
        vote = self._vote(label_hist, n_bins)
        for_vote = vote > 0
        agree = np.ascontiguousarray(
            (pos[:, for_vote].sum(axis=1) + neg[:, ~for_vote].sum(axis=1))[:, None])
        disagree = np.ascontiguousarray(
            (neg[:, for_vote].sum(axis=1) + pos[:, ~for_vote].sum(axis=1))[:, None])
        root_hist = self._pool.get((n_features, N_HIST_BINS, 1, 2))
        root_hist[:, :, 0, 0] = (label_hist[:, :, for_vote, 0].sum(axis=2)
                                 + label_hist[:, :, ~for_vote, 1].sum(axis=2))
        root_hist[:, :, 0, 1] = (label_hist[:, :, for_vote, 1].sum(axis=2)
                                 + label_hist[:, :, ~for_vote, 0].sum(axis=2))
        every_row = np.arange(n_samples, dtype=np.intp)

        def fill_histogram(rows, hist):
            node_histogram(codes, every_row if rows is None else rows, agree, disagree, hist)

        tree = self._grow(dataset, fill_histogram, 1, root_hist)
        leaf_agree, leaf_disagree = leaf_statistics(tree.train_blocks, tree.n_leaves, agree,
                                                    disagree)
        leaf_values = block_confidences(leaf_agree, leaf_disagree,
                                        np.zeros(tree.n_leaves, dtype=bool), self.mode,
                                        self.smoothing)[:, 0]
        hypothesis = HammingTreeHypothesis(tree.feature, tree.raw_thresholds(dataset),
                                           tree.missing_left, tree.left, tree.right, vote,
                                           leaf_values)
        weight_pos, weight_neg = leaf_statistics(tree.train_blocks, tree.n_leaves, pos, neg)
        return PartitionFit(hypothesis=hypothesis, train_blocks=tree.train_blocks,
                            weight_pos=weight_pos, weight_neg=weight_neg,
                            criterion=partition_criterion(leaf_agree, leaf_disagree,
                                                          self.mode, float(weights.sum())))

    def _pool_labels(self, n_features, k):
        """The all-label root histogram buffer, kept across rounds."""
        shape = (n_features, N_HIST_BINS, k, 2)
        if self._label_hist is None or self._label_hist.shape != shape:
            self._label_hist = np.empty(shape, dtype=WEIGHT_DTYPE)
        return self._label_hist

    @staticmethod
    def _vote(label_hist, n_bins):
        """v of the best factorised stump at the root, shape (k,), entries ±1."""
        n_features = label_hist.shape[0]
        edge = np.empty(n_features, dtype=np.float64)
        best_bin = np.empty(n_features, dtype=np.intp)
        missing_left = np.empty(n_features, dtype=bool)
        best_factorized_splits(label_hist, n_bins, edge, best_bin, missing_left)
        feature = int(np.argmax(edge))
        feature_hist = label_hist[feature]
        margin = feature_hist[..., 0] - feature_hist[..., 1]  # (256, k)
        b = int(best_bin[feature])
        left = margin[: b + 1].sum(axis=0)
        right = margin[b + 1: n_bins[feature]].sum(axis=0)
        if missing_left[feature]:
            left = left + margin[MISSING_BIN]
        else:
            right = right + margin[MISSING_BIN]
        return np.where(left - right >= 0, 1.0, -1.0)
