"""scikit-learn estimators: validate, encode labels, bin, run the loop, predict.

``BoostClassifier`` is the one public classifier. It validates its parameters once, at
``fit`` (DESIGN.md rule 5), turns the labels into label signs Y (n_samples × k), bins the
features, and runs the boosting loop with the named scheme, weak learner, confidence rule and
α method. Binary data is the case k = 1 (paper Figure 1); multiclass and multi-label data
go through AdaBoost.MH (Figure 2) with one label column per class.
"""

import warnings
from contextlib import contextmanager

import numba
import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from confboost.alpha import METHODS as ALPHA_METHODS
from confboost.boosting import ProgressPrinter, run_boosting
from confboost.confidence import REAL, REAL_ABSTAIN, default_smoothing, mode_code
from confboost.data.binning import RAW_DTYPES
from confboost.data.dataset import Dataset
from confboost.learners import LEARNERS
from confboost.model import BoostedModel, load_document, save_document
from confboost.schemes.mh import INITS, MHScheme

SCHEMES = ("mh",)


@contextmanager
def numba_threads(n_jobs):
    """Run the kernels on ``n_jobs`` threads (None: all; negative: all but |n_jobs| - 1)."""
    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        wanted = available
    elif n_jobs < 0:
        wanted = max(1, available + 1 + n_jobs)
    else:
        wanted = min(n_jobs, available)
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


class BoostClassifier(ClassifierMixin, BaseEstimator):
    """Boosting with confidence-rated predictions (Schapire & Singer 1999).

    Binary data is generalized AdaBoost (Figure 1) on k = 1 label column; multiclass (1-D y
    with more than two classes) and multi-label data (2-D 0/1 indicator y) run AdaBoost.MH
    (Figure 2) over one column per class.

    Parameters
    ----------
    n_estimators : int, default=100
        Boosting rounds T. The loop stops early if a round's hypothesis has no edge.
    scheme : {"mh"}, default="mh"
        The multiclass scheme (binary data is the same for every scheme).
    confidence : {"real", "discrete", "abstain", "real-abstain"}, default="real"
        How a weak hypothesis sets its value on each block (see ``confboost.confidence``):
        "real" Eq. 9 with ε smoothing; "discrete" ±1 scaled by α (§3.1); "abstain" ±1 and 0
        on the abstaining (missing-value) block, α of §3.3; "real-abstain" Eq. 9 and 0 on
        the abstaining block.
    alpha : {"auto", "exact", "freund-schapire"}, default="auto"
        How α_t is chosen (§3; see ``confboost.alpha``). "auto": the closed form where one
        exists (α = 1 for real confidences, whose values already minimise Z).
    smoothing : "auto" or float, default="auto"
        ε of §4.2; "auto" is 1/(2mk), half the initial weight of one (example, label) pair.
    init : {"uniform", "balanced"}, default="uniform"
        Starting distribution of AdaBoost.MH on single-label multiclass data (§7.2).
    max_bins : int, default=255
        Most value bins per feature (2..255); the missing-value bin comes on top.
    trim : float, default=0.0
        Weight trimming β in [0, 0.5] (Friedman, Hastie & Tibshirani 2000): each round the
        weak learner's histograms skip the lightest examples that together hold at most β of
        the weight mass. The chosen hypothesis' confidences, α and Z_t are still computed
        over every example and every weight is updated, so Π Z_t still bounds the training
        loss; with real confidences and ``alpha="auto"``, α is then found numerically
        (the trimmed confidences are fitted to the kept examples only). 0 (the default)
        turns it off; 0.1 is Friedman et al.'s choice.
    n_jobs : int or None, default=None
        Threads for the kernels (None: all cores).
    random_state : int, RandomState or None, default=None
        Seeds the row subsample used to find bin quantiles on large data.
    verbose : int, default=0
        1: a progress bar on stderr; 2: one line per round.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels (for multi-label y, ``arange(n_labels)``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X was a DataFrame with string column names.
    model_ : BoostedModel
        The weak hypotheses and their α.
    history_ : dict of str to ndarray of shape (n_rounds,)
        Per round: "alpha", "z" (Z_t), "bound" (the theorem's bound on the training loss
        from Π Z_t), "train_loss" (training error for binary and single-label data, Hamming
        loss for multi-label data, weighted by the sample weights), "criterion" (the weak
        learner's Z before α and smoothing) and "alpha_capped" (True where α hit its cap
        because Z had no minimum).
    n_estimators_ : int
        Rounds actually run.
    smoothing_ : float
        The ε used.
    feature_importances_ : ndarray of shape (n_features,)
        Share of the training-loss bound's decrease, Σ_t -ln Z_t, due to each feature.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from confboost import BoostClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = BoostClassifier(n_estimators=50).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95)
    True
    >>> bool((clf.history_["train_loss"] <= clf.history_["bound"]).all())
    True
    """

    def __init__(self, n_estimators=100, *, scheme="mh", confidence="real", alpha="auto",
                 smoothing="auto", init="uniform", max_bins=255, trim=0.0, n_jobs=None,
                 random_state=None, verbose=0):
        self.n_estimators = n_estimators
        self.scheme = scheme
        self.confidence = confidence
        self.alpha = alpha
        self.smoothing = smoothing
        self.init = init
        self.max_bins = max_bins
        self.trim = trim
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_label = True
        return tags

    def _validate_params_once(self):
        def need(condition, message):
            if not condition:
                raise ValueError(message)

        need(isinstance(self.n_estimators, (int, np.integer)) and self.n_estimators >= 1,
             f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        need(self.scheme in SCHEMES, f"scheme must be one of {SCHEMES}, got {self.scheme!r}")
        mode = mode_code(self.confidence)
        need(self.alpha in ALPHA_METHODS,
             f"alpha must be one of {ALPHA_METHODS}, got {self.alpha!r}")
        need(self.init in INITS, f"init must be one of {INITS}, got {self.init!r}")
        need(isinstance(self.max_bins, (int, np.integer)) and 2 <= self.max_bins <= 255,
             f"max_bins must be an integer in [2, 255], got {self.max_bins!r}")
        need(self.smoothing == "auto" or (isinstance(self.smoothing, (int, float))
                                          and not isinstance(self.smoothing, bool)
                                          and 0 < self.smoothing < np.inf),
             f"smoothing must be 'auto' or a positive finite float, got {self.smoothing!r}")
        need(isinstance(self.trim, (int, float)) and not isinstance(self.trim, bool)
             and 0.0 <= self.trim <= 0.5,
             f"trim must be a float in [0, 0.5], got {self.trim!r}")
        need(self.n_jobs is None or (isinstance(self.n_jobs, (int, np.integer))
                                     and self.n_jobs != 0),
             f"n_jobs must be None or a non-zero integer, got {self.n_jobs!r}")
        return mode

    def _encode_targets(self, y):
        """Label signs (n, k) and whether the data is single-label."""
        y_type = type_of_target(y, input_name="y")
        if y_type == "multilabel-indicator":
            Y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
            if not np.isin(Y, (0, 1)).all():
                raise ValueError("a multi-label y must hold only 0 and 1")
            self.classes_ = np.arange(Y.shape[1])
            self._multilabel = True
            return np.where(Y > 0, 1, -1).astype(np.int8), False
        if y_type not in ("binary", "multiclass"):
            raise ValueError(f"Unknown label type {y_type!r}: y must be binary, multiclass or "
                             "a multi-label 0/1 indicator matrix")
        check_classification_targets(y)
        self._multilabel = False
        self.classes_, encoded = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"y has only one class ({self.classes_[0]!r}); a classifier "
                             "needs at least two")
        if self.classes_.size == 2:
            return np.where(encoded == 1, 1, -1).astype(np.int8)[:, None], False
        signs = -np.ones((encoded.size, self.classes_.size), dtype=np.int8)
        signs[np.arange(encoded.size), encoded] = 1
        return signs, True

    def fit(self, X, y, sample_weight=None):
        """Boost on (X, y).

        Parameters
        ----------
        X : array-like, DataFrame or scipy sparse (CSR/CSC) of shape (n_samples, n_features)
            Numeric features; NaN is a missing value (its own block in every stump). float32
            is used as is; sparse input is binned without densifying it (an implicit zero is
            the value 0), and gives the same model as its dense equivalent.
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a 0/1 indicator matrix for multi-label data.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, not all zero: the starting distribution D_1.

        Returns
        -------
        self
        """
        mode = self._validate_params_once()
        X, y = validate_data(self, X, y, multi_output=True, ensure_all_finite="allow-nan",
                             dtype=RAW_DTYPES, accept_sparse=("csr", "csc"),
                             y_numeric=False)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                          "read as one label per example", DataConversionWarning,
                          stacklevel=2)
            y = y.ravel()
        signs, single_label = self._encode_targets(y)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                             ensure_non_negative=True)
        if not sample_weight.sum() > 0:
            raise ValueError("sample_weight sums to zero; at least one example needs weight")
        k = signs.shape[1]
        self.smoothing_ = (default_smoothing(sample_weight, k) if self.smoothing == "auto"
                           else float(self.smoothing))
        with numba_threads(self.n_jobs):
            dataset = Dataset.from_array(X, self.max_bins, self.random_state, sample_weight)
            scheme = MHScheme(signs, sample_weight, single_label, self.init)
            learner = LEARNERS["stump"](mode, self.smoothing_, trim=float(self.trim))
            callbacks = [ProgressPrinter(self.n_estimators, self.verbose)] if self.verbose else []
            # Trimmed real confidences fit only the kept examples, so α = 1 is no longer
            # the minimiser of Z_t over all of them: find it (§3.2), which keeps Z_t <= 1.
            alpha_method = ("exact" if self.trim > 0 and self.alpha == "auto"
                            and mode in (REAL, REAL_ABSTAIN) else self.alpha)
            hypotheses, alphas, history = run_boosting(
                dataset, scheme, learner, self.n_estimators, alpha_method, mode,
                self.smoothing_, callbacks)
        self.model_ = BoostedModel(hypotheses, alphas, k)
        self.history_ = history
        self.n_estimators_ = len(hypotheses)
        return self

    @property
    def feature_importances_(self):
        check_is_fitted(self)
        importances = np.zeros(self.n_features_in_)
        for hypothesis, z in zip(self.model_.hypotheses, self.history_["z"], strict=False):
            for feature in hypothesis.features():
                importances[feature] += max(-np.log(z), 0.0)
        total = importances.sum()
        return importances / total if total > 0 else importances

    def _scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, ensure_all_finite="allow-nan",
                          dtype=RAW_DTYPES, accept_sparse=("csr", "csc"))
        with numba_threads(self.n_jobs):
            return self.model_.decision_function(X)

    def _output(self, scores):
        """f in scikit-learn's shape: (n,) for binary data, (n, k) otherwise."""
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def decision_function(self, X):
        """f(x) for binary data, shape (n_samples,); f(x, l), shape (n_samples, k), else."""
        return self._output(self._scores(X))

    def staged_decision_function(self, X):
        """Yield ``decision_function(X)`` after each round."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, ensure_all_finite="allow-nan",
                          dtype=RAW_DTYPES, accept_sparse=("csr", "csc"))
        for scores in self.model_.staged_decision_function(X):
            yield self._output(scores)

    def _labels_from_scores(self, scores):
        if self._multilabel:
            return (scores > 0).astype(np.int64)
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def predict(self, X):
        """Class labels (H(x) = sign f, or H_1 = argmax_l f(x, l), Eq. 17), or 0/1 rows."""
        return self._labels_from_scores(self._scores(X))

    def staged_predict(self, X):
        """Yield ``predict(X)`` after each round."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, ensure_all_finite="allow-nan",
                          dtype=RAW_DTYPES, accept_sparse=("csr", "csc"))
        for scores in self.model_.staged_decision_function(X):
            yield self._labels_from_scores(scores)

    def predict_proba(self, X):
        """Class probabilities from f, read as half log-odds.

        Real AdaBoost's f(x, l) estimates ½ ln(P(l | x) / P(not l | x)) (Friedman, Hastie &
        Tibshirani 2000), so P(l | x) ≈ σ(2 f(x, l)). Binary: columns [1 - p, p]. Single-label
        multiclass: σ(2 f(x, l)) normalised over the classes. Multi-label: σ(2 f(x, l)) per
        label, shape (n_samples, k). For discrete confidences f is a vote and these are
        calibrated poorly; use them for ranking.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self._scores(X)
        if scores.shape[1] == 1:
            positive = expit(2.0 * scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        per_label = expit(2.0 * scores)
        if self._multilabel:
            return per_label
        totals = per_label.sum(axis=1, keepdims=True)
        return np.where(totals > 0, per_label / np.where(totals > 0, totals, 1.0),
                        1.0 / scores.shape[1])

    def save(self, path):
        """Write the fitted model to ``path`` as versioned JSON (data only)."""
        check_is_fitted(self)
        classes = self.classes_.tolist()
        save_document(path, {
            "estimator": "BoostClassifier",
            "params": {key: value for key, value in self.get_params().items()
                       if key != "random_state" or isinstance(value, (int, type(None)))},
            "classes": classes,
            "multilabel": bool(self._multilabel),
            "n_features_in": int(self.n_features_in_),
            "feature_names_in": (self.feature_names_in_.tolist()
                                 if hasattr(self, "feature_names_in_") else None),
            "smoothing": self.smoothing_,
            "history": {key: np.asarray(value).tolist() for key, value in self.history_.items()},
            "model": self.model_.to_dict(),
        })


def load(path):
    """Read a ``BoostClassifier`` saved with ``save``.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    BoostClassifier
        Fitted, predicting exactly what the saved one did.
    """
    document = load_document(path)
    if document.get("estimator") != "BoostClassifier":
        raise ValueError(f"{path}: holds a {document.get('estimator')!r}, not a BoostClassifier")
    try:
        estimator = BoostClassifier(**document["params"])
        estimator.classes_ = np.asarray(document["classes"])
        estimator._multilabel = bool(document["multilabel"])
        estimator.n_features_in_ = int(document["n_features_in"])
        if document.get("feature_names_in") is not None:
            estimator.feature_names_in_ = np.asarray(document["feature_names_in"], dtype=object)
        estimator.smoothing_ = float(document["smoothing"])
        estimator.history_ = {key: np.asarray(value)
                              for key, value in document["history"].items()}
        estimator.model_ = BoostedModel.from_dict(document["model"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"{path}: malformed model file ({error!r})") from None
    estimator.n_estimators_ = len(estimator.model_)
    return estimator
