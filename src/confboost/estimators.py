"""scikit-learn estimators: validate, encode labels, bin, run the loop, predict.

``BoostClassifier`` is the one public classifier. It validates its parameters once, at
``fit`` (DESIGN.md rule 5), turns the labels into label signs Y (n_samples × k), bins the
features, builds the named scheme and runs the boosting loop with the weak learner,
confidence rule and α method. Binary data is the case k = 1 (paper Figure 1) whatever the
scheme; multiclass and multi-label data go through AdaBoost.MH (Figure 2), AdaBoost.MR
(Figures 4-5) or, for single-label data, AdaBoost.MO (Figure 3). The estimator also owns
what a scheme's scores mean to a user: predictions, decision values and probabilities.
"""

import warnings
from contextlib import contextmanager

import numba
import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from confboost.alpha import METHODS as ALPHA_METHODS
from confboost.boosting import ProgressPrinter, run_boosting
from confboost.confidence import default_smoothing
from confboost.criterion import REAL, REAL_ABSTAIN, mode_code
from confboost.data.binning import RAW_DTYPES
from confboost.data.columns import FrameEncoder, column_names, infer_feature_types, is_table
from confboost.data.dataset import Dataset
from confboost.explain import bound_importances, record_cover
from confboost.interpret import InterpretMixin
from confboost.learners import LEARNERS, MAX_LEAVES, make_learner
from confboost.model import BoostedModel
from confboost.persistence import load, save_estimator
from confboost.schemes.mh import INITS, MHScheme
from confboost.schemes.mo import CODES, DECODINGS, MOScheme, build_code, class_scores
from confboost.schemes.mr import MRScheme, hamming_threshold, pair_smoothing

SCHEMES = ("mh", "mr", "mo")

__all__ = ["BoostClassifier", "load", "numba_threads"]


#: Below this many example·feature·label cells a fit runs its kernels on one thread.
SMALL_WORK = 200_000


def _is_fitted_attribute(name):
    """Whether ``name`` is fit's state (scikit-learn's trailing underscore, or private)."""
    return (name.endswith("_") and not name.startswith("__")) or name == "_multilabel"


@contextmanager
def numba_threads(n_jobs, work=None):
    """Run the kernels on ``n_jobs`` threads (None: all; negative: all but |n_jobs| - 1).

    With ``n_jobs=None`` and less than ``SMALL_WORK`` cells of ``work`` (examples × features
    × labels), one thread: a parallel region costs more than such a round, and far more on a
    busy machine, where OpenMP's spinning threads wait for cores (measured: 1.5 ms a round
    on one thread against 27 ms on two, 569 × 30 breast-cancer data, 2 busy cores).
    """
    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        wanted = 1 if work is not None and work < SMALL_WORK else available
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


class BoostClassifier(InterpretMixin, ClassifierMixin, BaseEstimator):
    """Boosting with confidence-rated predictions (Schapire & Singer 1999).

    Binary data is generalized AdaBoost (Figure 1) on k = 1 label column, whatever the
    scheme. Multiclass (1-D y with more than two classes, any label type) and multi-label
    data (2-D 0/1 indicator y) run the named scheme:

    - ``"mh"``, AdaBoost.MH (Figure 2): one ±1 column per class, Hamming loss. ``predict``:
      H_1(x) = argmax_l f(x, l) (Eq. 17) for single-label data, {l : f(x, l) > 0} for
      multi-label data. ``decision_function``: f(x, l), shape (n, k).
    - ``"mr"``, AdaBoost.MR (Figure 5, O(mk)): a ranking of the labels, ranking loss; on
      single-label data discrete MR is AdaBoost.M2. ``predict``: argmax_l f(x, l) for
      single-label data; for multi-label data the labels with f(x, l) > ``threshold_``, one
      global cut learned on the training set (the θ of least training Hamming loss: f has
      no natural zero, adding c(x) to every label changes no Z_t). ``decision_function``:
      f(x, l), shape (n, k), the ranking. Examples whose label set is empty or full have
      no crucial pair and get no weight.
    - ``"mo"``, AdaBoost.MO (Figure 3): AdaBoost.MH on the bits of an output code, then a
      decoder; single-label data only. ``predict``: the decoded class.
      ``decision_function``: the decoder's class scores, shape (n, k classes): negated
      log exponential losses -ln Σ_l' exp(-λ(y)[l'] f(x, l')) ("loss") or negated Hamming
      distances -|λ(y) Δ H(x)| ("hamming"); the argmax is the prediction.

    ``predict_proba`` per scheme: MH, σ(2 f) per label (normalised over the classes for
    single-label data; real AdaBoost's f estimates half log-odds); MR single-label, the
    softmax of f (the minimiser of MR's pair loss has f(x, y) = ln P(y | x) + c(x));
    MR multi-label, σ(2 (f - threshold_)), above ½ exactly on the predicted labels; MO,
    the softmax of ``decision_function`` (for loss decoding, P(y) ∝ 1 / loss(y)). Only
    real MH's are probability estimates; the others are monotone scores.

    ``history_["bound"]`` is the theorem's bound on ``history_["train_loss"]``: Theorem 1
    (binary training error ≤ Π Z_t), Theorem 3 (MH multi-label Hamming loss ≤ Π Z_t),
    §7.2 (MH single-label error ≤ (k/2) Π Z_t, or √(k-1) Π Z_t with the balanced start),
    Theorem 6 (MR ranking loss ≤ Π Z_t), Theorem 5 (MO training error ≤ (k'/ρ) Π Z_t with
    loss decoding, ≤ (2k'/ρ) Π Z_t with Hamming decoding).

    Parameters
    ----------
    n_estimators : int, default=100
        Boosting rounds T. The loop stops early if a round's hypothesis has no edge.
    scheme : {"mh", "mr", "mo"}, default="mh"
        The multiclass scheme (binary data is the same for every scheme).
    confidence : {"real", "discrete", "abstain", "real-abstain"}, default="real"
        How a weak hypothesis sets its value on each block (see ``confboost.confidence``):
        "real" Eq. 9 with ε smoothing; "discrete" ±1 scaled by α (§3.1); "abstain" ±1 and 0
        on the abstaining (missing-value) block, α of §3.3; "real-abstain" Eq. 9 and 0 on
        the abstaining block.
    alpha : {"auto", "exact", "freund-schapire"}, default="auto"
        How α_t is chosen (§3; see ``confboost.alpha``). "auto": the closed form where one
        exists (α = 1 for real confidences, whose values already minimise Z). Under
        ``scheme="mr"``: discrete hypotheses take Eq. 28; real ones have α folded into
        their block values, which minimise MR's smoothed pair objective on each block
        (§9 Eq. 25, Appendix A; ``confboost.schemes.mr``), and α = 1; abstaining ones,
        and "exact", the exact minimiser of MR's pair objective (§9, Appendix A).
    smoothing : "auto" or float, default="auto"
        ε of §4.2; "auto" is 1/(2mk), half the initial weight of one (example, label) pair,
        and 100/(2mk) for MR's real confidences with ``alpha="auto"``, whose ε smooths each
        of a block's k(k - 1) label pairs (``schemes.mr.pair_smoothing``).
    init : {"uniform", "balanced"}, default="uniform"
        Starting distribution of AdaBoost.MH on single-label multiclass data (§7.2);
        MR and MO have their own (Figure 4; MH's uniform start on the code bits).
        "balanced" puts half of each example's weight on its own label and tightens the
        training-error bound from (k/2) Π Z_t to √(k-1) Π Z_t, but the default is
        "uniform" by measurement (``benchmarks/mh_init.py``, test error at 100 rounds on
        satimage, pendigits, vowel, segment, yeast-multiclass): with the default real
        confidences uniform was as good or better on four of the five sets (pendigits
        6.7% vs 7.0%, segment 2.8% vs 3.0%, yeast 39.7% vs 41.8%, satimage 13.3% both)
        and worse only on vowel (57.1% vs 52.2%); with discrete confidences balanced was
        slightly better on three (satimage, pendigits, segment, by 0.4-0.7 points). The
        differences are small next to the test-set noise, and uniform is the paper's
        Figure 2 and keeps MO with the one-per-class code equal to MH (Eq. 21).
    code : {"random", "exhaustive", "one-vs-rest"} or array-like of shape (k, k'), \
            default="random"
        AdaBoost.MO's output code (``confboost.schemes.codes``): "random" bits ±1 with
        probability ½, seeded by ``random_state``; "exhaustive" (3 <= k <= 11 classes);
        "one-vs-rest" (MO is then MH); or a ±1 (or 0/1) matrix, one row per class in the
        order of ``classes_``, no two rows equal. Only for ``scheme="mo"``.
    code_length : int or None, default=None
        Bits k' of a random code; None: ⌈10 log2 k⌉ (Allwein, Schapire & Singer 2000).
    decoding : {"loss", "hamming"}, default="loss"
        AdaBoost.MO's decoder: Variant 2 (least exponential loss) or Variant 1 (nearest
        codeword to sign f). Loss decoding uses the confidences and has the smaller bound.
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
        Threads for the kernels (None: all cores, or one on small data, see
        ``numba_threads``; negative: all but |n_jobs| - 1).
    random_state : int, RandomState or None, default=None
        Seeds the row subsample used to find bin quantiles on large data.
    verbose : int, default=0
        1: a progress bar on stderr; 2: one line per round.
    weak_learner : {"stump", "tree", "hamming_tree", "product"}, default="stump"
        "stump": a threshold on one feature with a missing-value block. "tree": a decision
        tree grown best-first by the largest drop in Z (Kearns & Mansour's criterion,
        Eq. 10/16), a value per leaf and label. "hamming_tree": a label-independent tree
        with one vote vector v and a scalar confidence per leaf, h(x, l) = v_l c_leaf
        (Kégl 2014). See ``confboost.learners.tree``. "product": a product of
        ``product_terms`` ±1 stumps whose sign splits the domain in two blocks, a value per
        block and label (Kégl & Busa-Fekete 2009; ``confboost.learners.product``; numeric
        features only). On a table with categorical or text columns the stump learner keeps
        the best stump, value test or term test; a tree's nodes split on a threshold, a
        value (``x == v`` against the rest, missing included) or a term (present against
        absent), by the same drop in Z (``confboost.learners.splitter``).
    max_leaves : int, default=8
        Most leaves of a tree (2..255); trees only.
    max_depth : int or None, default=None
        Most splits from a tree's root to a leaf; trees only.
    min_leaf_weight : float, default=0.0
        Least weight of a tree's leaf, as a share of the round's total weight (in [0, 0.5]);
        trees only.
    product_terms : int, default=3
        Stumps in a product (1..16); weak_learner="product" only.
    learning_rate : float, default=1.0
        Shrinkage ν in (0, 1]: α_t ← ν α_t for every weak learner. ``history_["z"]`` is the
        normaliser with the shrunk α, so Π Z_t stays a bound. 1.0 is the paper's algorithm.
    feature_types : dict of column name to str, or None, default=None
        For a DataFrame (or a dict of columns) X: the kind of each column, "continuous",
        "categorical", "text" or "ignore"; columns not named are inferred
        (``confboost.data.columns``: numeric dtypes are continuous; other columns categorical
        when they have few distinct values, text when their values contain spaces). When
        every column is continuous the numeric fast path runs, exactly as for an array.
    text_expert : TextExpert, dict of column name to TextExpert, or None, default=None
        How text columns become terms (``confboost.data.text``); None is word unigrams.

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
        from Π Z_t, see above), "train_loss" (weighted by the sample weights: training
        error for binary data, MH on single-label data and MO; Hamming loss for MH on
        multi-label data; ranking loss for MR), "criterion" (the weak learner's Z before
        α and smoothing) and "alpha_capped" (True where α hit its cap because Z had no
        minimum).
    n_estimators_ : int
        Rounds actually run.
    smoothing_ : float
        The ε used.
    code_ : ndarray of shape (k, k'), int8
        ``scheme="mo"`` only: the code matrix, rows in the order of ``classes_`` (binary
        data: [[-1], [+1]], the binary path).
    code_distance_ : int
        ``scheme="mo"`` only: the code's minimum distance ρ (Theorem 5).
    threshold_ : float
        ``scheme="mr"`` on multi-label data only: the cut on f used by ``predict``.
    thresholds_ : ndarray of shape (n_rounds,)
        ``scheme="mr"`` on multi-label data only: the cut after each round (for the
        staged predictions).
    feature_importances_ : ndarray of shape (n_features,)
        Share of the training-loss bound's decrease, Σ_t -ln Z_t, due to each feature.
    rounds_, estimators_, estimator_weights_
        The rounds as objects with their rules, h_t and α_t (``interpret.InterpretMixin``,
        as are ``rules`` and ``explain``, the exact per-column contributions).

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
                 smoothing="auto", init="uniform", code="random", code_length=None,
                 decoding="loss", max_bins=255, trim=0.0, n_jobs=None, random_state=None,
                 verbose=0, weak_learner="stump", max_leaves=8, max_depth=None,
                 min_leaf_weight=0.0, product_terms=3, learning_rate=1.0, feature_types=None,
                 text_expert=None):
        self.n_estimators = n_estimators
        self.scheme = scheme
        self.confidence = confidence
        self.alpha = alpha
        self.smoothing = smoothing
        self.init = init
        self.code = code
        self.code_length = code_length
        self.decoding = decoding
        self.max_bins = max_bins
        self.trim = trim
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.weak_learner = weak_learner
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.min_leaf_weight = min_leaf_weight
        self.product_terms = product_terms
        self.learning_rate = learning_rate
        self.feature_types = feature_types
        self.text_expert = text_expert

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_label = self.scheme != "mo"
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
        need(not isinstance(self.code, str) or self.code in CODES,
             f"code must be one of {CODES} or a (k, k') ±1 matrix, got {self.code!r}")
        need(self.code_length is None
             or (isinstance(self.code_length, (int, np.integer))
                 and not isinstance(self.code_length, bool) and self.code_length >= 1),
             f"code_length must be None or an integer >= 1, got {self.code_length!r}")
        need(self.decoding in DECODINGS,
             f"decoding must be one of {DECODINGS}, got {self.decoding!r}")
        need(isinstance(self.max_bins, (int, np.integer)) and 2 <= self.max_bins <= 255,
             f"max_bins must be an integer in [2, 255], got {self.max_bins!r}")
        need(self.smoothing == "auto" or (isinstance(self.smoothing, (int, float))
                                          and not isinstance(self.smoothing, bool)
                                          and 0 < self.smoothing < np.inf),
             f"smoothing must be 'auto' or a positive finite float, got {self.smoothing!r}")
        need(isinstance(self.trim, (int, float)) and not isinstance(self.trim, bool)
             and 0.0 <= self.trim <= 0.5,
             f"trim must be a float in [0, 0.5], got {self.trim!r}")
        need(self.trim == 0 or self.weak_learner == "stump",
             f"trim applies to weak_learner='stump' only, got weak_learner="
             f"{self.weak_learner!r} with trim={self.trim!r}")
        need(self.n_jobs is None or (isinstance(self.n_jobs, (int, np.integer))
                                     and self.n_jobs != 0),
             f"n_jobs must be None or a non-zero integer, got {self.n_jobs!r}")
        need(self.weak_learner in LEARNERS,
             f"weak_learner must be one of {sorted(LEARNERS)}, got {self.weak_learner!r}")
        need(isinstance(self.max_leaves, (int, np.integer))
             and not isinstance(self.max_leaves, bool) and 2 <= self.max_leaves <= MAX_LEAVES,
             f"max_leaves must be an integer in [2, {MAX_LEAVES}], got {self.max_leaves!r}")
        need(self.max_depth is None or (isinstance(self.max_depth, (int, np.integer))
                                        and not isinstance(self.max_depth, bool)
                                        and self.max_depth >= 1),
             f"max_depth must be None or an integer >= 1, got {self.max_depth!r}")
        need(isinstance(self.min_leaf_weight, (int, float, np.number))
             and not isinstance(self.min_leaf_weight, bool) and 0 <= self.min_leaf_weight <= 0.5,
             f"min_leaf_weight must be a float in [0, 0.5], got {self.min_leaf_weight!r}")
        need(isinstance(self.product_terms, (int, np.integer))
             and not isinstance(self.product_terms, bool) and 1 <= self.product_terms <= 16,
             f"product_terms must be an integer in [1, 16], got {self.product_terms!r}")
        need(isinstance(self.learning_rate, (int, float, np.number))
             and not isinstance(self.learning_rate, bool) and 0 < self.learning_rate <= 1,
             f"learning_rate must be a float in (0, 1], got {self.learning_rate!r}")
        return mode

    def _encode_targets(self, y):
        """Label signs (n, k), whether the data is single-label, and each example's class.

        Returns
        -------
        signs : ndarray of shape (n_samples, k), int8
        single_label : bool
        encoded : ndarray of shape (n_samples,) or None
            Class indices into ``classes_`` (None for multi-label y).
        """
        if np.ndim(y) == 2:
            Y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
            if Y.dtype.kind not in "biuf" or not np.isin(Y, (0, 1)).all():
                found = np.unique(Y)[:10].tolist() if Y.dtype.kind in "biuf" else Y.dtype
                raise ValueError("a 2-D y is a multi-label indicator matrix and must hold "
                                 f"only 0 and 1; found {found}")
            self.classes_ = np.arange(Y.shape[1])
            self._multilabel = True
            return np.where(Y > 0, 1, -1).astype(np.int8), False, None
        y_type = type_of_target(y, input_name="y")
        if y_type not in ("binary", "multiclass"):
            raise ValueError(f"Unknown label type {y_type!r}: y must be binary, multiclass or "
                             "a multi-label 0/1 indicator matrix")
        check_classification_targets(y)
        self._multilabel = False
        self.classes_, encoded = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"y has only one class ({self.classes_[0]}); a classifier "
                             "needs at least two")
        if self.classes_.size == 2:
            return np.where(encoded == 1, 1, -1).astype(np.int8)[:, None], False, encoded
        signs = -np.ones((encoded.size, self.classes_.size), dtype=np.int8)
        signs[np.arange(encoded.size), encoded] = 1
        return signs, True, encoded

    def _build_scheme(self, signs, single_label, encoded, sample_weight):
        """The scheme object for this data (binary data: the k = 1 path of every scheme)."""
        binary = signs.shape[1] == 1 and not self._multilabel
        if self.scheme == "mo":
            if self._multilabel:
                raise ValueError("scheme='mo' (AdaBoost.MO) is for single-label data: each "
                                 "example's class is encoded by one codeword; use scheme="
                                 "'mh' or 'mr' for a multi-label (2-D indicator) y")
            if binary:
                self.code_ = np.array([[-1], [1]], dtype=np.int8)
                self.code_distance_ = 1
            else:
                self.code_ = build_code(self.code, self.classes_.size, self.code_length,
                                        self.random_state)
                scheme = MOScheme(encoded, self.code_, self.decoding, sample_weight)
                self.code_distance_ = scheme.distance
                return scheme
        if self.scheme == "mr" and not binary:
            return MRScheme(signs, sample_weight)
        return MHScheme(signs, sample_weight, single_label, self.init)

    def _is_mixed(self, X):
        """Whether X goes through the mixed-type path (a table with a non-continuous column)."""
        if not is_table(X):
            if self.feature_types is not None:
                raise ValueError("feature_types needs X to be a DataFrame (or a dict of "
                                 "columns) whose column names it refers to")
            return False
        if not hasattr(X, "columns"):
            return True
        kinds = infer_feature_types(X, self.feature_types)
        return any(kind != "continuous" for kind in kinds.values())

    def fit(self, X, y, sample_weight=None, callbacks=None):
        """Boost on (X, y).

        Parameters
        ----------
        X : array-like, DataFrame or scipy sparse (CSR/CSC) of shape (n_samples, n_features)
            Numeric features; NaN is a missing value (its own block in every stump). float32
            is used as is; sparse input is binned without densifying it (an implicit zero is
            the value 0), and gives the same model as its dense equivalent. A DataFrame (or
            dict of columns) may also hold categorical and text columns (see
            ``feature_types``).
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a 0/1 indicator matrix for multi-label data.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, not all zero: the starting distribution D_1.
        callbacks : sequence of callables, optional
            Called as ``callback(round_index, record)`` after every round
            (``boosting.run_boosting``); returning True stops the loop.

        Returns
        -------
        self

        Notes
        -----
        A fit is all or nothing: it starts from the parameters alone (the previous fitted
        attributes are set aside, not changed) and a fit that raises or is interrupted
        (KeyboardInterrupt) puts them back in one store: the estimator is as it was,
        unfitted or with its previous model. Callbacks see the new attributes as they
        are set.
        """
        previous = self.__dict__
        self.__dict__ = {key: value for key, value in previous.items()
                         if not _is_fitted_attribute(key)}
        done = False
        try:
            self._fit(X, y, sample_weight, callbacks)
            done = True
        finally:
            if not done:
                self.__dict__ = previous  # one store: every attribute as it was
        return self

    def _fit(self, X, y, sample_weight, callbacks):
        """``fit`` on an estimator with no fitted attributes."""
        mode = self._validate_params_once()
        callbacks = list(callbacks or ())
        if self._is_mixed(X):
            X, y, n_samples = self._encode_table(X, y)
            targets, sample_weight = self._targets_and_weights(y, sample_weight, n_samples)
            make_dataset = self.encoder_.fit_dataset
        else:
            X, y = validate_data(self, X, y, multi_output=True, ensure_all_finite="allow-nan",
                                 dtype=RAW_DTYPES, accept_sparse=("csr", "csc"),
                                 y_numeric=False)
            n_samples = X.shape[0]
            targets, sample_weight = self._targets_and_weights(y, sample_weight, n_samples)
            make_dataset = Dataset.from_array
        work = n_samples * self.n_features_in_ * targets[0].shape[1]
        with numba_threads(self.n_jobs, work):
            dataset = make_dataset(X, self.max_bins, self.random_state, sample_weight)
            self._boost(dataset, targets, sample_weight, mode, callbacks)

    def _encode_table(self, X, y):
        """Fit ``encoder_`` to a table with categorical or text columns (``data/columns``);
        returns X, y as an array, and the number of rows."""
        encoder = FrameEncoder.from_table(X, self.feature_types, self.text_expert)
        if all(kind == "ignore" for kind in encoder.kinds):
            raise ValueError("every column of X is ignored (feature_types): there is no "
                             "feature to boost on")
        n_samples = encoder._check_columns(X)
        names = column_names(X)
        self.n_features_in_ = len(names)
        if all(isinstance(name, str) for name in names):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)
        y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
        if y.shape[0] != n_samples:
            raise ValueError(f"X has {n_samples} rows but y has {y.shape[0]}")
        self.encoder_ = encoder
        return X, y, n_samples

    def _targets_and_weights(self, y, sample_weight, n_samples):
        """``_encode_targets(y)`` and the validated sample weights (both fit paths)."""
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                          "read as one label per example", DataConversionWarning,
                          stacklevel=3)
            y = y.ravel()
        targets = self._encode_targets(y)
        sample_weight = _check_sample_weight(sample_weight, np.empty((n_samples, 0)),
                                             dtype=np.float64, ensure_non_negative=True)
        if not sample_weight.sum() > 0:
            raise ValueError("sample_weight sums to zero; at least one example needs weight")
        return targets, sample_weight

    def _boost(self, dataset, targets, sample_weight, mode, callbacks):
        """Build the scheme and the weak learner, run the loop and keep the model.

        ``targets`` is ``_encode_targets``' result; the weak learner is built once ε is
        known (MO's ε counts its k' code columns).
        """
        signs, single_label, encoded = targets
        for fitted in ("code_", "code_distance_", "threshold_", "thresholds_"):
            self.__dict__.pop(fitted, None)
        scheme = self._build_scheme(signs, single_label, encoded, sample_weight)
        k = scheme.labels.n_labels
        self.smoothing_ = (default_smoothing(sample_weight, k) if self.smoothing == "auto"
                           else float(self.smoothing))
        if (self.smoothing == "auto" and isinstance(scheme, MRScheme) and self.alpha == "auto"
                and self.trim == 0 and mode in (REAL, REAL_ABSTAIN)):
            self.smoothing_ = pair_smoothing(self.smoothing_)
        callbacks = list(callbacks)
        # each round's training cover, which the explanations average over (explain.py)
        callbacks.insert(0, lambda round_index, record: record_cover(record["fit"],
                                                                    sample_weight))
        if self.verbose:
            callbacks.insert(0, ProgressPrinter(self.n_estimators, self.verbose))
        thresholds = []
        if isinstance(scheme, MRScheme) and self._multilabel:
            def record_threshold(round_index, record):
                thresholds.append(hamming_threshold(signs, scheme.scores, sample_weight))
            callbacks.append(record_threshold)
        # Trimmed real confidences fit only the kept examples, so α = 1 is no longer the
        # minimiser of Z_t over all of them: find it (§3.2), which keeps Z_t <= 1.
        alpha_method = ("exact" if self.trim > 0 and self.alpha == "auto"
                        and mode in (REAL, REAL_ABSTAIN) else self.alpha)
        learner = make_learner(self.weak_learner, dataset, mode, self.smoothing_,
                               trim=float(self.trim), n_terms=int(self.product_terms),
                               **self._tree_params())
        hypotheses, alphas, history = run_boosting(
            dataset, scheme, learner, self.n_estimators,
            alpha_method, mode, self.smoothing_, callbacks, float(self.learning_rate))
        self.model_ = BoostedModel(hypotheses, alphas, k)
        self.history_ = history
        self.n_estimators_ = len(hypotheses)
        if thresholds:
            self.thresholds_ = np.asarray(thresholds, dtype=np.float64)
            self.threshold_ = float(self.thresholds_[-1])

    def _tree_params(self):
        return {"max_leaves": int(self.max_leaves),
                "max_depth": None if self.max_depth is None else int(self.max_depth),
                "min_leaf_weight": float(self.min_leaf_weight)}

    def _prepare(self, X):
        """X as the model reads it: a validated float (or sparse) matrix, or the ``Frame``
        of a table."""
        check_is_fitted(self)
        if hasattr(self, "encoder_"):
            if not is_table(X):
                raise ValueError("this model was fitted on a table with categorical or text "
                                 "columns: X must be a DataFrame (or a dict of columns)")
            return self.encoder_.transform(X)
        return validate_data(self, X, reset=False, ensure_all_finite="allow-nan",
                             dtype=RAW_DTYPES, accept_sparse=("csr", "csc"))

    @property
    def feature_importances_(self):
        check_is_fitted(self)
        return bound_importances(self.model_, self.history_["z"], self.n_features_in_)

    def _scores(self, X):
        X = self._prepare(X)
        with numba_threads(self.n_jobs, X.shape[0] * len(self.model_) * self.model_.n_labels):
            return self.model_.decision_function(X)

    def _decoding(self):
        """Whether f must go through AdaBoost.MO's decoder (MO beyond the binary path)."""
        return self.scheme == "mo" and self.code_.shape[1] > 1

    def _output(self, scores):
        """``decision_function`` from f: (n,) for binary data, (n, k) otherwise."""
        if self._decoding():
            return class_scores(self.code_, scores, self.decoding)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def decision_function(self, X):
        """f(x) for binary data, shape (n_samples,); otherwise shape (n_samples, k).

        MH and MR: f(x, l). MO: the decoder's class scores (negated exponential losses,
        or negated Hamming distances), whose argmax is the prediction.
        """
        return self._output(self._scores(X))

    def _staged_scores(self, X):
        yield from self.model_.staged_decision_function(self._prepare(X))

    def staged_decision_function(self, X):
        """Yield ``decision_function(X)`` after each round."""
        for scores in self._staged_scores(X):
            yield self._output(scores)

    def _labels_from_scores(self, scores, threshold=0.0):
        """Predictions from f: labels (1-D) or 0/1 indicator rows (multi-label)."""
        if self._multilabel:
            return (scores > threshold).astype(np.int64)
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(self._output(scores), axis=1)]

    def _threshold(self, round_index=None):
        """The multi-label cut on f: 0 for MH, MR's learned θ (after ``round_index``)."""
        if not hasattr(self, "thresholds_"):
            return 0.0
        return self.thresholds_[-1 if round_index is None else round_index]

    def predict(self, X):
        """Class labels, or 0/1 indicator rows for multi-label data (see the class doc)."""
        return self._labels_from_scores(self._scores(X), self._threshold())

    def staged_predict(self, X):
        """Yield ``predict(X)`` after each round."""
        for round_index, scores in enumerate(self._staged_scores(X)):
            yield self._labels_from_scores(scores, self._threshold(round_index))

    def predict_proba(self, X):
        """Class (or label) probabilities; their meaning depends on the scheme.

        Binary: σ(2 f) for the second class, columns [1 - p, p] (real AdaBoost's f
        estimates ½ ln(P(y=+1 | x) / P(y=-1 | x)), Friedman, Hastie & Tibshirani 2000).
        MH single-label: σ(2 f(x, l)) normalised over the classes; MH multi-label:
        σ(2 f(x, l)) per label. MR single-label: softmax of f; MR multi-label:
        σ(2 (f - threshold_)) per label. MO: softmax of ``decision_function``. For discrete
        confidences, MR and MO these are scores for ranking, not calibrated probabilities.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self._scores(X)
        if scores.shape[1] == 1 and not self._multilabel:
            positive = expit(2.0 * scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        if self._decoding():
            return softmax(self._output(scores), axis=1)
        if self._multilabel:
            return expit(2.0 * (scores - self._threshold()))
        if self.scheme == "mr":
            return softmax(scores, axis=1)
        per_label = expit(2.0 * scores)
        totals = per_label.sum(axis=1, keepdims=True)
        return np.where(totals > 0, per_label / np.where(totals > 0, totals, 1.0),
                        1.0 / scores.shape[1])

    def save(self, path):
        """Write the fitted model to ``path`` as versioned JSON, data only, with a checksum
        (``persistence.py``; read it back with ``confboost.load``). The write is atomic: a
        crash or a kill while saving leaves the previous file at ``path`` whole."""
        check_is_fitted(self)
        save_estimator(self, path)
