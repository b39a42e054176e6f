"""Weight trimming on the cluster: the local trimmed stump (Friedman, Hastie & Tibshirani
2000, §9; ``kernels/weight_trim.py``) from sums the reducer takes.

The local cut is a histogram pass already: an example's weight mass is bucketed by the top
16 bits of its IEEE-754 pattern (an order-preserving key), and the cut is the lowest bucket
whose cumulative mass passes β of the total. Bucket masses of disjoint row sets add up, so
on the cluster each shard sums its own (``weight_buckets``), every worker finds the cut from
their allreduced sum (``cut_bucket``, the kernel's rule), and each shard builds the
histogram of its rows at or above the cut (``trimmed_histogram``). The chosen stump's block
statistics over every example, which α, Z_t and the kernel's fall-back test read, are one
more sum (``stump_masses``). The three sums are allreduces inside the round's task (the
workers run this learner: ``round_learner.py``), so a trimmed round is one round trip; the
rows kept are the local rule's, and the stump is the local one (sums added in another
order: to rounding).
"""

import numpy as np

from confboost.engine.learners.base import PartitionFit
from confboost.engine.learners.stump import StumpLearner, stump_train_blocks
from confboost.kernels.weight_trim import KEY_SHIFT, N_KEY_BUCKETS
from confboost.kernels.weight_update import stump_block_stats
from confboost.utils.dtypes import MISSING_BIN, WEIGHT_DTYPE


def _mass_keys(weights):
    """Each row's weight mass Σ_l W[i, l] and its bucket (the top 16 bits of its pattern)."""
    mass = np.ascontiguousarray(weights[:, 0] if weights.shape[1] == 1 else weights.sum(axis=1))
    return mass, (mass.view(np.uint64) >> np.uint64(KEY_SHIFT)).astype(np.intp)


def weight_buckets(dataset, weights, labels):
    """A shard's weight mass in each key bucket, shape (N_KEY_BUCKETS,), and its total."""
    mass, keys = _mass_keys(weights)
    return np.bincount(keys, weights=mass, minlength=N_KEY_BUCKETS), float(mass.sum())


def cut_bucket(bucket_mass, total, beta):
    """The lowest bucket whose cumulative mass passes ``beta`` of ``total``
    (``kernels/weight_trim.trim_rows``' rule); 0 when none does."""
    over = np.flatnonzero(np.cumsum(bucket_mass) > beta * total)
    return int(over[0]) if over.size else 0


def trimmed_histogram(dataset, weights, labels, cut):
    """A shard's histogram (``StumpLearner.histogram``) of its rows whose bucket is at least
    ``cut``, and how many they are."""
    rows = np.flatnonzero(_mass_keys(weights)[1] >= cut).astype(np.uint32)
    return StumpLearner.histogram(dataset, weights, labels, rows), rows.shape[0]


def stump_masses(dataset, weights, labels, feature, threshold_bin):
    """W+ and W- of a stump's three blocks over a shard's rows, shape (3, k) each."""
    k = weights.shape[1]
    blocks = np.empty(dataset.codes.shape[1], dtype=np.uint8)
    weight_pos = np.empty((3, k), dtype=WEIGHT_DTYPE)
    weight_neg = np.empty((3, k), dtype=WEIGHT_DTYPE)
    stump_block_stats(dataset.codes[feature], threshold_bin, MISSING_BIN,
                      np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE), labels.sign_index,
                      blocks, weight_pos, weight_neg)
    return weight_pos, weight_neg


class ClusterTrimmedStumpLearner(StumpLearner):
    """``StumpLearner`` with ``trim`` > 0 whose rows are on shards: the same kept rows,
    stump, confidences (fitted to the kept rows), block statistics of every row and
    fall-back to every row when the trimmed choice lost most of its edge.

    Parameters
    ----------
    mode : int
    smoothing : float
    trim : float
        β, in (0, 1).
    reducer : Reducer
    """

    def fit(self, dataset, weights, labels):
        """The trimmed stump of the shards' weights (``StumpLearner.fit``'s rule)."""
        if not dataset.has_numeric or self.trim == 0:  # (a round on every row: the local one)
            return super().fit(dataset, weights, labels)
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)  # as the local learner's
        bucket_mass, total = self.reducer.sum(weight_buckets, dataset, weights, labels)
        hist, kept = self.reducer.sum(trimmed_histogram, dataset, weights, labels,
                                      cut_bucket(bucket_mass, total, self.trim))
        split = self.best_split(hist, dataset)
        feature, threshold_bin = split.feature_row, split.threshold_bin
        kept_edge = float(np.sum((split.weight_pos - split.weight_neg) * split.values))
        weight_pos, weight_neg = self.reducer.sum(stump_masses, dataset, weights, labels,
                                                  feature, threshold_bin)
        if not float(np.sum((weight_pos - weight_neg) * split.values)) >= 0.5 * kept_edge:
            return self._fit_untrimmed(dataset, weights, labels)  # as the local learner
        self.kept_.append(int(kept))
        return PartitionFit(
            hypothesis=split.hypothesis,
            train_blocks=self.reducer.rows(stump_train_blocks, dataset, feature, threshold_bin),
            weight_pos=weight_pos,
            weight_neg=weight_neg,
            criterion=split.criterion,
        )
