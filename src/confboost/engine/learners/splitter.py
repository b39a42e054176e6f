"""A tree node's best split over every column kind: the splitter.

For a node (its rows, and for continuous columns its histogram of W+ and W- per feature,
bin and column) the candidates are

- a threshold on a continuous column: ``x <= θ`` left, a missing value to the side that
  gives the larger gain (``kernels/node_split.children_splits``); a node that saw no
  missing value sends it to the child of larger training weight;
- a categorical value: ``x == v`` left, any other value and a missing value right, for every
  value v seen in training, from the column's value histogram over the node's rows
  (O(n_node · k) per column, ``categorical_node_masses``, ``value_split_gains``);
- a term of a text column: present left, absent right (a missing text holds no term), from
  the term postings restricted to the node's rows (``kernels/node_terms.node_term_sums``,
  O(nnz + k · the node's postings) per column and node, and ``term_split_gains``).

Every candidate is scored by the same drop in Z (``criterion_numpy.split_gain``; paper §4.1, Eq.
10 and 16; §3.1); on equal gains a threshold wins, then a value, then a term, each in column
order. A tree has no abstaining block, so a missing categorical value or text goes right
with the other non-matching examples.

A node's W+ and W-, its value masses and its term masses are sums over its rows:
``NodeSplits`` takes them through its ``Reducer`` (``engine/reduction.py``), so on a shard
of a cluster they are the node's over every shard. A text column's term masses are summed
per list its column scores (``TextColumn.scored_list``: each distinct posting list once on
one machine, each term of the common vocabulary on a shard, whose distinct lists are its
own), and the gains computed from the sums by the same code on both.
"""

import numpy as np

from confboost.engine.learners.base import leaf_statistics
from confboost.engine.reduction import LOCAL, placed, slice_rows, slices
from confboost.kernels.criterion_numpy import split_gain
from confboost.kernels.node_split import unseen_missing_left
from confboost.kernels.node_terms import node_term_sums, term_split_gains
from confboost.kernels.tree_nodes import term_goes_left, value_goes_left
from confboost.utils.dtypes import NODE_TERM, NODE_THRESHOLD, NODE_VALUE


def numeric_split(hist, n_bins, gain, split_bin, choice):
    """(gain, split) of a node's best threshold split, or None when none lowers Z.

    Parameters
    ----------
    hist : ndarray of shape (n_features, n_hist_bins, k, 2)
        The node's histogram, its last bin the missing one.
    n_bins : ndarray of shape (n_features,), intp
    gain, split_bin : ndarray of shape (n_features,)
        Each feature's best split at the node (``kernels/node_split.children_splits``'
        float64 gains and intp bins, a row of them).
    choice : ndarray of shape (3,), intp
        The node's ``kernels/node_split.choose_split``: feature, missing side, undecided
        (then NumPy's sums decide the side, ``unseen_missing_left``).

    Returns
    -------
    (float, (int, int, int, bool)) or None
        The gain and ``(NODE_THRESHOLD, feature, threshold_bin, missing_left)``.
    """
    feature, missing_left, undecided = choice.tolist()
    if feature < 0:
        return None
    b = int(split_bin[feature])
    if undecided:
        missing_left = unseen_missing_left(hist, n_bins, feature, b)
    return float(gain[feature]), (NODE_THRESHOLD, feature, b, bool(missing_left))


def categorical_node_masses(codes, rows, n_values, pos, neg):
    """W+ and W- of a node's rows with each value, shape (2, n_values, k).

    Parameters
    ----------
    codes : ndarray of shape (n_samples,), int32
        Value code of each example, -1 where missing.
    rows : ndarray of shape (n_rows,), intp
        The node's rows.
    n_values : int
    pos, neg : ndarray of shape (n_samples, k)
        Positive and negative mass of each example and column.

    Masses of disjoint row sets add up to those of their union (``confboost.dask`` sums its
    partitions').
    """
    node_codes = codes[rows]
    known = node_codes >= 0
    return np.stack(leaf_statistics(node_codes[known], n_values, pos[rows[known]],
                                    neg[rows[known]]))


def value_split_gains(node_pos, node_neg, equal_pos, equal_neg, mode, least_mass):
    """The drop in Z of each value test ``x == v`` at a node (missing goes right).

    Parameters
    ----------
    node_pos, node_neg : ndarray of shape (k,)
        W+ and W- of the node.
    equal_pos, equal_neg : ndarray of shape (n_values, k)
        W+ and W- of the node's rows with each value (``categorical_node_masses``).
    mode : int
        Confidence mode code.
    least_mass : float
        Least mass of a child.

    Returns
    -------
    gains : ndarray of shape (n_values,)
        score(node) - score(= v) - score(≠ v), -inf where a child is lighter than
        ``least_mass``.
    """
    gains = split_gain(node_pos, node_neg, equal_pos, equal_neg, mode)
    equal_mass = equal_pos.sum(axis=1) + equal_neg.sum(axis=1)
    rest_mass = node_pos.sum() + node_neg.sum() - equal_mass
    gains[(equal_mass < least_mass) | (rest_mass < least_mass)] = -np.inf
    return gains


def least_child_mass(node_pos, node_neg, min_leaf_weight):
    """Least mass of a child of a node of W+ ``node_pos`` and W- ``node_neg``."""
    return max(min_leaf_weight, 1e-12 * float(node_pos.sum() + node_neg.sum()))


def best_value_split(node_pos, node_neg, value_masses, mode, min_leaf_weight):
    """A node's best value test over the categorical columns, (gain, (NODE_VALUE, index,
    code, False)), or None when there is no column.

    Parameters
    ----------
    node_pos, node_neg : ndarray of shape (k,)
    value_masses : list of ndarray of shape (2, n_values, k)
        ``categorical_node_masses`` of each column (``NodeSplits.categorical``).
    mode : int
    min_leaf_weight : float
    """
    least_mass = least_child_mass(node_pos, node_neg, min_leaf_weight)
    best = None
    for index, masses in enumerate(value_masses):
        gains = value_split_gains(node_pos, node_neg, masses[0], masses[1], mode, least_mass)
        code = int(np.argmax(gains))
        if best is None or gains[code] > best[0]:
            best = (float(gains[code]), (NODE_VALUE, index, code, False))
    return best


class NodeSplits:
    """The categorical and term splits of a node (``grow_tree``'s ``other_splits``).

    Parameters
    ----------
    dataset : Dataset
    pos, neg : ndarray of shape (n_samples, c), float64, C-contiguous
        Positive and negative mass of each example and histogram column.
    mode : int
        Confidence mode code.
    min_leaf_weight : float
    work : grower.WorkArrays
        Where the term masses' arrays are kept (the tree learner's, kept across rounds).
    reducer : Reducer, default=LOCAL
        Where a node's W+ and W-, its value masses and its term masses are summed.

    Attributes
    ----------
    in_node : ndarray of shape (n_samples,), bool, or None
        While the term splits of a node are searched, whether each row is one of its rows
        (None without a text column).
    """

    def __init__(self, dataset, pos, neg, mode, min_leaf_weight, work, reducer=LOCAL):
        self.categorical, self.text = self.columns(dataset)
        self.pos, self.neg = pos, neg
        self.mode = mode
        self.min_leaf_weight = min_leaf_weight
        self.reducer = reducer
        self.work = work
        self.n_samples = dataset.n_samples
        # a flag a row, for the term splits only
        self.in_node = np.zeros(dataset.n_samples, dtype=bool) if self.text else None
        self._present = np.zeros(dataset.n_samples, dtype=bool) if self.text else None

    @staticmethod
    def columns(dataset):
        """The categorical columns of a value and the text columns of a term, the columns
        a node may split on besides the numeric ones: (list, list)."""
        return ([column for column in dataset.categorical if column.values],
                [column for column in dataset.text if column.n_terms > 0])

    def __bool__(self):
        return bool(self.categorical or self.text)

    def best(self, rows):
        """The node's best categorical or term split: (gain, (kind, index, code, False)),
        or None when there is none; ``index`` is the column's position in
        ``self.categorical`` or ``self.text``."""
        node_pos, node_neg = self.node_masses(rows)
        best = best_value_split(node_pos, node_neg, self.value_masses(rows), self.mode,
                                self.min_leaf_weight)
        least_mass = least_child_mass(node_pos, node_neg, self.min_leaf_weight)
        if self.text:
            self.in_node[rows] = True
            for found in self.term_splits(node_pos, node_neg, least_mass):
                if best is None or found[0] > best[0]:
                    best = found
            self.in_node[rows] = False
        return best

    def term_splits(self, node_pos, node_neg, least_mass):
        """Each text column's best presence split at the node whose rows are flagged in
        ``self.in_node``: [(gain, (NODE_TERM, index, term, False)), ...], column by column.

        One gain per list the column scores (``TextColumn.scored_list``), from the node's
        W+ and W- of its rows holding the list's terms (``kernels/node_terms.node_term_sums``,
        over every shard) and the node's (``term_split_gains``); the term of the largest
        gain is the first term of the first such list (``TextColumn.scored_first_term``).
        The lists of every column are taken a slice at a time (``engine/reduction.slices``
        of the reducer's ``slice_cells``, into two arrays of a slice kept in ``work``): a
        slice's sums, one ``reducer.total`` (on a cluster one allreduce), its gains, then
        the next slice, each column keeping its first list of largest gain.
        """
        k = self.pos.shape[1]
        cut = slices([column.scored_list.shape[0] for column in self.text], k,
                     self.reducer.slice_cells)
        rows = slice_rows(cut[0]) if cut else 0  # the largest
        present_pos = self.work.get("term pos", (rows, k))
        present_neg = self.work.get("term neg", (rows, k))
        gains = self.work.get("term gains", (rows,))
        found = [None] * len(self.text)
        for pieces in cut:
            for index, start, stop, rows in placed(pieces):
                column = self.text[index]
                node_term_sums(column.distinct_indptr, column.distinct_indices,
                               column.scored_list[start:stop], self.in_node, self.pos,
                               self.neg, present_pos[rows], present_neg[rows])
            n = slice_rows(pieces)
            summed_pos, summed_neg = self.reducer.total((present_pos[:n], present_neg[:n]))
            term_split_gains(summed_pos, summed_neg, node_pos, node_neg, self.mode,
                             least_mass, gains[:n])
            for index, start, _, rows in placed(pieces):
                best = rows.start + int(np.argmax(gains[rows]))
                if found[index] is None or gains[best] > found[index][0]:
                    term = self.text[index].scored_first_term[start + best - rows.start]
                    found[index] = (float(gains[best]), (NODE_TERM, index, int(term), False))
        return [best for best in found if best is not None]

    def node_masses(self, rows):
        """W+ and W- of the node of ``rows`` (over every shard), shape (k,) each."""
        return self.reducer.total((self.pos[rows].sum(axis=0), self.neg[rows].sum(axis=0)))

    def value_masses(self, rows):
        """``categorical_node_masses`` of every categorical column at the node of ``rows``
        (over every shard)."""
        return self.reducer.total([categorical_node_masses(column.codes, rows,
                                                           len(column.values), self.pos,
                                                           self.neg)
                                   for column in self.categorical])

    def goes_left(self, split, rows):
        """Whether each of ``rows`` goes left under a categorical or term split, shape
        (n_rows,), bool."""
        kind, index, code, _ = split
        if kind == NODE_VALUE:
            return value_goes_left.py_func(self.categorical[index].codes[rows], code)
        column = self.text[index]
        return term_goes_left(column.postings(code), rows, self._present)

    def partition(self, split, rows, start, stop):
        """Stably reorder ``rows[start:stop]`` into the left child's rows, then the right's;
        returns the number that go left."""
        node_rows = rows[start:stop]
        left = self.goes_left(split, node_rows)
        n_left = int(left.sum())
        rows[start:stop] = np.concatenate([node_rows[left], node_rows[~left]])
        return n_left

    def describe(self, split):
        """Table column and saved value (categorical value or term) of a split."""
        kind, index, code, _ = split
        if kind == NODE_VALUE:
            column = self.categorical[index]
            return column.column, column.values[code]
        column = self.text[index]
        return column.column, column.terms[code]
