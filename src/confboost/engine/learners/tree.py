"""The tree learners: ``TreeLearner`` and ``HammingTreeLearner``.

A tree is a domain-partitioning hypothesis (paper §4.1): its leaves are the blocks, and the
confidence rule (``confidence.block_confidences``) sets the value of each leaf. The
hypotheses and their one node layout are ``learners/tree_hypothesis.py``'s.

``TreeLearner`` grows a tree with a value per leaf and label; ``HammingTreeLearner`` a
label-independent tree with one vote vector v and a scalar confidence per leaf,
h(x, l) = v_l c_leaf (Kégl 2014). Both grow best-first by the largest drop in Z
(``learners/grower.py``) over the best split of each node over every column kind
(``learners/splitter.py``). A tree's leaves are a partition in two at each node, so there is
no abstaining block: under ``confidence="abstain"`` a tree is the discrete tree, and under
``"real-abstain"`` the real tree.

Every sum over examples a tree learner reads whole (a node's histogram and size, its
categorical masses, a Hamming tree's vote, the leaves' statistics) is taken through its
``Reducer`` (``engine/reduction.py``): the identity on one machine; on a Dask worker the
sum over the shards, so that every worker grows the same tree (``confboost.dask``).
"""

import numpy as np

from confboost.engine.confidence import block_confidences
from confboost.engine.learners.base import PartitionFit, label_masses, leaf_statistics
from confboost.engine.learners.grower import HistogramPool, LocalRows, WorkArrays, grow_tree
from confboost.engine.learners.splitter import NodeSplits
from confboost.engine.learners.tree_hypothesis import HammingTreeHypothesis, TreeHypothesis
from confboost.engine.reduction import LOCAL, placed, slice_rows, slices
from confboost.kernels.criterion_numpy import base_mode, partition_z
from confboost.kernels.histogram import (
    N_HIST_BINS,
    build_histogram,
    build_histogram_masses,
    interleaved_masses,
    mass_group,
    node_rows,
)
from confboost.kernels.node_histogram import (
    ROW_CHUNK,
    build_node_histogram,
    build_node_histogram_binary,
    node_histogram_work,
)
from confboost.kernels.term_masses import term_block_weights
from confboost.kernels.tree_nodes import best_factorized_splits, node_histogram
from confboost.kernels.value_masses import value_histogram
from confboost.kernels.weight_update import block_sums
from confboost.utils.dtypes import DISCRETE, MISSING_BIN, NODE_THRESHOLD, WEIGHT_DTYPE
from confboost.utils.lazy_numba import resolved


def compact_codes(dataset):
    """A ``Dataset``'s codes for node histograms of as few bins as its features need.

    A node histogram has 256 bins per feature (the missing bin is code 255) whatever the
    feature's values: on features of a few values (birds: 323 count features of at most 5
    bins, 19 labels) a tree spent its time zeroing and subtracting 25 MB histograms that
    were nearly all empty. With at most ``B`` value bins per feature the codes here keep
    every value bin and move the missing bin to ``B``, the last of ``B + 1`` histogram bins;
    every histogram cell of a value or missing bin holds the same sum as before, so the
    trees are the same bit for bit.

    Parameters
    ----------
    dataset : Dataset

    Returns
    -------
    codes : ndarray of shape (n_features, n_samples), uint8
        ``dataset.codes`` itself when no feature is narrower than 255 value bins, else a
        copy with ``MISSING_BIN`` replaced by ``n_hist_bins - 1``.
    n_hist_bins : int
    """
    n_hist_bins = int(dataset.n_bins.max()) + 1 if dataset.n_bins.size else N_HIST_BINS
    if n_hist_bins >= N_HIST_BINS:
        return dataset.codes, N_HIST_BINS
    codes = dataset.codes.copy()
    codes[codes == MISSING_BIN] = n_hist_bins - 1
    return codes, n_hist_bins


#: Labels from which a label tree's node histograms come from each row's masses in cell
#: order (``build_histogram_masses``, faster from 8 labels on) rather than from its weights
#: and sign index (``build_node_histogram``, faster below).
MASS_MIN_LABELS = 8

#: Features from which a label tree of ``MASS_MIN_LABELS`` labels or more still fills its
#: node histograms from weights and sign indices (``build_node_histogram``, four features a
#: task), in one chunk of rows: each cell then sums the node's rows in order from 0.0, as
#: ``build_histogram_masses`` sums them, so the trees are the same bit for bit. On
#: fashion-mnist (784 features, 10 labels) it took 0.65-0.75x the time of the masses on
#: nodes of 800-8,000 rows and 0.9x on the root; on pendigits and letter (16 features, 10
#: and 26 labels) 1.1-1.25x on nodes.
GROUPED_MIN_FEATURES = 64


def mass_histograms(k, n_features):
    """Whether ``label_histograms`` fills the node histograms of ``k`` label columns and
    ``n_features`` features from each row's interleaved masses (``build_histogram_masses``;
    its docstring says when)."""
    return k >= MASS_MIN_LABELS and n_features < GROUPED_MIN_FEATURES


def label_histograms(dataset, weights, labels, pos, neg, codes=None, work=None, masses=None):
    """The ``fill_histogram`` of a label tree on a ``Dataset``'s numeric part (``grow_tree``),
    from ``codes`` (``compact_codes``; default the dataset's). ``work`` (``WorkArrays``, the
    learner's) keeps the interleaved masses and the nodes' work space across rounds
    (default: arrays of this tree's own). ``masses``: the interleaved masses of ``weights``
    if the caller made them (``TreeLearner.fit``), else made here when needed.

    From ``MASS_MIN_LABELS`` labels on (below ``GROUPED_MIN_FEATURES`` features,
    ``mass_histograms``), each example's W+ and W- per label (``pos``, ``neg``) are laid
    out once in a histogram bin's cell order, shape (n, k, 2), in one pass from ``weights``
    and the sign index (``row_masses``; ``TreeLearner.fit`` makes them first, and its
    ``pos`` and ``neg`` are views of them), and
    ``kernels/histogram.build_histogram_masses`` reads each node's rows from them; with
    fewer labels ``kernels/node_histogram.build_node_histogram`` gathers a node's weights and
    sign indices and fills the histogram parallel over groups of features and fixed row
    chunks (with more features, parallel over groups of features only). One label column
    (binary data) takes ``kernels/node_histogram.build_node_histogram_binary``, the same in 1-D.
    Each is the same on any thread count.
    """
    codes = dataset.codes if codes is None else codes
    work = WorkArrays() if work is None else work
    if weights.shape[1] == 1:
        column_weights = weights.reshape(-1)
        column_signs = labels.sign_index.reshape(-1)

        def fill_histogram(rows, hist):
            build_node_histogram_binary(codes, rows, column_weights, column_signs, hist,
                                        ROW_CHUNK, *_node_work(work, column_weights, hist,
                                                               ROW_CHUNK))

        return fill_histogram
    if not mass_histograms(weights.shape[1], codes.shape[0]):
        sign_index = np.ascontiguousarray(labels.sign_index)
        row_chunk = ROW_CHUNK if weights.shape[1] < MASS_MIN_LABELS else max(1, codes.shape[1])
        build = resolved(build_node_histogram)  # a tree's calls all run this build

        def fill_histogram(rows, hist):
            build(codes, *node_rows(rows), weights, sign_index, hist, row_chunk,
                  *_node_work(work, weights, hist, row_chunk))

        return fill_histogram
    if masses is None:
        masses = row_masses(weights, labels, work)

    def fill_histogram(rows, hist):  # the thread count is the round's
        build_histogram_masses(codes, *node_rows(rows), masses, hist,
                               mass_group(codes.shape[0], hist[0].nbytes))

    return fill_histogram


def row_masses(weights, labels, work):
    """Each example's W+ and W- per label interleaved, shape (n, k, 2)
    (``kernels/histogram.interleaved_masses``), in ``work``'s array "masses"."""
    masses = work.get("masses", (*weights.shape, 2))
    interleaved_masses(np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE),
                       np.ascontiguousarray(labels.sign_index), masses)
    return masses


def _node_work(work, weights, hist, row_chunk):
    """The node histograms' work space (``kernels/node_histogram.node_histogram_work``) for
    ``hist``'s shape, kept in ``work`` while that shape and the rows stay the same."""
    return work.made("node histograms", (weights.shape, weights.dtype, hist.shape, row_chunk),
                     lambda: node_histogram_work(weights, hist.shape, row_chunk))


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
        Confidence mode code (``criterion_numpy.MODES``).
    smoothing : float
        ε for the real confidences.
    max_leaves : int
        Most leaves, 2 .. 255 (2 leaves: the stump without its missing block).
    max_depth : int or None
        Most splits from the root to a leaf.
    min_leaf_weight : float
        Least weight (Σ_l W+ + W-, of the round's weights that sum to 1) of a leaf.
    reducer : Reducer, default=LOCAL
        Where the sums over examples are taken (module docstring).

    Attributes
    ----------
    grown : GrownTree or None
        The last tree grown (its node arrays give its leaves on other rows).
    leaf_extra : callable or None
        A function of the grown tree whose array is summed in the same ``reducer.total``
        as the leaves' statistics (a Dask worker's round cover, which saves it a sum of its
        own); None: nothing else is summed.
    leaf_extra_sum : ndarray or None
        That sum, of the last tree.
    """

    leaf_extra = None
    leaf_extra_sum = None

    def __init__(self, mode, smoothing, max_leaves=8, max_depth=None, min_leaf_weight=0.0,
                 reducer=LOCAL):
        self.mode = mode
        self.smoothing = smoothing
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.min_leaf_weight = min_leaf_weight
        self.reducer = reducer
        self.grown = None
        self._pool = HistogramPool()
        self._work = WorkArrays()  # each round's arrays of a row each, kept across rounds
        self._compact = None  # (dataset, its compact_codes, n_hist_bins)
        self._n_total = None  # (dataset, its rows over every shard)

    def release_work(self):
        """Drop the arrays kept across rounds (``BoostingRun.run`` calls it when a call's
        rounds are done; the last tree grown, its blocks a row each, with them); the next
        round makes them again."""
        self._work = WorkArrays()
        self.grown = None

    def _grow(self, dataset, fill_histogram, n_columns, splits, root_hist=None,
              n_hist_bins=N_HIST_BINS):
        numeric = dataset if dataset.has_numeric else None
        if numeric is None and not splits:
            raise _no_feature_error()
        row_sets = LocalRows(numeric, fill_histogram if numeric is not None else None,
                             splits or None, self._work, self.reducer,
                             self._rows_total(dataset), self.max_leaves)
        self.grown = grow_tree(row_sets, None if numeric is None else numeric.n_bins,
                               n_columns, self.mode, self.max_leaves, self.max_depth,
                               self.min_leaf_weight, self._pool, root_hist, n_hist_bins)
        return self.grown

    def _rows_total(self, dataset):
        """The rows of ``dataset`` over every shard: summed by the first tree on it."""
        if self._n_total is None or self._n_total[0] is not dataset:
            self._n_total = (dataset, int(self.reducer.total(dataset.n_samples)))
        return self._n_total[1]

    def _splits(self, dataset, pos, neg):
        """The node splits on the other column kinds (``NodeSplits``) of masses ``pos``
        and ``neg``, over this learner's reducer, its term masses in its work arrays."""
        return NodeSplits(dataset, pos, neg, self.mode, self.min_leaf_weight, self._work,
                          self.reducer)

    def _leaf_totals(self, tree, weight_pos, weight_neg, total):
        """The leaves' W+ and W- and the examples' mass ``total`` over every shard, in one
        ``reducer.total`` (with ``leaf_extra``'s array of ``tree`` where it is set, its sum
        kept in ``leaf_extra_sum``)."""
        parts = [weight_pos, weight_neg, total]
        if self.leaf_extra is not None:
            parts.append(self.leaf_extra(tree))
        weight_pos, weight_neg, total, *extra = self.reducer.total(parts)
        self.leaf_extra_sum = extra[0] if extra else None
        return weight_pos, weight_neg, total

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
        codes, n_hist_bins = self.compacted(dataset)
        masses = None
        if mass_histograms(weights.shape[1], codes.shape[0]) \
                and not any(NodeSplits.columns(dataset)):
            # the node histograms' masses, made once: W+ and W- are views of them (the
            # other column kinds' splits read contiguous ones)
            masses = row_masses(weights, labels, self._work)
            pos, neg = masses[..., 0], masses[..., 1]
        else:
            pos, neg = label_masses(weights, labels, self._work)
        splits = self._splits(dataset, pos, neg)
        tree = self._grow(dataset, label_histograms(dataset, weights, labels, pos, neg, codes,
                                                    self._work, masses),
                          weights.shape[1], splits, n_hist_bins=n_hist_bins)
        values, fit = self._leaf_fit(tree, pos, neg, masses)
        return fit(TreeHypothesis(*hypothesis_nodes(tree, dataset, splits), tree.left,
                                  tree.right, values))

    def compacted(self, dataset, source=None):
        """``compact_codes(dataset)``, (codes, n_hist_bins), kept while ``dataset`` is the
        learner's; ``source``, another ``TreeLearner`` that holds them, lends its copy (the
        learners of a round's trees per label share one)."""
        if source is not None and source._compact is not None \
                and source._compact[0] is dataset:
            self._compact = source._compact
        if self._compact is None or self._compact[0] is not dataset:
            self._compact = (dataset, *compact_codes(dataset))
        return self._compact[1:]

    def leaf_values(self, weight_pos, weight_neg, total):
        """The leaf values from the leaves' W+ and W-, shape (n_leaves, c) each, and the
        tree's Z (``partition_z``; ``total``: the mass of all examples, ``_mass``). The
        confidence rule of §4.1 (``block_confidences``); a leaf never abstains."""
        values = block_confidences(weight_pos, weight_neg,
                                   np.zeros(weight_pos.shape[0], dtype=bool), self.mode,
                                   self.smoothing)
        return values, partition_z(weight_pos, weight_neg, None, self.mode, total)

    def _mass(self, pos, neg):
        """The mass of all examples, ``leaf_values``' ``total``: only the Z of ±1
        confidences reads it (``partition_z``), so under real ones it is not summed (0.0;
        two passes over the examples' masses: 0.13-0.17 ms of a letter round)."""
        if base_mode(self.mode) != DISCRETE:
            return 0.0
        return float(pos.sum() + neg.sum())

    def _leaf_fit(self, tree, pos, neg, masses=None):
        """The leaf values, shape (n_leaves, k), and a function of the hypothesis giving its
        ``PartitionFit``; ``masses``: ``pos`` and ``neg`` interleaved, shape (n, k, 2), of
        which they are views (their leaves' sums in one pass, ``block_sums``), or None."""
        if masses is None:
            weight_pos, weight_neg = leaf_statistics(tree.train_blocks, tree.n_leaves, pos,
                                                     neg)
        else:
            sums = block_sums(tree.train_blocks, tree.n_leaves,
                              masses.reshape(masses.shape[0], -1))
            sums = sums.reshape(tree.n_leaves, -1, 2)
            weight_pos = np.ascontiguousarray(sums[..., 0])
            weight_neg = np.ascontiguousarray(sums[..., 1])
        weight_pos, weight_neg, total = self._leaf_totals(tree, weight_pos, weight_neg,
                                                          self._mass(pos, neg))
        values, criterion = self.leaf_values(weight_pos, weight_neg, total)

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

    def __init__(self, mode, smoothing, max_leaves=8, max_depth=None, min_leaf_weight=0.0,
                 reducer=LOCAL):
        super().__init__(mode, smoothing, max_leaves, max_depth, min_leaf_weight, reducer)
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
        pos, neg = label_masses(weights, labels, self._work)
        best = None  # (edge, vote)
        if dataset.has_numeric:
            label_hist = self._pool_labels(dataset.codes.shape[0], pos.shape[1])
            build_histogram(dataset.codes, weights, labels.sign_index, label_hist)
            best = self._vote(self.reducer.total(label_hist, out=label_hist), dataset.n_bins)
        for edge, vote in self._other_votes(dataset, weights, labels):
            if best is None or edge > best[0]:
                best = (edge, vote)
        if best is None:
            raise _no_feature_error()
        vote = best[1]
        agree, disagree = agreement_masses(pos, neg, vote)
        splits = self._splits(dataset, agree, disagree)
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
        problem), each over every shard."""
        leaf_agree, leaf_disagree = leaf_statistics(tree.train_blocks, tree.n_leaves, agree,
                                                    disagree)
        leaf_agree, leaf_disagree, total = self._leaf_totals(tree, leaf_agree, leaf_disagree,
                                                             self._mass(pos, neg))
        leaf_values, criterion = self.leaf_values(leaf_agree, leaf_disagree, total)
        weight_pos, weight_neg = self.reducer.total(
            leaf_statistics(tree.train_blocks, tree.n_leaves, pos, neg))

        def fit(hypothesis):
            return PartitionFit(hypothesis=hypothesis, train_blocks=tree.train_blocks,
                                weight_pos=weight_pos, weight_neg=weight_neg,
                                criterion=criterion)

        return leaf_values[:, 0], fit

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

    def _other_votes(self, dataset, weights, labels):
        """(edge, vote) of the best factorised categorical and term split of each column.

        A split with left margins d[l] and node margins M[l] (W+ - W- over all examples)
        has d_left - d_right = 2 d - M: edge Σ_l |2 d[l] - M[l]|, vote sign(2 d - M)
        (+1 on ties, as the numeric vote). The term margins come from
        ``kernels/term_masses.term_block_weights``, taken for the lists each text column
        scores (``TextColumn.scored_list``: on a shard of a cluster every term of the common
        vocabulary) a slice at a time (``engine/reduction.slices`` of the reducer's
        ``slice_cells``), each slice's margins one ``reducer.total``; each column keeps its
        first list of largest edge.
        """
        margin_total = self.reducer.total(
            np.where(labels.signs > 0, weights, -weights).sum(axis=0))
        for column in dataset.categorical:
            if not column.values:
                continue
            w_plus, w_minus = self.reducer.total(value_histogram(
                column.codes, len(column.values), weights, labels.signs))
            yield _best_factorised(w_plus[:-1] - w_minus[:-1], margin_total)
        text = [column for column in dataset.text if column.n_terms > 0]
        k = weights.shape[1]
        best = [None] * len(text)
        for pieces in slices([column.scored_list.shape[0] for column in text], k,
                             self.reducer.slice_cells):
            shape = (slice_rows(pieces), k)
            w_plus, w_minus = np.empty(shape), np.empty(shape)
            for index, start, stop, rows in placed(pieces):
                column = text[index]
                term_block_weights(column.distinct_indptr, column.distinct_indices,
                                   column.scored_list[start:stop], weights, labels.signs,
                                   w_plus[rows], w_minus[rows])
            margin = self.reducer.total(w_plus - w_minus)
            for index, _, _, rows in placed(pieces):
                found = _best_factorised(margin[rows], margin_total)
                if best[index] is None or found[0] > best[index][0]:
                    best[index] = found
        yield from (found for found in best if found is not None)


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
