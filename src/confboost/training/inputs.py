"""X and y as the estimator reads them: the two input paths of ``fit``, and prediction's X.

Owns how ``BoostClassifier.fit``'s arguments become what the runs of a fit need
(``fitting.py``), and how a prediction's X becomes what the model reads:

- an array, a scipy sparse matrix (CSR/CSC) or an all-continuous table is checked by
  scikit-learn's ``validate_data`` (which sets ``n_features_in_`` and ``feature_names_in_``)
  and binned as a numeric-only ``Dataset`` (``Dataset.from_array``); a sparse matrix's
  duplicate entries are summed first, as scipy's ``toarray`` (and so prediction) reads them;
- a table with categorical or text columns is encoded by a ``FrameEncoder`` fitted here
  (``data.columns.encode_table``; the estimator's ``encoder_``), which builds its Dataset
  at fit and its ``Frame`` at prediction;
- y becomes label signs and classes (``targets.encode_targets``, through the estimator's
  ``_encode_targets``, which sets ``classes_``) and the starting weights
  (``targets.starting_weights``: sample and class weights).
"""

from dataclasses import dataclass

import numpy as np

from confboost.data.bin_mapper import RAW_DTYPES
from confboost.data.columns import column_names, encode_table, is_mixed, is_table
from confboost.data.dataset import Dataset
from confboost.training.holdout import take_rows
from confboost.training.targets import label_vector, starting_weights

#: ``label_vector``'s stacklevel (from its caller), so that a warning about y points at the
#: user's ``fit`` call: ``_targets_and_weights`` ← ``training_data`` ← ``fitting.fit`` ←
#: ``BoostClassifier._fit`` ← ``BoostClassifier.fit`` ← the user.
_Y_WARNING_LEVEL = 6


@dataclass
class TrainingData:
    """A fit's training data, as its runs read it.

    Attributes
    ----------
    X : ndarray, sparse matrix of shape (n_samples, n_features), or a table
        The validated X (a table as given), from which held-out rows are taken.
    targets : tuple of (ndarray of shape (n_samples, k), int8; ndarray of shape (n_samples,)
            or None)
        The label signs Y and each example's class index (None for multi-label data).
    sample_weight : ndarray of shape (n_samples,)
        The starting weights (sample weights times class weights).
    build : callable
        ``build(rows, weight)``: the ``Dataset`` of those rows (None: all), binned with
        ``max_bins`` bins (``weight``: the rows' weights, for the bins' quantiles).
    prepare : callable
        ``prepare(raw, validated=False)``: held-out rows as the model reads them (an array,
        densified, or a ``Frame``); ``validated`` when they are rows of ``X`` already checked.
    work : int
        Example·feature·label cells, the thread rule's measure (``_threads.numba_threads``).
    """

    X: object
    targets: tuple
    sample_weight: np.ndarray
    build: object
    prepare: object
    work: int


def training_data(est, X, y, sample_weight):
    """Check and encode ``fit``'s X, y and sample weights; sets the estimator's input
    attributes (``n_features_in_``, ``feature_names_in_``, ``feature_kinds_``, ``classes_``
    and, for a table with categorical or text columns, ``encoder_``).

    Parameters
    ----------
    est : BoostClassifier
    X : array-like, sparse matrix or table of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
    sample_weight : array-like of shape (n_samples,) or None

    Returns
    -------
    TrainingData
    """
    if is_mixed(X, est.feature_types):
        X, y, n_samples = _encode_table(est, X, y)
        encoder = est.encoder_
        targets, sample_weight = _targets_and_weights(est, y, sample_weight, n_samples)
        make_dataset = encoder.fit_dataset
        est.feature_kinds_ = np.asarray(encoder.kinds, dtype=object)

        def prepare(raw, validated=False):
            return encoder.transform(raw)
    else:
        X, y = _validate_fit(est, X, y)
        n_samples = X.shape[0]
        targets, sample_weight = _targets_and_weights(est, y, sample_weight, n_samples)
        make_dataset = Dataset.from_array
        est.feature_kinds_ = np.full(X.shape[1], "continuous", dtype=object)

        def prepare(raw, validated=False):
            if not validated:
                raw = _validate(est, raw)
            return raw.toarray() if hasattr(raw, "toarray") else raw

    max_bins, random_state = est.max_bins, est.random_state

    def build(rows, weight):
        return make_dataset(X if rows is None else take_rows(X, rows), max_bins, random_state,
                            weight)

    work = n_samples * est.n_features_in_ * targets[0].shape[1]
    return TrainingData(X, targets, sample_weight, build, prepare, work)


def prediction_data(est, X):
    """X as the fitted model reads it: a validated float (or sparse) matrix, or the
    ``Frame`` of a table (the fitted ``encoder_``)."""
    if hasattr(est, "encoder_"):
        if not is_table(X):
            raise ValueError("this model was fitted on a table with categorical or text "
                             "columns: X must be a DataFrame (or a dict of columns)")
        return est.encoder_.transform(X)
    return _validate(est, X)


_CHECKS = {"ensure_all_finite": "allow-nan", "dtype": RAW_DTYPES,
           "accept_sparse": ("csr", "csc")}


def _validate(est, X):
    """scikit-learn's ``validate_data``: X checked against the fitted input attributes."""
    from sklearn.utils.validation import validate_data

    return validate_data(est, X, reset=False, **_CHECKS)


def _validate_fit(est, X, y):
    """scikit-learn's ``validate_data`` at fit: X and y, setting the input attributes; a
    sparse X in canonical form."""
    from scipy.sparse import issparse
    from sklearn.utils.validation import validate_data

    X, y = validate_data(est, X, y, multi_output=True, y_numeric=False, **_CHECKS)
    if issparse(X) and not X.has_canonical_format:
        # duplicate entries of a sparse matrix are one value, their sum (scipy's toarray,
        # and so predict, reads them so)
        X = X.copy()
        X.sum_duplicates()
    return X, y


def _encode_table(est, X, y):
    """Fit ``encoder_`` to a table with categorical or text columns
    (``data.columns.encode_table``); returns X, y as an array, and the number of rows."""
    est.encoder_, y, n_samples = encode_table(X, y, est.feature_types, est.text_expert)
    names = column_names(X)
    est.n_features_in_ = len(names)
    if all(isinstance(name, str) for name in names):
        est.feature_names_in_ = np.asarray(names, dtype=object)
    else:
        est.__dict__.pop("feature_names_in_", None)
    return X, y, n_samples


def _targets_and_weights(est, y, sample_weight, n_samples):
    """``est._encode_targets(y)`` and the starting weights (``targets.starting_weights``)."""
    targets = est._encode_targets(label_vector(y, stacklevel=_Y_WARNING_LEVEL))
    return targets, starting_weights(sample_weight, n_samples, est.class_weight,
                                     est.classes_, targets[1])
