"""The tree hypotheses: ``TreeHypothesis`` and ``HammingTreeHypothesis`` over one node layout.

A tree is a domain-partitioning hypothesis (paper §4.1): its leaves are the blocks. Every node
of every tree has the same layout (``dtypes.NODE_*``): a ``kind`` column (a threshold on a
continuous column, ``x <= θ``; a categorical value, ``x == v``; the presence of a term in a
text column), the table position of its ``column``, its ``threshold`` (threshold nodes) or
``value`` (the value or term of the other kinds), the side of a missing value (threshold
nodes; a missing value or text goes right at the others), and its children. A tree of
threshold nodes only is walked by the numba kernel ``kernels/tree_nodes.tree_blocks``; the other
trees by a vectorised walk over each node's go-left vector. Owns the walk, the rule text,
and the saved form (read as untrusted data). The learners that grow them: ``learners/tree.py``.
"""

import numpy as np

from confboost.data.frame import as_frame
from confboost.engine.learners.base import (
    MAX_INDEX,
    PartitionHypothesis,
    column_label,
    saved_values,
    tree_text,
)
from confboost.kernels.tree_nodes import threshold_goes_left, tree_blocks, value_goes_left
from confboost.utils.dtypes import (
    BLOCK_DTYPE,
    NODE_KIND_NAMES,
    NODE_TERM,
    NODE_THRESHOLD,
    NODE_VALUE,
)
from confboost.utils.untrusted import (
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


class TreeHypothesis(PartitionHypothesis):
    """A decision tree with a value per leaf and label, over the one node layout.

    Parameters
    ----------
    kind : array-like of shape (n_nodes,), int
        ``NODE_THRESHOLD``, ``NODE_VALUE`` or ``NODE_TERM`` (``utils/dtypes.py``).
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
                out[node] = threshold_goes_left.py_func(X.continuous_values(int(column)),
                                                        self.threshold[node],
                                                        self.missing_left[node])
            elif kind == NODE_VALUE:  # the frame's block 0: the node's value
                out[node] = value_goes_left.py_func(
                    X.categorical_blocks(int(column), self.value[node]), 0)
            else:  # the frame's block 0: the term is present (term_goes_left's rule)
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
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError naming the bad field."""
        structure = cls._structure_from_dict(data, "values")
        return cls(*structure, saved_values(data, structure[0].shape[0] + 1, n_labels=n_labels))


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
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError naming the bad field."""
        structure = cls._structure_from_dict(data, "leaf_values")
        vote = read_floats(require(data, "vote", "hamming tree"), "vote", (n_labels,))
        if vote.size == 0 or not np.all(np.abs(vote) == 1):
            fail("vote", "a Hamming tree's vote must be a non-empty vector of -1 and +1",
                 vote.tolist())
        leaf_values = read_floats(require(data, "leaf_values", "hamming tree"), "leaf_values",
                                  (structure[0].shape[0] + 1,))
        return cls(*structure, vote, leaf_values)
