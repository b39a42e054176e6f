"""Exact path-dependent TreeSHAP (Lundberg et al. 2020) over a small flat tree record.

Owns ``FlatTree`` (what any tree hypothesis reduces to: children, the table column of each
node, leaf values and leaf covers) and ``tree_shap``, the exact Shapley values of one tree's
output. The hypothesis supplies, per node and example, whether the example goes left
(``goes_left``), so this module knows nothing of thresholds, categorical values or terms.

The value function is TreeSHAP's path-dependent one (Lundberg, Erion, Chen et al., "From
local explanations to global understanding with explainable AI for trees", Nature MI 2020,
Algorithm 1): v(S) is the tree's output when the columns in S take x's values and at a node
on any other column both children are followed, weighted by their training cover (the share
of the node's training mass that went each way; a node of zero cover splits ½, ½). Then

    v(S) = Σ_leaves value[leaf] Π_{d on the leaf's path} (o_d(x) if d in S else z_d)

where, over the path's nodes on column d, z_d is the product of the cover ratios and
o_d(x) ∈ {0, 1} the product of the indicators that x goes the path's way. Each leaf's term
depends only on the m columns of its path, so its Shapley value for column i is

    value[leaf] (o_i - z_i) Σ_{s=0}^{m-1} s! (m-1-s)! / m! · e_s

with e_s the coefficient of t^s in Π_{d ≠ i} (z_d + o_d t): Lundberg's Algorithm 2 written per
path (as GPUTreeShap does): ``tree_shap`` runs it per example in a numba kernel
(``kernels/shap_paths.py``), ``tree_shap_naive`` vectorised over the examples in NumPy. The
values of every column sum to ``output(x) - v(∅)``, and v(∅), the cover-weighted mean leaf
value, is the bias.
"""

from dataclasses import dataclass
from math import factorial

import numpy as np


@dataclass
class FlatTree:
    """A binary tree as the explainer reads it.

    Attributes
    ----------
    left, right : ndarray of shape (n_nodes,), intp
        Children of the internal nodes (node 0 is the root): ``c >= 0`` an internal node,
        ``c < 0`` leaf ``-c - 1``.
    column : ndarray of shape (n_nodes,), intp
        The table column each node tests.
    leaf_values : ndarray of shape (n_leaves, k)
        The tree's output on each leaf (α already applied by the caller if wanted).
    leaf_cover : ndarray of shape (n_leaves,)
        Training mass of each leaf.
    """

    left: np.ndarray
    right: np.ndarray
    column: np.ndarray
    leaf_values: np.ndarray
    leaf_cover: np.ndarray

    def node_cover(self):
        """Training mass of each internal node (the sum of its leaves'), shape (n_nodes,)."""
        n_nodes = self.left.shape[0]
        cover = np.zeros(n_nodes, dtype=np.float64)

        def mass(child):
            return self.leaf_cover[-child - 1] if child < 0 else cover[child]

        for node in _post_order(self.left, self.right):
            cover[node] = mass(self.left[node]) + mass(self.right[node])
        return cover

    def paths(self):
        """Every root-to-leaf path: (leaf, [(node, went_left), ...])."""
        if self.left.shape[0] == 0:
            return [(0, [])]
        found = []
        stack = [(0, [])]
        while stack:
            node, path = stack.pop()
            for child, went_left in ((self.left[node], True), (self.right[node], False)):
                step = path + [(node, went_left)]
                if child < 0:
                    found.append((int(-child - 1), step))
                else:
                    stack.append((int(child), step))
        return found


def _post_order(left, right):
    """Internal nodes, children before parents."""
    if left.shape[0] == 0:
        return []
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(int(c) for c in (left[node], right[node]) if c >= 0)
    return order[::-1]


def cover_ratio(tree, node_cover, node, went_left):
    """The share of ``node``'s training cover that goes to the child on the path (½ at a
    node of zero cover)."""
    child = tree.left[node] if went_left else tree.right[node]
    child_cover = tree.leaf_cover[-child - 1] if child < 0 else node_cover[child]
    total = node_cover[node]
    return float(child_cover / total) if total > 0 else 0.5


def path_table(tree):
    """The tree's root-to-leaf paths flattened for ``kernels.shap_paths.tree_shap_paths``.

    Returns
    -------
    path_start, path_column, path_zero, step_start, step_node, step_left : ndarray
        As the kernel reads them (per leaf its unique path columns with z_d; per column
        entry the nodes on it and the side the path takes), leaves in index order.
    bias : ndarray of shape (k,)
        v(∅) = Σ_leaves value Π_d z_d.
    shapley_weights : ndarray of shape (max_m + 1, max_m)
    """
    node_cover = tree.node_cover()
    n_leaves = tree.leaf_values.shape[0]
    by_leaf = dict(tree.paths())
    path_start, path_column, path_zero = [0], [], []
    step_start, step_node, step_left = [0], [], []
    bias = np.zeros(tree.leaf_values.shape[1])
    max_m = 0
    for leaf in range(n_leaves):
        entries = {}  # column -> (z_d, [(node, went_left)])
        for node, went_left in by_leaf.get(leaf, []):
            d = int(tree.column[node])
            zero, steps = entries.get(d, (1.0, []))
            entries[d] = (zero * cover_ratio(tree, node_cover, node, went_left),
                          steps + [(node, went_left)])
        product = 1.0
        for d, (zero, steps) in entries.items():
            path_column.append(d)
            path_zero.append(zero)
            product *= zero
            step_node.extend(node for node, _ in steps)
            step_left.extend(went_left for _, went_left in steps)
            step_start.append(len(step_node))
        bias += tree.leaf_values[leaf] * product
        path_start.append(len(path_column))
        max_m = max(max_m, len(entries))
    weights = np.zeros((max_m + 1, max_m))
    for m in range(1, max_m + 1):
        for s in range(m):
            weights[m, s] = factorial(s) * factorial(m - 1 - s) / factorial(m)
    return (np.asarray(path_start, dtype=np.intp), np.asarray(path_column, dtype=np.intp),
            np.asarray(path_zero, dtype=np.float64), np.asarray(step_start, dtype=np.intp),
            np.asarray(step_node, dtype=np.intp), np.asarray(step_left, dtype=bool), bias,
            weights)


def tree_shap(tree, goes_left, n_columns):
    """Exact path-dependent Shapley values of one tree's output for every example (the
    numba kernel ``kernels.shap_paths.tree_shap_paths``; see ``tree_shap_naive``).

    Parameters and returns as ``tree_shap_naive``.
    """
    from confboost.kernels.shap_paths import tree_shap_paths

    (path_start, path_column, path_zero, step_start, step_node, step_left, bias,
     weights) = path_table(tree)
    phi = np.zeros((goes_left.shape[1], tree.leaf_values.shape[1], n_columns))
    tree_shap_paths(np.ascontiguousarray(goes_left, dtype=np.bool_), path_start, path_column,
                    path_zero, step_start, step_node, step_left,
                    np.ascontiguousarray(tree.leaf_values, dtype=np.float64), weights, phi)
    return phi, bias


def tree_shap_naive(tree, goes_left, n_columns):
    """Exact path-dependent Shapley values of one tree's output for every example
    (NumPy, vectorised over the examples: the kernel's twin).

    Parameters
    ----------
    tree : FlatTree
    goes_left : ndarray of shape (n_nodes, n_samples), bool
        Whether each example goes left at each node.
    n_columns : int
        Columns of the table (``tree.column`` indexes them).

    Returns
    -------
    phi : ndarray of shape (n_samples, k, n_columns)
        Column contributions; ``phi.sum(axis=2) + bias`` is the tree's output.
    bias : ndarray of shape (k,)
        v(∅): the leaf values averaged by cover.
    """
    n_samples = goes_left.shape[1]
    k = tree.leaf_values.shape[1]
    phi = np.zeros((n_samples, k, n_columns), dtype=np.float64)
    bias = np.zeros(k, dtype=np.float64)
    node_cover = tree.node_cover()
    for leaf, path in tree.paths():
        value = tree.leaf_values[leaf]
        columns = []  # unique columns of the path, in order
        zero = {}     # z_d
        one = {}      # o_d(x), shape (n,)
        for node, went_left in path:
            d = int(tree.column[node])
            if d not in zero:
                columns.append(d)
                zero[d] = 1.0
                one[d] = np.ones(n_samples, dtype=np.float64)
            zero[d] *= cover_ratio(tree, node_cover, node, went_left)
            one[d] = one[d] * (goes_left[node] == went_left)
        bias += value * np.prod([zero[d] for d in columns])
        m = len(columns)
        weights = np.array([factorial(s) * factorial(m - 1 - s) / factorial(m)
                            for s in range(m)])
        for i in columns:
            coefficients = np.zeros((n_samples, m), dtype=np.float64)
            coefficients[:, 0] = 1.0
            degree = 0
            for d in columns:
                if d == i:
                    continue
                shifted = coefficients[:, :degree + 1] * one[d][:, None]
                coefficients[:, :degree + 1] *= zero[d]
                coefficients[:, 1:degree + 2] += shifted
                degree += 1
            weight = (one[i] - zero[i]) * (coefficients @ weights)
            phi[:, :, i] += weight[:, None] * value[None, :]
    return phi, bias
