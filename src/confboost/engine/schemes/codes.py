"""Output codes and decoders for AdaBoost.MO (paper §8).

This module owns the code matrices ``λ`` that map each of the ``k`` classes to a subset of
``k'`` binary labels (one-vs-rest, Dietterich & Bakiri's exhaustive codes, random codes),
their validation and minimum distance ``ρ``, and the class scores of the two decoders of §8
that turn the scores ``f(x, l')`` of AdaBoost.MH on the code bits back into a class (the
decoded class is their argmax; ``schemes/mo.py`` picks the decoder by name).

A code is a ``(k, k')`` int8 matrix with entries ±1: ``code[y, l'] = λ(y)[l']``, i.e. +1 when
bit ``l'`` belongs to ``λ(y)``. Row ``y`` is the codeword of class ``y``.
"""

from numbers import Integral

import numpy as np

__all__ = [
    "exhaustive_code",
    "hamming_decode_scores",
    "loss_decode_scores",
    "min_distance",
    "one_vs_rest_code",
    "random_code",
    "validate_code",
]

# Loss decoder (see loss_decode_scores): the floor on shifted exponents, the shifted sum
# below which a loss is recomputed exactly, and the float64 elements of one exact block.
_MIN_EXPONENT = -700.0
_EXACT_BELOW = 1e-250
_BLOCK_ELEMENTS = 1 << 20
# Rounds of redrawing in random_code before giving up.
_MAX_REDRAW_ROUNDS = 10_000


def _check_integer(value, name, minimum):
    """Raise ValueError unless ``value`` is an integer ``>= minimum``; return it as int."""
    if not isinstance(value, Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _as_signs(code):
    """Convert a 2-d ±1 or 0/1 matrix to int8 ±1, checking only the shape and values.

    Parameters
    ----------
    code : array-like, shape (k, k')

    Returns
    -------
    code : ndarray of int8, shape (k, k')
    """
    code = np.asarray(code)
    if code.ndim != 2 or code.shape[0] < 2 or code.shape[1] < 1:
        raise ValueError(
            f"a code must be a 2-d (k, k') array with k >= 2 classes and k' >= 1 bits, "
            f"got shape {code.shape}"
        )
    is_one = code == 1
    if np.all(is_one | (code == -1)) or np.all(is_one | (code == 0)):
        return np.where(is_one, 1, -1).astype(np.int8)
    raise ValueError(
        f"a code must contain only -1/+1 values (or only 0/1, read as -1/+1); "
        f"found values {np.unique(code)[:10].tolist()}"
    )


def _hamming_distances(code):
    """Pairwise Hamming distances between the rows of a ±1 code.

    Parameters
    ----------
    code : ndarray of int8, shape (k, k')

    Returns
    -------
    distances : ndarray of int64, shape (k, k)
        ``|λ(y1) Δ λ(y2)| = (k' − <λ(y1), λ(y2)>) / 2``.
    """
    signs = code.astype(np.int64)
    return (code.shape[1] - signs @ signs.T) // 2


def one_vs_rest_code(k):
    """The one-per-class code ``λ(y) = {y}``: +1 on the diagonal, −1 elsewhere.

    With this code AdaBoost.MO is AdaBoost.MH, and loss-based decoding is the argmax rule.

    Parameters
    ----------
    k : int
        Number of classes, at least 2.

    Returns
    -------
    code : ndarray of int8, shape (k, k)
        Minimum distance ``ρ = 2``.
    """
    k = _check_integer(k, "k", 2)
    return (2 * np.eye(k, dtype=np.int8) - 1).astype(np.int8)


def exhaustive_code(k):
    """Dietterich & Bakiri's (1995) exhaustive code for ``3 <= k <= 11`` classes.

    Construction: the ``2^(k−1) − 1`` columns are all the ways of splitting the classes into
    two non-empty groups, each split taken once. Row 0 is all +1; for class ``i >= 1``,
    column ``c`` (``0 <= c <= 2^(k−1) − 2``) holds +1 when bit ``k − 1 − i`` of ``c`` is
    set, so row ``i`` alternates runs of ``2^(k−1−i)`` −1's and +1's (D&B's description
    with 0 written as −1). Every two rows differ in exactly ``2^(k−2)`` bits.

    Parameters
    ----------
    k : int
        Number of classes, 3 to 11 (k = 11 already gives 1023 bits).

    Returns
    -------
    code : ndarray of int8, shape (k, 2^(k−1) − 1)
        Minimum distance ``ρ = 2^(k−2)``.
    """
    k = _check_integer(k, "k", 3)
    if k > 11:
        raise ValueError(f"exhaustive codes are defined here for 3 <= k <= 11, got k={k}")
    columns = np.arange(2 ** (k - 1) - 1)
    shifts = k - 1 - np.arange(1, k)
    bits = (columns[None, :] >> shifts[:, None]) & 1
    code = np.ones((k, columns.size), dtype=np.int8)
    code[1:] = 2 * bits - 1
    return code


def random_code(k, code_length, random_state=None):
    """A random code: each bit ±1 with probability ½ (paper §8).

    After the first draw, columns that are constant (the same bit for every class, a binary
    problem with one class) are redrawn, and every row equal to an earlier row is redrawn,
    until neither remains. The paper notes that such codes have ``ρ ≈ k'/2`` for large
    ``k'``.

    Parameters
    ----------
    k : int
        Number of classes, at least 2.
    code_length : int
        Number of bits ``k'``; distinct rows need ``2^k' >= k``.
    random_state : None, int or numpy.random.RandomState
        Seed, as in scikit-learn.

    Returns
    -------
    code : ndarray of int8, shape (k, code_length)
        No constant column and no two equal rows.
    """
    k = _check_integer(k, "k", 2)
    code_length = _check_integer(code_length, "code_length", 1)
    if code_length < (k - 1).bit_length():
        raise ValueError(
            f"no code of {code_length} bits has {k} distinct rows: need 2**code_length >= k"
        )
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)

    def draw(shape):
        return (2 * rng.randint(0, 2, size=shape) - 1).astype(np.int8)

    code = draw((k, code_length))
    for _ in range(_MAX_REDRAW_ROUNDS):
        constant = np.all(code == code[0], axis=0)
        if constant.any():
            code[:, constant] = draw((k, int(constant.sum())))
            continue
        _, first = np.unique(code, axis=0, return_index=True)
        repeated = np.ones(k, dtype=bool)
        repeated[first] = False
        if not repeated.any():
            return code
        code[repeated] = draw((int(repeated.sum()), code_length))
    raise RuntimeError(
        f"random_code found no valid code of shape ({k}, {code_length}) "
        f"after {_MAX_REDRAW_ROUNDS} rounds of redrawing"
    )


def validate_code(code, k):
    """Check a user's code and return it as an int8 ±1 matrix.

    Parameters
    ----------
    code : array-like, shape (k, k')
        Entries ±1, or 0/1 with 0 read as −1 (Dietterich & Bakiri's notation). A 0 never
        means "bit ignored": ternary codes are not supported.
    k : int
        Number of classes the code must have.

    Returns
    -------
    code : ndarray of int8, shape (k, k')

    Notes
    -----
    Two equal rows (``ρ = 0``) make two classes indistinguishable and are rejected. A
    constant column is accepted: it adds the same amount to every class's distance or loss,
    so it never changes a decoding, only wastes boosting effort.
    """
    signs = _as_signs(code)
    if signs.shape[0] != k:
        raise ValueError(f"the code has {signs.shape[0]} rows but there are {k} classes")
    distances = _hamming_distances(signs)
    np.fill_diagonal(distances, 1)
    if np.any(distances == 0):
        y1, y2 = np.argwhere(distances == 0)[0]
        raise ValueError(
            f"rows {y1} and {y2} of the code are equal (minimum distance 0): "
            f"classes {y1} and {y2} cannot be told apart"
        )
    return signs


def min_distance(code):
    """The code's minimum distance ``ρ = min_{y1 ≠ y2} |λ(y1) Δ λ(y2)|`` (paper §8, Thm 5).

    Parameters
    ----------
    code : array-like, shape (k, k')
        ±1 (or 0/1) entries, ``k >= 2``.

    Returns
    -------
    rho : int
        0 when two rows are equal.
    """
    distances = _hamming_distances(_as_signs(code))
    np.fill_diagonal(distances, np.iinfo(np.int64).max)
    return int(distances.min())


def _check_code_and_scores(code, scores):
    """Validate a code and a score matrix ``f(x, l')`` over its bits.

    Returns
    -------
    code : ndarray of int8, shape (k, k')
    scores : ndarray of float64, shape (n, k')
    """
    code = _as_signs(code)
    code = validate_code(code, code.shape[0])
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[1] != code.shape[1]:
        raise ValueError(
            f"scores must be a 2-d (n, {code.shape[1]}) array, one column per code bit; "
            f"got shape {scores.shape}"
        )
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores contains NaN or infinite values")
    return code, scores


def hamming_decode_scores(code, scores):
    """Negated Hamming distances of every class, for Variant 1 of AdaBoost.MO (paper §8).

    ``-|λ(y) Δ H(x)|`` with ``H(x) = {l' : f(x, l') > 0}``, computed as
    ``-Σ_l' (1 − λ(y)[l'] sign f(x, l')) / 2``, so a score of exactly 0 (an abstention)
    counts as half a disagreement with every class.

    Parameters
    ----------
    code : array-like, shape (k, k')
        The code, as accepted by :func:`validate_code`.
    scores : array-like, shape (n, k')
        ``f(x, l')`` from AdaBoost.MH on the code bits.

    Returns
    -------
    class_scores : ndarray of float64, shape (n, k)
        Higher is better; the argmax (ties to the lowest index) is the decoded class.
    """
    code, scores = _check_code_and_scores(code, scores)
    agreement = np.sign(scores) @ code.T.astype(np.float64)
    return -(code.shape[1] - agreement) / 2.0


def loss_decode_scores(code, scores):
    """Negated log-losses of every class, for ranking the classes under Variant 2.

    Returns ``−log Σ_l' exp(−λ(y)[l'] f(x, l'))`` for each example and class (paper §8,
    Variant 2). The logarithm preserves the order of the losses, and no magnitude of the
    scores overflows or underflows:

    1. Fast path. With the row shift ``M = max_l' |f(x, l')|`` every term
       ``exp(−λ(y)[l'] f(x, l') − M)`` is at most 1, and the sums over the bits with
       ``λ(y)[l'] = +1`` and ``= −1`` are two matrix products. Exponents below −700 are
       raised to −700 (avoiding slow subnormal arithmetic); this changes a sum by at most
       ``k' e^−700``.
    2. Exact path. Where a shifted sum is below 1e−250 that change could matter, so those
       (example, class) entries are recomputed with a log-sum-exp over the bits, shifted
       by their own largest exponent.

    Parameters
    ----------
    code : array-like, shape (k, k')
        The code, as accepted by :func:`validate_code`.
    scores : array-like, shape (n, k')
        ``f(x, l')`` from AdaBoost.MH on the code bits.

    Returns
    -------
    class_scores : ndarray of float64, shape (n, k)
        Higher is better; the argmax (ties to the lowest index) is the class of least
        exponential loss, H_2(x) = argmin_y Σ_l' exp(−λ(y)[l'] f(x, l')) (Variant 2). With
        the one-vs-rest code that is AdaBoost.MH's argmax rule (Eq. 17).
    """
    code, scores = _check_code_and_scores(code, scores)
    plus = (code == 1).astype(np.float64)  # (k, k')
    shift = np.abs(scores).max(axis=1, keepdims=True)  # (n, 1)
    exp_minus = np.exp(np.maximum(-scores - shift, _MIN_EXPONENT))  # terms where λ = +1
    exp_plus = np.exp(np.maximum(scores - shift, _MIN_EXPONENT))  # terms where λ = −1
    shifted_losses = exp_minus @ plus.T + exp_plus @ (1.0 - plus).T  # (n, k)
    log_losses = shift + np.log(shifted_losses)

    rows, classes = np.nonzero(shifted_losses < _EXACT_BELOW)
    block = max(1, _BLOCK_ELEMENTS // code.shape[1])
    for start in range(0, rows.size, block):
        r, c = rows[start : start + block], classes[start : start + block]
        exponents = -code[c].astype(np.float64) * scores[r]  # (block, k')
        log_losses[r, c] = _log_sum_exp(exponents)
    return -log_losses


def _log_sum_exp(exponents):
    """``log Σ exp`` along the last axis, overwriting ``exponents``.

    Each row is shifted by its maximum, and shifted exponents below −700 are raised to −700
    (avoiding slow subnormal arithmetic), which changes the sum, at least 1, by at most
    ``k' e^−700``.

    Parameters
    ----------
    exponents : ndarray of float64, shape (b, k')

    Returns
    -------
    log_sums : ndarray of float64, shape (b,)
    """
    top = exponents.max(axis=1)
    exponents -= top[:, None]
    np.maximum(exponents, _MIN_EXPONENT, out=exponents)
    np.exp(exponents, out=exponents)
    return top + np.log(exponents.sum(axis=1))
