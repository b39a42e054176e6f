"""Decision stumps on continuous features, with a missing-value block (paper §4.1, §7.1).

A stump tests ``x[feature] <= threshold`` and partitions the domain into three blocks:
0 (test true), 1 (test false), 2 (value missing). The learner builds the W+/W- histograms of
every feature, finds the threshold of least Z (``kernels/stump_split.py``), and sets the block
values by the confidence rule (``confidence.py``). Under the abstaining modes block 2 is the
abstaining block. Under weight trimming (Friedman, Hastie & Tibshirani 2000, §9;
``kernels/weight_trim.py``) the histograms read the examples the round's cut keeps
(``TrimPasses``); every sum, the cut's included, goes through the learner's reducer, so the
same learner trains on one machine and on the shards of a cluster.
"""

from dataclasses import dataclass

import numpy as np

from confboost.data.frame import as_frame
from confboost.engine.confidence import block_confidences
from confboost.engine.learners.base import (
    MAX_INDEX,
    PartitionFit,
    PartitionHypothesis,
    blocks_text,
    column_label,
    saved_values,
)
from confboost.engine.reduction import LOCAL
from confboost.kernels.histogram import (
    EVERY_ROW,
    N_HIST_BINS,
    build_histogram,
    build_histogram_binary,
    build_histogram_binary_rows,
    build_histogram_masses,
    build_histogram_rows,
    interleaved_masses,
    mass_group,
)
from confboost.kernels.stump_predict import predict_stumps, predict_stumps_naive
from confboost.kernels.stump_split import best_stump
from confboost.kernels.stump_twins import best_stump_twin, histogram_twin, stump_blocks_twin
from confboost.kernels.weight_trim import N_KEY_BUCKETS, bucket_masses, cut_bucket, kept_rows
from confboost.kernels.weight_update import stump_block_stats, stump_blocks
from confboost.utils.dtypes import MISSING_BIN, WEIGHT_DTYPE
from confboost.utils.lazy_numba import kernel_ready, load_numba, prefer_twin
from confboost.utils.untrusted import read_float, read_int, require, write_float

#: Most row·stump·label cells a prediction takes through NumPy while ``predict_stumps`` is
#: not loaded (some 10 ms of NumPy, against a third of a second to load numba).
NUMPY_PREDICT_CELLS = 1 << 20

#: Which of a stump's blocks the abstaining modes abstain on: the missing-value block.
STUMP_ABSTAINING = np.array([False, False, True])

#: Label columns from which a stump's histogram of every example, on one thread, comes from
#: each example's masses in a histogram bin's cell order (``build_histogram_masses``: 2k
#: contiguous adds an example and feature, which LLVM vectorises) rather than from its
#: weights and sign index (``build_histogram``: k scattered adds). One thread, k = 10: 0.77x
#: the time on 100k x 50 codes, 0.70x on 60k x 784 (the masses' own pass included, 3% of
#: it); the same bits. Two threads on two busy cores: 1.3-1.4x (a task's group of features
#: reads the 16 MB of masses, 9 tasks against 50 of ``build_histogram``), so more threads
#: keep ``build_histogram``.
MASS_MIN_LABELS = 8


class StumpHypothesis(PartitionHypothesis):
    """A stump ``x[feature] <= threshold`` with a value per block and label.

    Parameters
    ----------
    feature : int
        Table position of the column tested.
    threshold : float
        Raw-value threshold (``inf`` sends every non-missing value to block 0).
    values : ndarray of shape (3, k)
    """

    type_name = "stump"

    def __init__(self, feature, threshold, values):
        self.feature = int(feature)
        self.threshold = float(threshold)
        self.values = np.asarray(values, dtype=np.float64)

    def features(self):
        return [self.feature]

    def blocks(self, X):
        column = as_frame(X).continuous_values(self.feature)
        return np.where(np.isnan(column), 2, np.where(column <= self.threshold, 0, 1))

    def with_columns(self, position):
        return StumpHypothesis(position[self.feature], self.threshold, self.values)

    def describe(self, names=None, classes=None, scale=1.0):
        name = column_label(names, self.feature)
        tests = ([f"{name} <= {self.threshold:.6g}", f"{name} > {self.threshold:.6g}"]
                 if np.isfinite(self.threshold) else [f"{name} known", "(never)"])
        tests.append(f"{name} missing")
        keep = [b for b in range(3) if tests[b] != "(never)"]
        return blocks_text([tests[b] for b in keep], self.values[keep], classes, scale)

    def test_columns(self):
        return np.array([self.feature], dtype=np.intp)

    def tested_points(self, column):
        tested = self.feature == column and np.isfinite(self.threshold)
        return ([self.threshold] if tested else []), []

    @classmethod
    def add_scores(cls, hypotheses, alphas, frame, scores):
        """All the stumps in one pass of the ``predict_stumps`` kernel, or of its NumPy twin
        (the same sums in the same order) on a few rows while the kernel is not loaded yet:
        loading numba would cost a command that scores a few lines ten times its work, and
        compiling the kernel (an empty cache) a small fit's calibration a second."""
        X = frame.numeric
        X = np.ascontiguousarray(X, dtype=X.dtype if X.dtype == np.float32 else np.float64)
        features = np.array([h.feature for h in hypotheses], dtype=np.intp)
        for feature in np.unique(features):
            frame.continuous_values(int(feature))  # ValueError if not a continuous column
        thresholds = np.array([h.threshold for h in hypotheses], dtype=np.float64)
        values = np.array([h.values * a for h, a in zip(hypotheses, alphas, strict=True)],
                          dtype=np.float64).reshape(len(hypotheses), 3, scores.shape[1])
        if (scores.size * len(hypotheses) <= NUMPY_PREDICT_CELLS
                and not kernel_ready(predict_stumps)):
            scores += predict_stumps_naive(X, features, thresholds, values)
        else:
            predict_stumps(X, features, thresholds, values, scores)

    def to_dict(self):
        return {"type": self.type_name, "feature": self.feature,
                "threshold": write_float(self.threshold), "values": self.values.tolist()}

    @classmethod
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError naming the bad field. The feature is checked
        against the model's columns by ``BoostedModel.check_columns``."""
        feature = read_int(require(data, "feature", "stump"), "feature", 0, MAX_INDEX)
        threshold = read_float(require(data, "threshold", "stump"), "threshold", infinite=True)
        return cls(feature, threshold, saved_values(data, 3, n_labels=n_labels))


def stump_train_blocks(dataset, feature_row, threshold_bin):
    """The block of every row of ``dataset`` under the stump on codes row ``feature_row``
    at ``threshold_bin`` (``kernels/weight_update.stump_blocks``), shape (n_samples,),
    uint8."""
    blocks = np.empty(dataset.codes.shape[1], dtype=np.uint8)
    block_kernel = (stump_blocks_twin if prefer_twin(stump_blocks, blocks.size, every_round=True)
                    else stump_blocks)  # the same blocks, without numba on a small fit
    block_kernel(dataset.codes[feature_row], threshold_bin, MISSING_BIN, blocks)
    return blocks


class TrimPasses:
    """Weight trimming's two sums over a set's rows in one round (``kernels/weight_trim.py``):
    the weight mass of each key bucket with the total (``buckets``), then, once the cut is
    known from their sums over every row, the histogram of the rows at or above it
    (``histogram``).

    Both need each row's mass Σ_l W[i, l]. Where the two calls run in one process on the
    same weights array (one machine; a worker of the collective, whose reducer calls the
    function where the learner runs), the second reads the masses the first computed, so a
    trimmed round reads the weights for them once; given other weights (a reducer that
    sends the function to each shard), it computes them again, the same bits. One object a
    round: it holds the round's weights until it goes.
    """

    def __init__(self):
        self._weights = None
        self._mass = None

    def _masses(self, weights):
        """Each row's mass, shape (n_samples,), C-contiguous (NumPy's sum over the labels,
        as weight trimming has always taken it)."""
        if weights is not self._weights:
            self._weights = weights
            self._mass = np.ascontiguousarray(weights[:, 0] if weights.shape[1] == 1
                                              else weights.sum(axis=1))
        return self._mass

    def buckets(self, dataset, weights, labels):
        """A set of rows' weight mass in each key bucket
        (``kernels/weight_trim.bucket_masses``) and its total.

        Parameters
        ----------
        dataset : Dataset
            Not read: the signature of a reducer's ``sum``.
        weights : ndarray of shape (n_samples, k)
        labels : LabelSigns
            Not read.

        Returns
        -------
        bucket_mass : ndarray of shape (N_KEY_BUCKETS,)
        total : float
        """
        mass = self._masses(weights)
        bucket_mass = np.empty(N_KEY_BUCKETS, dtype=np.float64)
        return bucket_mass, bucket_masses(mass, mass.view(np.uint64), bucket_mass)

    def histogram(self, dataset, weights, labels, cut):
        """The histogram (``StumpLearner.histogram``) of a set's rows whose weight-mass
        bucket is ``cut`` or above (``kernels/weight_trim.kept_rows``), and how many they
        are.

        Parameters
        ----------
        dataset : Dataset
        weights : ndarray of shape (n_samples, k), float64, C-contiguous
        labels : LabelSigns
        cut : int
            The bucket of weight trimming's cut (``kernels/weight_trim.cut_bucket``).

        Returns
        -------
        hist : ndarray of shape (n_features, 256, k, 2)
        count : int
        """
        mass = self._masses(weights)
        rows = np.empty(mass.shape[0], dtype=np.uint32)
        count = kept_rows(mass.view(np.uint64), cut, rows)
        return StumpLearner.histogram(dataset, weights, labels, rows[:count]), count


def stump_masses(dataset, weights, labels, feature_row, threshold_bin):
    """W+ and W- of a stump's three blocks over a set's rows
    (``kernels/weight_update.stump_block_stats``).

    Parameters
    ----------
    dataset : Dataset
    weights : ndarray of shape (n_samples, k), float64, C-contiguous
    labels : LabelSigns
    feature_row, threshold_bin : int
        The stump (``StumpSplit``).

    Returns
    -------
    weight_pos, weight_neg : ndarray of shape (3, k)
    """
    k = weights.shape[1]
    blocks = np.empty(dataset.codes.shape[1], dtype=np.uint8)
    weight_pos = np.empty((3, k), dtype=WEIGHT_DTYPE)
    weight_neg = np.empty((3, k), dtype=WEIGHT_DTYPE)
    stump_block_stats(dataset.codes[feature_row], threshold_bin, MISSING_BIN, weights,
                      labels.sign_index, blocks, weight_pos, weight_neg)
    return weight_pos, weight_neg


@dataclass
class StumpSplit:
    """The best stump of a histogram, before its training blocks are known.

    Attributes
    ----------
    hypothesis : StumpHypothesis
    feature_row : int
        Row of ``Dataset.codes`` tested (the hypothesis names its table position).
    threshold_bin : int
        Codes ``<= threshold_bin`` are block 0 (``kernels.weight_update.stump_blocks``).
    weight_pos, weight_neg : ndarray of shape (3, k)
        W+ and W- of the three blocks.
    values : ndarray of shape (3, k)
    criterion : float
        The stump's Z.
    """

    hypothesis: StumpHypothesis
    feature_row: int
    threshold_bin: int
    weight_pos: np.ndarray
    weight_neg: np.ndarray
    values: np.ndarray
    criterion: float


class StumpLearner:
    """Finds the stump of least Z under the given weights.

    Parameters
    ----------
    mode : int
        Confidence mode code (``criterion_numpy.MODES``).
    smoothing : float
        ε for the real confidences.
    trim : float, default=0.0
        Weight trimming β (Friedman, Hastie & Tibshirani 2000): the histograms that choose
        the split skip the lightest examples holding at most β of the weight mass
        (``kernels/weight_trim.py``). The chosen stump's confidences fit the kept examples; its
        block statistics, from which α and Z_t follow, are recomputed over all examples.
        The kept examples are chosen over all of them from sums the reducer takes, so a
        fit over shards keeps the rows that one machine keeps.
    reducer : Reducer, default=LOCAL
        Where the histograms are summed and the training blocks kept
        (``engine/reduction.py``): one machine, or the shards of a cluster.

    Attributes
    ----------
    kept_ : list of int
        Examples the histograms used, per round (every example when ``trim`` is 0).
    """

    def __init__(self, mode, smoothing, trim=0.0, reducer=LOCAL):
        self.mode = mode
        self.smoothing = smoothing
        self.trim = trim
        self.reducer = reducer
        self.kept_ = []
        self._hist = None

    def fit(self, dataset, weights, labels):
        """Best stump for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Returns
        -------
        PartitionFit or None
            None when the Dataset has no continuous column.
        """
        if not dataset.has_numeric:
            return None
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        if self.trim > 0:
            return self._fit_trimmed(dataset, weights, labels)
        hist = self.reducer.sum(self.histogram, dataset, weights, labels, out=self._hist)
        self._hist = hist
        self.kept_.append(dataset.codes.shape[1])
        split = self.best_split(hist, dataset)
        return PartitionFit(
            hypothesis=split.hypothesis,
            train_blocks=self.reducer.rows(stump_train_blocks, dataset, split.feature_row,
                                           split.threshold_bin),
            weight_pos=split.weight_pos,
            weight_neg=split.weight_neg,
            criterion=split.criterion,
        )

    def _fit_trimmed(self, dataset, weights, labels):
        """``fit`` under weight trimming (``kernels/weight_trim.py``), every sum through the
        reducer: the weight mass of each key bucket and the total, the cut from them, the
        histogram of the rows at or above it (``TrimPasses``), and the chosen stump's block
        statistics over every row (``stump_masses``).

        The confidences fit the kept examples (as in Friedman et al.; fitting them to all
        examples would leave the same stump best on the kept ones, round after round),
        while α and Z_t use the block statistics of every example. When the trimmed choice
        lost most of its edge r = Σ W h on all the examples (the kept set can get stuck on
        one stump), the round uses every example.
        """
        passes = TrimPasses()
        bucket_mass, total = self.reducer.sum(passes.buckets, dataset, weights, labels)
        hist, kept = self.reducer.sum(passes.histogram, dataset, weights, labels,
                                      cut_bucket(bucket_mass, total, float(self.trim)))
        split = self.best_split(hist, dataset)
        feature, threshold_bin, values = split.feature_row, split.threshold_bin, split.values
        kept_edge = float(np.sum((split.weight_pos - split.weight_neg) * values))
        weight_pos, weight_neg = self.reducer.sum(stump_masses, dataset, weights, labels,
                                                  feature, threshold_bin)
        if not float(np.sum((weight_pos - weight_neg) * values)) >= 0.5 * kept_edge:
            return self._fit_untrimmed(dataset, weights, labels)
        self.kept_.append(int(kept))
        return PartitionFit(
            hypothesis=split.hypothesis,
            train_blocks=self.reducer.rows(stump_train_blocks, dataset, feature, threshold_bin),
            weight_pos=weight_pos,
            weight_neg=weight_neg,
            criterion=split.criterion,
        )

    @staticmethod
    def histogram(dataset, weights, labels, rows=None, out=None):
        """The W+/W- histogram of every numeric feature, shape (n_features, 256, k, 2).

        Parameters
        ----------
        dataset : Dataset
        weights : ndarray of shape (n_samples, k), float64, C-contiguous
        labels : LabelSigns
        rows : ndarray of shape (n_kept,), uint32, optional
            Only these examples (weight trimming); None for all.
        out : ndarray, optional
            Reused when it has the histogram's shape.

        Histograms of disjoint row sets add up to the histogram of their union: the
        learner sums its shards' through its reducer.
        """
        n_features = dataset.codes.shape[0]
        k = weights.shape[1]
        shape = (n_features, N_HIST_BINS, k, 2)
        hist = out if out is not None and out.shape == shape else np.empty(
            shape, dtype=WEIGHT_DTYPE)
        sign_index = labels.sign_index
        if rows is None and prefer_twin(build_histogram_binary if k == 1 else build_histogram,
                                        dataset.codes.size * k, every_round=True):
            histogram_twin(dataset.codes, weights, sign_index, hist)  # the same bits
        elif k == 1:
            if rows is None:
                build_histogram_binary(dataset.codes, weights[:, 0], sign_index[:, 0], hist)
            else:
                build_histogram_binary_rows(dataset.codes, rows, weights[rows, 0],
                                            sign_index[rows, 0], hist)
        elif rows is None and k >= MASS_MIN_LABELS and load_numba().get_num_threads() == 1:
            masses = np.empty((*weights.shape, 2), dtype=WEIGHT_DTYPE)
            interleaved_masses(weights, np.ascontiguousarray(sign_index), masses)
            build_histogram_masses(dataset.codes, EVERY_ROW, True, masses, hist,
                                   mass_group(n_features, hist[0].nbytes))
        elif rows is None:
            build_histogram(dataset.codes, weights, sign_index, hist)
        else:
            build_histogram_rows(dataset.codes, rows, weights[rows], sign_index[rows], hist)
        return hist

    def best_split(self, hist, dataset):
        """The stump of least Z from a histogram (``histogram``'s output).

        Parameters
        ----------
        hist : ndarray of shape (n_features, 256, k, 2)
        dataset : Dataset
            Its bins and columns (``n_bins``, ``numeric_columns``, ``bin_mapper``); its
            rows are not read, so a Dataset of no rows with the same bins will do.

        Returns
        -------
        StumpSplit
        """
        n_features = hist.shape[0]
        best_z = np.empty(n_features, dtype=np.float64)
        best_bin = np.empty(n_features, dtype=np.intp)
        # every example lies in one bin of feature 0: the histogram's total mass
        total = float(hist[0].sum())
        weight_pos = np.empty((3, hist.shape[2]), dtype=WEIGHT_DTYPE)
        weight_neg = np.empty((3, hist.shape[2]), dtype=WEIGHT_DTYPE)
        search = (best_stump_twin if prefer_twin(best_stump, hist.size, every_round=True)
                  else best_stump)  # the same stump, without numba on a small fit
        feature, threshold_bin = search(hist, dataset.n_bins, self.mode, total, best_z,
                                        best_bin, weight_pos, weight_neg)
        values = block_confidences(weight_pos, weight_neg, STUMP_ABSTAINING, self.mode,
                                   self.smoothing)
        threshold = dataset.raw_threshold(feature, threshold_bin)
        hypothesis = StumpHypothesis(dataset.numeric_columns[feature], threshold, values)
        return StumpSplit(hypothesis, feature, threshold_bin, weight_pos, weight_neg, values,
                          float(best_z[feature]))

    def _fit_untrimmed(self, dataset, weights, labels):
        trim, self.trim = self.trim, 0.0
        try:
            return self.fit(dataset, weights, labels)
        finally:
            self.trim = trim
