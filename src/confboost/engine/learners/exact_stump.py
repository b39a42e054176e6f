"""Decision stumps on unbinned continuous columns: every threshold between two values.

A column kept exact (``data.dataset.ExactColumn``, from ``max_bins=None``) is tested at
every midpoint of two neighbouring distinct training values, as icsiboost tests a
continuous column, instead of at ``max_bins`` quantile boundaries. The hypothesis is the
binned learner's ``StumpHypothesis`` (paper §4.1: three blocks, ``x <= threshold``,
``x > threshold``, missing), and so is Z: per label the W+/W- of each distinct value are
summed in example order (``np.bincount``), accumulated from the lowest value up and scored
per threshold in the order and with the operations of ``kernels/stump_split.best_thresholds``
(same bits on the same masses), the first threshold of least Z kept.
"""

import numpy as np

from confboost.engine.confidence import block_confidences
from confboost.engine.learners.base import PartitionFit
from confboost.engine.learners.stump import STUMP_ABSTAINING, StumpHypothesis
from confboost.kernels.criterion_numpy import ABSTAINING_MODES, cell, z_from_sums
from confboost.utils.dtypes import ABSTAIN, WEIGHT_DTYPE


def value_masses(ranks, n_values, weights, signs):
    """W+ and W- of each distinct value and of the missing values, per label.

    Parameters
    ----------
    ranks : ndarray of shape (n_samples,), int32
        Each example's value index, -1 where missing.
    n_values : int
    weights : ndarray of shape (n_samples, k)
    signs : ndarray of shape (n_samples, k), int8

    Returns
    -------
    pos, neg : ndarray of shape (n_values + 1, k)
        Row 0 the missing values, row ``1 + r`` value ``r``.
    """
    slots = ranks.astype(np.intp) + 1
    k = weights.shape[1]
    pos = np.empty((n_values + 1, k), dtype=WEIGHT_DTYPE)
    neg = np.empty((n_values + 1, k), dtype=WEIGHT_DTYPE)
    for l in range(k):
        positive = signs[:, l] > 0
        pos[:, l] = np.bincount(slots, np.where(positive, weights[:, l], 0.0), n_values + 1)
        neg[:, l] = np.bincount(slots, np.where(positive, 0.0, weights[:, l]), n_values + 1)
    return pos, neg


def threshold_z(pos, neg, mode, total):
    """Z of the stump at every threshold of one column.

    Parameters
    ----------
    pos, neg : ndarray of shape (n_values + 1, k)
        ``value_masses``' output.
    mode : int
    total : float

    Returns
    -------
    z : ndarray of shape (n_values,)
        ``z[r]``: the stump ``x <= (value r and value r+1's midpoint)``, the last one
        ``x <= inf`` (every known value in block 0).
    """
    k = pos.shape[1]
    left_pos = np.cumsum(pos[1:], axis=0)  # running sums, as the kernel's, value by value
    left_neg = np.cumsum(neg[1:], axis=0)
    abstaining = mode in ABSTAINING_MODES
    missing_u, abstained = 0.0, 0.0
    for l in range(k):
        if abstaining:
            abstained += pos[0, l] + neg[0, l]
        else:
            missing_u += float(cell(pos[0, l], neg[0, l], mode))
    u = np.zeros(left_pos.shape[0])
    v = np.zeros(left_pos.shape[0])
    for l in range(k):
        right_pos = np.maximum(left_pos[-1, l] - left_pos[:, l], 0.0)
        right_neg = np.maximum(left_neg[-1, l] - left_neg[:, l], 0.0)
        u += cell(left_pos[:, l], left_neg[:, l], mode) + cell(right_pos, right_neg, mode)
        if mode == ABSTAIN:
            v += np.minimum(left_pos[:, l], left_neg[:, l]) + np.minimum(right_pos, right_neg)
    return z_from_sums(u + missing_u, v, abstained, mode, total)


class ExactStumpLearner:
    """The stump of least Z over the ``Dataset``'s exact columns (every threshold).

    Parameters
    ----------
    mode : int
        Confidence mode code.
    smoothing : float
    """

    def __init__(self, mode, smoothing):
        self.mode = mode
        self.smoothing = smoothing

    def fit(self, dataset, weights, labels):
        """Best stump for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Returns
        -------
        PartitionFit or None
            None when the Dataset has no exact column.
        """
        if not dataset.exact:
            return None
        signs = labels.signs
        # the histograms' total mass: every example lies in one block of any column
        total = None
        best = None
        for column in dataset.exact:
            pos, neg = value_masses(column.ranks, column.values.shape[0], weights, signs)
            if total is None:
                total = float(pos.sum() + neg.sum())
            z = threshold_z(pos, neg, self.mode, total)
            rank = int(np.argmin(z))  # the first threshold of least Z
            if best is None or z[rank] < best[0]:
                best = (float(z[rank]), column, rank, pos, neg)
        z, column, rank, pos, neg = best
        weight_pos = np.stack([pos[1:rank + 2].sum(axis=0), pos[rank + 2:].sum(axis=0), pos[0]])
        weight_neg = np.stack([neg[1:rank + 2].sum(axis=0), neg[rank + 2:].sum(axis=0), neg[0]])
        values = block_confidences(weight_pos, weight_neg, STUMP_ABSTAINING, self.mode,
                                   self.smoothing)
        ranks = column.ranks
        train_blocks = np.where(ranks < 0, 2, np.where(ranks <= rank, 0, 1)).astype(np.uint8)
        return PartitionFit(
            hypothesis=StumpHypothesis(column.column, column.threshold(rank), values),
            train_blocks=train_blocks,
            weight_pos=weight_pos,
            weight_neg=weight_neg,
            criterion=z,
        )
