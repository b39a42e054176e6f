"""The scikit-learn surface: ``BoostClassifier``.

It validates its parameters once, at ``fit``, from a declarative table
(``_parameter_constraints``, DESIGN.md rule 5), turns the labels into label signs Y
(n_samples × k), builds the Dataset (``data/``), picks the scheme and the weak learner from
their registries (``schemes``, ``learners``) and runs the loop (``boosting.py``). Binary data
is the case k = 1 (paper Figure 1) whatever the scheme; multiclass and multi-label data go
through AdaBoost.MH (Figure 2), AdaBoost.MR (Figures 4-5) or, for single-label data,
AdaBoost.MO (Figure 3). What f means to a user (decision values, predictions,
probabilities) is the scheme's (``schemes.scheme_outputs``); saving is ``persistence.py``'s.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from confboost import fitting
from confboost._threads import numba_threads
from confboost.alpha import METHODS as ALPHA_METHODS
from confboost.criterion import MODES
from confboost.data.binning import RAW_DTYPES
from confboost.data.columns import FrameEncoder, column_names, infer_feature_types, is_table
from confboost.data.dataset import Dataset
from confboost.data.terms import TextExpert
from confboost.explain import bound_importances
from confboost.holdout import class_weights, take_rows
from confboost.interpret import InterpretMixin
from confboost.learners import LEARNERS, MAX_LEAVES
from confboost.persistence import load, save_estimator
from confboost.schemes import SCHEMES, scheme_outputs
from confboost.schemes.mh import INITS
from confboost.schemes.mo import CODES, DECODINGS

__all__ = ["BoostClassifier", "load", "numba_threads"]


class _Count(Interval):
    """An int (not a bool) in an interval."""

    def __init__(self, left, right, closed="both"):
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


class _Number(Interval):
    """A real number (not a bool) in an interval."""

    def __init__(self, left, right, closed="both"):
        super().__init__(Real, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


def _is_fitted_attribute(name):
    """Whether ``name`` is fit's state (scikit-learn's trailing underscore, or private)."""
    return (name.endswith("_") and not name.startswith("__")) or name == "_multilabel"


class BoostClassifier(InterpretMixin, ClassifierMixin, BaseEstimator):
    """Boosting with confidence-rated predictions (Schapire & Singer 1999).

    Binary data is generalized AdaBoost (Figure 1) on k = 1 label column, whatever the
    scheme. Multiclass (1-D y with more than two classes, any label type) and multi-label
    data (2-D 0/1 indicator y) run the named scheme: ``"mh"``, AdaBoost.MH (Figure 2), one
    ±1 column per class, Hamming loss; ``"mr"``, AdaBoost.MR (Figure 5, O(mk)), a ranking
    of the labels, ranking loss (on single-label data discrete MR is AdaBoost.M2; examples
    whose label set is empty or full have no crucial pair and get no weight); ``"mo"``,
    AdaBoost.MO (Figure 3), AdaBoost.MH on the bits of an output code, then a decoder
    (single-label data only). What ``decision_function``, ``predict`` and ``predict_proba``
    return under each is the scheme's (``schemes.mh.MHOutputs``, ``schemes.mr.MROutputs``,
    ``schemes.mo.MOOutputs``): f(x, l) and its argmax (Eq. 17) or {l : f(x, l) > 0} for
    MH; the same for MR with, on multi-label data, the cut ``threshold_`` learned on the
    training set (f has no natural zero); the decoder's class scores and their argmax for
    MO.

    ``predict_proba`` (``calibration="temperature"``, the default): σ(a g) per label for
    binary and multi-label data, softmax(a g) over the classes for single-label data, where
    g is the scheme's logit (``*Outputs.logits``: 2 f for binary data and MH, real
    AdaBoost's f estimating half the log-odds, §7 and Friedman, Hastie & Tibshirani 2000;
    2 (f - threshold_) for multi-label MR; f for single-label MR; the decoder's class scores
    for MO) and a > 0 is one temperature fitted by least log loss on held-out f
    (``confboost.calibration``): the eval_set or early-stopping split when there is one;
    otherwise out-of-fold f of 5 cross-fitted runs (one run on 1 - ``validation_fraction``
    of the rows above 10,000 examples), which costs that many extra fits. f itself grows
    with the rounds, so the uncalibrated σ(2 f) is far too sure; a > 0 changes no ranking
    and no prediction. ``calibration=None`` gives the scheme's uncalibrated link.

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
        training-error bound from (k/2) Π Z_t to √(k-1) Π Z_t; "uniform" is the default by
        measurement (``benchmarks/mh_init.py``: as good or better on four of five sets with
        real confidences), is the paper's Figure 2, and keeps MO with the one-per-class code
        equal to MH (Eq. 21).
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
    early_stopping : "auto" or bool, default="auto"
        Hold out ``validation_fraction`` of the rows (stratified, seeded by
        ``random_state``, 0 when None, as the calibration folds; or use ``fit``'s
        ``eval_set``), score every round on them, stop when the score has not improved
        by more than ``tol`` in ``n_iter_no_change``
        rounds (scikit-learn's HistGradientBoosting rule) and keep the model at its best
        round. "auto": on exactly when ``fit`` gets an ``eval_set`` (LightGBM's habit).
        Unlike HistGradientBoosting's "auto", large data alone does not turn it on: on
        letter (16,000 rows, 100 stumps) stopping on a tenth held out cost 1.5 points of
        test accuracy (``benchmarks/probabilities.py``), the rounds being far from overfit.
    validation_fraction : float, default=0.1
        Share of the rows held out for early stopping (and for calibration above 10,000
        examples).
    n_iter_no_change : int, default=10
    tol : float, default=1e-7
    scoring : "loss", "exponential", str or callable, default="loss"
        The held-out score (higher is better, ``history_["validation_score"]``): "loss" is
        minus the scheme's own loss, the one its theorem bounds (error of the argmax or the
        decoded class, Hamming loss, ranking loss; as ``--optimal-iterations``);
        "exponential" minus the loss the scheme minimises (Σ D_1 exp(-Y f), MR's pair sum);
        any other value a scikit-learn scorer, evaluated on the model of each round
        (O(rounds²) predictions).
    warm_start : bool, default=False
        A second ``fit`` with a larger ``n_estimators`` continues the run on the same data
        (other parameters unchanged), bit-identical to one long fit. The run state is not
        pickled or saved: a restored model's next fit starts afresh.
    class_weight : "balanced", dict or None, default=None
        Single-label data only: each example's sample weight is multiplied by its class's
        weight (scikit-learn's definition; "balanced" is n_samples / (n_classes ·
        count(class))).
    calibration : {"temperature", None}, default="temperature"
        How ``predict_proba`` reads f (see above).

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
        Per round run (more than the model keeps under early stopping): "alpha", "z"
        (Z_t), "bound" (the theorem's bound on the training loss from Π Z_t, see above),
        "train_loss" (weighted by the sample weights: training error for binary data, MH
        on single-label data and MO; Hamming loss for MH on multi-label data; ranking loss
        for MR), "criterion" (the weak learner's Z before α and smoothing),
        "alpha_capped" (True where α hit its cap because Z had no minimum) and, with
        held-out data, "validation_score" (see ``scoring``).
    n_estimators_ : int
        Rounds in the model (the best round under early stopping).
    best_iteration_ : int or None
        With held-out data: the round count of the best validation score (the model is cut
        there under early stopping); None without.
    calibrator_ : Calibrator or None
        The fitted temperature (None with ``calibration=None`` or too little data: under 10
        examples or a class of one).
    feature_kinds_ : ndarray of str, shape (n_features,)
        The kind each column was read as: "continuous", "categorical", "text", "ignore"
        (``confboost.data.frame``).
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

    _parameter_constraints = {
        "n_estimators": [_Count(1, None, closed="left")],
        "scheme": [StrOptions(set(SCHEMES))],
        "confidence": [StrOptions(set(MODES))],
        "alpha": [StrOptions(set(ALPHA_METHODS))],
        "smoothing": [StrOptions({"auto"}), _Number(0, None, closed="neither")],
        "init": [StrOptions(set(INITS))],
        "code": [StrOptions(set(CODES)), "array-like"],
        "code_length": [None, _Count(1, None, closed="left")],
        "decoding": [StrOptions(set(DECODINGS))],
        "max_bins": [_Count(2, 255)],
        "trim": [_Number(0.0, 0.5)],
        "n_jobs": [None, _Count(None, -1, closed="right"), _Count(1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "weak_learner": [StrOptions(set(LEARNERS))],
        "max_leaves": [_Count(2, MAX_LEAVES)],
        "max_depth": [None, _Count(1, None, closed="left")],
        "min_leaf_weight": [_Number(0.0, 0.5)],
        "product_terms": [_Count(1, 16)],
        "learning_rate": [_Number(0.0, 1.0, closed="right")],
        "feature_types": [None, dict],
        "text_expert": [None, TextExpert, dict],
        "early_stopping": [StrOptions({"auto"}), "boolean"],
        "validation_fraction": [_Number(0.0, 1.0, closed="neither")],
        "n_iter_no_change": [_Count(1, None, closed="left")],
        "tol": [_Number(0.0, None, closed="left")],
        "scoring": [str, callable],
        "warm_start": ["boolean"],
        "class_weight": [None, StrOptions({"balanced"}), dict],
        "calibration": [None, StrOptions({"temperature"})],
    }

    def __init__(self, n_estimators=100, *, scheme="mh", confidence="real", alpha="auto",
                 smoothing="auto", init="uniform", code="random", code_length=None,
                 decoding="loss", max_bins=255, trim=0.0, n_jobs=None, random_state=None,
                 verbose=0, weak_learner="stump", max_leaves=8, max_depth=None,
                 min_leaf_weight=0.0, product_terms=3, learning_rate=1.0, feature_types=None,
                 text_expert=None, early_stopping="auto", validation_fraction=0.1,
                 n_iter_no_change=10, tol=1e-7, scoring="loss", warm_start=False,
                 class_weight=None, calibration="temperature"):
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
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.scoring = scoring
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.calibration = calibration

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_label = self.scheme != "mo"
        return tags

    def _validate_params_once(self):
        """Check every parameter against ``_parameter_constraints`` (a ValueError naming
        it), and the one rule across parameters; returns the confidence mode code."""
        self._validate_params()
        if self.trim != 0 and self.weak_learner != "stump":
            raise ValueError(f"trim applies to weak_learner='stump' only, got weak_learner="
                             f"{self.weak_learner!r} with trim={self.trim!r}")
        return MODES[self.confidence]

    def _encode_targets(self, y):
        """Label signs (n, k) and each example's class; sets ``classes_``.

        Returns
        -------
        signs : ndarray of shape (n_samples, k), int8
            k = 1 for binary y (Figure 1), one column per class or label otherwise.
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
            return np.where(Y > 0, 1, -1).astype(np.int8), None
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
            return np.where(encoded == 1, 1, -1).astype(np.int8)[:, None], encoded
        signs = -np.ones((encoded.size, self.classes_.size), dtype=np.int8)
        signs[np.arange(encoded.size), encoded] = 1
        return signs, encoded

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

    def fit(self, X, y, sample_weight=None, callbacks=None, eval_set=None):
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
            (``boosting.BoostingRun.run``); returning True stops the loop. A
            ``confboost.checkpoint.Checkpoint(path, every)`` among them saves the run every
            ``every`` rounds, and a fit that finds its file resumes from it: a run killed
            at any round and fitted again with the same checkpoint gives the model of an
            uninterrupted run, bit for bit.
        eval_set : list of one (X_val, y_val) pair, optional
            Validation data, as LightGBM's ``fit(eval_set=...)``: every round is scored
            on it (``history_["validation_score"]``), early stopping (on by default when
            an eval_set is given, see ``early_stopping``) and calibration use it, and the
            whole of X trains.

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
        # warm_start continues the previous fit, so it keeps (copies of) its attributes
        warm = self.warm_start and previous.get("_warm") is not None
        self.__dict__ = {key: value for key, value in previous.items()
                         if warm or not _is_fitted_attribute(key)}
        done = False
        try:
            self._fit(X, y, sample_weight, callbacks, eval_set)
            done = True
        finally:
            if not done:
                self.__dict__ = previous  # one store: every attribute as it was
        return self

    def _fit(self, X, y, sample_weight, callbacks, eval_set):
        """``fit`` on an estimator with no fitted attributes."""
        mode = self._validate_params_once()
        callbacks = list(callbacks or ())
        state = getattr(self, "_warm", None)
        if self.warm_start and state is not None:
            # the threads of the first fit: a parallel sum rounds differently
            with numba_threads(self.n_jobs, state["work"]):
                return fitting.resume(self, state, X, callbacks)
        self._warm = None
        if self._is_mixed(X):
            X, y, n_samples = self._encode_table(X, y)
            targets, sample_weight = self._targets_and_weights(y, sample_weight, n_samples)
            make_dataset = self.encoder_.fit_dataset
            self.feature_kinds_ = np.asarray(self.encoder_.kinds, dtype=object)

            def prepare(raw, validated=False):
                return self.encoder_.transform(raw)
        else:
            X, y = validate_data(self, X, y, multi_output=True, ensure_all_finite="allow-nan",
                                 dtype=RAW_DTYPES, accept_sparse=("csr", "csc"),
                                 y_numeric=False)
            if issparse(X) and not X.has_canonical_format:
                # duplicate entries of a sparse matrix are one value, their sum (scipy's
                # toarray, and so predict, reads them so)
                X = X.copy()
                X.sum_duplicates()
            n_samples = X.shape[0]
            targets, sample_weight = self._targets_and_weights(y, sample_weight, n_samples)
            make_dataset = Dataset.from_array
            self.feature_kinds_ = np.full(X.shape[1], "continuous", dtype=object)

            def prepare(raw, validated=False):
                if not validated:
                    raw = validate_data(self, raw, reset=False, ensure_all_finite="allow-nan",
                                        dtype=RAW_DTYPES, accept_sparse=("csr", "csc"))
                return raw.toarray() if hasattr(raw, "toarray") else raw

        def build(rows, weight):
            return make_dataset(X if rows is None else take_rows(X, rows), self.max_bins,
                                self.random_state, weight)

        work = n_samples * self.n_features_in_ * targets[0].shape[1]
        with numba_threads(self.n_jobs, work):
            fitting.start(self, X, targets, sample_weight, build, prepare, mode, callbacks,
                          eval_set, work)

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
        with np.errstate(over="ignore"):
            total = sample_weight.sum()
        if not total > 0:
            raise ValueError("sample_weight sums to zero; at least one example needs weight")
        factors = class_weights(self.class_weight, self.classes_, targets[1])
        if factors is not None:
            sample_weight = sample_weight * factors
            with np.errstate(over="ignore"):
                total = sample_weight.sum()
        if not np.isfinite(total):
            # finite weights whose sum overflows: D_1 = w / Σ w is the same from w / max w
            sample_weight = sample_weight / sample_weight.max()
        return targets, sample_weight

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

    def _outputs(self):
        """What f means under the fitted scheme (``schemes.scheme_outputs``)."""
        check_is_fitted(self)
        return scheme_outputs(self.scheme, self.classes_, self._multilabel,
                              getattr(self, "code_", None), self.decoding,
                              getattr(self, "thresholds_", None))

    def decision_function(self, X):
        """f(x) for binary data, shape (n_samples,); otherwise shape (n_samples, k).

        MH and MR: f(x, l). MO: the decoder's class scores (negated exponential losses,
        or negated Hamming distances), whose argmax is the prediction.
        """
        return self._outputs().decision_function(self._scores(X))

    def _staged_scores(self, X):
        """f after each round, shape (n_samples, k) each (before the scheme's outputs)."""
        yield from self.model_.staged_decision_function(self._prepare(X))

    def staged_decision_function(self, X):
        """Yield ``decision_function(X)`` after each round."""
        outputs = self._outputs()
        for scores in self._staged_scores(X):
            yield outputs.decision_function(scores)

    def predict(self, X):
        """Class labels, or 0/1 indicator rows for multi-label data (see the class doc)."""
        return self._outputs().predict(self._scores(X))

    def staged_predict(self, X):
        """Yield ``predict(X)`` after each round."""
        outputs = self._outputs()
        for round_index, scores in enumerate(self._staged_scores(X)):
            yield outputs.predict(scores, round_index)

    def predict_proba(self, X):
        """Class (or label) probabilities, shape (n_samples, n_classes).

        With the default calibration, σ(a g) or softmax(a g) of the scheme's logit g with
        the fitted temperature a (see the class doc and ``confboost.calibration``). With
        ``calibration=None``: binary σ(2 f) for the second class, columns [1 - p, p] (real
        AdaBoost's f estimates ½ ln(P(y=+1 | x) / P(y=-1 | x)), Friedman, Hastie &
        Tibshirani 2000); MH single-label σ(2 f(x, l)) normalised over the classes; MH
        multi-label σ(2 f(x, l)) per label; MR single-label softmax of f; MR multi-label
        σ(2 (f - threshold_)) per label; MO softmax of ``decision_function``.
        """
        return self._outputs().predict_proba(self._scores(X),
                                             getattr(self, "calibrator_", None))

    def __getstate__(self):
        # the run state of warm_start holds closures over the run: not pickled (a pickled
        # model's next warm-start fit starts afresh)
        state = dict(super().__getstate__())
        state.pop("_warm", None)
        return state

    def save(self, path):
        """Write the fitted model to ``path`` as versioned JSON, data only, with a checksum
        (``persistence.py``; read it back with ``confboost.load``). The write is atomic: a
        crash or a kill while saving leaves the previous file at ``path`` whole."""
        check_is_fitted(self)
        save_estimator(self, path)
