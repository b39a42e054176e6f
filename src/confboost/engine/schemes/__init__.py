"""Boosting schemes: AdaBoost.MH, MR and MO over one engine (paper §7–9).

The registry of the ``scheme`` parameter: ``build_scheme`` makes the training state of the
named scheme for the data (binary data is the k = 1 path of AdaBoost.MH whatever the
scheme, Figure 1), and ``scheme_outputs`` what f means to a user of the fitted model under
it (decision function, predictions, probabilities; MR's learned threshold): each scheme's
module owns both.
"""

import numpy as np

from confboost.engine.reduction import LOCAL
from confboost.engine.schemes.mh import MHOutputs, MHScheme
from confboost.engine.schemes.mo import MOOutputs, MOScheme, build_code
from confboost.engine.schemes.mr import MROutputs, MRScheme

SCHEMES = ("mh", "mr", "mo")

#: The code of binary data under ``scheme="mo"``: the binary path, one bit.
BINARY_CODE = np.array([[-1], [1]], dtype=np.int8)


def build_scheme(name, signs, encoded, multilabel, sample_weight, *, init="uniform",
                 code="random", code_length=None, decoding="loss", random_state=None,
                 total_weight=None, reducer=LOCAL, normalisation="predicted"):
    """The training state of scheme ``name``, and its output code (MO only).

    Parameters
    ----------
    name : {"mh", "mr", "mo"}
    signs : ndarray of shape (n_samples, k), int8
        Label signs (k = 1 for binary data).
    encoded : ndarray of shape (n_samples,) or None
        Each example's class (single-label data), for MO's codewords.
    multilabel : bool
    sample_weight : ndarray of shape (n_samples,)
    init, code, code_length, decoding, random_state
        The estimator's parameters of those names.
    total_weight : float, optional
        Σ w of the whole training set when these rows are one shard of it (the scheme's
        D and loss are then the shard's shares); default: Σ ``sample_weight``.
    reducer : Reducer, default=LOCAL
        Where the scheme's sums are taken (``engine/reduction.py``).
    normalisation : {"predicted", "in_order"}, default="predicted"
        MH's normalisation of D (``MHScheme``); "in_order" is refused by MR and MO.

    Returns
    -------
    scheme : MHScheme, MRScheme or MOScheme
    code : ndarray of shape (k, k'), int8, or None
        MO's code matrix (``BINARY_CODE`` for binary data); None for MH and MR.
    """
    binary = signs.shape[1] == 1 and not multilabel
    single_label = not binary and not multilabel
    if normalisation != "predicted" and (name == "mo" or (name == "mr" and not binary)):
        raise ValueError(f"normalisation={normalisation!r} is AdaBoost.MH's (icsiboost's "
                         f"arithmetic); scheme {name!r} normalises its own way")
    if name == "mo":
        if multilabel:
            raise ValueError("scheme='mo' (AdaBoost.MO) is for single-label data: each "
                             "example's class is encoded by one codeword; use scheme="
                             "'mh' or 'mr' for a multi-label (2-D indicator) y")
        if binary:
            return MHScheme(signs, sample_weight, False, init, total_weight,
                            reducer), BINARY_CODE
        matrix = build_code(code, signs.shape[1], code_length, random_state)
        return MOScheme(encoded, matrix, decoding, sample_weight, total_weight,
                        reducer), matrix
    if name == "mr" and not binary:
        return MRScheme(signs, sample_weight, multilabel, total_weight, reducer), None
    return MHScheme(signs, sample_weight, single_label, init, total_weight, reducer,
                    normalisation), None


def scheme_outputs(name, classes, multilabel, code=None, decoding="loss", thresholds=None):
    """What f means under scheme ``name`` for a fitted model (see each ``*Outputs``).

    Parameters
    ----------
    name : {"mh", "mr", "mo"}
    classes : ndarray of shape (n_classes,)
    multilabel : bool
    code : ndarray of shape (k, k') or None
        MO's code (one bit: the binary path).
    decoding : {"loss", "hamming"}
    thresholds : ndarray of shape (n_rounds,) or None
        MR's cut on f after each round (multi-label data).
    """
    if name == "mo" and code is not None and code.shape[1] > 1:
        return MOOutputs(classes, code, decoding)
    if name == "mr":
        return MROutputs(classes, multilabel, thresholds)
    return MHOutputs(classes, multilabel)


__all__ = ["BINARY_CODE", "SCHEMES", "build_scheme", "scheme_outputs"]
