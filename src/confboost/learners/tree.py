"""One tree: the tree hypotheses over one node layout, and the tree learners.

A tree is a domain-partitioning hypothesis (paper §4.1): its leaves are the blocks, and the
confidence rule (``confidence.block_confidences``) sets the value of each leaf. Every node
of every tree has the same layout (``_dtypes.NODE_*``): a ``kind`` column (a threshold on a
continuous column, ``x <= θ``; a categorical value, ``x == v``; the presence of a term in a
text column), the table position of its ``column``, its ``threshold`` (threshold nodes) or
``value`` (the value or term of the other kinds), the side of a missing value (threshold
nodes; a missing value or text goes right at the others), and its children. A tree of
threshold nodes only is walked by the numba kernel ``kernels/tree.tree_blocks``; the other
trees by a vectorised walk over each node's go-left vector.

``TreeLearner`` grows a tree with a value per leaf and label; ``HammingTreeLearner`` a
label-independent tree with one vote vector v and a scalar confidence per leaf,
h(x, l) = v_l c_leaf (Kégl 2014). Both grow best-first by the largest drop in Z
(``learners/grower.py``) over the best split of each node over every column kind
(``learners/splitter.py``). A tree's leaves are a partition in two at each node, so there is
no abstaining block: under ``confidence="abstain"`` a tree is the discrete tree, and under
``"real-abstain"`` the real tree.
"""

import numpy as np

from confboost._dtypes import (
    BLOCK_DTYPE,
    MISSING_BIN,
    NODE_KIND_NAMES,
    NODE_TERM,
    NODE_THRESHOLD,
    NODE_VALUE,
    WEIGHT_DTYPE,
)
from confboost.confidence import block_confidences
from confboost.criterion import partition_z
from confboost.data.frame import as_frame
from confboost.kernels.categorical import value_histogram
from confboost.kernels.histogram import N_HIST_BINS, build_histogram, build_histogram_rows
from confboost.kernels.text import term_block_weights
from confboost.kernels.tree import best_factorized_splits, node_histogram, tree_blocks
from confboost.learners.base import (
    MAX_INDEX,
    PartitionFit,
    PartitionHypothesis,
    column_label,
    label_masses,
    leaf_statistics,
    saved_values,
    tree_text,
)
from confboost.learners.grower import HistogramPool, grow_tree
from confboost.learners.splitter import NodeSplits
from confboost.untrusted import (
    fail,
    read_bools,
    read_float,
    read_floats,
    read_ints,
    read_list,
    read_str,
    require,
    write_float,
)

#: The most leaves of a tree: leaf indices are ``BLOCK_DTYPE`` (uint8).
MAX_LEAVES = int(np.iinfo(BLOCK_DTYPE).max)

KIND_CODES = {name: code for code, name in enumerate(NODE_KIND_NAMES)}
#: The column kind (``data/columns.FEATURE_KINDS``) each node kind reads.
_COLUMN_KINDS = {NODE_THRESHOLD: "continuous", NODE_VALUE: "categorical", NODE_TERM: "text"}


def check_children(left, right, n_leaves_name):
    """ValueError unless the children of ``n`` saved nodes name nodes 1..n-1 and leaves
    0..n once each (so every walk from the root ends at a leaf within n steps).

    Parameters
    ----------
    left, right : ndarray of shape (n,), intp
    n_leaves_name : str
        The name of the saved per-leaf table, for the message.
    """
    n = left.shape[0]
    children = np.concatenate([left, right])
    internal = np.sort(children[children >= 0])
    leaves = np.sort(-children[children < 0] - 1)
    if n and (not np.array_equal(internal, np.arange(1, n))
              or not np.array_equal(leaves, np.arange(n + 1))):
        raise ValueError(f"left, right: tree children must name nodes 1..{n - 1} and leaves "
                         f"0..{n} once each ({n_leaves_name} has {n + 1} rows)")


def label_histograms(dataset, weights, labels):
    """The ``fill_histogram`` of a label tree on a ``Dataset``'s numeric part (``grow_tree``)."""
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


class TreeHypothesis(PartitionHypothesis):
    """A decision tree with a value per leaf and label, over the one node layout.

    Parameters
    ----------
    kind : array-like of shape (n_nodes,), int
        ``NODE_THRESHOLD``, ``NODE_VALUE`` or ``NODE_TERM`` (``_dtypes.py``).
    column : array-like of shape (n_nodes,), int
        Table position of the column each node tests.
    threshold : array-like of shape (n_nodes,), float
        Threshold nodes: ``x <= threshold`` goes left (``inf``: every value); NaN elsewhere.
    value : list of length n_nodes, str or None
        Value nodes: ``x == value`` goes left; term nodes: the term whose presence goes
        left; None at threshold nodes.
    missing_left : array-like of shape (n_nodes,), bool
        Threshold nodes: whether a missing value goes left (False elsewhere: a missing
        value or text goes right).
    left, right : array-like of shape (n_nodes,), int
        Children: ``c >= 0`` an internal node, ``c < 0`` leaf ``-c - 1``.
    values : ndarray of shape (n_nodes + 1, k)
        h(x, l) on each leaf.
    """

    type_name = "tree"
    test_layout = "tree"

    def __init__(self, kind, column, threshold, value, missing_left, left, right, values):
        self.kind = np.asarray(kind, dtype=np.intp)
        self.column = np.asarray(column, dtype=np.intp)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.value = list(value)
        self.missing_left = np.asarray(missing_left, dtype=bool)
        self.left = np.asarray(left, dtype=np.intp)
        self.right = np.asarray(right, dtype=np.intp)
        self.values = np.asarray(values, dtype=np.float64)

    def features(self):
        """Table positions of the columns the tree tests."""
        return sorted(set(self.column.tolist()))

    def test_columns(self):
        return self.column.copy()

    def tested_points(self, column):
        thresholds, values = [], []
        for node in np.flatnonzero(self.column == column).tolist():
            if self.kind[node] == NODE_VALUE:
                values.append(self.value[node])
            elif np.isfinite(self.threshold[node]):
                thresholds.append(float(self.threshold[node]))
        return thresholds, values

    def describe(self, names=None, classes=None, scale=1.0):
        def condition(node):
            name = column_label(names, self.column[node])
            if self.kind[node] == NODE_VALUE:
                return f"{name} == {self.value[node]!r}"
            if self.kind[node] == NODE_TERM:
                return f"{name} contains {self.value[node]!r}"
            threshold = self.threshold[node]
            test = f"{name} <= {threshold:.6g}" if np.isfinite(threshold) else f"{name} known"
            return test + (" or missing" if self.missing_left[node] else "")

        return tree_text(self.left, self.right, condition, self.values, classes, scale)

    def _structure(self):
        return (self.kind, self.column, self.threshold, self.value, self.missing_left,
                self.left, self.right)

    def with_columns(self, position):
        structure = list(self._structure())
        structure[1] = [position[c] for c in self.column.tolist()]
        return type(self)(*structure, *self._leaf_arguments())

    def _leaf_arguments(self):
        return (self.values,)

    def goes_left(self, X):
        """Whether each example goes left at each node, shape (n_nodes, n_samples), bool.

        Parameters
        ----------
        X : Frame or ndarray of shape (n_samples, n_columns)
        """
        X = as_frame(X)
        out = np.empty((self.kind.shape[0], X.n_samples), dtype=bool)
        for node, (kind, column) in enumerate(zip(self.kind, self.column, strict=True)):
            if kind == NODE_THRESHOLD:
                x = X.continuous_values(int(column))
                out[node] = np.where(np.isnan(x), self.missing_left[node],
                                     x <= self.threshold[node])
            elif kind == NODE_VALUE:
                out[node] = X.categorical_blocks(int(column), self.value[node]) == 0
            else:
                out[node] = X.term_blocks(int(column), self.value[node]) == 0
        return out

    def blocks(self, X):
        """Leaf of each example, shape (n_samples,), uint8."""
        X = as_frame(X)
        if np.all(self.kind == NODE_THRESHOLD):
            for column in np.unique(self.column):
                X.continuous_values(int(column))  # ValueError if not a continuous column
            numeric = np.ascontiguousarray(X.numeric, dtype=np.float64)
            out = np.empty(X.n_samples, dtype=BLOCK_DTYPE)
            tree_blocks(numeric, self.column, self.threshold, self.missing_left, self.left,
                        self.right, out)
            return out
        node = np.zeros(X.n_samples, dtype=np.intp)
        goes_left = self.goes_left(X)
        active = np.arange(X.n_samples)
        while active.size:
            here = node[active]
            node[active] = np.where(goes_left[here, active], self.left[here], self.right[here])
            active = active[node[active] >= 0]
        return (-node - 1).astype(BLOCK_DTYPE)

    def columns_read(self):
        return [(_COLUMN_KINDS[int(kind)], int(column))
                for kind, column in zip(self.kind, self.column, strict=True)]

    def _structure_dict(self):
        return {"type": self.type_name,
                "kind": [NODE_KIND_NAMES[int(kind)] for kind in self.kind],
                "column": self.column.tolist(),
                "threshold": [None if kind != NODE_THRESHOLD else write_float(t)
                              for kind, t in zip(self.kind, self.threshold.tolist(),
                                                 strict=True)],
                "value": list(self.value),
                "missing_left": self.missing_left.tolist(),
                "left": self.left.tolist(), "right": self.right.tolist()}

    def to_dict(self):
        return {**self._structure_dict(), "values": self.values.tolist()}

    @staticmethod
    def _structure_from_dict(data, n_leaves_name):
        """Validated node arrays of a saved tree; ValueError naming the bad field."""
        names = read_list(require(data, "kind", "tree"), "kind", max_length=MAX_LEAVES - 1)
        n = len(names)
        for node, name in enumerate(names):
            if not isinstance(name, str) or name not in KIND_CODES:
                fail(f"kind[{node}]", f"must be one of {list(NODE_KIND_NAMES)}", name)
        columns = read_ints(require(data, "column", "tree"), "column", 0, MAX_INDEX, n)
        thresholds = read_list(require(data, "threshold", "tree"), "threshold", n)
        values = read_list(require(data, "value", "tree"), "value", n)
        missing_left = read_bools(require(data, "missing_left", "tree"), "missing_left", n)
        threshold = np.full(n, np.nan)
        for node, (name, t, value) in enumerate(zip(names, thresholds, values, strict=True)):
            if name == "threshold":
                threshold[node] = read_float(t, f"threshold[{node}]", infinite=True)
                if value is not None:
                    fail(f"value[{node}]", "must be null at a threshold node", value)
            else:
                read_str(value, f"value[{node}]")
                if t is not None:
                    fail(f"threshold[{node}]", f"must be null at a {name} node", t)
                if missing_left[node]:
                    fail(f"missing_left[{node}]", f"must be false at a {name} node", True)
        left = read_ints(require(data, "left", "tree"), "left", -n - 1, n, n)
        right = read_ints(require(data, "right", "tree"), "right", -n - 1, n, n)
        check_children(left, right, n_leaves_name)
        kind = np.array([KIND_CODES[name] for name in names], dtype=np.intp)
        return kind, columns, threshold, values, missing_left, left, right

    @classmethod
    def from_dict(cls, data):
        """Inverse of ``to_dict``; ValueError naming the bad field."""
        structure = cls._structure_from_dict(data, "values")
        return cls(*structure, saved_values(data, structure[0].shape[0] + 1))


class HammingTreeHypothesis(TreeHypothesis):
    """A Hamming tree: h(x, l) = v_l c_{leaf(x)} (Kégl 2014).

    One vote vector v in {-1, +1}^k for the whole tree and one scalar confidence per leaf:
    the partition is the same for every label, and a label's output is the leaf's
    confidence signed by its vote.

    Parameters
    ----------
    kind, column, threshold, value, missing_left, left, right
        As in ``TreeHypothesis``.
    vote : array-like of shape (k,)
        v, entries ±1.
    leaf_values : array-like of shape (n_nodes + 1,)
        c_j of each leaf.
    """

    type_name = "hamming_tree"

    def __init__(self, kind, column, threshold, value, missing_left, left, right, vote,
                 leaf_values):
        self.vote = np.asarray(vote, dtype=np.float64)
        self.leaf_values = np.asarray(leaf_values, dtype=np.float64)
        super().__init__(kind, column, threshold, value, missing_left, left, right,
                         np.outer(self.leaf_values, self.vote))

    def _leaf_arguments(self):
        return (self.vote, self.leaf_values)

    def set_leaf_values(self, leaf_values):
        """Set every leaf's c_j (scalar or shape (n_nodes + 1,)) and the values c_j v_l."""
        self.leaf_values[:] = leaf_values
        self.values[:] = np.outer(self.leaf_values, self.vote)

    def to_dict(self):
        return {**self._structure_dict(), "vote": self.vote.tolist(),
                "leaf_values": self.leaf_values.tolist()}

    @classmethod
    def from_dict(cls, data):
        """Inverse of ``to_dict``; ValueError naming the bad field."""
        structure = cls._structure_from_dict(data, "leaf_values")
        vote = read_floats(require(data, "vote", "hamming tree"), "vote", (None,))
        if vote.size == 0 or not np.all(np.abs(vote) == 1):
            fail("vote", "a Hamming tree's vote must be a non-empty vector of -1 and +1",
                 vote.tolist())
        leaf_values = read_floats(require(data, "leaf_values", "hamming tree"), "leaf_values",
                                  (structure[0].shape[0] + 1,))
        return cls(*structure, vote, leaf_values)


def _no_feature_error():
    return ValueError("the data has no usable feature (every column is ignored or empty)")


def hypothesis_nodes(tree, dataset, splits):
    """The node arrays of a grown tree in the saved layout: (kind, column, threshold,
    value, missing_left), columns at their table positions."""
    column, threshold, value = [], [], []
    for kind, index, code in zip(tree.kind, tree.feature, tree.threshold_bin, strict=True):
        if kind == NODE_THRESHOLD:
            column.append(int(dataset.numeric_columns[index]))
            threshold.append(dataset.raw_threshold(index, code))
            value.append(None)
        else:
            position, name = splits.describe((kind, index, code, False))
            column.append(position)
            threshold.append(np.nan)
            value.append(name)
    return tree.kind, column, threshold, value, tree.missing_left


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
        self._pool = HistogramPool()

    def _grow(self, dataset, fill_histogram, n_columns, splits, root_hist=None):
        numeric = dataset if dataset.has_numeric else None
        if numeric is None and not splits:
            raise _no_feature_error()
        return grow_tree(numeric, fill_histogram if numeric is not None else None, n_columns,
                         self.mode, self.max_leaves, self.max_depth, self.min_leaf_weight,
                         self._pool, root_hist, splits or None)

    def fit(self, dataset, weights, labels):
        """Best-first tree for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Parameters
        ----------
        dataset : Dataset
        weights : ndarray of shape (n_samples, k)
        labels : LabelSigns

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        pos, neg = label_masses(weights, labels)
        splits = NodeSplits(dataset, pos, neg, self.mode, self.min_leaf_weight)
        tree = self._grow(dataset, label_histograms(dataset, weights, labels),
                          weights.shape[1], splits)
        values, fit = self._leaf_fit(tree, pos, neg)
        return fit(TreeHypothesis(*hypothesis_nodes(tree, dataset, splits), tree.left,
                                  tree.right, values))

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

    On a table with categorical and text columns the vote comes from the best factorised
    split at the root over every kind: a continuous column's factorised stump, a
    categorical ``x == v`` against the rest, a term's presence; each gives margins
    d_left[l], d_right[l] (W+ - W- of each side), edge Σ_l |d_left[l] - d_right[l]| and
    v_l = sign(d_left[l] - d_right[l]).
    """

    def __init__(self, mode, smoothing, max_leaves=8, max_depth=None, min_leaf_weight=0.0):
        super().__init__(mode, smoothing, max_leaves, max_depth, min_leaf_weight)
        self._label_hist = None

    def fit(self, dataset, weights, labels):
        """Best-first Hamming tree for weights ``W`` (n_samples, k) and ``labels``.

        Parameters
        ----------
        dataset : Dataset
        weights : ndarray of shape (n_samples, k)
        labels : LabelSigns

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        pos, neg = label_masses(weights, labels)
        best = None  # (edge, vote)
        if dataset.has_numeric:
            label_hist = self._pool_labels(dataset.codes.shape[0], pos.shape[1])
            build_histogram(dataset.codes, weights, labels.sign_index, label_hist)
            best = self._vote(label_hist, dataset.n_bins)
        for edge, vote in self._other_votes(dataset, weights, labels):
            if best is None or edge > best[0]:
                best = (edge, vote)
        if best is None:
            raise _no_feature_error()
        vote = best[1]
        agree, disagree = agreement_masses(pos, neg, vote)
        splits = NodeSplits(dataset, agree, disagree, self.mode, self.min_leaf_weight)
        fill, root_hist = None, None
        if dataset.has_numeric:
            codes = dataset.codes
            every_row = np.arange(codes.shape[1], dtype=np.intp)

            def fill(rows, hist):
                node_histogram(codes, every_row if rows is None else rows, agree, disagree,
                               hist)

            root_hist = self._collapse(label_hist, vote)
        tree = self._grow(dataset, fill, 1, splits, root_hist)
        leaf_values, fit = self._leaf_fit(tree, agree, disagree, pos, neg)
        return fit(HammingTreeHypothesis(*hypothesis_nodes(tree, dataset, splits), tree.left,
                                         tree.right, vote, leaf_values))

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

    @staticmethod
    def _other_votes(dataset, weights, labels):
        """(edge, vote) of the best factorised categorical and term split of each column.

        A split with left margins d[l] and node margins M[l] (W+ - W- over all examples)
        has d_left - d_right = 2 d - M: edge Σ_l |2 d[l] - M[l]|, vote sign(2 d - M)
        (+1 on ties, as the numeric vote). The term margins come from
        ``kernels/text.term_block_weights``, an (n_lists, k) array per text column (one row
        per distinct posting list).
        """
        margin_total = np.where(labels.signs > 0, weights, -weights).sum(axis=0)
        for column in dataset.categorical:
            if not column.values:
                continue
            w_plus, w_minus = value_histogram(column.codes, len(column.values), weights,
                                              labels.signs)
            yield _best_factorised(w_plus[:-1] - w_minus[:-1], margin_total)
        for column in dataset.text:
            if column.indptr.shape[0] == 1:
                continue
            w_plus, w_minus = term_block_weights(column.distinct_indptr,
                                                 column.distinct_indices, weights,
                                                 labels.signs)
            yield _best_factorised(w_plus - w_minus, margin_total)


def _best_factorised(left_margin, margin_total):
    """Edge and vote of the best of several two-sided splits from their left margins.

    Parameters
    ----------
    left_margin : ndarray of shape (n_splits, k)
    margin_total : ndarray of shape (k,)

    Returns
    -------
    edge : float
    vote : ndarray of shape (k,), ±1
    """
    difference = 2.0 * left_margin - margin_total
    edges = np.abs(difference).sum(axis=1)
    best = int(np.argmax(edges))
    return float(edges[best]), np.where(difference[best] >= 0, 1.0, -1.0)
