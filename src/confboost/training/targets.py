"""What ``fit`` makes of y and sample_weight: the label signs Y and the starting weights.

Owns reading y (binary, multiclass, or a multi-label 0/1 indicator matrix) as the label signs
Y (n_samples × k, ±1; k = 1 for binary data, paper Figure 1), each example's class and the
classes, and turning sample and class weights into the weights of D_1.
"""

import warnings

import numpy as np

from confboost.training.holdout import class_weights


def encode_targets(y):
    """Label signs and classes of y.

    Parameters
    ----------
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
        Class labels, or a 0/1 indicator matrix (dense or sparse) for multi-label data.

    Returns
    -------
    signs : ndarray of shape (n_samples, k), int8
        k = 1 for binary y (Figure 1), one column per class or label otherwise.
    encoded : ndarray of shape (n_samples,) or None
        Class indices into ``classes`` (None for multi-label y).
    classes : ndarray of shape (n_classes,)
        The sorted class labels (multi-label: ``arange(n_labels)``).
    multilabel : bool
    """
    if np.ndim(y) == 2:
        Y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
        if Y.dtype.kind not in "biuf" or not np.isin(Y, (0, 1)).all():
            found = np.unique(Y)[:10].tolist() if Y.dtype.kind in "biuf" else Y.dtype
            raise ValueError("a 2-D y is a multi-label indicator matrix and must hold "
                             f"only 0 and 1; found {found}")
        return np.where(Y > 0, 1, -1).astype(np.int8), None, np.arange(Y.shape[1]), True
    # scikit-learn's reading of a 1-D y; imported here: a multi-label indicator matrix (the
    # command line's) needs none of it
    from sklearn.utils.multiclass import check_classification_targets, type_of_target

    y_type = type_of_target(y, input_name="y")
    if y_type not in ("binary", "multiclass"):
        raise ValueError(f"Unknown label type {y_type!r}: y must be binary, multiclass or "
                         "a multi-label 0/1 indicator matrix")
    check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"y has only one class ({classes[0]}); a classifier needs at least "
                         "two")
    if classes.size == 2:
        return np.where(encoded == 1, 1, -1).astype(np.int8)[:, None], encoded, classes, False
    signs = -np.ones((encoded.size, classes.size), dtype=np.int8)
    signs[np.arange(encoded.size), encoded] = 1
    return signs, encoded, classes, False


def label_vector(y, stacklevel):
    """y, a column vector (n, 1) read as one label per example, with scikit-learn's
    ``DataConversionWarning`` (``stacklevel`` as ``warnings.warn``'s, from the caller)."""
    if y.ndim == 2 and y.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning

        warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                      "read as one label per example", DataConversionWarning,
                      stacklevel=stacklevel + 1)
        return y.ravel()
    return y


def starting_weights(sample_weight, n_samples, class_weight, classes, encoded):
    """The validated sample weights times the class weights, shape (n_samples,), float64.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or None
        Non-negative, not all zero (None: ones).
    n_samples : int
    class_weight : "balanced", dict or None
        As ``holdout.class_weights`` reads it.
    classes : ndarray of shape (n_classes,)
    encoded : ndarray of shape (n_samples,) or None
        Class indices (None for multi-label data).

    Returns
    -------
    ndarray of shape (n_samples,)
        Divided by its largest entry where the finite weights' sum overflows (D_1 = w / Σ w
        is the same).
    """
    if sample_weight is None:  # what scikit-learn's check gives, without importing it
        sample_weight = np.ones(n_samples, dtype=np.float64)
    else:
        from sklearn.utils.validation import _check_sample_weight

        sample_weight = _check_sample_weight(sample_weight, np.empty((n_samples, 0)),
                                             dtype=np.float64, ensure_non_negative=True)
    with np.errstate(over="ignore"):
        total = sample_weight.sum()
    if not total > 0:
        raise ValueError("sample_weight sums to zero; at least one example needs weight")
    factors = class_weights(class_weight, classes, encoded)
    if factors is not None:
        sample_weight = sample_weight * factors
        with np.errstate(over="ignore"):
            total = sample_weight.sum()
    if not np.isfinite(total):
        sample_weight = sample_weight / sample_weight.max()
    return sample_weight
