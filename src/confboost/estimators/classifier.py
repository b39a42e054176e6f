"""The scikit-learn surface: ``BoostClassifier``, a ``booster.Booster`` (the parameters, fit
and outputs, without scikit-learn) with scikit-learn's base classes, tags, ``score``,
``feature_importances_`` and the inspection mixin.

Its parameters, documented in the class docstring, are checked once, at ``fit``, against a
declarative table (``_parameter_constraints``: scikit-learn's constraints of the plain-data
``training.params.PARAMETERS``, DESIGN.md rule 5, built here as this module imports
scikit-learn). ``fit`` (``Booster``'s) hands the checked estimator to the fit object
(``training.fit_runs.Fit``: the input adapter, label signs Y of n_samples × k, the held-out
sets, the runs of the loop in ``engine/boosting.py``) and assigns the attributes it returns
in one store. Binary data is the case k = 1 (paper Figure 1) whatever the scheme;
multiclass and multi-label data go through AdaBoost.MH (Figure 2), AdaBoost.MR (Figures
4-5) or, for single-label data, AdaBoost.MO (Figure 3). What f means to a user (decision
values, predictions, probabilities) is the scheme's (``schemes.scheme_outputs``); saving is
``formats.model_json``'s.
"""

import os
from collections.abc import Iterator
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from confboost.estimators.booster import Booster
from confboost.estimators.inspection import InterpretMixin
from confboost.explain.contributions import bound_importances
from confboost.formats.model_json import load_estimator
from confboost.training.params import PARAMETERS, Count, Number, Strings, describe

__all__ = ["BoostClassifier", "load"]


class _Interval(Interval):
    """scikit-learn's interval of a ``params.Count`` or ``Number``: never a bool."""

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


class _Strings(StrOptions):
    """scikit-learn's options of a ``params.Strings``, named in sorted order."""

    def __str__(self):
        return describe(Strings(frozenset(self.options)))


def _constraint(alternative):
    """scikit-learn's constraint of one alternative of ``params.PARAMETERS`` (the named
    ones, types, None and ``callable`` are scikit-learn's own already)."""
    if isinstance(alternative, Count | Number):
        return _Interval(Integral if isinstance(alternative, Count) else Real,
                         alternative.left, alternative.right, closed=alternative.closed)
    if isinstance(alternative, Strings):
        return _Strings(set(alternative.options))
    return alternative


class BoostClassifier(InterpretMixin, ClassifierMixin, BaseEstimator, Booster):
    """Boosting with confidence-rated predictions (Schapire & Singer 1999).

    Binary data is generalized AdaBoost (Figure 1) on k = 1 label column, whatever the
    scheme. Multiclass (1-D y, more than two classes) and multi-label data (2-D 0/1
    indicator y) run the named scheme: ``"mh"``, AdaBoost.MH (Figure 2), one ±1 column per
    class, Hamming loss; ``"mr"``, AdaBoost.MR (Figure 5, O(mk)), a ranking of the labels,
    ranking loss (discrete MR on single-label data is AdaBoost.M2; an example whose label set
    is empty or full has no crucial pair and no weight); ``"mo"``, AdaBoost.MO (Figure 3),
    MH on the bits of an output code, then a decoder (single-label data only). What
    ``decision_function``, ``predict`` and ``predict_proba`` return is the scheme's
    (``schemes.*Outputs``): f(x, l) and its argmax (Eq. 17) or {l : f(x, l) > 0} for MH; the
    same for MR, with on multi-label data the cut ``threshold_`` learned on the training set;
    the decoder's class scores and their argmax for MO.

    ``predict_proba`` (``calibration="temperature"``): σ(a g) per label (binary,
    multi-label) or softmax(a g) over the classes (single-label), g the scheme's logit (2 f
    for binary and MH, real AdaBoost's f estimating half the log-odds, §7; 2 (f - ``threshold_``)
    for multi-label MR; f for single-label MR; the class scores for MO) and a > 0 one
    temperature fitted by least log loss on held-out f (``confboost.training.calibration``): the
    eval_set or early-stopping split, else out-of-fold f of 3 short cross-fitted runs (one
    split of ``validation_fraction`` above 2,500 examples) of a tenth of the rounds each, the
    slope carried to the full run by the growth of f's scale.
    a changes no ranking and no prediction; ``calibration=None`` is the uncalibrated link.

    ``history_["bound"]`` bounds ``history_["train_loss"]``: Theorem 1 (binary error ≤ Π Z_t),
    Theorem 3 (MH multi-label Hamming loss ≤ Π Z_t), §7.2 (MH single-label error ≤ (k/2) Π
    Z_t, √(k-1) Π Z_t with the balanced start), Theorem 6 (MR ranking loss ≤ Π Z_t), Theorem
    5 (MO error ≤ (k'/ρ) Π Z_t with loss decoding, (2k'/ρ) Π Z_t with Hamming decoding).

    Parameters
    ----------
    n_estimators : int, default=100
        Rounds T; the loop stops early when a round's hypothesis has no edge.
    scheme : {"mh", "mr", "mo"}, default="mh"
        The multiclass scheme (binary data is the same under all three).
    confidence : {"real", "discrete", "abstain", "real-abstain"}, default="real"
        A block's value (``confboost.engine.confidence``): Eq. 9 with ε smoothing; ±1 scaled by α
        (§3.1); ±1 and 0 on the abstaining (missing-value) block, α of §3.3; Eq. 9 and 0 there.
    alpha : {"auto", "exact", "freund-schapire"}, default="auto"
        How α_t is chosen (§3, ``confboost.engine.alpha``); "auto": the closed form where there is
        one (α = 1 for real confidences). MR (``confboost.engine.schemes.mr``): discrete takes Eq.
        28; real folds α into block values minimising the smoothed pair objective (§9 Eq. 25),
        α = 1; abstaining, and "exact", the exact minimiser of the pair objective.
    smoothing : "auto" or float, default="auto"
        ε of §4.2; "auto": 1/(2mk), and 100/(2mk) for MR's real confidences with
        ``alpha="auto"`` (ε smooths each of a block's k(k - 1) pairs, ``pair_smoothing``).
    init : {"uniform", "balanced"}, default="uniform"
        MH's start on single-label multiclass data (§7.2): "balanced" puts half of each
        example's weight on its own label (bound √(k-1) Π Z_t, not (k/2) Π Z_t); "uniform" is
        Figure 2, keeps one-per-class MO equal to MH (Eq. 21) and measured as good or better
        (``benchmarks/mh_init.py``). MR and MO have their own starts.
    code : {"random", "exhaustive", "one-vs-rest"} or array-like of shape (k, k'), \
            default="random"
        MO's output code (``confboost.engine.schemes.codes``): random ±1 bits seeded by
        ``random_state``; exhaustive (3 <= k <= 11); one-vs-rest (MO is then MH); or a ±1
        (or 0/1) matrix, a row per class in the order of ``classes_``, no two rows equal.
    code_length : int or None, default=None
        Bits k' of a random code; None: ⌈10 log2 k⌉ (Allwein, Schapire & Singer 2000).
    decoding : {"loss", "hamming"}, default="loss"
        MO's decoder: least exponential loss (Variant 2, the smaller bound) or nearest
        codeword to sign f (Variant 1).
    max_bins : int or None, default=255
        Most value bins per feature (2..255), plus the missing-value bin. None: one bin per
        value, and a column with more than 255 distinct values kept unbinned, so that every
        midpoint of two neighbouring values is a threshold (icsiboost's stumps; stumps
        without ``trim`` only).
    trim : float, default=0.0
        Weight trimming β in [0, 0.5] (Friedman, Hastie & Tibshirani 2000; 0.1 theirs), stumps
        only: the histograms skip the lightest examples holding at most β of the weight; the
        chosen stump's confidences, α and Z_t use every example, so Π Z_t still bounds the
        loss (``learners/stump.py``; with real confidences and ``alpha="auto"``, α is exact).
    n_jobs : int or None, default=None
        Kernel threads (None: all cores, or one on small data, and fewer when timing the
        rounds shows that half as many run them no slower, as on a busy machine:
        ``threads.ThreadTuner``; negative: all but ``abs(n_jobs) - 1``, fixed). The model is the
        same for every value.
    random_state : int, RandomState or None, default=None
        Seeds the bin-quantile subsample, the random code and the held-out splits.
    verbose : int, default=0
        1: a progress bar on stderr, drawn when the fit starts; 2: one line per round. A
        round in which numba compiled kernels (the first fit after an install) is said
        on a line of its own and left out of the bar's estimate of the time left.
    weak_learner : {"auto", "stump", "tree", "hamming_tree", "label_trees", "product"}
        Default "auto": ``"tree"`` on more than 2,500 examples, ``"stump"`` up to that (or
        with ``trim`` > 0); the choice is ``weak_learner_`` (``learners.choose_learner``; measured
        in ``benchmarks/probabilities.py``: on letter 100 rounds of stumps reach 78.8%
        accuracy and trees 95.9%, on wine and yeast-ml trees lose to stumps). Where those
        trees would see more than 2,000 features × label columns with at least 2 label
        columns under MH, "auto" grows ``"label_trees"`` instead
        (``training.params.default_learner``): a shared tree splits every class at the same
        nodes, and on fashion-mnist (784 features × 10 classes) it missed LightGBM's and
        HistGradientBoosting's accuracy and log loss by far (.8564 / .4379), where a tree
        per class at the same 100 rounds reaches .8776 / .3550 for about twice the time
        (``benchmarks/bench_defaults.py``). "stump": a
        threshold on one feature with a missing-value block, the paper's (and the command
        line's) learner; "tree": a tree grown best-first by the largest drop in Z (Eq.
        10/16), a value per leaf and label; "hamming_tree": a label-independent tree, h(x, l)
        = v_l c_leaf (Kégl 2014; ``confboost.engine.learners.tree``); "label_trees": a
        tree per label each round, tree l grown as "tree" on label l's weights alone, blocks
        X_j^l × {l} of X × Y (``confboost.engine.learners.label_trees``; MH and MO, one
        machine); "product": a product of
        ``product_terms`` ±1 stumps, two blocks (Kégl & Busa-Fekete 2009, numeric features
        only). On a table with categorical or text columns the stump learner keeps the best
        stump, value test or term test, and tree nodes split on thresholds, values (``x ==
        v``) or terms (``confboost.engine.learners.splitter``).
    max_leaves : "auto" or int, default="auto"
        Most leaves of a tree, of each label's with "label_trees" (2..255). "auto": 32 when
        the fit grows trees on more than 10,000 examples with n_features × n_labels at most
        2,000 (n_labels: 1 for binary data, the classes otherwise), 28 for trees per label,
        16 otherwise; the value used is ``max_leaves_``
        (``training.params.tree_defaults``; measured against LightGBM's and
        HistGradientBoosting's defaults in ``benchmarks/bench_defaults.py``: on letter and
        binary 200k x 50, 32 leaves at step 0.5 reach their accuracy and log loss and 16 at
        step 1 do not; below 10,000 examples, and with many features × labels, as on
        fashion-mnist, 16 leaves cost half the time).
    max_depth : int or None, default=None
        Most splits from a tree's root to a leaf.
    min_leaf_weight : float, default=0.0
        Least weight of a tree's leaf, as a share of the round's weight, in [0, 0.5].
    product_terms : int, default=3
        Stumps in a product (1..16).
    learning_rate : "auto" or float, default="auto"
        Shrinkage ν in (0, 1]: α_t ← ν α_t; ``history_["z"]`` is Z_t of the shrunk α, so Π
        Z_t stays a bound. 1.0 is the paper's algorithm. "auto": 0.5 where ``max_leaves``'s
        "auto" grows 32 leaves (the same rule, whatever ``max_leaves`` is) and for trees per
        label, 1.0 otherwise (stumps and products always); the value used is
        ``learning_rate_``.
    feature_types : dict of column name to str, or None, default=None
        A table's (DataFrame, dict of columns) column kinds, "continuous", "categorical",
        "text" or "ignore"; unnamed columns are inferred (``confboost.data.columns``). An
        all-continuous table takes the array path.
    text_expert : TextExpert, dict of column name to TextExpert, or None, default=None
        How text columns become terms (``confboost.data.text_experts``); None: word unigrams.
    early_stopping : "auto" or bool, default="auto"
        Score every round on ``validation_fraction`` of the rows held out (stratified, seeded
        by ``random_state``, or the first pair of ``fit``'s ``eval_set``; the other pairs
        are only recorded), stop after ``n_iter_no_change`` rounds without a gain above
        ``tol`` (HistGradientBoosting's rule) and keep the best round. "auto": on exactly
        when there is an ``eval_set`` (large data alone does not turn it on: on letter it
        cost 1.5 points, ``benchmarks/probabilities.py``).
    validation_fraction : float, default=0.1
        Rows held out for early stopping (and calibration above 2,500 examples).
    n_iter_no_change : int, default=10
    tol : float, default=1e-7
    scoring : "loss", "exponential", str or callable, default="loss"
        The held-out score, higher better (``validation_score_``): minus the scheme's
        bounded loss (error, Hamming or ranking loss; ``--optimal-iterations``); minus the
        loss it minimises (Σ D_1 exp(-Y f), MR's pair sum); or a scikit-learn scorer of the
        model after each round, read from f on the held-out rows, which each round updates
        by its own hypothesis (one hypothesis predicted per round, not the whole model).
    warm_start : bool, default=False
        A second ``fit`` with a larger ``n_estimators`` continues the run on the same data,
        bit-identical to one long fit (the run state is neither pickled nor saved). Other
        data (even of the same shape), other columns, another ``eval_set`` or changed
        parameters (any but ``n_estimators``, ``n_jobs`` and ``verbose``) are refused with a
        ValueError naming the difference; set ``warm_start=False`` to start afresh.
    class_weight : "balanced", dict or None, default=None
        Single-label data: sample weights times their class's weight (scikit-learn's
        definition; "balanced": n_samples / (n_classes · count(class))).
    calibration : {"temperature", None}, default="temperature"
        How ``predict_proba`` reads f (above).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels (multi-label y: ``arange(n_labels)``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X was a DataFrame with string column names.
    feature_kinds_ : ndarray of str, shape (n_features,)
        Each column's kind: "continuous", "categorical", "text", "ignore".
    model_ : BoostedModel
        The weak hypotheses and their α.
    history_ : dict of str to ndarray of shape (n_rounds,)
        Per round run (early stopping keeps fewer in the model): "alpha", "z" (Z_t), "bound"
        (above), "train_loss" (weighted: error for binary, single-label MH and MO; Hamming
        loss for multi-label MH; ranking loss for MR), "criterion" (the learner's Z before α
        and smoothing), "alpha_capped" (α hit its cap: Z had no minimum) and, with held-out
        data, "validation_score".
    weak_learner_ : str
        The weak learner used (``weak_learner``, "auto" resolved).
    max_leaves_, learning_rate_ : int; float
        The most leaves and the step the fit used (``max_leaves`` and ``learning_rate``,
        "auto" resolved by the training data's shape).
    n_estimators_ : int
        Rounds in the model (the best round under early stopping).
    n_iter_ : int
        Rounds run (HistGradientBoosting's): at least ``n_estimators_``, more when early
        stopping ran past the best round before it stopped.
    best_iteration_ : int or None
        The round count of the best validation score (the first held-out set's); None
        without held-out data.
    train_score_ : ndarray of shape (``n_iter_`` + 1,)
        HistGradientBoosting's: the score (``scoring``) on the training rows (at most
        10,000 of them, drawn with ``random_state``) before the first round (f = 0) and
        after each; empty without early stopping (a scorer costs a call per round).
    validation_score_ : ndarray of shape (``n_iter_`` + 1,)
        The same on the first held-out set (the ``validation_fraction`` split or the first
        ``eval_set`` pair); empty without held-out data.
    evals_result_ : dict of str to dict of str to list of float
        LightGBM's: per set ("training", "validation" or the ``eval_names``) and metric
        (``scoring``'s name), the value after each round: "loss" and "exponential" are
        losses (lower is better), a scorer's values are its scores.
    best_score_ : dict of str to dict of str to float
        LightGBM's: each set's metric at ``best_iteration_``; empty without held-out data.
    calibrator_ : Calibrator or None
        The fitted temperature (None with ``calibration=None``, under 10 examples or a class
        of one).
    smoothing_ : float
        The ε used.
    code_, code_distance_ : ndarray of shape (k, k'), int8; int
        MO only: the code, rows in the order of ``classes_`` (binary data: [[-1], [+1]]), and
        its minimum distance ρ (Theorem 5).
    threshold_, thresholds_ : float; ndarray of shape (n_rounds,)
        MR on multi-label data only: the cut on f used by ``predict``, and after each round.
    feature_importances_ : ndarray of shape (n_features,)
        Share of the bound's decrease, Σ_t -ln Z_t, due to each feature.
    rounds_, estimators_, estimator_weights_
        The rounds as objects with their rules, h_t and α_t (``inspection.InterpretMixin``, as
        are ``rules`` and ``explain``, the exact per-column contributions).

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

    _parameter_constraints = {name: [_constraint(each) for each in alternatives]
                              for name, alternatives in PARAMETERS.items()}
    _takes_arrays = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_label = self.scheme != "mo"
        return tags

    def _check_parameters(self):
        """Check each parameter against ``_parameter_constraints`` with scikit-learn (its
        ``InvalidParameterError``, which ``parametrize_with_checks`` expects)."""
        self._validate_params()

    def _check_fitted(self):
        check_is_fitted(self)

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """Yield ``predict_proba(X)`` after each round, shape (n_samples, n_classes) each.

        As scikit-learn's gradient boosting: the probabilities of the model truncated to its
        first t rounds, t = 1, 2, ..., ``n_estimators_``. The fitted temperature
        (``calibrator_``) is the final model's; on multi-label MR data the cut on f is the
        one learned after round t (``thresholds_[t - 1]``), as ``staged_predict`` uses.

        Parameters
        ----------
        X : array-like, DataFrame or sparse of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples, n_classes)
        """
        outputs = self._outputs()
        calibrator = getattr(self, "calibrator_", None)
        for round_index, scores in enumerate(self._staged_scores(X)):
            yield outputs.predict_proba(scores, calibrator, round_index)

    @property
    def feature_importances_(self):
        check_is_fitted(self)
        if "z" not in self.history_:
            raise AttributeError("feature_importances_ are shares of the rounds' -ln Z_t, and "
                                 "this model has no Z_t: it was read from a .shyp file, not "
                                 "trained here")
        return bound_importances(self.model_, self.history_["z"], self.n_features_in_)


def load(path: str | os.PathLike) -> BoostClassifier:
    """Read a ``BoostClassifier`` saved with ``save``, checking every field.

    Parameters
    ----------
    path : str or Path

    A model that ``confboost train`` fitted on single-label data loads as a single-label
    classifier of the ``.names`` classes (``formats.model_json.load_estimator``).

    Returns
    -------
    BoostClassifier
        Fitted, predicting exactly what the saved one did.

    Raises
    ------
    ValueError
        ``"<path>: <field>: <problem>"`` for any file that is not a valid model.
    """
    return load_estimator(path, BoostClassifier)
