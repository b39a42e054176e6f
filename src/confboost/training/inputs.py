"""X and y as the estimator reads them: the input adapter, chosen once and kept for predict.

Owns how ``fit``'s X becomes what the runs of a fit need, and how a prediction's X becomes
what the model reads. The kind of X is decided once, at fit, by ``input_adapter``; the
adapter is a fitted attribute of the estimator (``_input``) that ``predict`` asks again:

- ``ArrayInput`` (kind "array" or "sparse"): an array, a scipy sparse matrix (CSR/CSC) or an
  all-continuous table, checked by scikit-learn's ``validate_data`` (which sets
  ``n_features_in_`` and ``feature_names_in_``) and binned as a numeric-only ``Dataset``
  (``Dataset.from_array``); a sparse matrix's duplicate entries are summed first, as scipy's
  ``toarray`` (and so prediction) reads them;
- ``TableInput`` (kind "table"): a table with categorical or text columns, encoded by a
  ``FrameEncoder`` fitted here (``data.columns.encode_table``; the estimator's
  ``encoder_``), which builds its Dataset at fit and its ``Frame`` at prediction.

An adapter holds no estimator: the checks that need one (scikit-learn's ``validate_data``
reads and, at fit, sets the input attributes) are given it, the fit a blank copy of the
estimator it is fitting (``Fit.probe``), prediction the fitted estimator.
"""

import numpy as np

from confboost.data.bin_mapper import RAW_DTYPES
from confboost.data.columns import column_names, encode_table, is_mixed, is_table
from confboost.data.dataset import Dataset
from confboost.training.holdout import take_rows

_CHECKS = {"ensure_all_finite": "allow-nan", "dtype": RAW_DTYPES,
           "accept_sparse": ("csr", "csc")}


def _validate(est, X):
    """scikit-learn's ``validate_data``: X checked against ``est``'s input attributes."""
    from sklearn.utils.validation import validate_data

    return validate_data(est, X, reset=False, **_CHECKS)


class ArrayInput:
    """An array, sparse matrix or all-continuous table: scikit-learn's checks, numeric bins.

    Parameters
    ----------
    kind : {"array", "sparse"}
        The kind of X at fit (prediction takes either).
    """

    def __init__(self, kind="array"):
        self.kind = kind

    def read(self, probe, X, y):
        """Check X and y at fit.

        Parameters
        ----------
        probe : estimator
            A blank copy of the estimator; ``validate_data`` sets its input attributes.
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like

        Returns
        -------
        X : ndarray or sparse matrix
        y : ndarray
        attributes : dict
            ``n_features_in_``, ``feature_kinds_`` and, for string column names,
            ``feature_names_in_``.
        """
        from scipy.sparse import issparse
        from sklearn.utils.validation import validate_data

        X, y = validate_data(probe, X, y, multi_output=True, y_numeric=False, **_CHECKS)
        if issparse(X) and not X.has_canonical_format:
            # duplicate entries of a sparse matrix are one value, their sum (scipy's toarray,
            # and so predict, reads them so)
            X = X.copy()
            X.sum_duplicates()
        attributes = {"n_features_in_": X.shape[1],
                      "feature_kinds_": np.full(X.shape[1], "continuous", dtype=object)}
        if hasattr(probe, "feature_names_in_"):
            attributes["feature_names_in_"] = probe.feature_names_in_
        return X, y, attributes

    def n_samples(self, X):
        """Rows of the checked X."""
        return X.shape[0]

    def dataset(self, X, rows, max_bins, random_state, weight):
        """The ``Dataset`` of ``rows`` of the checked X (None: all)."""
        return Dataset.from_array(X if rows is None else take_rows(X, rows), max_bins,
                                  random_state, weight)

    def held_out(self, probe, raw, validated=False):
        """Rows scored during the fit, as the model reads them (densified); ``validated``
        when they are rows of the checked X."""
        if not validated:
            raw = _validate(probe, raw)
        return raw.toarray() if hasattr(raw, "toarray") else raw

    def transform(self, est, X):
        """A prediction's X, checked against the fitted estimator ``est``."""
        return _validate(est, X)


class TableInput:
    """A table with categorical or text columns, read by a ``FrameEncoder``.

    Parameters
    ----------
    feature_types, text_expert : dict or None
        The estimator's parameters of the same names.

    Attributes
    ----------
    encoder : FrameEncoder or None
        Fitted by ``read``.
    """

    kind = "table"

    def __init__(self, feature_types=None, text_expert=None, encoder=None):
        self.feature_types = feature_types
        self.text_expert = text_expert
        self.encoder = encoder

    def read(self, probe, X, y):
        """Fit the encoder to X (``data.columns.encode_table``); as ``ArrayInput.read``,
        with ``encoder_`` among the attributes."""
        self.encoder, y, _ = encode_table(X, y, self.feature_types, self.text_expert)
        names = column_names(X)
        attributes = {"encoder_": self.encoder, "n_features_in_": len(names),
                      "feature_kinds_": np.asarray(self.encoder.kinds, dtype=object)}
        if all(isinstance(name, str) for name in names):
            attributes["feature_names_in_"] = np.asarray(names, dtype=object)
        return X, y, attributes

    def n_samples(self, X):
        """Rows of the table."""
        return len(next(iter(X.values()))) if isinstance(X, dict) else len(X)

    def dataset(self, X, rows, max_bins, random_state, weight):
        """The ``Dataset`` of ``rows`` of the table (None: all): vocabularies and bins
        fitted on them."""
        return self.encoder.fit_dataset(X if rows is None else take_rows(X, rows), max_bins,
                                        random_state, weight)

    def held_out(self, probe, raw, validated=False):
        """Rows scored during the fit, as the model reads them: a ``Frame``."""
        return self.encoder.transform(raw)

    def transform(self, est, X):
        """A prediction's X as the model reads it: the ``Frame`` of a table."""
        if not is_table(X):
            raise ValueError("this model was fitted on a table with categorical or text "
                             "columns: X must be a DataFrame (or a dict of columns)")
        return self.encoder.transform(X)


def input_adapter(X, feature_types=None, text_expert=None):
    """The adapter of ``fit``'s X: the one decision of its kind.

    Raises
    ------
    ValueError
        When ``feature_types`` is given and X is not a table.
    """
    if is_mixed(X, feature_types):
        return TableInput(feature_types, text_expert)
    return ArrayInput("sparse" if hasattr(X, "tocsr") else "array")


def fitted_input(est):
    """The adapter a fitted estimator reads X with: the one its fit chose, or, for a model
    read from a file or pickled before adapters, the one its attributes imply."""
    adapter = est.__dict__.get("_input")
    if adapter is not None:
        return adapter
    encoder = est.__dict__.get("encoder_")
    return ArrayInput() if encoder is None else TableInput(encoder=encoder)
