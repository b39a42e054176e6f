"""Term-presence tests on text columns (BoosTexter; Schapire & Singer 2000, §7.1 of the 1999 paper).

The hypothesis tests whether a term (a word or word n-gram of a text column,
``data/text_experts.py``) is present in a document: two blocks, 0 (present) and 1 (absent,
including a missing text).
Under the abstaining modes ("abstain", "real-abstain") the absent block abstains, which is
BoosTexter's real abstaining AdaBoost.MH.

Per round the learner reads each text column's distinct posting lists once (terms found in
the same documents share one list and one Z, ``data/dataset.TextColumn``), computing every
list's Z in one fused pass (``kernels/term_masses.term_criteria``: O(nnz · k), no (n_terms, k)
array), keeps the first term of least Z, and only for that term forms the block statistics
and confidences.
"""

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
from confboost.kernels.term_masses import term_criteria
from confboost.utils.untrusted import read_int, read_str, require

#: The abstaining block of a term test: absent.
TERM_ABSTAINING = np.array([False, True])


class TermHypothesis(PartitionHypothesis):
    """Presence of ``term`` in text column ``column``; a value per block (present, absent).

    Parameters
    ----------
    column : int
        Position of the column in the input table.
    term : str
        Words joined by one space (``TextExpert.terms``).
    values : ndarray of shape (2, k)
    """

    type_name = "term"

    def __init__(self, column, term, values):
        self.column = int(column)
        self.term = str(term)
        self.values = np.asarray(values, dtype=np.float64)

    def features(self):
        return [self.column]

    def blocks(self, X):
        """Blocks of the examples of a ``Frame``."""
        return X.term_blocks(self.column, self.term)

    def describe(self, names=None, classes=None, scale=1.0):
        name = column_label(names, self.column)
        tests = [f"{name} contains {self.term!r}", f"{name} lacks {self.term!r}"]
        return blocks_text(tests, self.values, classes, scale)

    def test_columns(self):
        return np.array([self.column], dtype=np.intp)

    def tested_points(self, column):
        return [], []

    def with_columns(self, position):
        return TermHypothesis(position[self.column], self.term, self.values)

    def to_dict(self):
        return {"type": self.type_name, "column": self.column, "term": self.term,
                "values": self.values.tolist()}

    def columns_read(self):
        return [("text", self.column)]

    @classmethod
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError naming the bad field."""
        column = read_int(require(data, "column", "term"), "column", 0, MAX_INDEX)
        term = read_str(require(data, "term", "term"), "term")
        return cls(column, term, saved_values(data, 2, n_labels=n_labels))


#: Rows read at a time by ``signed_sums``.
_ROWS_AT_ONCE = 16384


def signed_sums(weights, signs, rows=None):
    """W+ and W- per label: the weights of the positive and of the negative pairs, summed
    over ``rows`` (None: every row), shape (k,) each.

    The rows are read a slice at a time, so a term found in most documents costs a few
    (slice, k) arrays, not (n_rows, k) ones. The sums are NumPy's over all the rows at once
    to the bit: with k >= 2 NumPy adds the rows of a column one after another, and each
    slice is added after the running sums; with k = 1 (a pairwise sum) the rows are read at
    once.

    Parameters
    ----------
    weights : ndarray of shape (n_docs, k), float64
    signs : ndarray of shape (n_docs, k), int8
    rows : ndarray of shape (n_rows,), integer, or None
    """
    n_rows = weights.shape[0] if rows is None else rows.shape[0]
    step = max(n_rows, 1) if weights.shape[1] == 1 else _ROWS_AT_ONCE
    pos_sum = neg_sum = None
    for start in range(0, max(n_rows, 1), step):
        part = slice(start, start + step) if rows is None else rows[start:start + step]
        w, s = weights[part], signs[part]
        pos, neg = np.where(s > 0, w, 0.0), np.where(s < 0, w, 0.0)
        if pos_sum is not None:  # the running sums first, then this slice's rows
            pos, neg = np.vstack([pos_sum, pos]), np.vstack([neg_sum, neg])
        pos_sum, neg_sum = pos.sum(axis=0), neg.sum(axis=0)
    return pos_sum, neg_sum


def term_block_stats(rows, weights, signs, total_pos, total_neg):
    """W+ and W- of the present and absent blocks of one term, shape (2, k) each.

    Parameters
    ----------
    rows : ndarray of shape (n_present,), integer
        The documents holding the term.
    weights : ndarray of shape (n_docs, k), float64
    signs : ndarray of shape (n_docs, k), int8
    total_pos, total_neg : ndarray of shape (k,), float64
        W+ and W- of all documents per label.
    """
    present_pos, present_neg = signed_sums(weights, signs, rows)
    return (np.stack([present_pos, np.maximum(total_pos - present_pos, 0.0)]),
            np.stack([present_neg, np.maximum(total_neg - present_neg, 0.0)]))


class TermLearner:
    """Finds the term test of least Z over every text column.

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
        """Best term over ``dataset.text`` (a ``Dataset``); None if no column has terms."""
        signs = labels.signs
        if weights.shape[1] == 1:  # masked sums, in the order of a plain (pairwise) one
            total_pos = np.sum(weights, axis=0, where=signs > 0)
            total_neg = np.sum(weights, axis=0, where=signs < 0)
        else:  # the same sums, a slice of rows at a time
            total_pos, total_neg = signed_sums(weights, signs)
        total = float(weights.sum())
        best = None
        for column in dataset.text:
            n_lists = column.distinct_first_term.shape[0]
            if n_lists == 0:
                continue
            z = np.empty(n_lists, dtype=np.float64)
            term_criteria(column.distinct_indptr, column.distinct_indices, weights, signs,
                          total_pos, total_neg, self.mode, total, z)
            best_list = int(np.argmin(z))  # the first term of least Z: lists are in term order
            if best is None or z[best_list] < best[0]:
                best = (float(z[best_list]), column, int(column.distinct_first_term[best_list]))
        if best is None:
            return None
        z, column, term = best
        present = column.postings(term)
        weight_pos, weight_neg = term_block_stats(present, weights, signs, total_pos, total_neg)
        values = block_confidences(weight_pos, weight_neg, TERM_ABSTAINING, self.mode,
                                   self.smoothing)
        train_blocks = np.ones(weights.shape[0], dtype=np.uint8)
        train_blocks[present] = 0
        return PartitionFit(
            hypothesis=TermHypothesis(column.column, column.terms[term], values),
            train_blocks=train_blocks,
            weight_pos=weight_pos,
            weight_neg=weight_neg,
            criterion=z,
        )
