"""Decision trees grown by Z (Kearns & Mansour's criterion), and Hamming trees.

Owns ``TreeLearner`` and ``HammingTreeLearner``, their hypotheses, and the best-first growth
they share. A tree is a domain-partitioning hypothesis (paper §4.1): its leaves are the
blocks, and the confidence rule (``confidence.block_confidences``) sets the value of each
leaf.

Growth (``grow_tree``) is best-first: every leaf holds its best split, and the leaf whose
split lowers the tree's Z the most is split next, until ``max_leaves`` leaves, or no leaf
has a split that lowers Z (within ``max_depth`` and ``min_leaf_weight``). The Z of a set of
leaves is the criterion of the confidence mode (``criterion.py``): 2 Σ_j Σ_l
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
other feature kinds plug in as other partitions: ``grow_tree`` takes their best split per
node from ``other_splits`` and each node records its kind (``NUMERIC``, ``CATEGORICAL``,
``TERM``); ``learners/mixed_tree.py`` grows trees on tables with categorical and text
columns this way.
"""

import heapq

import numpy as np

from confboost._dtypes import BLOCK_DTYPE, MISSING_BIN, WEIGHT_DTYPE
from confboost.confidence import block_confidences
from confboost.criterion import partition_z
from confboost.kernels.histogram import N_HIST_BINS, build_histogram, build_histogram_rows
from confboost.kernels.tree import (
    best_factorized_splits,
    best_node_splits,
    node_histogram,
    partition_rows,
    subtract_sibling,
    tree_blocks,
)
from confboost.learners.base import (
    PartitionFit,
    PartitionHypothesis,
    column_label,
    tree_text,
)

#: Most bytes of node histograms a growing tree keeps for its waiting leaves (1 GiB). Past
#: it the histograms of the leaves of least gain are dropped, and rebuilt from their rows
#: if those leaves are split; the tree is the same. (One fashion-mnist histogram, 784
#: features x 256 bins x 10 labels x 2, is 32 MB.)
HISTOGRAM_MEMORY = 2**30

#: The most leaves of a tree: leaf indices are ``BLOCK_DTYPE`` (uint8).
MAX_LEAVES = int(np.iinfo(BLOCK_DTYPE).max)


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


def label_histograms(dataset, weights, labels):
    """The ``fill_histogram`` of a label tree on a binned ``Dataset`` (see ``grow_tree``)."""
    codes, sign_index = dataset.codes, labels.sign_index

    def fill_histogram(rows, hist):
        if rows is None:
            build_histogram(codes, weights, sign_index, hist)
        else:
            build_histogram_rows(codes, rows, weights[rows], sign_index[rows], hist)

    return fill_histogram


def agreement_masses(pos, neg, vote):
    """Each example's mass agreeing and disagreeing with the vote v, shape (n, 1) each.

    A_i = Σ_l W[i,l] [Y[i,l] = v_l], D_i = Σ_l W[i,l] [Y[i,l] ≠ v_l], from
    ``pos``, ``neg`` = ``label_masses``, shape (n, k), and ``vote``, shape (k,).
    """
    for_vote = vote > 0
    agree = pos[:, for_vote].sum(axis=1) + neg[:, ~for_vote].sum(axis=1)
    disagree = neg[:, for_vote].sum(axis=1) + pos[:, ~for_vote].sum(axis=1)
    return (np.ascontiguousarray(agree[:, None], dtype=WEIGHT_DTYPE),
            np.ascontiguousarray(disagree[:, None], dtype=WEIGHT_DTYPE))


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


#: Split kinds of a grown tree's nodes: a threshold on a binned numeric feature, a
#: categorical value test (``x == v`` left, any other value or missing right), the presence
#: of a term in a text column (present left, absent or missing text right).
NUMERIC, CATEGORICAL, TERM = 0, 1, 2


class GrownTree:
    """The structure of a grown tree on bin codes (and value codes, term indices).

    Attributes
    ----------
    kind : ndarray of shape (n_nodes,), intp
        ``NUMERIC``, ``CATEGORICAL`` or ``TERM`` (all ``NUMERIC`` for numeric data).
    feature : ndarray of shape (n_nodes,), intp
        The numeric feature; for the other kinds the index of the categorical or text column
        in the ``MixedDataset``'s list of them.
    threshold_bin : ndarray of shape (n_nodes,), intp
        Bin threshold (numeric: codes ``<= threshold_bin`` go left); for the other kinds the
        value code or term index that goes left.
    left, right : ndarray of shape (n_nodes,), intp
        Internal nodes (node 0 is the root); a child ``c < 0`` is leaf ``-c - 1``.
    missing_left : ndarray of shape (n_nodes,), bool
        Numeric splits only (False for the other kinds: a missing value goes right).
    train_blocks : ndarray of shape (n_samples,), uint8
        Leaf of each training example; leaves are numbered left to right.
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

    def raw_thresholds(self, dataset):
        """Raw-value thresholds of the numeric nodes (``inf`` where every value goes left,
        NaN at nodes of another kind)."""
        return np.array([np.nan if kind != NUMERIC
                         else dataset.bin_mapper.threshold(f, b) if b < dataset.n_bins[f] - 1
                         else np.inf
                         for kind, f, b in zip(self.kind, self.feature, self.threshold_bin,
                                               strict=True)], dtype=np.float64)


def grow_tree(dataset, fill_histogram, n_columns, mode, max_leaves, max_depth,
              min_leaf_weight, pool, root_hist=None, other_splits=None):
    """Best-first growth by the largest drop in Z (see the module docstring).

    Parameters
    ----------
    dataset : Dataset or None
        The binned numeric features; None when there are none (``other_splits`` then
        proposes every split).
    fill_histogram : callable or None
        ``fill_histogram(rows, hist)`` overwrites ``hist`` with the W+ and W- of the examples
        ``rows`` (intp; None for all) per (feature, bin, column). None with ``dataset``.
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
    other_splits : object, optional
        Splits on the other feature kinds (``learners/mixed_tree.NodeSplits``):
        ``n_samples``; ``best(rows)`` -> (gain, split) or None, the node's best such split
        by the same gain as ``best_node_splits``, ``split = (kind, index, code, False)``;
        ``partition(split, rows, start, stop)`` -> n_left, which reorders
        ``rows[start:stop]`` as ``partition_rows`` does. On equal gains a numeric split wins.

    Returns
    -------
    GrownTree
    """
    if dataset is not None:
        codes, n_bins = dataset.codes, dataset.n_bins
        n_features, n_samples = codes.shape
        shape = (n_features, N_HIST_BINS, n_columns, 2)
        scratch = np.empty(n_samples, dtype=np.intp)
        gain = np.empty(n_features, dtype=np.float64)
        split_bin = np.empty(n_features, dtype=np.intp)
        split_missing_left = np.empty(n_features, dtype=bool)
    else:
        n_samples = other_splits.n_samples
    rows = np.arange(n_samples, dtype=np.intp)
    # nodes: [start, stop, depth, split or None, children or None]
    nodes = [[0, n_samples, 0, None, None]]
    hists = {}
    candidates = []

    def numeric_split(hist):
        """(gain, split) of the node's best numeric split, or None."""
        best_node_splits(hist, n_bins, mode, min_leaf_weight, gain, split_bin,
                         split_missing_left)
        feature = int(np.argmax(gain))
        if not gain[feature] > 0.0:
            return None
        b = int(split_bin[feature])
        missing_left = bool(split_missing_left[feature])
        if not hist[feature, MISSING_BIN].any():
            # no missing value seen here: send it to the child of larger training weight
            missing_left = bool(hist[feature, : b + 1].sum()
                                >= hist[feature, b + 1: n_bins[feature]].sum())
        return float(gain[feature]), (NUMERIC, feature, b, missing_left)

    def consider(node_id, hist):
        start, stop, depth = nodes[node_id][:3]
        best = None
        if stop - start >= 2 and (max_depth is None or depth < max_depth):
            if hist is not None:
                best = numeric_split(hist)
            if other_splits is not None:
                found = other_splits.best(rows[start:stop])
                if found is not None and found[0] > 0.0 and (best is None
                                                             or found[0] > best[0]):
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

    if dataset is not None and root_hist is None:
        root_hist = pool.get(shape)
        fill_histogram(None, root_hist)
    consider(0, root_hist)
    n_leaves = 1
    while candidates and n_leaves < max_leaves:
        _, node_id, split = heapq.heappop(candidates)
        start, stop, depth = nodes[node_id][:3]
        kind, index, code, missing_left = split
        if kind == NUMERIC:
            n_left = partition_rows(codes[index], rows, start, stop, code, missing_left,
                                    scratch)
        else:
            n_left = other_splits.partition(split, rows, start, stop)
        children = (len(nodes), len(nodes) + 1)
        nodes[node_id][3] = split
        nodes[node_id][4] = children
        nodes.append([start, start + n_left, depth + 1, None, None])
        nodes.append([start + n_left, stop, depth + 1, None, None])
        n_leaves += 1
        if n_leaves == max_leaves:  # the children will not split: no search for them
            break
        small, large = children if n_left <= stop - start - n_left else children[::-1]
        if dataset is None:
            consider(small, None)
            consider(large, None)
            continue
        small_hist = pool.get(shape)
        fill_histogram(rows[nodes[small][0]: nodes[small][1]], small_hist)
        large_hist = hists.pop(node_id, None)
        if large_hist is None:  # dropped under HISTOGRAM_MEMORY: the parent's, from its rows
            large_hist = pool.get(shape)
            fill_histogram(rows[start:stop], large_hist)
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
    kind = np.empty(n, dtype=np.intp)
    feature = np.empty(n, dtype=np.intp)
    threshold_bin = np.empty(n, dtype=np.intp)
    missing_left = np.empty(n, dtype=bool)
    left = np.empty(n, dtype=np.intp)
    right = np.empty(n, dtype=np.intp)
    for position, node_id in enumerate(internal):
        (kind[position], feature[position], threshold_bin[position],
         missing_left[position]) = nodes[node_id][3]
        left[position], right[position] = (ref(c) for c in nodes[node_id][4])
    train_blocks = np.empty(n_samples, dtype=BLOCK_DTYPE)
    for node_id, leaf in leaf_index.items():
        train_blocks[rows[nodes[node_id][0]: nodes[node_id][1]]] = leaf
    return GrownTree(kind, feature, threshold_bin, missing_left, left, right, train_blocks,
                     len(leaf_index))


def check_children(left, right, n_leaves_name):
    """ValueError unless the children of ``n`` saved nodes name nodes 1..n-1 and leaves
    0..n once each.

    Parameters
    ----------
    left, right : ndarray of shape (n,)
    n_leaves_name : str
        The name of the saved per-leaf table, for the message.
    """
    n = left.shape[0]
    children = np.concatenate([left, right])
    if children.size and children.dtype.kind not in "iu":
        raise ValueError("tree children must be integers")
    children = children.astype(np.intp)
    internal = np.sort(children[children >= 0])
    leaves = np.sort(-children[children < 0] - 1)
    if n and (not np.array_equal(internal, np.arange(1, n))
              or not np.array_equal(leaves, np.arange(n + 1))):
        raise ValueError(f"tree children must name nodes 1..{n - 1} and leaves "
                         f"0..{n} once each ({n_leaves_name} has {n + 1} rows)")


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

    def goes_left(self, X):
        """Whether each example goes left at each node, shape (n_nodes, n_samples), bool."""
        X = np.asarray(X, dtype=np.float64)
        values = X[:, self.feature].T
        return np.where(np.isnan(values), self.missing_left[:, None],
                        values <= self.threshold[:, None])

    def blocks(self, X):
        X = np.ascontiguousarray(X, dtype=np.float64)
        out = np.empty(X.shape[0], dtype=BLOCK_DTYPE)
        tree_blocks(X, self.feature, self.threshold, self.missing_left, self.left, self.right,
                    out)
        return out

    def describe(self, names=None, classes=None, scale=1.0):
        def condition(node):
            name = column_label(names, self.feature[node])
            threshold = self.threshold[node]
            test = f"{name} <= {threshold:.6g}" if np.isfinite(threshold) else f"{name} known"
            return test + (" or missing" if self.missing_left[node] else "")

        return tree_text(self.left, self.right, condition, self.values, classes, scale)

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
        check_children(left, right, n_leaves_name)
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
        Confidence mode code (``criterion.MODES``).
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

    def _grow(self, dataset, fill_histogram, n_columns, root_hist=None, other_splits=None):
        return grow_tree(dataset, fill_histogram, n_columns, self.mode, self.max_leaves,
                         self.max_depth, self.min_leaf_weight, self._pool, root_hist,
                         other_splits)

    def fit(self, dataset, weights, labels):
        """Best-first tree for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        tree = self._grow(dataset, label_histograms(dataset, weights, labels), weights.shape[1])
        pos, neg = label_masses(weights, labels)
        values, fit = self._leaf_fit(tree, pos, neg)
        return fit(TreeHypothesis(tree.feature, tree.raw_thresholds(dataset),
                                  tree.missing_left, tree.left, tree.right, values))

    def _leaf_fit(self, tree, pos, neg):
        """The leaf values, shape (n_leaves, k), and a function of the hypothesis giving its
        ``PartitionFit``."""
        weight_pos, weight_neg = leaf_statistics(tree.train_blocks, tree.n_leaves, pos, neg)
        values = block_confidences(weight_pos, weight_neg, np.zeros(tree.n_leaves, dtype=bool),
                                   self.mode, self.smoothing)
        criterion = partition_z(weight_pos, weight_neg, None, self.mode,
                                float(pos.sum() + neg.sum()))

        def fit(hypothesis):
            return PartitionFit(hypothesis=hypothesis, train_blocks=tree.train_blocks,
                                weight_pos=weight_pos, weight_neg=weight_neg,
                                criterion=criterion)

        return values, fit


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
        label_hist = self._pool_labels(n_features, pos.shape[1])
        build_histogram(codes, weights, labels.sign_index, label_hist)
        _, vote = self._vote(label_hist, n_bins)
        agree, disagree = agreement_masses(pos, neg, vote)
        every_row = np.arange(n_samples, dtype=np.intp)

        def fill_histogram(rows, hist):
            node_histogram(codes, every_row if rows is None else rows, agree, disagree, hist)

        tree = self._grow(dataset, fill_histogram, 1, self._collapse(label_hist, vote))
        leaf_values, fit = self._leaf_fit(tree, agree, disagree, pos, neg)
        hypothesis = HammingTreeHypothesis(tree.feature, tree.raw_thresholds(dataset),
                                           tree.missing_left, tree.left, tree.right, vote,
                                           leaf_values)
        return fit(hypothesis)

    def _collapse(self, label_hist, vote):
        """The one-column root histogram (agreeing, disagreeing mass) of the all-label one."""
        for_vote = vote > 0
        root_hist = self._pool.get((label_hist.shape[0], N_HIST_BINS, 1, 2))
        root_hist[:, :, 0, 0] = (label_hist[:, :, for_vote, 0].sum(axis=2)
                                 + label_hist[:, :, ~for_vote, 1].sum(axis=2))
        root_hist[:, :, 0, 1] = (label_hist[:, :, for_vote, 1].sum(axis=2)
                                 + label_hist[:, :, ~for_vote, 0].sum(axis=2))
        return root_hist

    def _leaf_fit(self, tree, agree, disagree, pos, neg):
        """The leaf confidences c_j, shape (n_leaves,), and a function of the hypothesis
        giving its ``PartitionFit`` (block statistics per label, Z of the agree/disagree
        problem)."""
        leaf_agree, leaf_disagree = leaf_statistics(tree.train_blocks, tree.n_leaves, agree,
                                                    disagree)
        leaf_values = block_confidences(leaf_agree, leaf_disagree,
                                        np.zeros(tree.n_leaves, dtype=bool), self.mode,
                                        self.smoothing)[:, 0]
        weight_pos, weight_neg = leaf_statistics(tree.train_blocks, tree.n_leaves, pos, neg)
        criterion = partition_z(leaf_agree, leaf_disagree, None, self.mode,
                                float(pos.sum() + neg.sum()))

        def fit(hypothesis):
            return PartitionFit(hypothesis=hypothesis, train_blocks=tree.train_blocks,
                                weight_pos=weight_pos, weight_neg=weight_neg,
                                criterion=criterion)

        return leaf_values, fit

    def _pool_labels(self, n_features, k):
        """The all-label root histogram buffer, kept across rounds."""
        shape = (n_features, N_HIST_BINS, k, 2)
        if self._label_hist is None or self._label_hist.shape != shape:
            self._label_hist = np.empty(shape, dtype=WEIGHT_DTYPE)
        return self._label_hist

    @staticmethod
    def _vote(label_hist, n_bins):
        """The edge and v of the best factorised stump at the root: (float, (k,) ±1)."""
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
        return float(edge[feature]), np.where(left - right >= 0, 1.0, -1.0)
