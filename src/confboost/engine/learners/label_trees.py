"""One tree per label: ``LabelTreesLearner`` and ``LabelTreesHypothesis``.

A domain-partitioning hypothesis on X × Y (paper §7.1) need not split every label's
examples the same way. Here each label l has its own tree, whose leaves X_j^l give the
blocks X_j^l × {l}; the pair (x, l) lies in block (l, j) where x reaches leaf j of tree l,
and h(x, l) is that leaf's value. Under AdaBoost.MH the round's Z is then a sum over labels,

    Z_t = Σ_l Z_t^l,   Z_t^l = Σ_j Σ_{i ∈ X_j^l} D_t(i, l) exp(-Y_i[l] h(x_i, l)),

and each term depends on tree l alone: minimising Z_t is minimising each label's share, so
tree l is grown by the usual tree learner (``learners/tree.py``, best-first by the drop in
Z) on label l's own masses W+ and W- alone, with the confidence rule of §4.1 at its leaves
(Eq. 9 for real confidences). A shared tree (``TreeLearner``) splits every label's examples
at the same nodes; k trees a round let each label find its own splits, for k times the
histogram work of a one-label tree. Each tree has one label column: under real confidences
the grower searches its children's splits with ``kernels/label_split.label_children_splits``
(``grower.grow_tree``).

The hypothesis numbers its blocks label after label: tree l's leaves are blocks
``offsets[l] .. offsets[l] + n_leaves_l - 1``, ``values`` has a row per block and a column
per label (0 off the block's own label), and ``blocks(X)`` gives a block per example and
label, shape (n, k) (the MH update's kernel for it: ``kernels/label_update.py``).

The trees take their sums through the learner's ``Reducer`` (``engine/reduction.py``), as a
shared tree does; over shards (a Dask worker) they grow one after the other, every shard
summing each tree's in the same order.
"""

import copy
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from confboost.data.dataset import LabelSigns
from confboost.data.frame import as_frame
from confboost.engine.learners.base import PartitionFit, PartitionHypothesis
from confboost.engine.learners.grower import HISTOGRAM_MEMORY
from confboost.engine.learners.tree import TreeLearner
from confboost.engine.learners.tree_hypothesis import TreeHypothesis
from confboost.engine.reduction import LOCAL, LocalReducer
from confboost.kernels.forest_walk import forest_arrays, forest_leaves
from confboost.utils.dtypes import BLOCK_DTYPE, NODE_THRESHOLD, WEIGHT_DTYPE
from confboost.utils.threads import concurrent_calls_safe, kernel_threads, threads_here
from confboost.utils.untrusted import fail, prefixed, read_list, require

#: Blocks of a pair: every tree's leaves, numbered label after label, fit in uint16.
LABEL_BLOCK_DTYPE = np.uint16
MAX_LABEL_BLOCKS = int(np.iinfo(LABEL_BLOCK_DTYPE).max) + 1
WEIGHT_BYTES = np.dtype(WEIGHT_DTYPE).itemsize

#: Most leaves (bytes) of one slice of rows that ``LabelTreesHypothesis.add_scores`` finds
#: at once, every tree of the model's rounds (4 MiB: 4,096 rows of a 1,000-tree model).
WALK_BYTES = 1 << 22


def _label_name(classes, label):
    return f"label {label}" if classes is None else str(classes[label])


def _float64_frame(X):
    """``X`` as a Frame whose numeric part is C-contiguous float64, converted once.

    A tree's walk (``TreeHypothesis.blocks``) reads float64 values and converts any other
    numeric part on every call: k trees a round, and every round of a model, would copy a
    float32 matrix k × rounds times. The same values (float32 to float64 is exact), so the
    same blocks.

    Parameters
    ----------
    X : Frame, or ndarray of shape (n_samples, n_columns)

    Returns
    -------
    Frame
        ``X``'s Frame itself when its numeric part is already C-contiguous float64, else a
        shallow copy with the numeric part converted.
    """
    frame = as_frame(X)
    numeric = frame.numeric
    if numeric.dtype == np.float64 and numeric.flags.c_contiguous:
        return frame
    converted = copy.copy(frame)
    converted.numeric = np.ascontiguousarray(numeric, dtype=np.float64)
    return converted


class LabelTreesHypothesis(PartitionHypothesis):
    """k trees, tree l giving h(x, l): a partition of X × Y into blocks X_j^l × {l}.

    Parameters
    ----------
    trees : sequence of TreeHypothesis
        Tree l's ``values`` has shape (n_leaves_l, 1): h(x, l) on its leaves.

    Attributes
    ----------
    offsets : ndarray of shape (k,), intp
        The first block of each tree's leaves.
    values : ndarray of shape (n_blocks, k)
        h on each block and label: tree l's leaf values in column l, rows
        ``offsets[l]:offsets[l] + n_leaves_l``; 0 elsewhere.
    """

    type_name = "label_trees"
    test_layout = "label_trees"

    def __init__(self, trees):
        self.trees = list(trees)
        sizes = np.array([tree.values.shape[0] for tree in self.trees], dtype=np.intp)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        self.values = np.zeros((int(sizes.sum()), len(self.trees)), dtype=np.float64)
        for label, tree in enumerate(self.trees):
            start = self.offsets[label]
            self.values[start: start + sizes[label], label] = tree.values[:, 0]

    def features(self):
        """Table positions of the columns any tree tests."""
        return sorted({column for tree in self.trees for column in tree.features()})

    def test_columns(self):
        """The column of every node, tree after tree."""
        return np.concatenate([tree.test_columns() for tree in self.trees])

    def tested_points(self, column):
        thresholds, values = [], []
        for tree in self.trees:
            more_thresholds, more_values = tree.tested_points(column)
            thresholds += more_thresholds
            values += more_values
        return thresholds, values

    def columns_read(self):
        return [read for tree in self.trees for read in tree.columns_read()]

    def with_columns(self, position):
        return type(self)([tree.with_columns(position) for tree in self.trees])

    def blocks(self, X):
        """Block of each example and label, shape (n_samples, k), uint16."""
        X = _float64_frame(X)
        if _threshold_trees([self]):
            leaves = _walk(_forest([self], X), X, 0, X.n_samples)
            return leaves.astype(LABEL_BLOCK_DTYPE) + self.offsets.astype(LABEL_BLOCK_DTYPE)
        out = None
        for label, tree in enumerate(self.trees):
            leaves = tree.blocks(X)
            if out is None:
                out = np.empty((leaves.shape[0], len(self.trees)), dtype=LABEL_BLOCK_DTYPE)
            out[:, label] = leaves + self.offsets[label]
        return out

    def block_outputs(self, blocks):
        """h(x, l) of examples with blocks ``blocks``, shape (n_samples, k)."""
        return self.values[blocks, np.arange(self.values.shape[1])[None, :]]

    @classmethod
    def add_scores(cls, hypotheses, alphas, frame, scores):
        """Add Σ α h(x, ·) of ``hypotheses`` to ``scores`` (n_samples, k), one hypothesis at
        a time in their order, on the frame converted once (``_float64_frame``).

        Trees of threshold nodes only find their leaves together (``_walk``: each row walks
        every tree of every round in turn, a slice of rows at a time), then each
        hypothesis adds α h(x, ·) to its slice of ``scores`` as
        ``PartitionHypothesis.add_scores`` adds it (the same blocks, the same elementwise
        products and sums in the same order, so the same bits); other trees take that
        method as they are.
        """
        frame = _float64_frame(frame)
        hypotheses = list(hypotheses)
        if not hypotheses or not _threshold_trees(hypotheses):
            super().add_scores(hypotheses, alphas, frame, scores)
            return
        forest = _forest(hypotheses, frame)
        step = max(1, WALK_BYTES // (forest[-1].shape[0] - 1))
        for start in range(0, frame.n_samples, step):
            stop = min(start + step, frame.n_samples)
            leaves = _walk(forest, frame, start, stop)
            first = 0
            for hypothesis, alpha in zip(hypotheses, alphas, strict=True):
                k = len(hypothesis.trees)
                blocks = (leaves[:, first: first + k].astype(LABEL_BLOCK_DTYPE)
                          + hypothesis.offsets.astype(LABEL_BLOCK_DTYPE))
                scores[start:stop] += alpha * hypothesis.block_outputs(blocks)
                first += k

    def parts(self):
        """Tree l as a ``TreeHypothesis`` of k output columns (its values in column l, 0 in
        the others) with its leaves' training cover, one per label: the hypothesis is their
        sum, which the explanations use."""
        parts = []
        for label, tree in enumerate(self.trees):
            rows = slice(self.offsets[label], self.offsets[label] + tree.values.shape[0])
            part = TreeHypothesis(*tree._structure(), self.values[rows])
            part.cover = None if self.cover is None else np.asarray(self.cover)[rows]
            parts.append(part)
        return parts

    def describe(self, names=None, classes=None, scale=1.0):
        return "\n".join(f"{_label_name(classes, label)}:\n  "
                         + tree.describe(names, None, scale).replace("\n", "\n  ")
                         for label, tree in enumerate(self.trees))

    def to_dict(self):
        return {"type": self.type_name, "trees": [tree.to_dict() for tree in self.trees]}

    @classmethod
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError naming the bad field (``trees[l].…``)."""
        entries = read_list(require(data, "trees", "label trees"), "trees", n_labels)
        if not entries:
            fail("trees", "must hold one tree per label", entries)
        trees = []
        for label, entry in enumerate(entries):
            if require(entry, "type", f"trees[{label}]") != TreeHypothesis.type_name:
                fail(f"trees[{label}].type", "must be 'tree'", entry["type"])
            try:
                trees.append(TreeHypothesis.from_dict(entry, n_labels=1))
            except ValueError as error:
                raise prefixed(f"trees[{label}].", error) from None
        n_blocks = sum(tree.values.shape[0] for tree in trees)
        if n_blocks > MAX_LABEL_BLOCKS:
            fail("trees", f"at most {MAX_LABEL_BLOCKS} leaves in all", n_blocks)
        return cls(trees)


def _threshold_trees(hypotheses):
    """Whether every tree of ``hypotheses`` tests thresholds only (``_walk`` finds their
    leaves; a tree with value or term nodes takes ``TreeHypothesis.blocks``)."""
    return all(np.all(tree.kind == NODE_THRESHOLD)
               for hypothesis in hypotheses for tree in hypothesis.trees)


def _forest(hypotheses, frame):
    """The node arrays of every tree of ``hypotheses``, tree after tree in their order
    (``kernels/forest_walk.forest_arrays``), for ``_walk`` on ``frame``: every column a tree
    reads is checked to be a continuous column of it first (ValueError, as
    ``TreeHypothesis.blocks`` checks)."""
    trees = [tree for hypothesis in hypotheses for tree in hypothesis.trees]
    for column in np.unique(np.concatenate([tree.column for tree in trees])):
        frame.continuous_values(int(column))
    return forest_arrays([(tree.column, tree.threshold, tree.missing_left, tree.left,
                           tree.right) for tree in trees])


def _walk(forest, frame, start, stop):
    """The leaf of rows ``start:stop`` of ``frame`` (numeric part C-contiguous float64,
    ``_float64_frame``) in every tree of ``forest`` (``_forest``), shape
    (stop - start, n_trees), uint8 (``kernels/forest_walk.forest_leaves``: each row walks
    all the trees in turn)."""
    out = np.empty((stop - start, forest[-1].shape[0] - 1), dtype=BLOCK_DTYPE)
    forest_leaves(frame.numeric[start:stop], *forest, out)
    return out


class LabelTreesLearner:
    """Grows one tree per label (``TreeLearner`` on that label's masses alone), the
    round's hypothesis a ``LabelTreesHypothesis``.

    Parameters
    ----------
    mode : int
        Confidence mode code (``criterion_numpy.MODES``).
    smoothing : float
        ε for the real confidences.
    max_leaves : int
        Most leaves of each tree, 2 .. 255.
    max_depth : int or None
        Most splits from the root to a leaf.
    min_leaf_weight : float
        Least weight of a leaf: W+ + W- of its label, of the round's weights (which sum
        to 1 over all labels).
    reducer : Reducer, default=LOCAL
        Where the trees' sums are taken; the trees of a round grow on several threads at
        once only on one machine's (``_grow_trees``: shards take each tree's sums in the
        order the trees are grown).

    Attributes
    ----------
    grown : list of GrownTree
        The last round's trees, label by label.
    """

    def __init__(self, mode, smoothing, max_leaves=8, max_depth=None, min_leaf_weight=0.0,
                 reducer=LOCAL):
        self.max_leaves = max_leaves
        self.concurrent_trees = isinstance(reducer, LocalReducer)
        # the learner of the trees grown one after the other (they share its histograms and
        # work arrays), and the first of the learners of ``_grow_trees``' threads
        self._tree = TreeLearner(mode, smoothing, max_leaves, max_depth, min_leaf_weight,
                                 reducer)
        self._more_trees = []  # the other threads' learners, kept across rounds
        self._signs = None  # (the labels, each label's LabelSigns)
        self.grown = []

    def release_work(self):
        """Drop the arrays kept across rounds (as ``TreeLearner.release_work``)."""
        for learner in [self._tree, *self._more_trees]:
            learner.release_work()
        self.grown = []

    def _grow_trees(self, dataset, columns, signs):
        """Tree l on weight column ``columns[l]``, shape (n_samples, 1), and signs
        ``signs[l]``: the ``PartitionFit`` of each, in label order (the trees in ``grown``).

        The trees of a round are independent given its weights (Z_t = Σ_l Z_t^l), so with
        T > 1 kernel threads (``threads.kernel_threads``) min(T, k) Python threads grow
        them at once, each taking the next label not yet taken and growing its tree with
        its own ``TreeLearner`` (histograms and work arrays) and T // min(T, k) kernel
        threads (every kernel on the way releases the GIL); fewer where the trees'
        histograms at once would pass ``grower.HISTOGRAM_MEMORY``, and one after the other
        where numba's threading layer cannot take calls from several threads
        (``threads.concurrent_calls_safe``: not started yet, or ``workqueue``). A tree
        depends only on its column and signs, and the kernels give the same bits on any
        thread count, so the trees are those of one thread growing them in order. Threads
        share the cores better whole trees at a time than each kernel call split in two: on
        784 features a tree's many short parallel regions each end at a barrier.
        """
        tree = self._tree
        n_threads = 1
        if self.concurrent_trees and kernel_threads() > 1 and concurrent_calls_safe():
            codes, n_hist_bins = tree.compacted(dataset)
            # a tree keeps about max_leaves node histograms (the grower: HISTOGRAM_MEMORY
            # at most); the trees grown at once keep no more than that limit in all
            tree_bytes = self.max_leaves * codes.shape[0] * n_hist_bins * 2 * WEIGHT_BYTES
            n_threads = min(len(columns), kernel_threads(),
                            max(1, HISTOGRAM_MEMORY // max(tree_bytes, 1)))
        self.grown = [None] * len(columns)
        if n_threads == 1:
            fits = []
            for label, (column, label_signs) in enumerate(zip(columns, signs, strict=True)):
                fits.append(tree.fit(dataset, column, label_signs))
                self.grown[label] = tree.grown
            return fits
        while len(self._more_trees) < n_threads - 1:
            self._more_trees.append(TreeLearner(tree.mode, tree.smoothing, tree.max_leaves,
                                                tree.max_depth, tree.min_leaf_weight,
                                                tree.reducer))
        learners = [tree, *self._more_trees[:n_threads - 1]]
        for learner in learners[1:]:
            learner.compacted(dataset, tree)
        share = kernel_threads() // n_threads
        fits = [None] * len(columns)
        next_label = iter(range(len(columns)))
        lock = threading.Lock()

        def grow(learner):
            with threads_here(share):
                while True:
                    with lock:
                        label = next(next_label, None)
                    if label is None:
                        return
                    fits[label] = learner.fit(dataset, columns[label], signs[label])
                    self.grown[label] = learner.grown

        with ThreadPoolExecutor(n_threads - 1) as pool:
            others = [pool.submit(grow, learner) for learner in learners[1:]]
            grow(learners[0])
            for other in others:
                other.result()
        return fits

    def _label_signs(self, labels):
        """Each label's signs as a one-column ``LabelSigns``, kept while ``labels`` is."""
        if self._signs is None or self._signs[0] is not labels:
            self._signs = (labels, [LabelSigns.from_signs(labels.signs[:, [label]])
                                    for label in range(labels.n_labels)])
        return self._signs[1]

    def fit(self, dataset, weights, labels):
        """One tree per label for weights ``W`` (n_samples, k) and ``labels``.

        Parameters
        ----------
        dataset : Dataset
        weights : ndarray of shape (n_samples, k)
        labels : LabelSigns

        Returns
        -------
        PartitionFit
            ``train_blocks`` of shape (n_samples, k), uint16; ``criterion`` Σ_l Z_t^l.
        """
        n_samples, k = weights.shape
        if k * self.max_leaves > MAX_LABEL_BLOCKS:
            raise ValueError(f"weak_learner='label_trees' grows a tree per label: {k} labels "
                             f"of max_leaves={self.max_leaves} leaves exceed "
                             f"{MAX_LABEL_BLOCKS} leaves in all; lower max_leaves")
        weights = np.asarray(weights, dtype=WEIGHT_DTYPE)
        fits = self._grow_trees(dataset, [np.ascontiguousarray(weights[:, [label]])
                                          for label in range(k)], self._label_signs(labels))
        hypothesis = LabelTreesHypothesis([fit.hypothesis for fit in fits])
        train_blocks = np.empty((n_samples, k), dtype=LABEL_BLOCK_DTYPE)
        weight_pos = np.zeros_like(hypothesis.values)
        weight_neg = np.zeros_like(hypothesis.values)
        for label, fit in enumerate(fits):
            start = hypothesis.offsets[label]
            rows = slice(start, start + fit.weight_pos.shape[0])
            train_blocks[:, label] = fit.train_blocks + start
            weight_pos[rows, label] = fit.weight_pos[:, 0]
            weight_neg[rows, label] = fit.weight_neg[:, 0]
        return PartitionFit(hypothesis=hypothesis, train_blocks=train_blocks,
                            weight_pos=weight_pos, weight_neg=weight_neg,
                            criterion=float(sum(fit.criterion for fit in fits)))
