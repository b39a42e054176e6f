"""Trees on a Dask cluster: the local grower over rows spread across partitions.

``confboost.dask`` boosts over *shards* (one partition's binned rows and weights each, on
the worker that holds it). This module grows the local learners' trees over them without a
second grower: ``learners/grower.grow_tree`` reads a node's rows only through a "row sets"
object, and ``ShardedRows`` is that object for shards. Each of its steps is one task per
shard, on the shard's own ``LocalRows`` (the one-machine implementation, so the same
kernels and the same sibling subtraction), and one sum:

- ``fill(node)``: every shard builds the histogram of its rows in the node; the histograms
  are summed by the reduction tree (``Shards.total``);
- ``partition(node, split)``: every shard partitions its own rows of the node and returns
  how many went left; the counts are summed.

The split is chosen once, on the client, by the grower's own search. After the growth every
shard returns the W+/W- of its rows in each leaf (the leaves found by walking the tree on
its bin codes, ``tree_code_blocks``); the sums give the leaf values and Z by the local
learner's rule (``TreeLearner.leaf_values``). The root histogram is the one the round's
update already summed (``Shards.hist``), so a tree of L leaves costs 2 (L - 1) - 1 round
trips for the growth (a partition and a fill per split, no fill after the last one) and
one for the leaf sums, on top of the round's update.

Functions whose name starts with ``shard_`` run on the workers (``Shards.each``); the rest
runs on the client.
"""

import copy

import numpy as np

from confboost._dtypes import BLOCK_DTYPE, MISSING_BIN
from confboost.kernels.tree import node_histogram, tree_blocks
from confboost.learners.base import PartitionFit, label_masses, leaf_statistics
from confboost.learners.grower import LocalRows, grow_tree
from confboost.learners.tree import (
    HammingTreeLearner,
    TreeLearner,
    agreement_masses,
    hypothesis_nodes,
    label_histograms,
)
from confboost.learners.tree_hypothesis import HammingTreeHypothesis, TreeHypothesis


def tree_code_blocks(codes, feature, threshold_bin, missing_left, left, right):
    """The leaf of every row of a tree on bin codes, shape (n_samples,), uint8.

    The walk is ``kernels/tree.tree_blocks`` on the codes of the tested features as
    floats, the missing bin as NaN: ``code <= threshold_bin`` goes left exactly where
    ``partition_rows`` sends a row left, so the leaves are those of the growth.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    feature, threshold_bin : ndarray of shape (n_nodes,), intp
        Row of ``codes`` and bin threshold of each node (``GrownTree``).
    missing_left : ndarray of shape (n_nodes,), bool
    left, right : ndarray of shape (n_nodes,), intp
    """
    used, columns = np.unique(feature, return_inverse=True)
    tested = codes[used].T
    X = np.where(tested == MISSING_BIN, np.nan, tested.astype(np.float64))
    out = np.empty(codes.shape[1], dtype=BLOCK_DTYPE)
    tree_blocks(np.ascontiguousarray(X), columns.astype(np.intp),
                threshold_bin.astype(np.float64), missing_left, left, right, out)
    return out


def shard_label_rows(shard):
    """The shard's row sets for a tree with a value per label (``TreeLearner``)."""
    scheme = shard.scheme
    return LocalRows(shard.dataset, label_histograms(shard.dataset, scheme.learner_weights,
                                                     scheme.labels))


def shard_hamming_rows(shard, vote):
    """The shard's row sets for a Hamming tree of vote ``vote`` (the agreeing and
    disagreeing mass of each row, as ``HammingTreeLearner.fit`` fills its nodes)."""
    pos, neg = label_masses(shard.scheme.learner_weights, shard.scheme.labels)
    agree, disagree = agreement_masses(pos, neg, vote)
    codes = shard.dataset.codes

    def fill(rows, hist):
        node_histogram(codes, np.arange(codes.shape[1], dtype=np.intp) if rows is None
                       else rows, agree, disagree, hist)

    return LocalRows(shard.dataset, fill)


def shard_node_histogram(rows, node, shape):
    """The histogram of the shard's rows in ``node``."""
    hist = np.empty(shape, dtype=np.float64)
    rows.fill(node, hist)
    return hist


def shard_partition(rows, node, split, left, right):
    """New row sets with ``node`` split into ``left`` and ``right`` (the old ones stay valid
    for Dask's recomputation)."""
    split_rows = copy.copy(rows)
    split_rows.rows = rows.rows.copy()
    split_rows.ranges = dict(rows.ranges)
    split_rows.partition(node, split, left, right)
    return split_rows


def shard_node_size(rows, node):
    """The number of the shard's rows in ``node``, shape (1,)."""
    start, stop = rows.ranges[node]
    return np.array([stop - start], dtype=np.int64)


def shard_leaf_masses(shard, structure, n_leaves, vote=None):
    """W+ and W- of the shard's rows in each leaf, shape (n_leaves, k, 2); with a Hamming
    tree's ``vote``, the agreeing and disagreeing mass as a last column, (n_leaves, k + 1, 2).
    """
    blocks = tree_code_blocks(shard.dataset.codes, *structure)
    pos, neg = label_masses(shard.scheme.learner_weights, shard.scheme.labels)
    if vote is not None:
        agree, disagree = agreement_masses(pos, neg, vote)
        pos, neg = np.hstack([pos, agree]), np.hstack([neg, disagree])
    return np.stack(leaf_statistics(blocks, n_leaves, pos, neg), axis=-1)


class ShardedRows:
    """``grow_tree``'s row sets over shards: one task per shard a step, results summed.

    Parameters
    ----------
    shards : confboost.dask.Shards
    states : list of Future
        Each shard's ``LocalRows``.
    n_samples : int
        Rows of all shards.
    shape : tuple
        A node histogram's shape, (n_features, 256, c, 2).
    """

    def __init__(self, shards, states, n_samples, shape):
        self.shards = shards
        self.states = states
        self.n_samples = n_samples
        self.shape = shape

    def fill(self, node, hist):
        hist[...] = self.shards.total(self.shards.each(shard_node_histogram, self.states,
                                                       node, self.shape))

    def partition(self, node, split, left, right):
        self.states = self.shards.each(shard_partition, self.states, node, split, left, right)
        return int(self.shards.total(self.shards.each(shard_node_size, self.states, left))[0])

    def best_other(self, node):
        return None  # numeric columns only

    def leaf_blocks(self, leaf_of_node):
        return None  # each shard finds its own (``tree_code_blocks``)


class ShardedTreeLearner(TreeLearner):
    """``TreeLearner`` over shards: the same growth, each step one task per shard.

    Parameters
    ----------
    mode, smoothing, max_leaves, max_depth, min_leaf_weight
        As ``TreeLearner``'s.
    shards : confboost.dask.Shards
    """

    def __init__(self, mode, smoothing, shards, **tree_params):
        super().__init__(mode, smoothing, **tree_params)
        self.shards = shards

    def fit(self, dataset, weights, labels):
        """``dataset`` is the header (the bins, no rows); weights and labels are the shards'.
        A failure of the cluster in the middle of the growth grows the tree again on rebuilt
        shards (``Shards.attempt``)."""
        return self.shards.attempt(lambda: self._fit_shards(dataset))

    def _root(self, header):
        """(root histogram, shard row-set factory and its arguments, histogram columns,
        vote or None)."""
        return self.shards.hist.copy(), shard_label_rows, (), self.shards.hist.shape[2], None

    def _fit_shards(self, header):
        root_hist, make_rows, arguments, n_columns, vote = self._root(header)
        shape = (root_hist.shape[0], root_hist.shape[1], n_columns, 2)
        states = self.shards.each(make_rows, self.shards.futures, *arguments)
        tree = grow_tree(ShardedRows(self.shards, states, header.n_samples, shape),
                         header.n_bins, n_columns, self.mode, self.max_leaves, self.max_depth,
                         self.min_leaf_weight, self._pool, root_hist)
        structure = (tree.feature, tree.threshold_bin, tree.missing_left, tree.left,
                     tree.right)
        masses = self.shards.total(self.shards.each(shard_leaf_masses, self.shards.futures,
                                                    structure, tree.n_leaves, vote))
        nodes = (*hypothesis_nodes(tree, header, None), tree.left, tree.right)
        if vote is None:
            weight_pos, weight_neg = masses[..., 0], masses[..., 1]
            values, criterion = self.leaf_values(weight_pos, weight_neg, float(masses.sum()))
            hypothesis = TreeHypothesis(*nodes, values)
        else:
            weight_pos, weight_neg = masses[:, :-1, 0], masses[:, :-1, 1]
            leaf_values, criterion = self.leaf_values(
                masses[:, -1:, 0], masses[:, -1:, 1], float(masses[:, :-1].sum()))
            hypothesis = HammingTreeHypothesis(*nodes, vote, leaf_values[:, 0])
        fit = PartitionFit(hypothesis, None, np.ascontiguousarray(weight_pos),
                           np.ascontiguousarray(weight_neg), criterion)
        fit.split = {"hypothesis": hypothesis, "tree": structure, "weight_pos": fit.weight_pos,
                     "weight_neg": fit.weight_neg, "criterion": criterion}
        return fit


class ShardedHammingTreeLearner(ShardedTreeLearner):
    """``HammingTreeLearner`` over shards: the vote v from the summed all-label root
    histogram (``HammingTreeLearner._vote``), then the one-column growth of
    ``ShardedTreeLearner`` on each shard's agreeing and disagreeing masses."""

    _collapse = HammingTreeLearner._collapse
    _vote = staticmethod(HammingTreeLearner._vote)

    def _root(self, header):
        label_hist = self.shards.hist
        _, vote = self._vote(label_hist, header.n_bins)
        return self._collapse(label_hist, vote), shard_hamming_rows, (vote,), 1, vote
