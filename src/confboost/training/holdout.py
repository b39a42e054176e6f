"""Held-out data for early stopping and calibration: the split, ``eval_set``, class weights.

Owns which examples a fit trains on and which it holds out, and how held-out labels are
encoded against the training classes. The early-stopping rule itself is the loop's
``round_scores.ScoreRecord``; the probability scale is ``calibration.fit_calibrator``.

- ``validation_split``: a ``validation_fraction`` of the rows held out, stratified by class
  for single-label data (as scikit-learn's HistGradientBoosting does), seeded by
  ``random_state``; None when the data is too small to hold any class out twice.
- ``encode_eval_labels``: an ``eval_set``'s y as label signs and class indices of the
  fitted ``classes_`` (a class the training data lacks is an error naming it).
- ``class_weights``: scikit-learn's ``class_weight`` ("balanced" or a dict) as a factor per
  example.
"""

import numpy as np

#: Fewest held-out examples worth a split; fewer and calibration is skipped.
MIN_HELD_OUT = 10
#: Folds of the cross-fitted calibration (``calibration_folds``): 3 short runs of a twentieth
#: of the rounds each (``calibration.calibration_rounds``); 2 folds' models, on half the data,
#: gave breast cancer a 15% worse log loss.
CALIBRATION_FOLDS = 3
#: Above this many examples calibration holds out one ``validation_fraction``, no folds:
#: where ``weak_learner="auto"`` grows trees, on satimage (4,435) and pendigits (7,494) one
#: 10% split gave the folds' log loss or less (0.267 and 0.088 against 0.268 and 0.093) in a
#: third of the time; wine's 14 held-out rows were far too few (0.249 against 0.05).
LARGE = 2_500


def take_rows(X, rows):
    """Rows of an array, sparse matrix, DataFrame or dict of columns."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if isinstance(X, dict):
        return {name: np.asarray(values, dtype=object)[rows] for name, values in X.items()}
    return X[rows]


def validation_split(n_samples, encoded, fraction, random_state):
    """Training and held-out row indices, or None when the data is too small.

    Parameters
    ----------
    n_samples : int
    encoded : ndarray of shape (n_samples,) or None
        Class index per example (single-label data: the split is stratified), None for
        multi-label data (a plain shuffled split).
    fraction : float
        Share held out, in (0, 1).
    random_state : int, RandomState or None

    Returns
    -------
    (train, held_out) : tuple of ndarray of intp, or None
        None when fewer than ``MIN_HELD_OUT`` rows would be held out, or (single-label)
        when a class has fewer than two examples or more classes than held-out rows.
    """
    from sklearn.model_selection import train_test_split

    n_held = int(np.ceil(fraction * n_samples))
    if n_held < MIN_HELD_OUT or n_samples - n_held < 2:
        return None
    stratify = None
    if encoded is not None:
        counts = np.bincount(encoded)
        if counts[counts > 0].min() < 2 or n_held < (counts > 0).sum():
            return None
        stratify = encoded
    rows = np.arange(n_samples)
    train, held = train_test_split(rows, test_size=n_held, stratify=stratify,
                                   random_state=random_state)
    return np.sort(train), np.sort(held)


def calibration_folds(n_samples, encoded, fraction, random_state, n_folds=None):
    """The held-out parts calibration measures on: (training rows, held-out rows) each.

    Above ``LARGE`` examples, one ``validation_split`` (a tenth of a large set is plenty).
    Otherwise cross-fitting: every example is held out once, so the calibration sees
    out-of-fold f on all of them (a tenth of a small set holds too few mistakes to measure
    a scale on). Stratified for single-label data: the rows of each class, in an order
    drawn from ``random_state``, are dealt to the folds in turn (each class's rows spread
    over the folds within one; no scikit-learn splitter, whose import and checks cost a
    small fit a tenth of its time); fewer folds when the rarest class has fewer than
    ``n_folds`` examples.

    Returns
    -------
    list of (ndarray, ndarray), or None
        None when fewer than ``MIN_HELD_OUT`` examples, or a class with one example.
    """
    n_folds = CALIBRATION_FOLDS if n_folds is None else n_folds
    if n_samples > LARGE:
        split = validation_split(n_samples, encoded, fraction, random_state)
        return None if split is None else [split]
    if n_samples < MIN_HELD_OUT:
        return None
    if encoded is not None:
        counts = np.bincount(encoded)
        n_folds = min(n_folds, int(counts[counts > 0].min()))
        if n_folds < 2:
            return None
    rng = (random_state if isinstance(random_state, np.random.RandomState)
           else np.random.default_rng(random_state))
    order = rng.permutation(n_samples)
    if encoded is not None:  # class by class, each class's rows in the drawn order
        order = order[np.argsort(np.asarray(encoded)[order], kind="stable")]
    fold = np.empty(n_samples, dtype=np.intp)
    fold[order] = np.arange(n_samples) % n_folds
    return [(np.flatnonzero(fold != number), np.flatnonzero(fold == number))
            for number in range(n_folds)]


def encode_eval_labels(y, classes, multilabel):
    """An ``eval_set``'s labels against the fitted classes.

    Returns
    -------
    signs : ndarray of shape (n, k), int8
        ±1 label signs (k = 1 for binary data).
    encoded : ndarray of shape (n,) or None
        Class index per example (None for multi-label data).
    """
    if multilabel:
        Y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
        if Y.ndim != 2 or Y.shape[1] != len(classes) or not np.isin(Y, (0, 1)).all():
            raise ValueError(f"eval_set's y must be a 0/1 indicator matrix with "
                             f"{len(classes)} columns, like the training y")
        return np.where(Y > 0, 1, -1).astype(np.int8), None
    y = np.asarray(y).ravel() if np.ndim(y) == 2 and np.shape(y)[1] == 1 else np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"eval_set's y must be 1-D like the training y, got shape {y.shape}")
    unknown = np.setdiff1d(np.unique(y), classes)
    if unknown.size:
        raise ValueError(f"eval_set's y holds classes the training y lacks: "
                         f"{unknown[:10].tolist()}")
    encoded = np.searchsorted(classes, y)
    if len(classes) == 2:
        return np.where(encoded == 1, 1, -1).astype(np.int8)[:, None], encoded
    signs = -np.ones((encoded.size, len(classes)), dtype=np.int8)
    signs[np.arange(encoded.size), encoded] = 1
    return signs, encoded


def class_weights(class_weight, classes, encoded):
    """The factor of each example for scikit-learn's ``class_weight``.

    Parameters
    ----------
    class_weight : "balanced", dict of class label to float, or None
        "balanced": n_samples / (n_classes · count(class)); a dict: the given weight for
        its classes, 1 for the others.
    classes : ndarray of shape (n_classes,)
    encoded : ndarray of shape (n_samples,) or None
        None (multi-label data) is an error when ``class_weight`` is set.

    Returns
    -------
    factors : ndarray of shape (n_samples,) or None
        None when ``class_weight`` is None.
    """
    if class_weight is None:
        return None
    if encoded is None:
        raise ValueError("class_weight is for single-label data (1-D y); a multi-label y "
                         "takes sample_weight instead")
    from sklearn.utils.class_weight import compute_class_weight

    weights = compute_class_weight(class_weight, classes=classes, y=classes[encoded])
    return weights[encoded]
