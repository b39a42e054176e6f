"""Trees on a Dask cluster: the local grower over rows spread across partitions.

``confboost.dask`` boosts over *shards* (one partition's binned rows and weights each, on
the worker that holds it). This module grows the local learners' trees over them without a
second grower: ``learners/grower.grow_tree`` reads a node's rows only through a "row sets"
object, and ``ShardedRows`` is that object for shards. Each shard keeps its own
``GrowthRows`` (the one-machine ``LocalRows``, so the same kernels and partitions, and the
splitter's ``NodeSplits`` for categorical columns). A round trip partitions a batch of
nodes: one task per shard (``shard_expand``) partitions each node's rows and returns, for
both children, their row count, W+/W- of every label and categorical value masses, and the
numeric histogram of the child that is smaller on that shard; the pairwise reduction tree
sums these, and one result comes back to the client, from which ``fill(child)`` (the
smaller child's histogram; the grower takes the larger one's as the parent's minus it, as
on one machine), ``best_other(child)`` (the best value test, by the splitter's
``best_value_split``) and the leaves' W+/W- are answered. When the shards' smaller children
are not all the node's smaller child (a shard whose rows split the other way round),
``fill`` sums that child's histogram in one more trip: the histogram is always the sum of
the shards' histograms of the node's smaller child, built from their rows.

Which nodes go in a batch: before each split the grower offers the node to split and the
best waiting leaves that may still split (``grower._offer_next_splits``); when the node was
not partitioned yet, all of these are, in one trip, with the children of nodes partitioned
ahead, whose splits the client finds itself (``ShardedRows._look_ahead``). Best-first
growth then finds most of its picks already partitioned: a tree costs about one round trip
per level that it grows (a tree of L leaves at most L - 1, the count without batches), on
top of the round's update. A node's sums do not depend on when it was partitioned (each
shard partitions a node's own range of rows, and sums in the same order), so the tree is
the one grown a split at a time. The root's histogram (the shards' ``StumpLearner.histogram``
summed) comes back with the last round's update (``shards.shard_step``; the first round's
costs a trip); its value masses (with categorical columns) one more trip.

The split is chosen once, on the client, by the grower's own search; the leaf values and Z
come from the summed leaf masses by the local learner's rule (``TreeLearner.leaf_values``).
Each shard finds its rows' leaves in the round's update by walking the tree
(``tree_code_blocks``). Nodes partitioned ahead that do not split cost histogram work that
the local growth does not do.

Functions whose name starts with ``shard_`` run on the workers (``Shards.each``); the rest
runs on the client.
"""

import copy
import dataclasses

import numpy as np

from confboost.dask.shards import OnShards, shard_sum
from confboost.engine.learners.base import PartitionFit, label_masses, leaf_statistics
from confboost.engine.learners.categorical import value_masses
from confboost.engine.learners.grower import HISTOGRAM_MEMORY, LocalRows, grow_tree
from confboost.engine.learners.splitter import NodeSplits, best_value_split, search_numeric_split
from confboost.engine.learners.stump import StumpLearner
from confboost.engine.learners.tree import (
    HammingTreeLearner,
    TreeLearner,
    _best_factorised,
    agreement_masses,
    hypothesis_nodes,
    label_histograms,
)
from confboost.engine.learners.tree_hypothesis import HammingTreeHypothesis, TreeHypothesis
from confboost.kernels.histogram import N_HIST_BINS
from confboost.kernels.tree_nodes import (
    code_goes_left,
    node_histogram,
    subtract_sibling,
    value_goes_left,
)
from confboost.utils.dtypes import BLOCK_DTYPE, NODE_THRESHOLD, WEIGHT_DTYPE


def tree_code_blocks(dataset, kind, feature, threshold_bin, missing_left, left, right):
    """The leaf of every row of a ``Dataset`` under a grown tree, shape (n_samples,), uint8.

    A row goes left by the rules growth uses (``kernels/tree_nodes.code_goes_left`` at a
    threshold node, ``value_goes_left`` at a value node, the value code ``threshold_bin``),
    so the leaves are those of the growth.

    Parameters
    ----------
    dataset : Dataset
    kind, feature, threshold_bin : ndarray of shape (n_nodes,), intp
        ``GrownTree``'s node arrays (``feature``: a row of ``codes`` or an index into the
        categorical columns that have values, as ``NodeSplits.categorical``).
    missing_left : ndarray of shape (n_nodes,), bool
    left, right : ndarray of shape (n_nodes,), intp
    """
    out = np.zeros(dataset.n_samples, dtype=BLOCK_DTYPE)
    if kind.shape[0] == 0:
        return out
    categorical = [column for column in dataset.categorical if column.values]
    stack = [(0, np.arange(dataset.n_samples, dtype=np.intp))]
    while stack:
        node, rows = stack.pop()
        if kind[node] == NODE_THRESHOLD:
            goes_left = code_goes_left.py_func(dataset.codes[feature[node], rows],
                                               threshold_bin[node], missing_left[node])
        else:
            goes_left = value_goes_left.py_func(categorical[feature[node]].codes[rows],
                                                threshold_bin[node])
        for child, child_rows in ((left[node], rows[goes_left]), (right[node], rows[~goes_left])):
            if child < 0:
                out[child_rows] = -child - 1
            else:
                stack.append((child, child_rows))
    return out


class GrowthRows:
    """One shard's rows of a growing tree, on its worker.

    Parameters
    ----------
    local : LocalRows
        The one-machine row sets over the shard's Dataset.
    pos, neg : ndarray of shape (n_samples, c)
        Each row's W+ and W- per label (with a Hamming tree's agreeing and disagreeing mass
        as a last column): what the leaves' statistics sum.
    splits : NodeSplits or None
        The splitter's categorical splits over the growth's masses (None without them).
    hist_shape : tuple
        A node histogram's shape, (n_features, 256, c, 2); n_features may be 0.

    Attributes
    ----------
    summary : list of ndarray
        What the last step returns to the client (``node_summary``'s of the root, or
        ``[n_left]`` and both children's after a split).
    """

    def __init__(self, local, pos, neg, splits, hist_shape):
        self.local = local
        self.pos, self.neg = pos, neg
        self.splits = splits
        self.hist_shape = hist_shape
        self.summary = self.node_summary(0, False)

    def node_summary(self, node, with_hist):
        """[W+/W- of the node's rows per label (c, 2), its numeric histogram (empty
        unless ``with_hist``), the value masses of each categorical column (2, n_values,
        c')]."""
        start, stop = self.local.ranges[node]
        rows = self.local.rows[start:stop]
        masses = np.stack([self.pos[rows].sum(axis=0), self.neg[rows].sum(axis=0)], axis=-1)
        hist = np.empty(self.hist_shape if with_hist else (0,), dtype=WEIGHT_DTYPE)
        if with_hist:
            self.local.fill(node, hist)
        values = self.splits.value_masses(rows) if self.splits is not None else []
        return [masses, hist, *values]


def shard_growth_rows(shard, vote, mode, min_leaf_weight, n_columns):
    """The shard's ``GrowthRows`` for a tree with a value per label (``vote`` None) or a
    Hamming tree of vote ``vote`` (its nodes filled with each row's agreeing and
    disagreeing mass, as ``HammingTreeLearner.fit`` fills them)."""
    dataset, scheme = shard.dataset, shard.scheme
    weights = np.ascontiguousarray(scheme.learner_weights, dtype=WEIGHT_DTYPE)
    pos, neg = label_masses(weights, scheme.labels)
    if vote is None:
        grow_pos, grow_neg = pos, neg
        fill = label_histograms(dataset, weights, scheme.labels, pos, neg)
    else:
        grow_pos, grow_neg = agreement_masses(pos, neg, vote)
        pos, neg = np.hstack([pos, grow_pos]), np.hstack([neg, grow_neg])
        codes, every_row = dataset.codes, np.arange(dataset.n_samples, dtype=np.intp)

        def fill(rows, hist):
            node_histogram(codes, every_row if rows is None else rows, grow_pos, grow_neg,
                           hist)

    splits = NodeSplits(dataset, grow_pos, grow_neg, mode, min_leaf_weight)
    local = LocalRows(dataset if dataset.has_numeric else None,
                      fill if dataset.has_numeric else None, splits or None)
    return GrowthRows(local, pos, neg, splits or None,
                      (dataset.n_features, N_HIST_BINS, n_columns, 2))


def shard_expand(rows, steps, with_hist):
    """New row sets with each ``(node, split, left, right)`` of ``steps`` split (the old
    ones stay valid for Dask's recomputation); their summary: for each step, [(n_left,
    1 if the shard's own smaller child is the left one, 1 if the right one; neither for a
    node without rows here), both children's W+/W-, the histogram of the shard's smaller
    child (empty unless ``with_hist``), both children's value masses], concatenated."""
    split_rows = copy.copy(rows)
    split_rows.local = copy.copy(rows.local)
    split_rows.local.rows = rows.local.rows.copy()
    split_rows.local.ranges = dict(rows.local.ranges)
    split_rows.summary = []
    for node, split, left, right in steps:
        start, stop = split_rows.local.ranges[node]
        n_left = split_rows.local.partition(node, split, left, right)
        left_small = n_left <= stop - start - n_left  # the grower's rule, on one shard
        masses_left, _, *values_left = split_rows.node_summary(left, False)
        masses_right, _, *values_right = split_rows.node_summary(right, False)
        hist = np.empty(split_rows.hist_shape if with_hist else (0,), dtype=WEIGHT_DTYPE)
        if with_hist:
            split_rows.local.fill(left if left_small else right, hist)
        chosen = (left_small and stop > start, not left_small)
        split_rows.summary += [np.array([n_left, *chosen], dtype=np.int64), masses_left,
                               masses_right, hist, *values_left, *values_right]
    return split_rows


def shard_summary(rows):
    """The summary of the shard's last step (taken where the row sets live; a new list,
    which the client may change)."""
    return list(rows.summary)


def shard_node_histogram(rows, node):
    """The histogram of the shard's rows in ``node``."""
    hist = np.empty(rows.hist_shape, dtype=WEIGHT_DTYPE)
    rows.local.fill(node, hist)
    return hist


def shard_leaf_masses(shard, structure, n_leaves, vote=None):
    """W+ and W- of the shard's rows in each leaf, shape (n_leaves, k, 2); with a Hamming
    tree's ``vote``, the agreeing and disagreeing mass as a last column, (n_leaves, k + 1, 2).
    """
    blocks = tree_code_blocks(shard.dataset, *structure)
    pos, neg = label_masses(shard.scheme.learner_weights, shard.scheme.labels)
    if vote is not None:
        agree, disagree = agreement_masses(pos, neg, vote)
        pos, neg = np.hstack([pos, agree]), np.hstack([neg, disagree])
    return np.stack(leaf_statistics(blocks, n_leaves, pos, neg), axis=-1)


class ShardedRows:
    """``grow_tree``'s row sets over shards: nodes partitioned in batches, one task per
    shard a batch, results summed.

    The grower offers, before each split, the nodes that may split next (``expand``);
    when the node to split was not partitioned yet, the best ``batch`` of them are
    partitioned in one round trip, and their children's sums wait on the client until the
    grower splits them (or are dropped with the tree). Shards name nodes by their own ids
    (``ids``), given at partition time, since the grower numbers children when it splits.

    A batch also takes, after the grower's offer, the children of nodes partitioned ahead
    (``ahead``): the client finds their best splits itself, from their sums, by the rule of
    ``grow_tree``'s ``consider`` (the smaller child's summed histogram, the larger's the
    parent's minus it by ``subtract_sibling``: the grower's histograms, bit for bit), so a
    batch is a tree level, whichever order best-first growth splits its nodes in.

    Parameters
    ----------
    shards : confboost.dask.shards.Shards
    states : list of Future
        Each shard's ``GrowthRows``.
    n_samples : int
        Rows of all shards.
    growth : slice
        The columns of a node's masses that the growth splits on (all labels, or a Hamming
        tree's agreement column).
    has_numeric, has_values : bool
        Whether the data have continuous columns, categorical columns with values.
    mode, min_leaf_weight, max_leaves, max_depth
        The learner's.
    hist_bytes : int
        Bytes of one node histogram.
    n_bins : ndarray of shape (n_features,) or None
        The numeric columns' bins (None without them).
    root_hist : ndarray or None
        The root's summed histogram (copied: the grower turns it into a child's).

    Attributes
    ----------
    batch : int
        Most nodes partitioned in one round trip: ``max_leaves`` when every leaf's
        histogram fits ``grower.HISTOGRAM_MEMORY`` (so the grower never rebuilds a parent's
        from rows that a later batch reordered), else 1.
    trips : int
        Round trips so far (batches, and histograms rebuilt from rows).
    """

    def __init__(self, shards, states, n_samples, growth, has_numeric, has_values, mode,
                 min_leaf_weight, max_leaves, max_depth, hist_bytes, n_bins, root_hist):
        self.shards = shards
        self.states = states
        self.n_samples = n_samples
        self.growth = growth
        self.has_numeric, self.has_values = has_numeric, has_values
        self.mode, self.min_leaf_weight, self.max_leaves = mode, min_leaf_weight, max_leaves
        self.max_depth, self.n_bins = max_depth, n_bins
        self.batch = max_leaves if max_leaves * hist_bytes <= HISTOGRAM_MEMORY else 1
        self.n_leaves = 1
        self.trips = 0
        self.sizes = {0: n_samples}
        self.ids = {0: 0}  # the grower's node -> the shards'
        self.n_ids = 1
        # by the shards' ids: a node partitioned ahead -> (its children, their summary,
        # the split); a node's depth; a child's summed histogram while its split is unknown
        # to the grower; a child's best (gain, split), found ahead
        self.expanded = {}
        self.counts, self.depths = {0: n_samples}, {0: 0}
        self.hists = {0: root_hist.copy()} if root_hist is not None and self.batch > 1 else {}
        self.ahead = {}
        self.cache = {}  # node -> [masses, histogram, *value masses], summed over shards
        self.leaf_masses = None
        if has_values:  # the root's value masses, for its value tests
            self.cache[0] = self._summary()

    def _summary(self):
        self.trips += 1
        return self.shards.total(self.shards.each(shard_summary, self.states))

    def fill(self, node, hist):
        cached = self.cache.get(node)
        if cached is not None and cached[1].size:
            hist[...] = cached[1]
            cached[1] = cached[1][:0]  # the grower owns it now
        else:  # a child the shards did not all build, or the parent of a split whose
            # histogram was dropped (HISTOGRAM_MEMORY)
            self.trips += 1
            hist[...] = self.shards.total(self.shards.each(shard_node_histogram,
                                                           self.states, self.ids[node]))

    def expand(self, splits):
        """Partition the nodes of ``splits`` ([(node, split), ...], the next to split
        first), then the best children of nodes partitioned ahead (``ahead``), up to
        ``batch``, in one round trip, unless the first one was."""
        todo = [(self.ids[node], split) for node, split in splits
                if self.ids[node] not in self.expanded]
        if not todo or todo[0][0] != self.ids[splits[0][0]]:
            return
        offered = {node for node, _ in todo}
        todo += [(node, split) for _, node, split in sorted(
            (-gain, node, split) for node, (gain, split) in self.ahead.items()
            if node not in offered and node not in self.expanded)]
        steps = []
        for node, split in todo[:self.batch]:
            steps.append((node, split, self.n_ids, self.n_ids + 1))
            self.n_ids += 2
        # the last split of the tree needs no histograms (its children will not split)
        with_hist = self.has_numeric and self.n_leaves + 1 < self.max_leaves
        self.states = self.shards.each(shard_expand, self.states, steps, with_hist)
        summary = self._summary()
        width = len(summary) // len(steps)
        for i, (node, split, left, right) in enumerate(steps):
            part = summary[i * width: (i + 1) * width]
            self.expanded[node] = (left, right, part, split)
            self._look_ahead(node, left, right, part, with_hist)

    def _look_ahead(self, node, left, right, summary, with_hist):
        """The best splits of a node's children (partitioned just now), as ``grow_tree``'s
        ``consider`` will find them, into ``ahead``; none where a child's histogram is not
        summed yet (a shard whose rows split the other way round)."""
        self.ahead.pop(node, None)
        parent_hist = self.hists.pop(node, None)
        if self.batch == 1:  # histograms kept under HISTOGRAM_MEMORY: one node a trip
            return
        (n_left, n_chose_left, n_chose_right), masses_left, masses_right, hist, *values = summary
        n_left = int(n_left)
        self.counts[left], self.counts[right] = n_left, self.counts[node] - n_left
        self.depths[left] = self.depths[right] = self.depths[node] + 1
        if self.has_numeric:
            small_left = n_left <= self.counts[right]
            if (not with_hist or parent_hist is None
                    or (n_chose_right if small_left else n_chose_left) != 0):
                return
            small, large = (left, right) if small_left else (right, left)
            subtract_sibling(parent_hist, hist)
            # a copy: the summary's histogram goes to the grower, and this one is
            # subtracted from when the child is partitioned
            self.hists[small], self.hists[large] = hist.copy(), parent_hist
        half = len(values) // 2
        for child, masses, child_values in ((left, masses_left, values[:half]),
                                            (right, masses_right, values[half:])):
            best = self._best(child, masses, child_values)
            if best is not None:
                self.ahead[child] = best

    def _best(self, child, masses, values):
        """(gain, split) of a child by ``grow_tree``'s ``consider``, or None."""
        if self.counts[child] < 2 or (self.max_depth is not None
                                     and self.depths[child] >= self.max_depth):
            return None
        best = None
        if self.has_numeric:
            n_features = self.n_bins.shape[0]
            buffers = (np.empty(n_features, dtype=np.float64),
                       np.empty(n_features, dtype=np.intp), np.empty(n_features, dtype=bool),
                       np.empty(3, dtype=np.intp))
            best = search_numeric_split(self.hists[child], self.n_bins, self.mode,
                                        self.min_leaf_weight, buffers)
        if self.has_values:
            growth = masses[self.growth]
            found = best_value_split(growth[:, 0], growth[:, 1], values, self.mode,
                                     self.min_leaf_weight)
            if found is not None and found[0] > 0.0 and (best is None or found[0] > best[0]):
                best = found
        return best

    def partition(self, node, split, left, right):
        done = self.expanded.get(self.ids[node])
        if done is not None and done[3] != split:  # not the split found ahead
            del self.expanded[self.ids[node]]
            done = None
        if done is None:  # not offered by the grower
            self.expand([(node, split)])
        self.ids[left], self.ids[right], summary, _ = self.expanded.pop(self.ids[node])
        self.n_leaves += 1
        (n_left, n_chose_left, n_chose_right), masses_left, masses_right, hist, *values = summary
        n_left = int(n_left)
        self.sizes[left], self.sizes[right] = n_left, self.sizes[node] - n_left
        half = len(values) // 2
        empty = hist[:0]
        self.cache[left] = [masses_left, empty, *values[:half]]
        self.cache[right] = [masses_right, empty, *values[half:]]
        # the grower builds the smaller child's histogram (and takes the larger one's as
        # the parent's minus it); the shards' sum is that histogram when every shard with
        # rows in the node built the same child, else ``fill`` sums it in another trip
        small_left = n_left <= self.sizes[right]
        if (n_chose_right if small_left else n_chose_left) == 0:
            self.cache[left if small_left else right][1] = hist
        return n_left

    def best_other(self, node):
        if not self.has_values:
            return None
        masses, _, *value_masses = self.cache[node]
        growth = masses[self.growth]
        return best_value_split(growth[:, 0], growth[:, 1], value_masses, self.mode,
                                self.min_leaf_weight)

    def leaf_blocks(self, leaf_of_node):
        """None (each shard finds its own leaves); the leaves' summed W+/W- are kept in
        ``leaf_masses``, shape (n_leaves, c, 2), when every leaf's are known."""
        if all(node in self.cache for node in leaf_of_node):
            by_leaf = sorted(leaf_of_node, key=leaf_of_node.get)
            self.leaf_masses = np.stack([self.cache[node][0] for node in by_leaf])
        return None


class ShardedTreeLearner(TreeLearner):
    """``TreeLearner`` over shards: the same growth, each split one task per shard.

    Parameters
    ----------
    mode, smoothing, max_leaves, max_depth, min_leaf_weight
        As ``TreeLearner``'s.
    shards : confboost.dask.shards.Shards
    n_labels : int
        The label columns k of the weights.
    """

    def __init__(self, mode, smoothing, shards, n_labels, **tree_params):
        super().__init__(mode, smoothing, **tree_params)
        self.shards = shards
        self.n_labels = n_labels

    def fit(self, dataset, weights, labels):
        """``dataset`` is the header (the bins and vocabularies, no rows); weights and
        labels are the shards'. A failure of the cluster in the middle of the growth grows
        the tree again on rebuilt shards (``Shards.attempt``)."""
        return self.shards.attempt(lambda: self._fit_shards(dataset))

    def _label_histogram(self):
        """The shards' summed all-label root histogram, (n_features, 256, k, 2)."""
        return self.shards.reduce(shard_sum, StumpLearner.histogram, ())

    def _root(self, header):
        """(root histogram or None, histogram columns, vote or None)."""
        if not header.has_numeric:
            return None, self.n_labels, None
        hist = self._label_histogram()
        return hist, hist.shape[2], None

    def _fit_shards(self, header):
        root_hist, n_columns, vote = self._root(header)
        has_values = any(column.values for column in header.categorical)
        if not (header.has_numeric or has_values):
            raise ValueError("the data has no usable feature (every column is ignored or "
                             "empty)")
        states = self.shards.each(shard_growth_rows, self.shards.futures, vote, self.mode,
                                  self.min_leaf_weight, n_columns)
        growth = slice(None) if vote is None else slice(-1, None)
        hist_bytes = (header.n_features * N_HIST_BINS * n_columns * 2
                      * np.dtype(WEIGHT_DTYPE).itemsize)
        rows = ShardedRows(self.shards, states, header.n_samples, growth, header.has_numeric,
                           has_values, self.mode, self.min_leaf_weight, self.max_leaves,
                           self.max_depth, hist_bytes,
                           header.n_bins if header.has_numeric else None, root_hist)
        tree = grow_tree(rows, header.n_bins if header.has_numeric else None, n_columns,
                         self.mode, self.max_leaves, self.max_depth, self.min_leaf_weight,
                         self._pool, root_hist)
        structure = (tree.kind, tree.feature, tree.threshold_bin, tree.missing_left,
                     tree.left, tree.right)
        masses = rows.leaf_masses
        if masses is None:  # a tree of one leaf whose root was not summed
            masses = self.shards.total(self.shards.each(
                shard_leaf_masses, self.shards.futures, structure, tree.n_leaves, vote))
        # the splitter of the header (no rows) names the value tests' columns and values
        splits = NodeSplits(dataclasses.replace(header, n_samples=0), None, None, self.mode,
                            self.min_leaf_weight)
        nodes = (*hypothesis_nodes(tree, header, splits), tree.left, tree.right)
        if vote is None:
            weight_pos, weight_neg = masses[..., 0], masses[..., 1]
            values, criterion = self.leaf_values(weight_pos, weight_neg, float(masses.sum()))
            hypothesis = TreeHypothesis(*nodes, values)
        else:
            weight_pos, weight_neg = masses[:, :-1, 0], masses[:, :-1, 1]
            leaf_values, criterion = self.leaf_values(
                masses[:, -1:, 0], masses[:, -1:, 1], float(masses[:, :-1].sum()))
            hypothesis = HammingTreeHypothesis(*nodes, vote, leaf_values[:, 0])
        return PartitionFit(hypothesis, OnShards(tree_code_blocks, structure),
                            np.ascontiguousarray(weight_pos), np.ascontiguousarray(weight_neg),
                            criterion)


class ShardedHammingTreeLearner(ShardedTreeLearner):
    """``HammingTreeLearner`` over shards: the vote v of the best factorised split at the
    root over every column kind, from the summed all-label root histogram
    (``HammingTreeLearner._vote``) and value histograms (as ``_other_votes``), then the
    one-column growth of ``ShardedTreeLearner`` on each shard's agreeing and disagreeing
    masses."""

    _collapse = HammingTreeLearner._collapse
    _vote = staticmethod(HammingTreeLearner._vote)

    def _root(self, header):
        label_hist = self._label_histogram() if header.has_numeric else None
        best = self._vote(label_hist, header.n_bins) if header.has_numeric else None
        value_hists = (self.shards.reduce(shard_sum, value_masses, ())[0]
                       if header.categorical else [])
        if value_hists:  # every row is in one value or missing: the node margins
            margin_total = (value_hists[0][0] - value_hists[0][1]).sum(axis=0)
        for column, hist in zip(header.categorical, value_hists, strict=True):
            if column.values:
                edge, vote = _best_factorised(hist[0, :-1] - hist[1, :-1], margin_total)
                if best is None or edge > best[0]:
                    best = (edge, vote)
        if best is None:
            raise ValueError("the data has no usable feature (every column is ignored or "
                             "empty)")
        vote = best[1]
        root_hist = self._collapse(label_hist, vote) if header.has_numeric else None
        return root_hist, 1, vote
