"""AdaBoost.MH (paper §7, Figure 2): weights over (example, label) pairs; binary is k = 1.

The scheme owns the weight matrix D (n_samples × k), hands it to the weak learner, applies
each round's hypothesis (D_{t+1}(i,l) = D_t(i,l) exp(-α Y_i[l] h(x_i,l)) / Z_t) and measures
the training loss its theorem bounds:

- binary (k = 1): training error of H = sign f  ≤ Π Z_t (Theorem 1);
- multi-label: Hamming loss of H(x, l) = sign f(x, l)  ≤ Π Z_t (Theorem 3);
- single-label (multiclass): error of H_1 = argmax_l f(x, l) (Eq. 17)
  ≤ (k/2) Π Z_t with the uniform start, ≤ sqrt(k - 1) Π Z_t with the balanced start of §7.2.

Losses are weighted by the starting distribution (the sample weights), as in the theorems;
with unit sample weights they are the plain losses. A score of exactly 0 counts as an error
(sign 0 is no prediction), so the bounds hold without exception.
"""

import numpy as np

from confboost.data.dataset import LabelSigns
from confboost.engine.alpha import choose_alpha
from confboost.engine.reduction import LOCAL
from confboost.kernels.label_update import apply_label_partition
from confboost.kernels.stump_twins import apply_partition_twin
from confboost.kernels.weight_update import (
    LOSS_ARGMAX,
    LOSS_PAIRS,
    apply_partition,
    apply_partition_binary,
    sum_in_order,
)
from confboost.utils import libm
from confboost.utils.lazy_numba import prefer_twin
from confboost.utils.threads import serial_below

INITS = ("uniform", "balanced")
#: How ``MHScheme.update`` makes D_{t+1} sum to 1 (see ``MHScheme``).
NORMALISATIONS = ("predicted", "in_order")


def initial_weights(signs, sample_weight, init, total_weight=None):
    """D_1 of Figure 2, or the balanced start of §7.2 for single-label data.

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k), int8
    sample_weight : ndarray of shape (n_samples,)
    init : {"uniform", "balanced"}
        "balanced": D_1(i, y_i) = 1/(2m), D_1(i, l) = 1/(2m(k-1)) for l ≠ y_i (each scaled
        by the example's sample weight); only for single-label data with k >= 2.
    total_weight : float, optional
        The sum of the sample weights of the whole training set, when these examples are
        one part of it (a partition of a distributed fit); default ``sample_weight.sum()``.

    Returns
    -------
    weights : ndarray of shape (n_samples, k), summing to 1
    """
    k = signs.shape[1]
    if total_weight is None:
        total_weight = sample_weight.sum()
    per_example = sample_weight / total_weight
    if init == "uniform" or k == 1:
        weights = np.repeat(per_example[:, None] / k, k, axis=1)
    elif init == "balanced":
        weights = np.where(signs > 0, 0.5, 0.5 / (k - 1)) * per_example[:, None]
    else:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    return np.ascontiguousarray(weights, dtype=np.float64)


class MHScheme:
    """AdaBoost.MH state over one training set.

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k), int8
        Y_i[l] in {-1, +1}.
    sample_weight : ndarray of shape (n_samples,)
    single_label : bool
        Whether every example has exactly one label (then the loss is the error of the
        argmax rule H_1).
    init : {"uniform", "balanced"}
    total_weight : float, optional
        The sum of the sample weights of the whole training set when ``signs`` are one
        shard of it (``confboost.dask``): D, the losses and the Z_t share of
        ``apply_round`` are then this shard's share of the whole set's, and the shares add
        up.
    reducer : Reducer, default=LOCAL
        Where ``update`` applies the round (``engine/reduction.py``): to these rows, or to
        every shard's scheme (this one then has no rows: ``signs`` of shape (0, k)).
    normalisation : {"predicted", "in_order"}, default="predicted"
        How D_{t+1} = D_t e^{-α Y h} / Z_t is normalised. "predicted": the factors are
        divided by the Z_t the block statistics predict, in the one pass that applies them.
        "in_order": icsiboost's arithmetic, to its last bit: D_1 = w_i / (Σw k) in one
        division, the factors e^{∓α v} by the C library's exp, then a second pass dividing
        by the new weights' sum taken in example order (``sum_in_order``); the
        ``confboost icsiboost`` command's.
    """

    name = "mh"
    #: The arrays ``apply_round`` changes (a copy of the scheme with copies of them is a
    #: new state).
    state_arrays = ("weights", "scores")

    def __init__(self, signs, sample_weight, single_label, init="uniform", total_weight=None,
                 reducer=LOCAL, normalisation="predicted"):
        if normalisation not in NORMALISATIONS:
            raise ValueError(f"normalisation must be one of {NORMALISATIONS}, "
                             f"got {normalisation!r}")
        self.reducer = reducer
        self.normalisation = normalisation
        self.labels = LabelSigns.from_signs(signs)
        self.single_label = single_label and signs.shape[1] > 1
        self.init = init if self.single_label else "uniform"
        if total_weight is None:
            total_weight = sample_weight.sum()
        if normalisation == "in_order" and self.init == "uniform":
            # icsiboost's D_1 = 1 / (m k), one division (1/m then /k can differ in the last bit)
            self.weights = np.ascontiguousarray(np.repeat(
                (sample_weight / (total_weight * signs.shape[1]))[:, None], signs.shape[1],
                axis=1), dtype=np.float64)
        else:
            self.weights = initial_weights(self.labels.signs, sample_weight, self.init,
                                           total_weight)
        self.example_weights = sample_weight / total_weight
        # D_1, the multi-label loss's weights (single-label: the examples' weights instead),
        # uniform over the labels there: one column, D_1(i, l) = example_weights[i] / k, the
        # same numbers as ``initial_weights``'s, read for every label
        self.pair_weights = None if self.single_label else np.ascontiguousarray(
            (self.example_weights / signs.shape[1])[:, None])
        self.scores = np.zeros(self.weights.shape, dtype=np.float64)
        if self.single_label:
            self._loss_kind = LOSS_ARGMAX
            self._loss_weights = np.ascontiguousarray(self.example_weights[:, None])
        else:
            self._loss_kind = LOSS_PAIRS
            self._loss_weights = self.pair_weights
        self._loss = None

    @property
    def learner_weights(self):
        """The (n_samples, k) weights handed to the weak learner: D_t itself."""
        return self.weights

    def choose_alpha(self, fit, method, mode, smoothing):
        """α for the round's hypothesis (§3), from its block statistics."""
        return choose_alpha(method, mode, fit.weight_pos, fit.weight_neg,
                            fit.hypothesis.values, smoothing)

    def update(self, fit, alpha):
        """Apply α h_t to D and f; returns Z_t.

        One pass over the examples (``kernels.weight_update.apply_partition``): the update factors
        exp(∓α v[j, l]) (the C library's, ``utils.libm``) are a table of 2 × n_blocks × k
        numbers, divided in advance by the Z that the block statistics predict,
        Σ_j,l W+ e^{-α v} + W- e^{α v}; the pass returns the sum s of the new weights, so
        Z_t = predicted Z × s is the exact sum over all examples and D_{t+1} sums to 1 up to
        rounding. The training loss is computed in the same pass.
        """
        steps = np.ascontiguousarray(alpha * fit.hypothesis.values, dtype=np.float64)
        if self.normalisation == "in_order":
            return self._update_in_order(fit, steps)
        down, up = libm.exp(-steps), libm.exp(steps)  # inf where they overflow
        # a block without weight contributes nothing, even where its factor overflowed
        predicted = float(np.where(fit.weight_pos > 0, fit.weight_pos * down, 0.0).sum()
                          + np.where(fit.weight_neg > 0, fit.weight_neg * up, 0.0).sum())
        if not (0.0 < predicted < np.inf):
            predicted = 1.0
        factors = np.ascontiguousarray(np.stack([down, up], axis=-1) / predicted)
        total, loss = self.reducer.apply(apply_round, self, fit.train_blocks, steps, factors)
        self._loss = float(loss)
        return predicted * total

    def _update_in_order(self, fit, steps):
        """``update`` with icsiboost's arithmetic (``normalisation="in_order"``): D ·
        e^{∓α v} (the C library's exp), then D / Σ D with the sum taken in example order.
        Returns Z_t, that sum (D_t summed to 1)."""
        factors = np.ascontiguousarray(np.stack([libm.exp(-steps), libm.exp(steps)],
                                                axis=-1))
        _, loss = self.reducer.apply(apply_round, self, fit.train_blocks, steps, factors)
        self._loss = float(loss)
        total = float(self.reducer.apply(weights_in_order, self))
        self.reducer.apply(divide_weights, self, total)
        return total

    def apply_round(self, train_blocks, steps, factors):
        """The pass of ``update`` over these rows (``kernels.weight_update.apply_partition``):
        D ← D · factors, f ← f + steps, by block and label sign; returns (Σ D, the
        training loss) of these rows. Blocks per example and label, shape (n, k) (a tree
        per label, ``learners/label_trees.py``), take ``kernels.label_update``'s pass; one
        label column takes ``apply_partition_binary``, the same pass in 1-D (the same bits)."""
        if train_blocks.ndim == 2:
            kernel = apply_label_partition
        elif prefer_twin(apply_partition, self.weights.size, every_round=True):  # same bits
            kernel = apply_partition_twin
        elif self.weights.shape[1] == 1:
            with serial_below(self.weights.size):
                return apply_partition_binary(
                    self.weights[:, 0], self.labels.sign_index[:, 0], train_blocks,
                    steps[:, 0], factors.reshape(-1), self.scores[:, 0],
                    self._loss_weights[:, 0])
        else:
            kernel = apply_partition
        with serial_below(self.weights.size):
            return kernel(self.weights, self.labels.sign_index, train_blocks, steps, factors,
                          self.scores, self._loss_kind, self._loss_weights)

    def train_loss(self):
        """The loss the scheme's theorem bounds, on the training set after the last
        ``update`` (see module doc; measured in the update's pass)."""
        return self._loss

    def loss_of(self, scores):
        """The loss of ``train_loss`` for f = ``scores`` (n_samples, k) on this scheme's
        examples: on held-out examples, early stopping's default score."""
        if self.single_label:
            rows = np.arange(scores.shape[0])
            predicted = np.argmax(scores, axis=1)
            correct = self.labels.signs[rows, predicted] > 0
            # a tie at the top is no decision: count it as an error
            tied = (scores == scores[rows, predicted][:, None]).sum(axis=1) > 1
            return float(self.example_weights[~correct | tied].sum())
        wrong = self.labels.signs * scores <= 0
        return float((self.pair_weights * wrong).sum())

    def exponential_loss(self, signs, scores, sample_weight):
        """The loss MH minimises, Σ_i,l D_1(i, l) exp(-Y_i[l] f(x_i, l)), on other data.

        On the training set it is Π Z_t (the proof of Theorem 1); on held-out data it is
        the scheme's own validation loss (early stopping's default score).

        Parameters
        ----------
        signs : ndarray of shape (n_samples, k), int8
        scores : ndarray of shape (n_samples, k)
        sample_weight : ndarray of shape (n_samples,)
        """
        start = initial_weights(signs, sample_weight, self.init)
        with np.errstate(over="ignore"):
            return float((start * np.exp(-signs * scores)).sum())

    def bound(self, product_z):
        """The theorem's bound on ``train_loss`` given Π_{s<=t} Z_s."""
        return mh_bound(product_z, self.single_label, self.init, self.weights.shape[1])


def apply_round(scheme, train_blocks, steps, factors):
    """``scheme.apply_round(...)``: the per-shard step of ``MHScheme.update`` (a function of
    the scheme, which a reducer calls on each shard's)."""
    return scheme.apply_round(train_blocks, steps, factors)


def weights_in_order(scheme):
    """Σ of ``scheme``'s weights in example order (``sum_in_order``), a reducer's step."""
    return sum_in_order(scheme.weights)


def divide_weights(scheme, total):
    """``scheme``'s weights divided by ``total`` in place, a reducer's step; returns 0.0
    (a share of nothing)."""
    scheme.weights /= total
    return 0.0


class MHOutputs:
    """What f means under AdaBoost.MH, and for binary data under every scheme.

    - binary (k = 1): ``decision_function`` f(x), shape (n,); ``predict`` the second class
      where f(x) > 0; ``predict_proba`` σ(2 f) for the second class (real AdaBoost's f
      estimates ½ ln(P(y=+1 | x) / P(y=-1 | x)), Friedman, Hastie & Tibshirani 2000).
    - single-label: f(x, l), shape (n, k); H_1(x) = argmax_l f(x, l) (Eq. 17);
      σ(2 f(x, l)) normalised over the classes.
    - multi-label: f(x, l); the labels with f(x, l) > ``threshold`` (0 for MH); σ(2 (f -
      threshold)) per label.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
    multilabel : bool
    """

    def __init__(self, classes, multilabel):
        self.classes = classes
        self.multilabel = multilabel

    def threshold(self, round_index=None):
        """The multi-label cut on f (after round ``round_index``; None: the last)."""
        return 0.0

    def decision_function(self, scores):
        """From f, shape (n, k): (n,) for binary data, else (n, k)."""
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, scores, round_index=None):
        """Class labels, or 0/1 indicator rows for multi-label data."""
        if self.multilabel:
            return (scores > self.threshold(round_index)).astype(np.int64)
        if scores.shape[1] == 1:
            return self.classes[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes[np.argmax(self.decision_function(scores), axis=1)]

    def logits(self, scores, round_index=None):
        """The logits g that the probabilities read, and the link: 2 f for binary data and
        (with the threshold) multi-label data, σ per column; the single-label logits
        (``_single_label_logits``) under a softmax. A temperature a > 0 on g
        (``confboost.training.calibration``) calibrates them without changing a prediction.

        Returns
        -------
        logits : ndarray of shape (n, n_columns)
        kind : {"sigmoid", "softmax"}
        """
        if scores.shape[1] == 1 and not self.multilabel:
            return 2.0 * scores, "sigmoid"
        if self.multilabel:
            return 2.0 * (scores - self.threshold(round_index)), "sigmoid"
        return self._single_label_logits(scores), "softmax"

    def _single_label_logits(self, scores):
        return 2.0 * scores  # real AdaBoost.MH's f(x, l): half the log-odds of label l

    def predict_proba(self, scores, calibrator=None, round_index=None):
        """Class (or label) probabilities, shape (n, n_classes); with a ``calibrator``
        (``confboost.training.calibration.Calibrator``), its link of ``logits``.
        ``round_index``: the round whose multi-label threshold cuts f (default the last)."""
        from scipy.special import expit  # imported when used: fit needs none of SciPy's

        if calibrator is not None:
            proba = calibrator(self.logits(scores, round_index)[0])
            if proba.shape[1] == 1 and not self.multilabel:
                return np.column_stack([1.0 - proba[:, 0], proba[:, 0]])
            return proba
        if scores.shape[1] == 1 and not self.multilabel:
            positive = expit(2.0 * scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        if self.multilabel:
            return expit(2.0 * (scores - self.threshold(round_index)))
        return self._single_label_proba(scores)

    def _single_label_proba(self, scores):
        from scipy.special import expit

        per_label = expit(2.0 * scores)
        totals = per_label.sum(axis=1, keepdims=True)
        return np.where(totals > 0, per_label / np.where(totals > 0, totals, 1.0),
                        1.0 / scores.shape[1])


def mh_bound(product_z, single_label, init, k):
    """The bound of AdaBoost.MH's training loss given Π_{s<=t} Z_s (see the module doc):
    Π Z_t (binary, multi-label), (k/2) Π Z_t, or sqrt(k - 1) Π Z_t with the balanced start."""
    if not single_label:
        return product_z
    if init == "balanced":
        return np.sqrt(k - 1) * product_z
    return 0.5 * k * product_z
