"""AdaBoost.MO (paper §8, Figure 3): AdaBoost.MH on code-relabelled labels, then a decoder.

A code λ (``schemes/codes.py``) maps each of the k classes to a ±1 row of k' bits; the
scheme runs AdaBoost.MH (uniform start, Figure 2) on the label signs Y[i, l'] = λ(y_i)[l']
over the same features and weak learner, and reads a class back from f(x, l') with

- Variant 1, ``"hamming"``: H_1(x) = argmin_y |λ(y) Δ H(x)|, H(x) = {l' : f(x, l') > 0};
- Variant 2, ``"loss"``: H_2(x) = argmin_y Σ_{l'} exp(-λ(y)[l'] f(x, l')).

Theorem 5, with ρ the code's minimum distance: training error ≤ (2k'/ρ) Π Z_t (Variant 1)
and ≤ (k'/ρ) Π Z_t (Variant 2). The training error counts a tie for the best class as an
error, as the theorem's proof does. With the one-per-class code and Variant 2, AdaBoost.MO
predicts what AdaBoost.MH's argmax rule does (Eq. 21).

This module owns the choice of a code by name and the decoders' class scores; the codes
and the decoding arithmetic live in ``schemes/codes.py``.
"""

from math import ceil, log2

import numpy as np

from confboost.engine.reduction import LOCAL
from confboost.engine.schemes.codes import (
    exhaustive_code,
    hamming_decode_scores,
    loss_decode_scores,
    min_distance,
    one_vs_rest_code,
    random_code,
    validate_code,
)
from confboost.engine.schemes.mh import MHOutputs, MHScheme

CODES = ("random", "exhaustive", "one-vs-rest")
DECODINGS = ("loss", "hamming")


def default_code_length(k):
    """⌈10 log2 k⌉ bits, the dense random code length of Allwein, Schapire & Singer (2000)."""
    return int(ceil(10 * log2(k)))


def build_code(code, k, code_length=None, random_state=None):
    """The (k, k') ±1 code matrix named by ``code``.

    Parameters
    ----------
    code : {"random", "exhaustive", "one-vs-rest"} or array-like of shape (k, k')
        "random": each bit ±1 with probability ½ (§8), ``code_length`` bits, seeded by
        ``random_state``; "exhaustive": Dietterich & Bakiri's 2^(k-1) - 1 bits (3 <= k <= 11);
        "one-vs-rest": λ(y) = {y}; a matrix: ±1 (or 0/1) entries, no two rows equal.
    k : int
        Number of classes.
    code_length : int or None
        Bits of a random code; None for ``default_code_length(k)``. Only for "random".
    random_state : None, int or RandomState

    Returns
    -------
    code : ndarray of shape (k, k'), int8
    """
    if isinstance(code, str):
        if code not in CODES:
            raise ValueError(f"code must be one of {CODES} or a (k, k') ±1 matrix, got {code!r}")
        if code_length is not None and code != "random":
            raise ValueError(f"code_length sets the bits of a random code; code={code!r} "
                             "has a fixed length (leave code_length=None)")
        if code == "one-vs-rest":
            return one_vs_rest_code(k)
        if code == "exhaustive":
            return exhaustive_code(k)
        length = default_code_length(k) if code_length is None else code_length
        from sklearn.utils import check_random_state

        return random_code(k, length, check_random_state(random_state))
    if code_length is not None:
        raise ValueError("code_length sets the bits of a random code; a given code matrix "
                         "has its own length (leave code_length=None)")
    return validate_code(code, k)


def class_scores(code, scores, decoding):
    """The decoder's score of every class (higher is better; the argmax is the prediction).

    Parameters
    ----------
    code : ndarray of shape (k, k'), int8
    scores : ndarray of shape (n_samples, k')
        f(x, l') of AdaBoost.MH on the code bits.
    decoding : {"loss", "hamming"}

    Returns
    -------
    class_scores : ndarray of shape (n_samples, k)
        "loss": -ln Σ_{l'} exp(-λ(y)[l'] f(x, l')), the negated log exponential loss;
        "hamming": -|λ(y) Δ H(x)|, the negated Hamming distance (a score of exactly 0
        counts as half a disagreement).
    """
    if decoding == "loss":
        return loss_decode_scores(code, scores)
    return hamming_decode_scores(code, scores)


class MOScheme(MHScheme):
    """AdaBoost.MO state: AdaBoost.MH on the code bits, loss and bound of Theorem 5.

    Parameters
    ----------
    class_index : ndarray of shape (n_samples,), intp
        Each example's class, 0..k-1.
    code : ndarray of shape (k, k'), int8
    decoding : {"loss", "hamming"}
    sample_weight : ndarray of shape (n_samples,)
    total_weight : float, optional
        As ``MHScheme``'s: the whole training set's Σ w when these examples are one
        shard of it (``confboost.dask``); the training error is then this shard's share.
    reducer : Reducer, default=LOCAL
        As ``MHScheme``'s.
    """

    name = "mo"

    def __init__(self, class_index, code, decoding, sample_weight, total_weight=None,
                 reducer=LOCAL):
        if decoding not in DECODINGS:
            raise ValueError(f"decoding must be one of {DECODINGS}, got {decoding!r}")
        super().__init__(code[class_index], sample_weight, single_label=False,
                         total_weight=total_weight, reducer=reducer)
        self.code = code
        self.decoding = decoding
        self.class_index = class_index
        self.distance = min_distance(code)

    def apply_round(self, train_blocks, steps, factors):
        """MH's pass on the code bits; the training loss returned is the error of the
        decoded class (a tie for the best class is an error)."""
        total, _ = super().apply_round(train_blocks, steps, factors)
        return total, self.loss_of(self.scores)

    def loss_of(self, scores):
        """The error of the decoded class for f = ``scores`` (n_samples, k') on this
        scheme's examples (on held-out examples: early stopping's default score)."""
        decoded = class_scores(self.code, scores, self.decoding)
        rows = np.arange(len(self.class_index))
        own = decoded[rows, self.class_index]
        decoded[rows, self.class_index] = -np.inf
        wrong = decoded.max(axis=1) >= own
        return float(self.example_weights[wrong].sum())

    def bound(self, product_z):
        """Theorem 5: (k'/ρ) Π Z_t for loss decoding, (2k'/ρ) Π Z_t for Hamming decoding."""
        factor = 1.0 if self.decoding == "loss" else 2.0
        return factor * self.code.shape[1] / self.distance * product_z


class MOOutputs(MHOutputs):
    """What f on the k' code bits means under AdaBoost.MO: a decoder's class scores.

    ``decision_function``: the decoder's score of each class, shape (n, k classes):
    negated log exponential losses -ln Σ_l' exp(-λ(y)[l'] f(x, l')) (``"loss"``) or negated
    Hamming distances -|λ(y) Δ H(x)| (``"hamming"``); ``predict`` their argmax;
    ``predict_proba`` their softmax (for loss decoding P(y) ∝ 1 / loss(y)). Binary data
    (k' = 1) is ``MHOutputs``.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
    code : ndarray of shape (k, k'), int8
    decoding : {"loss", "hamming"}
    """

    def __init__(self, classes, code, decoding):
        super().__init__(classes, multilabel=False)
        self.code = code
        self.decoding = decoding

    def decision_function(self, scores):
        return class_scores(self.code, scores, self.decoding)

    def _single_label_proba(self, scores):
        from scipy.special import softmax

        return softmax(self.decision_function(scores), axis=1)

    def _single_label_logits(self, scores):
        return self.decision_function(scores)
