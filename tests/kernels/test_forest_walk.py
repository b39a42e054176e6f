"""Every row walking many trees in turn (``kernels/forest_walk.py``) against its naive twin
and each tree's own walk (``tree_nodes.tree_blocks``)."""

import numpy as np

from confboost.kernels.forest_walk import forest_arrays, forest_leaves, forest_leaves_naive
from confboost.kernels.tree_nodes import tree_blocks


def _random_tree(rng, n_leaves, n_features):
    """Node arrays of a random tree of ``n_leaves`` leaves (``tree_nodes``' layout): each
    split turns a random leaf into a node; thresholds at the values' quantiles."""
    feature, threshold, missing_left, left, right = [], [], [], [], []
    leaf_slots = [None]  # (node, side) where each current leaf hangs; None: the root
    for _ in range(n_leaves - 1):
        slot = leaf_slots.pop(rng.integers(len(leaf_slots)))
        node = len(feature)
        if slot is not None:
            (left if slot[1] == 0 else right)[slot[0]] = node
        feature.append(rng.integers(n_features))
        threshold.append(rng.normal() * 0.7)
        missing_left.append(bool(rng.integers(2)))
        left.append(None)
        right.append(None)
        leaf_slots += [(node, 0), (node, 1)]
    for leaf, (node, side) in enumerate(sorted(leaf_slots, key=lambda s: (s[0], s[1]))
                                        if n_leaves > 1 else []):
        (left if side == 0 else right)[node] = -leaf - 1
    return (np.array(feature, dtype=np.intp), np.array(threshold, dtype=np.float64),
            np.array(missing_left, dtype=bool), np.array(left, dtype=np.intp),
            np.array(right, dtype=np.intp))


def test_forest_leaves_equal_naive_and_each_tree(rng):
    n_features = 12
    trees = [_random_tree(rng, leaves, n_features) for leaves in (2, 7, 1, 28, 5, 1, 16)]
    X = rng.normal(size=(700, n_features))
    X[rng.random(X.shape) < 0.1] = np.nan
    arrays = forest_arrays(trees)
    starts = arrays[-1]
    assert starts.tolist() == np.cumsum([0] + [len(tree[0]) for tree in trees]).tolist()
    out = np.empty((X.shape[0], len(trees)), dtype=np.uint8)
    forest_leaves(X, *arrays, out)
    np.testing.assert_array_equal(out, forest_leaves_naive(X, *arrays))
    for t, tree in enumerate(trees):
        own = np.empty(X.shape[0], dtype=np.uint8)
        tree_blocks(X, *tree, own)
        np.testing.assert_array_equal(out[:, t], own)
        assert set(own.tolist()) <= set(range(max(1, len(tree[0]) + 1)))
    assert not out[:, 2].any() and not out[:, 5].any()  # one-leaf trees


def test_forest_of_no_trees_and_no_rows(rng):
    arrays = forest_arrays([])
    out = np.empty((5, 0), dtype=np.uint8)
    forest_leaves(rng.normal(size=(5, 3)), *arrays, out)
    tree = _random_tree(rng, 4, 3)
    out = np.empty((0, 1), dtype=np.uint8)
    forest_leaves(np.empty((0, 3)), *forest_arrays([tree]), out)
    assert forest_leaves_naive(np.empty((0, 3)), *forest_arrays([tree])).shape == (0, 1)
