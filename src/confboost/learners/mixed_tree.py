"""Trees and Hamming trees on mixed tables: continuous, categorical and text columns.

A tree's node splits its rows in two (paper §4.1: the leaves are the blocks of a
domain-partitioning hypothesis). On a ``MixedDataset`` a node may split on

- a continuous column: ``x <= θ`` left, a missing value to the side learned at the node,
  found from the numeric histograms exactly as in ``learners/tree.py`` (the smaller child's
  histogram built from its rows, the larger's by subtraction);
- a categorical column: ``x == v`` left, any other value and a missing value right, for
  every value v seen in training, from the column's value histogram over the node's rows
  (O(n_node · k) per column);
- a text column: term t present left, absent right (a missing text holds no term), from the
  term postings restricted to the node's rows (``kernels/tree.node_term_gains``,
  O(nnz · k) per column and node).

Every candidate is scored by the same drop in Z as a numeric split (``kernels/tree.py``):
real confidences s = Σ_l 2 sqrt(W+ W-) (Eq. 10, 16; Z = Σ_leaves s, Kearns & Mansour's
criterion), ±1 confidences s = -Σ_l |W+ - W-| (§3.1); the node's best split over every kind
is its candidate in the best-first growth (``grow_tree``; on equal gains numeric, then
categorical, then text, each in column order). A tree has no abstaining block, so a missing
categorical value or text goes right with the other non-matching examples.

The Hamming tree (h(x, l) = v_l c_leaf, Kégl 2014) takes its vote v from the best
factorised split at the root over every kind: a continuous column's factorised stump (as on
numeric data), a categorical ``x == v`` against the rest, a term's presence; each gives
margins d_left[l], d_right[l] (W+ - W- of each side), edge Σ_l |d_left[l] - d_right[l]| and
v_l = sign(d_left[l] - d_right[l]). The one-column agree/disagree problem is then grown with
the same mixed node splits.

Prediction (``MixedTreeHypothesis.blocks``) reads a ``MixedFrame``: each node's go-left
vector from the continuous values, ``categorical_blocks`` or ``term_blocks``, then one
vectorised walk from the root.
"""

import numpy as np

from confboost._dtypes import BLOCK_DTYPE, WEIGHT_DTYPE
from confboost.criterion import split_gain
from confboost.kernels.categorical import value_histogram
from confboost.kernels.histogram import build_histogram
from confboost.kernels.text import term_block_weights
from confboost.kernels.tree import node_histogram, node_term_gains
from confboost.learners.base import PartitionHypothesis, column_label, tree_text
from confboost.learners.tree import (
    CATEGORICAL,
    NUMERIC,
    TERM,
    HammingTreeLearner,
    TreeLearner,
    agreement_masses,
    check_children,
    label_histograms,
    label_masses,
)

#: Node kinds as saved (``data/frame.FEATURE_KINDS`` names), by ``GrownTree.kind`` code.
KIND_NAMES = {NUMERIC: "continuous", CATEGORICAL: "categorical", TERM: "text"}
KIND_CODES = {name: code for code, name in KIND_NAMES.items()}


def categorical_node_gains(codes, rows, n_values, pos, neg, mode, least_mass):
    """The drop in Z of each value test ``x == v`` at a node (missing goes right).

    Parameters
    ----------
    codes : ndarray of shape (n_samples,), int32
        Value code of each example, -1 where missing.
    rows : ndarray of shape (n_rows,), intp
        The node's rows.
    n_values : int
    pos, neg : ndarray of shape (n_samples, k)
        Positive and negative mass of each example and column.
    mode : int
        Confidence mode code.
    least_mass : float
        Least mass of a child.

    Returns
    -------
    gains : ndarray of shape (n_values,)
        score(node) - score(= v) - score(≠ v), -inf where a child is lighter than
        ``least_mass``.
    """
    node_pos, node_neg = pos[rows].sum(axis=0), neg[rows].sum(axis=0)
    node_codes = codes[rows]
    known = node_codes >= 0
    known_codes = node_codes[known]
    known_pos, known_neg = pos[rows[known]], neg[rows[known]]
    k = pos.shape[1]
    equal_pos = np.empty((n_values, k), dtype=WEIGHT_DTYPE)
    equal_neg = np.empty((n_values, k), dtype=WEIGHT_DTYPE)
    for l in range(k):
        equal_pos[:, l] = np.bincount(known_codes, known_pos[:, l], minlength=n_values)
        equal_neg[:, l] = np.bincount(known_codes, known_neg[:, l], minlength=n_values)
    gains = split_gain(node_pos, node_neg, equal_pos, equal_neg, mode)
    equal_mass = equal_pos.sum(axis=1) + equal_neg.sum(axis=1)
    rest_mass = node_pos.sum() + node_neg.sum() - equal_mass
    gains[(equal_mass < least_mass) | (rest_mass < least_mass)] = -np.inf
    return gains


class NodeSplits:
    """The categorical and term splits of a node (``grow_tree``'s ``other_splits``).

    Parameters
    ----------
    dataset : MixedDataset
    pos, neg : ndarray of shape (n_samples, c), float64, C-contiguous
        Positive and negative mass of each example and histogram column.
    mode : int
        Confidence mode code.
    min_leaf_weight : float
    """

    def __init__(self, dataset, pos, neg, mode, min_leaf_weight):
        self.categorical = [column for column in dataset.categorical if column.values]
        self.text = [column for column in dataset.text if column.indptr.shape[0] > 1]
        self.pos, self.neg = pos, neg
        self.mode = mode
        self.min_leaf_weight = min_leaf_weight
        self.n_samples = dataset.n_samples
        self._in_node = np.zeros(dataset.n_samples, dtype=bool)
        self._present = np.zeros(dataset.n_samples, dtype=bool)

    def __bool__(self):
        return bool(self.categorical or self.text)

    def best(self, rows):
        """The node's best categorical or term split: (gain, (kind, index, code, False)),
        or None when there is none; ``index`` is the column's position in
        ``self.categorical`` or ``self.text``."""
        pos, neg = self.pos, self.neg
        node_pos, node_neg = pos[rows].sum(axis=0), neg[rows].sum(axis=0)
        node_mass = float(node_pos.sum() + node_neg.sum())
        least_mass = max(self.min_leaf_weight, 1e-12 * node_mass)
        best = None
        for index, column in enumerate(self.categorical):
            gains = categorical_node_gains(column.codes, rows, len(column.values), pos, neg,
                                           self.mode, least_mass)
            code = int(np.argmax(gains))
            if best is None or gains[code] > best[0]:
                best = (float(gains[code]), (CATEGORICAL, index, code, False))
        if self.text:
            self._in_node[rows] = True
            for index, column in enumerate(self.text):
                # one gain per distinct posting list; the first term of the best list is
                # the first term of the largest gain (``data/frame.TextColumn``)
                gains = np.empty(column.distinct_first_term.shape[0], dtype=np.float64)
                node_term_gains(column.distinct_indptr, column.distinct_indices,
                                self._in_node, pos, neg, node_pos, node_neg, self.mode,
                                least_mass, gains)
                best_list = int(np.argmax(gains))
                if best is None or gains[best_list] > best[0]:
                    term = int(column.distinct_first_term[best_list])
                    best = (float(gains[best_list]), (TERM, index, term, False))
            self._in_node[rows] = False
        return best

    def goes_left(self, split, rows):
        """Whether each of ``rows`` goes left under a categorical or term split, shape
        (n_rows,), bool."""
        kind, index, code, _ = split
        if kind == CATEGORICAL:
            return self.categorical[index].codes[rows] == code
        column = self.text[index]
        documents = column.indices[column.indptr[code]: column.indptr[code + 1]]
        self._present[documents] = True
        left = self._present[rows]
        self._present[documents] = False
        return left

    def partition(self, split, rows, start, stop):
        """Stably reorder ``rows[start:stop]`` into the left child's rows, then the right's;
        returns the number that go left."""
        node_rows = rows[start:stop]
        left = self.goes_left(split, node_rows)
        n_left = int(left.sum())
        rows[start:stop] = np.concatenate([node_rows[left], node_rows[~left]])
        return n_left

    def describe(self, split):
        """Table column and saved value (categorical value or term) of a split."""
        kind, index, code, _ = split
        if kind == CATEGORICAL:
            column = self.categorical[index]
            return column.column, column.values[code]
        column = self.text[index]
        return column.column, column.terms[code]


def _hypothesis_nodes(tree, dataset, splits):
    """Saved node arrays of a grown tree: (kind, column, threshold, value, missing_left)."""
    thresholds = (tree.raw_thresholds(dataset.numeric) if dataset.numeric is not None
                  else np.full(tree.kind.shape[0], np.nan))
    column, value = [], []
    for kind, index, code in zip(tree.kind, tree.feature, tree.threshold_bin, strict=True):
        if kind == NUMERIC:
            column.append(dataset.numeric_columns[index])
            value.append(None)
        else:
            position, name = splits.describe((kind, index, code, False))
            column.append(position)
            value.append(name)
    return tree.kind, column, thresholds, value, tree.missing_left


def _no_feature_error():
    return ValueError("the data has no usable feature (every column is ignored or empty)")


class MixedTreeHypothesis(PartitionHypothesis):
    """A decision tree on a mixed table, with a value per leaf and label.

    Parameters
    ----------
    kind : array-like of shape (n_nodes,), int
        ``NUMERIC``, ``CATEGORICAL`` or ``TERM`` (``learners/tree.py``).
    column : array-like of shape (n_nodes,), int
        Table position of the column each node tests.
    threshold : array-like of shape (n_nodes,), float
        Continuous nodes: ``x <= threshold`` goes left (``inf``: every value); NaN elsewhere.
    value : list of length n_nodes, str or None
        Categorical nodes: ``x == value`` goes left; text nodes: the term whose presence
        goes left; None at continuous nodes.
    missing_left : array-like of shape (n_nodes,), bool
        Continuous nodes: whether a missing value goes left (False elsewhere: a missing
        categorical value or text goes right).
    left, right : array-like of shape (n_nodes,), int
        Children: ``c >= 0`` an internal node, ``c < 0`` leaf ``-c - 1``.
    values : ndarray of shape (n_nodes + 1, k)
        h(x, l) on each leaf.
    """

    type_name = "mixed_tree"

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

    def goes_left(self, X):
        """Whether each example goes left at each node, shape (n_nodes, n_samples), bool.

        Parameters
        ----------
        X : MixedFrame
        """
        out = np.empty((self.kind.shape[0], X.n_samples), dtype=bool)
        for node, (kind, column) in enumerate(zip(self.kind, self.column, strict=True)):
            if kind == NUMERIC:
                x = X.continuous_values(int(column))
                out[node] = np.where(np.isnan(x), self.missing_left[node],
                                     x <= self.threshold[node])
            elif kind == CATEGORICAL:
                out[node] = X.categorical_blocks(int(column), self.value[node]) == 0
            else:
                out[node] = X.term_blocks(int(column), self.value[node]) == 0
        return out

    def blocks(self, X):
        """Leaf of each example of a ``MixedFrame``, shape (n_samples,), uint8."""
        node = np.zeros(X.n_samples, dtype=np.intp)
        if self.kind.shape[0] == 0:
            return node.astype(BLOCK_DTYPE)
        goes_left = self.goes_left(X)
        active = np.arange(X.n_samples)
        while active.size:
            here = node[active]
            node[active] = np.where(goes_left[here, active], self.left[here], self.right[here])
            active = active[node[active] >= 0]
        return (-node - 1).astype(BLOCK_DTYPE)

    def describe(self, names=None, classes=None, scale=1.0):
        def condition(node):
            name = column_label(names, self.column[node])
            if self.kind[node] == CATEGORICAL:
                return f"{name} == {self.value[node]!r}"
            if self.kind[node] == TERM:
                return f"{name} contains {self.value[node]!r}"
            threshold = self.threshold[node]
            test = f"{name} <= {threshold:.6g}" if np.isfinite(threshold) else f"{name} known"
            return test + (" or missing" if self.missing_left[node] else "")

        return tree_text(self.left, self.right, condition, self.values, classes, scale)

    def _structure_dict(self):
        return {"type": self.type_name,
                "kind": [KIND_NAMES[int(kind)] for kind in self.kind],
                "column": self.column.tolist(),
                "threshold": [None if kind != NUMERIC else t if np.isfinite(t) else "inf"
                              for kind, t in zip(self.kind, self.threshold.tolist(),
                                                 strict=True)],
                "value": list(self.value),
                "missing_left": self.missing_left.tolist(),
                "left": self.left.tolist(), "right": self.right.tolist()}

    def to_dict(self):
        return {**self._structure_dict(), "values": self.values.tolist()}

    @staticmethod
    def _structure_from_dict(data, n_leaves_name):
        """Validated node arrays of a saved mixed tree; ValueError naming what is malformed."""
        names = list(data["kind"])
        n = len(names)
        lists = [list(data[key]) for key in ("column", "threshold", "value", "missing_left",
                                               "left", "right")]
        if any(len(entries) != n for entries in lists):
            raise ValueError("mixed tree node arrays must all have one entry per node")
        columns, thresholds, values, missing_left, left, right = lists
        unknown = [name for name in names if name not in KIND_CODES]
        if unknown:
            raise ValueError(f"mixed tree node kinds must be in {sorted(KIND_CODES)}, got "
                             f"{unknown[0]!r}")
        if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in columns):
            raise ValueError("mixed tree columns must be non-negative integers")
        if not all(isinstance(flag, bool) for flag in missing_left):
            raise ValueError("mixed tree missing_left entries must be true or false")
        threshold = np.full(n, np.nan)
        for node, (name, t, value) in enumerate(zip(names, thresholds, values, strict=True)):
            if name == "continuous":
                t = np.inf if t == "inf" else t
                if not isinstance(t, (int, float)) or isinstance(t, bool) or np.isnan(t):
                    raise ValueError(f"mixed tree node {node} is continuous: its threshold "
                                     f"must be a number or 'inf', got {t!r}")
                if value is not None:
                    raise ValueError(f"mixed tree node {node} is continuous: its value must "
                                     f"be null, got {value!r}")
                threshold[node] = t
            elif not isinstance(value, str) or t is not None:
                raise ValueError(f"mixed tree node {node} is {name}: its value must be a "
                                 f"string and its threshold null, got {value!r} and {t!r}")
        left, right = np.asarray(left), np.asarray(right)
        check_children(left, right, n_leaves_name)
        kind = np.array([KIND_CODES[name] for name in names], dtype=np.intp)
        return kind, columns, threshold, values, missing_left, left, right

    @classmethod
    def from_dict(cls, data):
        structure = cls._structure_from_dict(data, "values")
        values = np.asarray(data["values"], dtype=np.float64)
        if values.ndim != 2 or values.shape[0] != structure[0].shape[0] + 1:
            raise ValueError(f"mixed tree values must have shape (n_nodes + 1, k), got "
                             f"{values.shape}")
        return cls(*structure, values)


class MixedHammingTreeHypothesis(MixedTreeHypothesis):
    """A Hamming tree on a mixed table: h(x, l) = v_l c_{leaf(x)} (Kégl 2014).

    Parameters
    ----------
    kind, column, threshold, value, missing_left, left, right
        As in ``MixedTreeHypothesis``.
    vote : array-like of shape (k,)
        v, entries ±1.
    leaf_values : array-like of shape (n_nodes + 1,)
        c_j of each leaf.
    """

    type_name = "mixed_hamming_tree"

    def __init__(self, kind, column, threshold, value, missing_left, left, right, vote,
                 leaf_values):
        self.vote = np.asarray(vote, dtype=np.float64)
        self.leaf_values = np.asarray(leaf_values, dtype=np.float64)
        super().__init__(kind, column, threshold, value, missing_left, left, right,
                         np.outer(self.leaf_values, self.vote))

    def to_dict(self):
        return {**self._structure_dict(), "vote": self.vote.tolist(),
                "leaf_values": self.leaf_values.tolist()}

    @classmethod
    def from_dict(cls, data):
        structure = cls._structure_from_dict(data, "leaf_values")
        vote = np.asarray(data["vote"], dtype=np.float64)
        leaf_values = np.asarray(data["leaf_values"], dtype=np.float64)
        if vote.ndim != 1 or not np.all(np.abs(vote) == 1):
            raise ValueError("a Hamming tree's vote must be a vector of -1 and +1")
        if leaf_values.shape != (structure[0].shape[0] + 1,):
            raise ValueError(f"leaf_values must have shape (n_nodes + 1,), got "
                             f"{leaf_values.shape}")
        return cls(*structure, vote, leaf_values)


class MixedTreeLearner(TreeLearner):
    """Finds a tree of small Z on a ``MixedDataset``, with per-label leaf values.

    Grown best-first by the largest drop in Z (Schapire & Singer 1999 §4.1, Eq. 10/16) over
    numeric thresholds, categorical values and terms (module docstring). Parameters as in
    ``TreeLearner``.
    """

    def fit(self, dataset, weights, labels):
        """Best-first mixed tree for weights ``W`` (n_samples, k) and ``labels``.

        Parameters
        ----------
        dataset : MixedDataset
        weights : ndarray of shape (n_samples, k)
        labels : LabelSigns

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        pos, neg = label_masses(weights, labels)
        splits = NodeSplits(dataset, pos, neg, self.mode, self.min_leaf_weight)
        numeric = dataset.numeric
        if numeric is None and not splits:
            raise _no_feature_error()
        fill = None if numeric is None else label_histograms(numeric, weights, labels)
        tree = self._grow(numeric, fill, weights.shape[1], other_splits=splits)
        values, fit = self._leaf_fit(tree, pos, neg)
        return fit(MixedTreeHypothesis(*_hypothesis_nodes(tree, dataset, splits), tree.left,
                                       tree.right, values))


class MixedHammingTreeLearner(HammingTreeLearner):
    """Multi-class Hamming trees on a ``MixedDataset`` (module docstring for the vote).

    Parameters as in ``HammingTreeLearner``.
    """

    def fit(self, dataset, weights, labels):
        """Best-first mixed Hamming tree for weights ``W`` (n_samples, k) and ``labels``.

        Parameters
        ----------
        dataset : MixedDataset
        weights : ndarray of shape (n_samples, k)
        labels : LabelSigns

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        pos, neg = label_masses(weights, labels)
        numeric = dataset.numeric
        best = None  # (edge, vote)
        if numeric is not None:
            label_hist = self._pool_labels(numeric.codes.shape[0], pos.shape[1])
            build_histogram(numeric.codes, weights, labels.sign_index, label_hist)
            best = self._vote(label_hist, numeric.n_bins)
        for edge, vote in self._other_votes(dataset, weights, labels):
            if best is None or edge > best[0]:
                best = (edge, vote)
        if best is None:
            raise _no_feature_error()
        vote = best[1]
        agree, disagree = agreement_masses(pos, neg, vote)
        splits = NodeSplits(dataset, agree, disagree, self.mode, self.min_leaf_weight)
        fill, root_hist = None, None
        if numeric is not None:
            codes = numeric.codes
            every_row = np.arange(codes.shape[1], dtype=np.intp)

            def fill(rows, hist):
                node_histogram(codes, every_row if rows is None else rows, agree, disagree,
                               hist)

            root_hist = self._collapse(label_hist, vote)
        tree = self._grow(numeric, fill, 1, root_hist, other_splits=splits)
        leaf_values, fit = self._leaf_fit(tree, agree, disagree, pos, neg)
        return fit(MixedHammingTreeHypothesis(*_hypothesis_nodes(tree, dataset, splits),
                                              tree.left, tree.right, vote, leaf_values))

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
