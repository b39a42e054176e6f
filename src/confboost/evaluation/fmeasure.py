"""Per-class precision, recall and F1, their micro and macro averages, and the best threshold.

The decisions are ``H(x, l) = [f(x, l) > threshold]`` (threshold 0: AdaBoost.MH's sign rule).
``max_fmeasure`` finds, for one class, the threshold on f that maximises F1 on a labelled set,
as icsiboost's ``--max-fmeasure`` does (a midpoint between consecutive distinct scores).
"""

import numpy as np
from numpy.typing import ArrayLike


def per_class_counts(Y_true: ArrayLike, Y_pred: ArrayLike
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """True positives, false positives and false negatives per class.

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n, k), 0/1 or bool

    Returns
    -------
    tp, fp, fn : ndarray of shape (k,), int64
    """
    true = np.asarray(Y_true).astype(bool)
    pred = np.asarray(Y_pred).astype(bool)
    tp = (true & pred).sum(axis=0)
    fp = (~true & pred).sum(axis=0)
    fn = (true & ~pred).sum(axis=0)
    return tp, fp, fn


def _ratio(numerator, denominator):
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    return np.divide(numerator, denominator, out=np.zeros_like(numerator),
                     where=denominator > 0)


def precision_recall_f1(Y_true: ArrayLike, Y_pred: ArrayLike
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-class precision, recall and F1 (0 where undefined).

    Returns
    -------
    precision, recall, f1 : ndarray of shape (k,)
    """
    tp, fp, fn = per_class_counts(Y_true, Y_pred)
    return _ratio(tp, tp + fp), _ratio(tp, tp + fn), _ratio(2 * tp, 2 * tp + fp + fn)


def micro_f1(Y_true: ArrayLike, Y_pred: ArrayLike) -> float:
    """F1 of the pooled (example, class) decisions."""
    tp, fp, fn = (counts.sum() for counts in per_class_counts(Y_true, Y_pred))
    return float(_ratio(2 * tp, 2 * tp + fp + fn))


def macro_f1(Y_true: ArrayLike, Y_pred: ArrayLike, classes: ArrayLike | None = None) -> float:
    """Mean of the per-class F1 (over ``classes``, default all; 0 for a class never seen)."""
    f1 = precision_recall_f1(Y_true, Y_pred)[2]
    return float(np.mean(f1 if classes is None else f1[classes]))


def max_fmeasure(y_true: ArrayLike, scores: ArrayLike) -> tuple[float, float, float, float]:
    """The threshold on f maximising F1 for one class.

    Parameters
    ----------
    y_true : array-like of shape (n,), 0/1 or bool
    scores : array-like of shape (n,)
        f(x, l) of the class.

    Returns
    -------
    f1, threshold, recall, precision : float
        Deciding ``f > threshold`` reaches ``f1`` on this set; the threshold is the midpoint
        between two consecutive distinct scores (``-inf``: every example positive).
    """
    y_true = np.asarray(y_true).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(scores, kind="stable")
    scores, y_true = scores[order], y_true[order]
    n = scores.size
    total_true = int(y_true.sum())
    true_below = np.concatenate([[0], np.cumsum(y_true)])
    best = (0.0, np.inf, 0.0, 0.0)
    if total_true == 0 or n == 0:
        return best
    for i in range(n):
        if i > 0 and scores[i] == scores[i - 1]:
            continue
        positives_true = total_true - true_below[i]
        precision = positives_true / (n - i)
        recall = positives_true / total_true
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        if f1 > best[0]:
            threshold = -np.inf if i == 0 else 0.5 * (scores[i - 1] + scores[i])
            best = (float(f1), float(threshold), float(recall), float(precision))
    return best
