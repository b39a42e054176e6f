"""Decision stumps on continuous features, with a missing-value block (paper §4.1, §7.1).

A stump tests ``x[feature] <= threshold`` and partitions the domain into three blocks:
0 (test true), 1 (test false), 2 (value missing). The learner builds the W+/W- histograms of
every feature, finds the threshold of least Z (``kernels/split.py``), and sets the block
values by the confidence rule (``confidence.py``). Under the abstaining modes block 2 is the
abstaining block.
"""

import numpy as np

from confboost._dtypes import MISSING_BIN, WEIGHT_DTYPE
from confboost.confidence import block_confidences
from confboost.kernels.histogram import N_HIST_BINS, build_histogram, build_histogram_binary
from confboost.kernels.split import best_thresholds
from confboost.kernels.update import stump_blocks
from confboost.learners.base import PartitionFit, PartitionHypothesis

#: Which of a stump's blocks the abstaining modes abstain on: the missing-value block.
STUMP_ABSTAINING = np.array([False, False, True])


class StumpHypothesis(PartitionHypothesis):
    """A stump ``x[feature] <= threshold`` with a value per block and label.

    Parameters
    ----------
    feature : int
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
        column = X[:, self.feature]
        return np.where(np.isnan(column), 2, np.where(column <= self.threshold, 0, 1))

    def to_dict(self):
        return {"type": self.type_name, "feature": self.feature,
                "threshold": self.threshold if np.isfinite(self.threshold) else "inf",
                "values": self.values.tolist()}

    @classmethod
    def from_dict(cls, data):
        threshold = data["threshold"]
        if threshold == "inf":
            threshold = np.inf
        if not isinstance(threshold, (int, float)):
            raise ValueError(f"stump threshold must be a number or 'inf', got {threshold!r}")
        values = np.asarray(data["values"], dtype=np.float64)
        if values.ndim != 2 or values.shape[0] != 3:
            raise ValueError(f"stump values must have shape (3, k), got {values.shape}")
        return cls(int(data["feature"]), threshold, values)


class StumpLearner:
    """Finds the stump of least Z under the given weights.

    Parameters
    ----------
    mode : int
        Confidence mode code (``confidence.MODES``).
    smoothing : float
        ε for the real confidences.
    """

    def __init__(self, mode, smoothing):
        self.mode = mode
        self.smoothing = smoothing
        self._hist = None

    def fit(self, dataset, weights, labels):
        """Best stump for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Returns
        -------
        PartitionFit
        """
        n_features, n_samples = dataset.codes.shape
        k = weights.shape[1]
        if self._hist is None or self._hist.shape != (n_features, N_HIST_BINS, k, 2):
            self._hist = np.empty((n_features, N_HIST_BINS, k, 2), dtype=WEIGHT_DTYPE)
        hist = self._hist
        if k == 1:
            build_histogram_binary(dataset.codes, weights[:, 0], labels.sign_index[:, 0], hist)
        else:
            build_histogram(dataset.codes, weights, labels.sign_index, hist)
        best_z = np.empty(n_features, dtype=np.float64)
        best_bin = np.empty(n_features, dtype=np.intp)
        total = float(weights.sum())
        best_thresholds(hist, dataset.n_bins, self.mode, total, best_z, best_bin)
        feature = int(np.argmin(best_z))
        threshold_bin = int(best_bin[feature])
        weight_pos, weight_neg = self._block_stats(hist[feature], dataset.n_bins[feature],
                                                   threshold_bin)
        values = block_confidences(weight_pos, weight_neg, STUMP_ABSTAINING, self.mode,
                                   self.smoothing)
        n_value_bins = dataset.n_bins[feature]
        threshold = (dataset.bin_mapper.threshold(feature, threshold_bin)
                     if threshold_bin < n_value_bins - 1 else np.inf)
        train_blocks = np.empty(n_samples, dtype=np.uint8)
        stump_blocks(dataset.codes[feature], threshold_bin, MISSING_BIN, train_blocks)
        return PartitionFit(
            hypothesis=StumpHypothesis(feature, threshold, values),
            train_blocks=train_blocks,
            weight_pos=weight_pos,
            weight_neg=weight_neg,
            criterion=float(best_z[feature]),
        )

    @staticmethod
    def _block_stats(feature_hist, n_value_bins, threshold_bin):
        """W+ and W- of the three blocks, shape (3, k) each, from one feature's histogram."""
        left = feature_hist[: threshold_bin + 1].sum(axis=0)
        right = feature_hist[threshold_bin + 1: n_value_bins].sum(axis=0)
        missing = feature_hist[MISSING_BIN]
        stats = np.stack([left, right, missing])
        return stats[:, :, 0].copy(), stats[:, :, 1].copy()
