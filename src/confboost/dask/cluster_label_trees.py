"""A tree per label on the collective: ``weak_learner="label_trees"`` on a Dask cluster.

The local ``LabelTreesLearner`` grows tree l with the tree learner on label l's masses
alone (paper §7.1: under AdaBoost.MH, Z_t = Σ_l Z_t^l and each share depends on tree l
only). On every worker of a round (``collective.run_round``) it runs as it is, with the
round's reducer: each label's node histograms, node sizes, categorical and term masses and
leaf statistics are allreduced as a shared tree's are, so every worker grows the same k
trees, one after the other, in the round's one task. The round's blocks, a block per row
and label, are made again on any shard from the k trees' node arrays
(``label_trees_recipe``, ``label_tree_blocks``).
"""

import numpy as np

from confboost.dask.collective import OnShards, tree_code_blocks
from confboost.engine.learners.label_trees import LABEL_BLOCK_DTYPE

#: The node arrays of a ``GrownTree`` that give its blocks (``tree_code_blocks``).
_NODE_ARRAYS = ("kind", "feature", "threshold_bin", "missing_left", "left", "right")


def label_trees_recipe(trees):
    """How a later task makes a round's blocks on any shard (``OnShards`` of
    ``label_tree_blocks``) from its trees, ``LabelTreesLearner.grown``.

    Parameters
    ----------
    trees : list of GrownTree
        Label by label.
    """
    offsets = np.concatenate([[0], np.cumsum([tree.n_leaves for tree in trees])[:-1]])
    starts = np.concatenate([[0], np.cumsum([tree.kind.shape[0] for tree in trees])])
    return OnShards(label_tree_blocks, (
        offsets.astype(np.intp), starts.astype(np.intp),
        *[np.concatenate([getattr(tree, name) for tree in trees]) for name in _NODE_ARRAYS]))


def label_tree_blocks(dataset, offsets, starts, kind, feature, threshold_bin, missing_left,
                      left, right):
    """The block of every row and label of a ``Dataset`` under a round's k trees, shape
    (n_samples, k), uint16 (``LabelTreesLearner``'s numbering: tree l's leaves from
    ``offsets[l]``).

    Parameters
    ----------
    dataset : Dataset
    offsets : ndarray of shape (k,), intp
        The first block of each tree.
    starts : ndarray of shape (k + 1,), intp
        Tree l's nodes are ``starts[l]:starts[l + 1]`` of the node arrays.
    kind, feature, threshold_bin, missing_left, left, right : ndarray of shape (n_nodes,)
        The trees' node arrays one after the other (``tree_code_blocks``'), each tree's
        children numbered within it.
    """
    out = np.empty((dataset.n_samples, offsets.shape[0]), dtype=LABEL_BLOCK_DTYPE)
    for label, offset in enumerate(offsets.tolist()):
        out[:, label] = offset + tree_code_blocks(dataset, *label_tree(
            label, starts, kind, feature, threshold_bin, missing_left, left, right))
    return out


def label_tree(label, starts, *node_arrays):
    """Tree ``label``'s node arrays from ``label_tree_blocks``' arguments."""
    nodes = slice(int(starts[label]), int(starts[label + 1]))
    return tuple(array[nodes] for array in node_arrays)


def label_tree_recipes(recipe, hypothesis):
    """Each tree's blocks of a round's ``label_tree_blocks`` recipe, one ``OnShards`` a
    label, with its leaf count (the covers of its leaves, ``cluster_fit.ClusterCover``).

    Parameters
    ----------
    recipe : OnShards
        Of ``label_tree_blocks``.
    hypothesis : LabelTreesHypothesis

    Returns
    -------
    list of (OnShards, int)
    """
    _, starts, *node_arrays = recipe.args
    return [(OnShards(tree_code_blocks, label_tree(label, starts, *node_arrays)),
             tree.values.shape[0]) for label, tree in enumerate(hypothesis.trees)]
