"""Term-presence tests on text columns (BoosTexter; Schapire & Singer 2000, §7.1 of the 1999 paper).

The hypothesis tests whether a term (a word or word n-gram of a text column,
``data/text_experts.py``) is present in a document: two blocks, 0 (present) and 1 (absent,
including a missing text).
Under the abstaining modes ("abstain", "real-abstain") the absent block abstains, which is
BoosTexter's real abstaining AdaBoost.MH.

Per round the learner takes its sums through its reducer (``engine/reduction.py``: the
identity on one machine, the sum over the shards of a cluster): W+ and W- of all the rows
and Σ W (``term_totals``), then each text column's present blocks, W+ and W+ + W- per label
of every posting list it scores (``term_sums``; ``TextColumn.scored_list``: each distinct
list once on one machine, terms found in the same documents sharing one list and one Z;
each term on a cluster's shard, whose lists are its own), a slice of lists at a time
(``reduction.slices``: at most the reducer's ``slice_cells`` of sums, whatever the
vocabulary and the labels). It scores each slice (``kernels/term_masses.present_criteria``),
keeps the first term of least Z, and only for that term sums the block statistics
(``present_masses``) and keeps the round's blocks (``term_blocks``, through ``rows``).
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
from confboost.engine.reduction import LOCAL, placed, slice_rows, slices
from confboost.kernels.term_masses import present_criteria, present_sums
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


def term_totals(dataset, weights, labels):
    """W+ and W- per label of all the rows, shape (k,) each, and Σ W (a float)."""
    signs = labels.signs
    if weights.shape[1] == 1:  # masked sums, in the order of a plain (pairwise) one
        total_pos = np.sum(weights, axis=0, where=signs > 0)
        total_neg = np.sum(weights, axis=0, where=signs < 0)
    else:  # the same sums, a slice of rows at a time
        total_pos, total_neg = signed_sums(weights, signs)
    return total_pos, total_neg, float(weights.sum())


def term_sums(dataset, weights, labels, pieces, out=None):
    """What the term learner sums over the rows for a slice of the scored lists: W+ and
    W+ + W- of their present blocks.

    Parameters
    ----------
    dataset : Dataset
    weights : ndarray of shape (n_samples, k), float64
    labels : LabelSigns
    pieces : list of (int, int, int)
        The slice (``engine/reduction.slices``): scored lists ``start:stop`` of text
        column ``column``, for each ``(column, start, stop)``, in this order.
    out : ndarray of shape (2, n_slice, k), float64, optional
        Where the sums are written (the learner's, kept from slice to slice and round to
        round: new arrays would be mapped and faulted in page by page each time).

    Returns
    -------
    ndarray of shape (2, n_slice, k)
        ``[0]`` the present blocks' W+ and ``[1]`` W+ + W- of the slice's lists, a row each
        (``kernels/term_masses.present_sums``).
    """
    if out is None:
        out = np.empty((2, slice_rows(pieces), weights.shape[1]))
    for index, start, stop, rows in placed(pieces):
        column = dataset.text[index]
        present_sums(column.distinct_indptr, column.distinct_indices,
                     column.scored_list[start:stop], weights, labels.signs, out[0, rows],
                     out[1, rows])
    return out


def present_masses(dataset, weights, labels, column_index, term):
    """W+ and W- per label of the rows holding ``term`` in text column ``column_index``
    (``signed_sums``), shape (k,) each."""
    return signed_sums(weights, labels.signs, dataset.text[column_index].postings(term))


def term_block_stats(present_pos, present_neg, total_pos, total_neg):
    """W+ and W- of the present and absent blocks of one term, shape (2, k) each: the
    absent block's are the totals less the present one's.

    Parameters
    ----------
    present_pos, present_neg : ndarray of shape (k,), float64
        W+ and W- of the documents holding the term per label (``present_masses``).
    total_pos, total_neg : ndarray of shape (k,), float64
        W+ and W- of all documents per label.
    """
    return (np.stack([present_pos, np.maximum(total_pos - present_pos, 0.0)]),
            np.stack([present_neg, np.maximum(total_neg - present_neg, 0.0)]))


def term_blocks(dataset, column_index, term):
    """The block of every row of ``dataset`` under the presence test of ``term`` in its
    text column ``column_index``: 0 present, 1 absent; shape (n_samples,), uint8."""
    blocks = np.ones(dataset.n_samples, dtype=np.uint8)
    blocks[dataset.text[column_index].postings(term)] = 0
    return blocks


class TermLearner:
    """Finds the term test of least Z over every text column.

    Parameters
    ----------
    mode : int
        Confidence mode code.
    smoothing : float
    reducer : Reducer, default=LOCAL
        Where the sums are taken and the training blocks kept (``engine/reduction.py``):
        one machine, or the shards of a cluster.
    """

    def __init__(self, mode, smoothing, reducer=LOCAL):
        self.mode = mode
        self.smoothing = smoothing
        self.reducer = reducer
        self._sums = None  # a slice's sums and Z, kept across slices and rounds

    def fit(self, dataset, weights, labels):
        """Best term over ``dataset.text`` (a ``Dataset``); None if no column has terms.

        The totals are one ``sum``; the scored lists of every column are then taken a slice
        at a time (``engine/reduction.slices`` of the reducer's ``slice_cells``): a slice's
        sums (one ``sum``; on a cluster one allreduce each), its Z, then the next, keeping
        the first list of least Z in column and list order (lists are in term order: the
        first term of least Z).
        """
        if not any(column.n_terms for column in dataset.text):
            return None
        total_pos, total_neg, total = self.reducer.sum(term_totals, dataset, weights, labels)
        cut = slices([column.scored_list.shape[0] for column in dataset.text],
                     weights.shape[1], self.reducer.slice_cells)
        sums, z = self._buffers(cut, weights.shape[1])
        best = None
        for pieces in cut:
            n = slice_rows(pieces)
            present = self.reducer.sum(term_sums, dataset, weights, labels, pieces,
                                       out=sums[:, :n])
            present_criteria(present[0], present[1], total_pos, total_neg, self.mode, total,
                             z[:n])
            for index, start, _, rows in placed(pieces):
                scored = rows.start + int(np.argmin(z[rows]))
                if best is None or z[scored] < best[0]:
                    term = dataset.text[index].scored_first_term[start + scored - rows.start]
                    best = (float(z[scored]), index, int(term))
        z, index, term = best
        weight_pos, weight_neg = term_block_stats(
            *self.reducer.sum(present_masses, dataset, weights, labels, index, term),
            total_pos, total_neg)
        values = block_confidences(weight_pos, weight_neg, TERM_ABSTAINING, self.mode,
                                   self.smoothing)
        column = dataset.text[index]
        return PartitionFit(
            hypothesis=TermHypothesis(column.column, column.terms[term], values),
            train_blocks=self.reducer.rows(term_blocks, dataset, index, term),
            weight_pos=weight_pos,
            weight_neg=weight_neg,
            criterion=z,
        )

    def _buffers(self, cut, k):
        """A slice's sums, shape (2, rows, k), and Z, shape (rows,), rows those of the
        largest slice of ``cut`` (its first): the last call's when of that size."""
        rows = slice_rows(cut[0]) if cut else 0
        if self._sums is None or self._sums[0].shape != (2, rows, k):
            self._sums = (np.empty((2, rows, k)), np.empty(rows))
        return self._sums
