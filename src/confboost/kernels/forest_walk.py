"""The leaves of many threshold trees on the same rows: each row walks every tree in turn.

``kernels/tree_nodes.tree_blocks`` walks one tree over all the rows, so a model of T trees
reads every row T times: on 10,000 fashion-mnist rows (784 float64 values, 6 kB a row) each
tree's walk draws its few values per row from an X of 63 MB, out of the caches, and a
default model of 100 rounds of 10 trees per label does it 1,000 times. Here a row walks all
the trees one after the other while its values stay in the core's L1, and the rows are
shared out between the threads. The leaves are those of ``tree_blocks`` (the same
comparison, ``tree_nodes.threshold_goes_left``), so whatever is summed from them is the
same; ``forest_leaves_naive`` is the twin.

The trees' node arrays (``tree_nodes``' layout: ``feature``, ``threshold``,
``missing_left``, ``left``, ``right``, children ``c >= 0`` internal nodes of the same tree
and ``c < 0`` leaf ``-c - 1``) are concatenated, tree t's nodes at
``starts[t]:starts[t + 1]`` with its children numbered within it; a tree without internal
nodes is one leaf, 0 (``forest_arrays``).
"""

import numpy as np

from confboost.kernels.tree_nodes import threshold_goes_left, tree_blocks_naive
from confboost.utils.dtypes import BLOCK_DTYPE
from confboost.utils.lazy_numba import njit, prange


def forest_arrays(trees):
    """The node arrays of ``trees`` concatenated, and where each tree starts.

    Parameters
    ----------
    trees : sequence of (feature, threshold, missing_left, left, right)
        Each tree's node arrays (``tree_nodes``' layout), shape (n_nodes_t,) each.

    Returns
    -------
    feature : ndarray of shape (n_nodes,), intp
    threshold : ndarray of shape (n_nodes,), float64
    missing_left : ndarray of shape (n_nodes,), bool
    left, right : ndarray of shape (n_nodes,), intp
        Children numbered within their own tree, as given.
    starts : ndarray of shape (n_trees + 1,), intp
        Tree t's nodes are ``starts[t]:starts[t + 1]``.
    """
    sizes = [len(tree[0]) for tree in trees]
    starts = np.zeros(len(trees) + 1, dtype=np.intp)
    starts[1:] = np.cumsum(sizes)
    arrays = []
    for part, dtype in enumerate((np.intp, np.float64, bool, np.intp, np.intp)):
        arrays.append(np.concatenate([np.asarray(tree[part], dtype=dtype) for tree in trees])
                      if trees else np.empty(0, dtype=dtype))
    return (*arrays, starts)


@njit(cache=True, parallel=True, nogil=True)
def forest_leaves(X, feature, threshold, missing_left, left, right, starts, out):
    """The leaf of each row in each tree, every row walking all the trees in turn.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64, C-contiguous
    feature, threshold, missing_left, left, right, starts : ndarray
        The trees' node arrays (``forest_arrays``).
    out : ndarray of shape (n_samples, n_trees), uint8
        Output: ``out[i, t]`` is row i's leaf in tree t (``tree_blocks``' leaf).
    """
    n_trees = starts.shape[0] - 1
    for i in prange(X.shape[0]):
        row = X[i]
        for t in range(n_trees):
            first = starts[t]
            if starts[t + 1] == first:  # no internal node: one leaf
                out[i, t] = 0
                continue
            node = 0
            while node >= 0:
                at = first + node
                if threshold_goes_left(row[feature[at]], threshold[at], missing_left[at]):
                    node = left[at]
                else:
                    node = right[at]
            out[i, t] = -node - 1


def forest_leaves_naive(X, feature, threshold, missing_left, left, right, starts):
    """Twin of ``forest_leaves``: ``tree_nodes.tree_blocks_naive`` tree by tree; returns
    the leaves, shape (n_samples, n_trees), uint8."""
    out = np.empty((X.shape[0], starts.shape[0] - 1), dtype=BLOCK_DTYPE)
    for t in range(starts.shape[0] - 1):
        nodes = slice(starts[t], starts[t + 1])
        out[:, t] = tree_blocks_naive(X, feature[nodes], threshold[nodes],
                                      missing_left[nodes], left[nodes], right[nodes])
    return out
