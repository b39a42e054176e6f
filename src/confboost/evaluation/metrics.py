"""Evaluation metrics for single-label, multiclass and multi-label predictions.

This module owns the losses of the paper's §6 (one-error, Hamming loss, ranking loss), the two
extra measures BoosTexter reports (coverage and average precision; Schapire & Singer 2000,
§5) and the ordinary single-label error. All are plain NumPy, vectorised over examples.

Conventions
-----------
``Y`` is an ``(n, k)`` label matrix: either a 0/1 indicator or a ±1 sign matrix (the
``Y_i[l]`` of the paper). In both conventions label ``l`` belongs to ``Y_i`` exactly when
``Y[i, l] == 1``; a matrix mixing 0 and −1 is rejected. ``scores`` is the ``(n, k)`` real
matrix ``f(x_i, l)``, which must be finite.

Ties between scores are resolved pessimistically, as scikit-learn does: a label ranked
level with a true label counts as ranked above it (ranking loss, coverage, average
precision). ``one_error`` breaks ties by taking the first maximal label.
"""

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "average_precision",
    "coverage",
    "error",
    "hamming_loss",
    "one_error",
    "ranking_loss",
]


def _label_mask(Y, name):
    """Return the boolean "label present" mask of a 0/1 or ±1 label array.

    Parameters
    ----------
    Y : array-like of any shape
        Labels, either all in {0, 1} or all in {−1, +1}.
    name : str
        The argument's name, for error messages.

    Returns
    -------
    mask : ndarray of bool, same shape as ``Y``
        ``Y == 1``.
    """
    Y = np.asarray(Y)
    if Y.size == 0:
        raise ValueError(f"{name} is empty")
    if Y.dtype == bool:
        return Y
    is_one = Y == 1
    if np.all(is_one | (Y == 0)) or np.all(is_one | (Y == -1)):
        return is_one
    raise ValueError(
        f"{name} must contain only 0/1 (indicator) or only -1/+1 (sign) values; "
        f"found values {np.unique(Y)[:10].tolist()}"
    )


def _check_labels_and_scores(Y_true, scores):
    """Validate an ``(n, k)`` label matrix and a score matrix of the same shape.

    Returns
    -------
    mask : ndarray of bool, shape (n, k)
        ``True`` where label ``l`` is in ``Y_i``.
    scores : ndarray of float64, shape (n, k)
    """
    mask = _label_mask(Y_true, "Y_true")
    if mask.ndim != 2:
        raise ValueError(f"Y_true must be a 2-d (n, k) array, got shape {mask.shape}")
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != mask.shape:
        raise ValueError(f"scores must have the shape of Y_true {mask.shape}, got {scores.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores contains NaN or infinite values")
    return mask, scores


def _pessimistic_ranks(mask, scores):
    """Count, for every label, the labels scored at least as high (ties included).

    Parameters
    ----------
    mask : ndarray of bool, shape (n, k)
        True labels.
    scores : ndarray of float64, shape (n, k)

    Returns
    -------
    n_above : ndarray of int64, shape (n, k)
        ``|{l' : f(x_i, l') >= f(x_i, l)}|``, the pessimistic rank of label ``l`` (1 = top).
    n_true_above : ndarray of int64, shape (n, k)
        ``|{l' in Y_i : f(x_i, l') >= f(x_i, l)}|``.
    """
    n, k = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    sorted_scores = np.take_along_axis(scores, order, axis=1)
    sorted_true = np.take_along_axis(mask, order, axis=1)
    # Index of the last member of each position's tie group: the first position j >= p
    # where the sorted score changes after j (or the row ends).
    positions = np.broadcast_to(np.arange(k), (n, k))
    group_ends_here = np.ones((n, k), dtype=bool)
    group_ends_here[:, :-1] = sorted_scores[:, :-1] != sorted_scores[:, 1:]
    end = np.where(group_ends_here, positions, k)
    end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]
    true_cumsum = np.cumsum(sorted_true, axis=1)
    sorted_n_above = end + 1
    sorted_n_true_above = np.take_along_axis(true_cumsum, end, axis=1)
    n_above = np.empty((n, k), dtype=np.int64)
    n_true_above = np.empty((n, k), dtype=np.int64)
    np.put_along_axis(n_above, order, sorted_n_above, axis=1)
    np.put_along_axis(n_true_above, order, sorted_n_true_above, axis=1)
    return n_above, n_true_above


def hamming_loss(Y_true: ArrayLike, Y_pred: ArrayLike) -> float:
    """Hamming loss: the fraction of (example, label) pairs predicted wrongly (paper §6).

    ``hloss(H) = (1/k) E |H(x) Δ Y|``. For the predictions ``H(x) = {l : f(x, l) > 0}`` of
    AdaBoost.MH pass ``Y_pred = scores > 0``.

    Parameters
    ----------
    Y_true : array-like, shape (n, k)
        True labels, 0/1 indicator or ±1 signs.
    Y_pred : array-like, shape (n, k)
        Predicted labels, 0/1 indicator or ±1 signs (the convention may differ from
        ``Y_true``'s).

    Returns
    -------
    loss : float
        In [0, 1]. Equals scikit-learn's ``hamming_loss`` on indicator matrices.
    """
    true = _label_mask(Y_true, "Y_true")
    pred = _label_mask(Y_pred, "Y_pred")
    if true.ndim != 2:
        raise ValueError(f"Y_true must be a 2-d (n, k) array, got shape {true.shape}")
    if pred.shape != true.shape:
        raise ValueError(f"Y_pred must have the shape of Y_true {true.shape}, got {pred.shape}")
    return float(np.mean(true != pred))


def one_error(Y_true: ArrayLike, scores: ArrayLike) -> float:
    """One-error: how often the top-scored label is not a true label (paper §6).

    ``one-err(H_1) = P[H_1(x) ∉ Y]`` with ``H_1(x) = argmax_l f(x, l)``; for single-label
    data it is the ordinary error of the argmax rule (Eq. 17).

    Parameters
    ----------
    Y_true : array-like, shape (n, k)
        True labels, 0/1 indicator or ±1 signs.
    scores : array-like, shape (n, k)
        ``f(x, l)``.

    Returns
    -------
    loss : float
        In [0, 1].

    Notes
    -----
    Ties for the maximum go to the first (lowest-index) label, as ``numpy.argmax`` does.
    An example with no true label always counts as an error.
    """
    mask, scores = _check_labels_and_scores(Y_true, scores)
    top = np.argmax(scores, axis=1)
    return float(np.mean(~mask[np.arange(mask.shape[0]), top]))


def ranking_loss(Y_true: ArrayLike, scores: ArrayLike) -> float:
    """Ranking loss: the fraction of crucial pairs ordered wrongly (paper §6 and §9).

    For example ``i`` the crucial pairs are ``(l0, l1)`` with ``l0 ∉ Y_i`` and ``l1 ∈ Y_i``;
    a pair is wrong when ``f(x_i, l1) <= f(x_i, l0)`` (a tie counts as wrong). The loss of
    an example is the wrong pairs divided by ``|Y_i| · |L − Y_i|``, and the metric is their
    mean over examples.

    Parameters
    ----------
    Y_true : array-like, shape (n, k)
        True labels, 0/1 indicator or ±1 signs.
    scores : array-like, shape (n, k)
        ``f(x, l)``.

    Returns
    -------
    loss : float
        In [0, 1].

    Raises
    ------
    ValueError
        If no example has a crucial pair.

    Notes
    -----
    Examples without a crucial pair (no true label, or every label true) are left out of the
    mean, since the paper's loss is undefined for them. scikit-learn's
    ``label_ranking_loss`` counts ties the same way but gives such examples a loss of 0 and
    keeps them in the mean; the two agree whenever every example has a crucial pair.
    """
    mask, scores = _check_labels_and_scores(Y_true, scores)
    k = mask.shape[1]
    n_true = mask.sum(axis=1)
    has_pair = (n_true > 0) & (n_true < k)
    if not np.any(has_pair):
        raise ValueError("ranking loss is undefined: no example has both a true and a false label")
    mask, scores, n_true = mask[has_pair], scores[has_pair], n_true[has_pair]
    n_above, n_true_above = _pessimistic_ranks(mask, scores)
    # For a true label l1, the false labels scored >= f(l1) are the wrong pairs it is in.
    wrong_pairs = np.where(mask, n_above - n_true_above, 0).sum(axis=1)
    return float(np.mean(wrong_pairs / (n_true * (k - n_true))))


def coverage(Y_true: ArrayLike, scores: ArrayLike) -> float:
    """Coverage: how far down the label ranking one must go to cover every true label.

    BoosTexter's definition (Schapire & Singer 2000, §5):
    ``coverage = mean_i max_{l ∈ Y_i} rank_i(l) − 1`` with rank 1 the top label. With
    pessimistic ties, ``rank_i(l) = |{l' : f(x_i, l') >= f(x_i, l)}|``; for single-label
    data a coverage of 0 means no error.

    Parameters
    ----------
    Y_true : array-like, shape (n, k)
        True labels, 0/1 indicator or ±1 signs.
    scores : array-like, shape (n, k)
        ``f(x, l)``.

    Returns
    -------
    coverage : float
        In [0, k − 1].

    Raises
    ------
    ValueError
        If no example has a true label.

    Notes
    -----
    Examples with no true label are left out of the mean. When every example has a true
    label this equals scikit-learn's ``coverage_error − 1`` (scikit-learn instead gives an
    empty example a ``coverage_error`` of 0).
    """
    mask, scores = _check_labels_and_scores(Y_true, scores)
    has_label = mask.any(axis=1)
    if not np.any(has_label):
        raise ValueError("coverage is undefined: no example has a true label")
    mask, scores = mask[has_label], scores[has_label]
    lowest_true = np.where(mask, scores, np.inf).min(axis=1)
    return float(np.mean((scores >= lowest_true[:, None]).sum(axis=1) - 1))


def average_precision(Y_true: ArrayLike, scores: ArrayLike) -> float:
    """Average precision of the label ranking (BoosTexter; Schapire & Singer 2000, §5).

    ``avgprec_i = (1/|Y_i|) Σ_{l ∈ Y_i} |{l' ∈ Y_i : rank_i(l') <= rank_i(l)}| / rank_i(l)``,
    averaged over examples, with the pessimistic rank
    ``rank_i(l) = |{l' : f(x_i, l') >= f(x_i, l)}|``. For single-label data it is the mean
    reciprocal rank of the true label.

    Parameters
    ----------
    Y_true : array-like, shape (n, k)
        True labels, 0/1 indicator or ±1 signs.
    scores : array-like, shape (n, k)
        ``f(x, l)``.

    Returns
    -------
    precision : float
        In (0, 1]; higher is better.

    Raises
    ------
    ValueError
        If no example has a true label.

    Notes
    -----
    Examples with no true label are left out of the mean. When every example has a true
    label this equals scikit-learn's ``label_ranking_average_precision_score``
    (scikit-learn instead gives an empty example a precision of 1).
    """
    mask, scores = _check_labels_and_scores(Y_true, scores)
    has_label = mask.any(axis=1)
    if not np.any(has_label):
        raise ValueError("average precision is undefined: no example has a true label")
    mask, scores = mask[has_label], scores[has_label]
    n_above, n_true_above = _pessimistic_ranks(mask, scores)
    precision_at_true = np.where(mask, n_true_above / n_above, 0.0)
    return float(np.mean(precision_at_true.sum(axis=1) / mask.sum(axis=1)))


def error(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Single-label error: the fraction of examples whose predicted label is wrong.

    Parameters
    ----------
    y_true : array-like, shape (n,)
        True labels (any comparable values: integers, strings, ...).
    y_pred : array-like, shape (n,)
        Predicted labels.

    Returns
    -------
    error : float
        In [0, 1].
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.ndim != 1 or y_true.size == 0:
        raise ValueError(f"y_true must be a non-empty 1-d array, got shape {y_true.shape}")
    if y_pred.shape != y_true.shape:
        raise ValueError(f"y_pred must have the shape of y_true {y_true.shape}, got {y_pred.shape}")
    return float(np.mean(y_true != y_pred))
