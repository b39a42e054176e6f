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
Every choice is one grouped histogram pass (``kernels/product.py``). A product has no
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
    #: (patterns, masses): training mass of each sign pattern seen (``explain.record_cover``).
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
        Confidence mode code (``criterion.MODES``).
    smoothing : float
        ε for the real confidences.
    n_terms : int, default=3
        Stumps in the product (m); 1 is the stump without its missing block.
    """

    def __init__(self, mode, smoothing, n_terms=3):
        self.mode = mode
        self.smoothing = smoothing
        self.n_terms = n_terms
        self._hist = None

    def fit(self, dataset, weights, labels):
        """Best product for weights ``W`` (n_samples, k) and ``labels`` (``LabelSigns``).

        Returns
        -------
        PartitionFit
        """
        weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
        codes = dataset.codes
        n_features, n_samples = codes.shape
        total = float(weights.sum())
        shape = (n_features, N_HIST_BINS, 2, weights.shape[1], 2)
        if self._hist is None or self._hist.shape != shape:
            self._hist = np.empty(shape, dtype=WEIGHT_DTYPE)
        terms = []  # (feature, threshold_bin, missing_left)
        signs = []  # φ of each term on the training examples
        z = np.inf
        for _ in range(self.n_terms):  # first choice, term after term
            others = np.prod(signs, axis=0, dtype=np.int8) if signs else np.ones(
                n_samples, dtype=np.int8)
            z, term = self._best_term(dataset, weights, labels, others, total)
            terms.append(term)
            signs.append(term_signs(codes[term[0]], term[1], term[2]))
        for _ in range(MAX_PASSES if self.n_terms > 1 else 0):
            pass_start = z
            for position in range(self.n_terms):
                others = np.prod(signs[:position] + signs[position + 1:], axis=0,
                                 dtype=np.int8)
                new_z, term = self._best_term(dataset, weights, labels, others, total)
                if new_z < z:
                    z = new_z
                    terms[position] = term
                    signs[position] = term_signs(codes[term[0]], term[1], term[2])
            if pass_start - z <= 1e-12 * pass_start:
                break
        product = np.prod(signs, axis=0, dtype=np.int8)
        train_blocks = (product < 0).astype(np.uint8)
        train_patterns = sum((np.asarray(s) < 0).astype(np.int64) << j
                             for j, s in enumerate(signs))
        weight_pos, weight_neg = leaf_statistics(train_blocks, 2,
                                                 *label_masses(weights, labels))
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
        """The term of least Z given the product ``others`` of the other terms.

        Returns
        -------
        z : float
        term : tuple of (int, int, bool)
            Feature, threshold bin, missing_left.
        """
        n_features = dataset.codes.shape[0]
        group = (others < 0).astype(np.uint8)
        build_histogram_grouped(dataset.codes, weights, labels.sign_index, group, self._hist)
        best_z = np.empty(n_features, dtype=np.float64)
        best_bin = np.empty(n_features, dtype=np.intp)
        best_missing_left = np.empty(n_features, dtype=bool)
        best_product_terms(self._hist, dataset.n_bins, self.mode, total, best_z, best_bin,
                           best_missing_left)
        feature = int(np.argmin(best_z))
        return float(best_z[feature]), (feature, int(best_bin[feature]),
                                        bool(best_missing_left[feature]))
