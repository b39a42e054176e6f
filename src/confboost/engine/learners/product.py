"""Products of stumps (Kégl & Busa-Fekete, "Boosting products of base classifiers", ICML 2009).

The hypothesis multiplies m stumps φ_j(x) in {-1, +1} (φ_j = +1 when x[f_j] <= θ_j, or when
the value is missing and the term sends it left) and partitions the domain by the sign of
the product: block 0 where P(x) = Π_j φ_j(x) = +1, block 1 where it is -1. The confidence
rule sets a value per block and label (Eq. 9/16 for real confidences, ±1 with α for discrete
ones), so a product is a domain-partitioning hypothesis of §4.1 like a stump or a tree, and
serves every scheme. Kégl and Busa-Fekete's h(x, l) = α v_l P(x) is the ±1 case with the
values of the two blocks tied (v and -v); here each block gets its own values.

Learning is their coordinate descent on the criterion Z of the two-block partition (real:
2 Σ_j Σ_l sqrt(W+ W-), Eq. 10/16; ±1: sqrt(T² - r²), §3.1): the terms are first chosen one
after the other, each the best given the product of those before it, then each is chosen again
given all the others, pass after pass, until a pass lowers Z by no more than a relative 1e-12
or ``MAX_PASSES`` passes are done. A term chosen again may stay as it was, so Z never rises.
Every choice is one grouped histogram pass (``kernels/product_split.py``). A product has no
abstaining block: under ``confidence="abstain"`` it is the discrete product, under
``"real-abstain"`` the real one.
"""

import numpy as np

from confboost.data.frame import as_frame
from confboost.engine.confidence import block_confidences
from confboost.engine.learners.base import (
    MAX_INDEX,
    PartitionFit,
    PartitionHypothesis,
    blocks_text,
    column_label,
    label_masses,
    leaf_statistics,
    saved_values,
)
from confboost.engine.reduction import LOCAL
from confboost.kernels.criterion_numpy import partition_z
from confboost.kernels.histogram import N_HIST_BINS
from confboost.kernels.product_split import best_product_terms, build_histogram_grouped, term_signs
from confboost.utils.dtypes import WEIGHT_DTYPE
from confboost.utils.untrusted import read_bools, read_floats, read_ints, require, write_float

#: Most coordinate passes over the terms after the first choice of each.
MAX_PASSES = 4

#: Most terms of a product (``BoostClassifier.product_terms``' bound).
MAX_TERMS = 16


class ProductHypothesis(PartitionHypothesis):
    """A product of stumps with a value per block (P = +1, P = -1) and label.

    Parameters
    ----------
    feature : array-like of shape (n_terms,), int
        Table position of the column of each term.
    threshold : array-like of shape (n_terms,), float
        Term j is +1 where ``x[feature[j]] <= threshold[j]`` (``inf``: every value).
    missing_left : array-like of shape (n_terms,), bool
        Whether term j is +1 on a missing value.
    values : ndarray of shape (2, k)
    """

    type_name = "product"
    test_layout = "product"
    #: (patterns, masses): training mass of each sign pattern seen (``contributions.record_cover``).
    pattern_cover = None

    def __init__(self, feature, threshold, missing_left, values):
        self.feature = np.asarray(feature, dtype=np.intp)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.missing_left = np.asarray(missing_left, dtype=bool)
        self.values = np.asarray(values, dtype=np.float64)

    def features(self):
        return sorted(set(self.feature.tolist()))

    def test_columns(self):
        return self.feature.copy()

    def tested_points(self, column):
        return [float(t) for f, t in zip(self.feature.tolist(), self.threshold, strict=True)
                if f == column and np.isfinite(t)], []

    def goes_left(self, X):
        """Whether each term is +1 on each example, shape (n_terms, n_samples), bool."""
        X = as_frame(X)
        out = np.empty((self.feature.shape[0], X.n_samples), dtype=bool)
        for term, (feature, threshold, missing_left) in enumerate(zip(
                self.feature, self.threshold, self.missing_left, strict=True)):
            column = X.continuous_values(int(feature))
            out[term] = np.where(np.isnan(column), missing_left, column <= threshold)
        return out

    def blocks(self, X):
        negative_terms = (~self.goes_left(X)).sum(axis=0)
        return (negative_terms % 2).astype(np.uint8)

    def describe(self, names=None, classes=None, scale=1.0):
        terms = []
        for feature, threshold, missing_left in zip(self.feature, self.threshold,
                                                    self.missing_left, strict=True):
            name = column_label(names, feature)
            if not np.isfinite(threshold) and missing_left:
                continue  # +1 on every example
            test = f"{name} <= {threshold:.6g}" if np.isfinite(threshold) else f"{name} known"
            terms.append(f"[{test}{' or missing' if missing_left else ''}]")
        product = " * ".join(terms) or "[always]"
        return blocks_text([f"{product} = +1", "= -1"], self.values, classes, scale)


    def with_columns(self, position):
        return ProductHypothesis([position[f] for f in self.feature.tolist()], self.threshold,
                                 self.missing_left, self.values)

    def to_dict(self):
        return {"type": self.type_name, "feature": self.feature.tolist(),
                "threshold": [write_float(t) for t in self.threshold.tolist()],
                "missing_left": self.missing_left.tolist(), "values": self.values.tolist()}

    @classmethod
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError naming the bad field."""
        feature = read_ints(require(data, "feature", "product"), "feature", 0, MAX_INDEX)
        n_terms = feature.shape[0]
        if not 1 <= n_terms <= MAX_TERMS:
            raise ValueError(f"feature: a product has 1 to {MAX_TERMS} terms, got {n_terms}")
        threshold = read_floats(require(data, "threshold", "product"), "threshold",
                                (n_terms,), infinite=True)
        missing_left = read_bools(require(data, "missing_left", "product"), "missing_left",
                                  n_terms)
        return cls(feature, threshold, missing_left, saved_values(data, 2, n_labels=n_labels))


class ProductLearner:
    """Finds a product of ``n_terms`` stumps of small Z by coordinate descent.

    Parameters
    ----------
    mode : int
        Confidence mode code (``criterion_numpy.MODES``).
    smoothing : float
        ε for the real confidences.
    n_terms : int, default=3
        Stumps in the product (m); 1 is the stump without its missing block.
    reducer : Reducer, default=LOCAL
        Where the grouped histograms and block masses are summed and the terms' signs kept
        (``engine/reduction.py``).
    """

    def __init__(self, mode, smoothing, n_terms=3, reducer=LOCAL):
        self.mode = mode
        self.smoothing = smoothing
        self.n_terms = n_terms
        self.reducer = reducer
        self._hist = None

    def fit(self, dataset, weights, labels):
        """Best product for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Returns
        -------
        PartitionFit
        """
        reducer = self.reducer
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        total = float(reducer.sum(weight_total, dataset, weights, labels))
        terms = []  # (feature, threshold_bin, missing_left)
        signs = []  # φ of each term on the training examples (kept where the rows are)
        z = np.inf
        for _ in range(self.n_terms):  # first choice, term after term
            z, term = self._best_term(dataset, weights, labels, signs, total)
            terms.append(term)
            signs.append(reducer.rows(product_term_signs, dataset, *term))
        for _ in range(MAX_PASSES if self.n_terms > 1 else 0):
            pass_start = z
            for position in range(self.n_terms):
                new_z, term = self._best_term(dataset, weights, labels,
                                              signs[:position] + signs[position + 1:], total)
                if new_z < z:
                    z = new_z
                    terms[position] = term
                    signs[position] = reducer.rows(product_term_signs, dataset, *term)
            if pass_start - z <= 1e-12 * pass_start:
                break
        train_blocks = reducer.rows(product_blocks, dataset, *signs)
        train_patterns = reducer.rows(sign_patterns, dataset, *signs)
        weight_pos, weight_neg = reducer.sum(two_block_masses, dataset, weights, labels,
                                             train_blocks)
        values = block_confidences(weight_pos, weight_neg, np.zeros(2, dtype=bool), self.mode,
                                   self.smoothing)
        feature = np.array([t[0] for t in terms], dtype=np.intp)
        threshold = np.array([dataset.raw_threshold(f, b) for f, b, _ in terms],
                             dtype=np.float64)
        missing_left = np.array([t[2] for t in terms], dtype=bool)
        return PartitionFit(
            hypothesis=ProductHypothesis(dataset.numeric_columns[feature], threshold,
                                         missing_left, values),
            train_blocks=train_blocks, weight_pos=weight_pos, weight_neg=weight_neg,
            criterion=partition_z(weight_pos, weight_neg, None, self.mode, total),
            train_patterns=train_patterns)

    def _best_term(self, dataset, weights, labels, others, total):
        """The term of least Z given the signs ``others`` of the other terms.

        Returns
        -------
        z : float
        term : tuple of (int, int, bool)
            Feature, threshold bin, missing_left.
        """
        self._hist = self.reducer.sum(grouped_histogram, dataset, weights, labels, *others,
                                      out=self._hist)
        n_features = dataset.codes.shape[0]
        best_z = np.empty(n_features, dtype=np.float64)
        best_bin = np.empty(n_features, dtype=np.intp)
        best_missing_left = np.empty(n_features, dtype=bool)
        best_product_terms(self._hist, dataset.n_bins, self.mode, total, best_z, best_bin,
                           best_missing_left)
        feature = int(np.argmin(best_z))
        return float(best_z[feature]), (feature, int(best_bin[feature]),
                                        bool(best_missing_left[feature]))


def weight_total(dataset, weights, labels):
    """Σ W of the rows."""
    return float(weights.sum())


def product_term_signs(dataset, feature, threshold_bin, missing_left):
    """φ of the rows for one term (``kernels/product_split.term_signs``), int8 of ±1."""
    return term_signs(dataset.codes[feature], threshold_bin, missing_left)


def grouped_histogram(dataset, weights, labels, *others, out=None):
    """The rows' W+/W- histogram grouped by the sign of the product of the other terms'
    signs ``others`` (all +1 without them), shape (n_features, 256, 2, k, 2)
    (``kernels/product_split.build_histogram_grouped``); ``out`` is reused when it has that
    shape."""
    n_features, n_samples = dataset.codes.shape
    shape = (n_features, N_HIST_BINS, 2, weights.shape[1], 2)
    hist = out if out is not None and out.shape == shape else np.empty(shape,
                                                                     dtype=WEIGHT_DTYPE)
    product = (np.prod(others, axis=0, dtype=np.int8) if others
               else np.ones(n_samples, dtype=np.int8))
    group = (product < 0).astype(np.uint8)
    build_histogram_grouped(dataset.codes, weights, labels.sign_index, group, hist)
    return hist


def product_blocks(dataset, *signs):
    """The block of every row: 0 where the product of the terms' signs is +1, 1 where -1."""
    return (np.prod(signs, axis=0, dtype=np.int8) < 0).astype(np.uint8)


def sign_patterns(dataset, *signs):
    """The sign pattern of every row (bit j set where term j is -1), int64."""
    return sum((np.asarray(s) < 0).astype(np.int64) << j for j, s in enumerate(signs))


def two_block_masses(dataset, weights, labels, train_blocks):
    """W+ and W- of the rows in each of the two blocks, shape (2, k) each."""
    return leaf_statistics(train_blocks, 2, *label_masses(weights, labels))
