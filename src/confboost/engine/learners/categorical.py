"""Categorical stumps: ``x[column] == v`` against the rest, with a missing block (BoosTexter).

The hypothesis partitions the examples into three blocks: 0 (the value is v), 1 (another
known value) and 2 (missing); under the abstaining modes block 2 abstains, as a continuous
stump's missing block does. The learner reads every categorical column's value histogram
(``kernels/value_masses.py``, O(n · k)), forms the three blocks of every value and keeps the
value of least Z (``criterion_numpy.partition_z``); the confidences come from
``confidence.block_confidences``.
"""

from dataclasses import dataclass

import numpy as np

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
from confboost.kernels.criterion_numpy import partition_z
from confboost.kernels.value_masses import value_histogram
from confboost.utils.untrusted import read_int, read_str, require

#: The abstaining block of a categorical stump: missing.
CATEGORICAL_ABSTAINING = np.array([False, False, True])


class CategoricalHypothesis(PartitionHypothesis):
    """``x[column] == value``, with a value per block (=, ≠, missing) and label.

    Parameters
    ----------
    column : int
        Position of the column in the input table.
    value : str
    values : ndarray of shape (3, k)
    """

    type_name = "categorical"

    def __init__(self, column, value, values):
        self.column = int(column)
        self.value = str(value)
        self.values = np.asarray(values, dtype=np.float64)

    def features(self):
        return [self.column]

    def blocks(self, X):
        """Blocks of the examples of a ``Frame``."""
        return X.categorical_blocks(self.column, self.value)

    def describe(self, names=None, classes=None, scale=1.0):
        name = column_label(names, self.column)
        tests = [f"{name} == {self.value!r}", f"{name} != {self.value!r}", f"{name} missing"]
        return blocks_text(tests, self.values, classes, scale)

    def test_columns(self):
        return np.array([self.column], dtype=np.intp)

    def tested_points(self, column):
        return [], ([self.value] if self.column == column else [])

    def with_columns(self, position):
        return CategoricalHypothesis(position[self.column], self.value, self.values)

    def to_dict(self):
        return {"type": self.type_name, "column": self.column, "value": self.value,
                "values": self.values.tolist()}

    def columns_read(self):
        return [("categorical", self.column)]

    @classmethod
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError naming the bad field."""
        column = read_int(require(data, "column", "categorical"), "column", 0, MAX_INDEX)
        value = read_str(require(data, "value", "categorical"), "value")
        return cls(column, value, saved_values(data, 3, n_labels=n_labels))


def categorical_block_stats(w_plus, w_minus):
    """W+ and W- of the three blocks of every value test, from a value histogram.

    Parameters
    ----------
    w_plus, w_minus : ndarray of shape (n_values + 1, k)
        Per value, and missing in the last row (``value_histogram``).

    Returns
    -------
    weight_pos, weight_neg : ndarray of shape (n_values, 3, k)
    """
    known_pos, known_neg = w_plus[:-1], w_minus[:-1]
    rest_pos = np.maximum(known_pos.sum(axis=0) - known_pos, 0.0)
    rest_neg = np.maximum(known_neg.sum(axis=0) - known_neg, 0.0)
    missing_pos = np.broadcast_to(w_plus[-1], known_pos.shape)
    missing_neg = np.broadcast_to(w_minus[-1], known_neg.shape)
    return (np.stack([known_pos, rest_pos, missing_pos], axis=1),
            np.stack([known_neg, rest_neg, missing_neg], axis=1))


class CategoricalLearner:
    """Finds the categorical stump of least Z over every categorical column.

    Parameters
    ----------
    mode : int
        Confidence mode code.
    smoothing : float
    reducer : Reducer, default=LOCAL
        Where the value histograms are summed and the training blocks kept
        (``engine/reduction.py``).
    """

    def __init__(self, mode, smoothing, reducer=LOCAL):
        self.mode = mode
        self.smoothing = smoothing
        self.reducer = reducer

    def fit(self, dataset, weights, labels):
        """Best value test over ``dataset.categorical`` (a ``Dataset``); None if none."""
        hists, total = self.reducer.sum(value_masses, dataset, weights, labels)
        split = self.best_split(hists, dataset, total)
        if split is None:
            return None
        train_blocks = self.reducer.rows(value_blocks, dataset, split.column_index,
                                         split.code)
        return PartitionFit(hypothesis=split.hypothesis, train_blocks=train_blocks,
                            weight_pos=split.weight_pos, weight_neg=split.weight_neg,
                            criterion=split.criterion)

    @staticmethod
    def histograms(dataset, weights, labels):
        """The value histogram of every categorical column: a list of arrays of shape
        (2, n_values + 1, k), W+ and W- per value and missing last (``value_histogram``).

        Histograms of disjoint row sets add up to the histogram of their union: the
        learner sums its shards' through its reducer (``value_masses``).
        """
        return [np.stack(value_histogram(column.codes, len(column.values), weights,
                                         labels.signs))
                for column in dataset.categorical]

    def best_split(self, hists, dataset, total):
        """The value test of least Z from the columns' histograms (``histograms``' output).

        Parameters
        ----------
        hists : list of ndarray of shape (2, n_values + 1, k)
        dataset : Dataset
            Its categorical columns' positions and values (their rows are not read).
        total : float
            Σ W over every example.

        Returns
        -------
        CategoricalSplit or None
            None when no categorical column has a value.
        """
        best = None
        for index, (column, hist) in enumerate(zip(dataset.categorical, hists, strict=True)):
            if not column.values:
                continue
            weight_pos, weight_neg = categorical_block_stats(hist[0], hist[1])
            z = partition_z(weight_pos, weight_neg, CATEGORICAL_ABSTAINING, self.mode, total)
            code = int(np.argmin(z))
            if best is None or z[code] < best[0]:
                best = (float(z[code]), index, code, weight_pos[code], weight_neg[code])
        if best is None:
            return None
        z, index, code, weight_pos, weight_neg = best
        column = dataset.categorical[index]
        values = block_confidences(weight_pos, weight_neg, CATEGORICAL_ABSTAINING, self.mode,
                                   self.smoothing)
        return CategoricalSplit(CategoricalHypothesis(column.column, column.values[code],
                                                      values),
                                index, code, np.ascontiguousarray(weight_pos),
                                np.ascontiguousarray(weight_neg), z)


def value_masses(dataset, weights, labels):
    """The value histograms of every categorical column (``CategoricalLearner.histograms``)
    and Σ W: what the categorical learner sums over its rows."""
    return CategoricalLearner.histograms(dataset, weights, labels), float(weights.sum())


def value_blocks(dataset, column_index, code):
    """The block of every row of ``dataset`` under the test ``x == value code`` on its
    categorical column ``column_index``: 0 equal, 1 another value, 2 missing; shape
    (n_samples,), uint8."""
    codes = dataset.categorical[column_index].codes
    return np.where(codes < 0, 2, np.where(codes == code, 0, 1)).astype(np.uint8)


@dataclass
class CategoricalSplit:
    """A value test chosen from the value histograms (``CategoricalLearner.best_split``).

    Attributes
    ----------
    hypothesis : CategoricalHypothesis
    column_index : int
        The column's index in ``Dataset.categorical``.
    code : int
        The value code tested.
    weight_pos, weight_neg : ndarray of shape (3, k)
        W+ and W- of the blocks =, ≠, missing.
    criterion : float
        Z.
    """

    hypothesis: CategoricalHypothesis
    column_index: int
    code: int
    weight_pos: np.ndarray
    weight_neg: np.ndarray
    criterion: float
