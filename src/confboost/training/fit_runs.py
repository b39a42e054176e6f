"""One fit of a boosting estimator, as an object: checked parameters in, one result out.

``Fit`` is made from an estimator whose parameters are checked; it never changes that
estimator. Its stages, each a method that can run alone on the previous stage's output:

1. ``read_inputs``: X by the input adapter chosen once (``inputs.py``), y as label signs
   and classes, sample and class weights as starting weights (``targets.py``): ``TrainingInputs``;
2. ``hold_out``: which rows train, which are held out (``holdout.py``), the ``eval_set``
   pairs, early stopping, the calibration folds: a ``Split``;
3. ``build``: the main ``BoostingRun`` with its callbacks (the training cover, the score
   records of ``round_scores.py``) and one short run per calibration fold, on the main
   run's bins: a ``FitState``;
4. ``run``: the main run to ``n_estimators`` rounds and the calibration runs to a tenth or
   a twentieth of them (``calibration.calibration_rounds``; a warm start calls it again on
   the same state, which continues every run bit for bit), with the user's callbacks,
   one progress display over all the runs and the thread tuner, all through the protocol
   of ``engine/callbacks.py``;
5. ``result``: the model built by the run (cut at the best round under early stopping),
   the probability temperature fitted on held-out f (``calibration.py``: on the eval set,
   or on the short runs' held-out f and carried to the kept rounds) and every fitted
   attribute, in one ``FitResult``, which the estimator assigns in one store.

``continue_fit`` is ``warm_start``'s path: it refuses, naming the difference, a second fit
whose parameters (but ``n_estimators``, ``n_jobs``, ``verbose``), kind of X, columns, rows,
data or ``eval_set`` differ from the first's, then runs the kept ``FitState`` on.
"""

import copy

import numpy as np

from confboost.engine.boosting import BoostingRun, ProgressPrinter
from confboost.engine.confidence import default_smoothing
from confboost.engine.learners import make_learner
from confboost.engine.schemes import build_scheme, scheme_outputs
from confboost.engine.schemes.codes import min_distance
from confboost.engine.schemes.mr import pair_smoothing
from confboost.kernels.criterion_numpy import REAL, REAL_ABSTAIN
from confboost.training.calibration import (
    calibration_rounds,
    carry_exponent,
    carry_slope,
    dataset_rows,
)
from confboost.training.fit_state import (
    FitParams,
    FitResult,
    FitState,
    RunPart,
    Split,
    TrainingInputs,
    eval_fingerprint,
    eval_pairs,
)
from confboost.training.holdout import (
    MIN_HELD_OUT,
    calibration_folds,
    encode_eval_labels,
    take_rows,
    validation_split,
)
from confboost.training.inputs import input_adapter
from confboost.training.params import default_learner, tree_defaults
from confboost.training.round_scores import (
    EstimatorMeasure,
    EvalSet,
    LossMeasure,
    ScoreRecord,
    held_out_scores,
    scores_with_initial,
)
from confboost.training.run_callbacks import CoverRecord, ScoresAt
from confboost.training.targets import encode_targets, label_vector, starting_weights
from confboost.utils.threads import numba_threads

#: Parameters a warm start may change: the round count and how the rounds are run.
WARM_FREE = ("n_estimators", "n_jobs", "verbose", "warm_start")
#: Parameters that do not define a run (a checkpoint's fingerprint leaves them out).
RUN_FREE = ("n_estimators", "n_jobs", "verbose")
#: Most training rows the training score (``train_score_``) is measured on.
TRAIN_SCORE_ROWS = 10_000
#: ``label_vector``'s stacklevel from ``read_inputs`` (← Fit.fit ← _fit ← fit ← the user).
_Y_WARNING_LEVEL = 5


def is_fitted_attribute(name):
    """Whether ``name`` is fit's state (scikit-learn's trailing underscore, or private)."""
    return ((name.endswith("_") and not name.startswith("__"))
            or name in ("_multilabel", "_input", "_warm", "_fit_params"))


class Fit:
    """One fit of ``estimator`` (see the module docstring), which it never changes.

    Parameters
    ----------
    estimator : Booster
        Its parameters checked (``Booster._validate_params_once``).
    mode : int
        The confidence mode code (``criterion_numpy.MODES``).
    normalisation : {"predicted", "in_order"}, default="predicted"
        MH's normalisation of D (``schemes.mh.MHScheme``); "in_order": icsiboost's.

    Attributes
    ----------
    params : FitParams
        The estimator's parameters (``params.scheme`` is a name, never a scheme object).
    probe : estimator
        A copy of the estimator without fitted attributes.
    known : dict
        The fitted attributes known so far (``estimator_view``).
    """

    def __init__(self, estimator, mode, normalisation="predicted"):
        self.params = FitParams.of(estimator)
        self.mode = mode
        self.normalisation = normalisation
        #: A blank copy of the estimator: scikit-learn's ``validate_data`` sets its input
        #: attributes, and scorer views are copies of it.
        self.probe = copy.copy(estimator)
        self.probe.__dict__ = {key: value for key, value in estimator.__dict__.items()
                               if not is_fitted_attribute(key)}
        self.known = {}  # fitted attributes known so far (callbacks' ``env.estimator``)

    # -- the whole fit ------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None, callbacks=(), eval_set=None, eval_names=None):
        """Stages 1 to 5 on (X, y). Returns a ``FitResult``."""
        inputs = self.read_inputs(X, y, sample_weight)
        with numba_threads(self.params.n_jobs, inputs.work) as tuner:  # times every run's rounds
            split = self.hold_out(inputs, eval_set, eval_names)
            state = self.build(inputs, split)
            self.run(state, [*callbacks, tuner], tuner)
            return self.result(state)  # the calibration's scores on the fit's threads too

    def continue_fit(self, state, X, y, sample_weight=None, callbacks=(), eval_set=None,
                     eval_names=None):
        """``warm_start``: run the kept ``state`` on to ``n_estimators`` rounds, or refuse
        (ValueError naming what differs) when this fit is not the same run: other
        parameters, data or ``eval_set``."""
        self._check_same_params(state)
        inputs = self.read_inputs(X, y, sample_weight)
        self._check_same_data(state, inputs)
        if eval_fingerprint(eval_pairs(eval_set, eval_names)) != state.eval_fingerprint:
            raise ValueError("warm_start continues the previous fit, scored on its eval_set; "
                             "this fit's eval_set (or eval_names) differs: pass the same "
                             "pairs again (set warm_start=False to start afresh)")
        done = len(state.main.run.hypotheses)
        if self.params.n_estimators < done:
            raise ValueError(f"n_estimators={self.params.n_estimators} must be at least the {done} "
                             "rounds already run when warm_start=True")
        self.known = dict(state.attributes)
        state.params = self.params.as_dict()
        with numba_threads(self.params.n_jobs, state.work) as tuner:  # the first fit's rule
            self.run(state, [*callbacks, tuner], tuner)
            return self.result(state)

    # -- stage 1 ------------------------------------------------------------------------
    def read_inputs(self, X, y, sample_weight=None):
        """X, y and the weights as the runs read them: a ``TrainingInputs``."""
        adapter = input_adapter(X, self.params.feature_types, self.params.text_expert)
        if adapter.kind != "table" and not self.probe._takes_arrays:
            raise TypeError("a Booster fits a table with categorical or text columns (a dict "
                            "of columns and feature_types); use BoostClassifier for arrays, "
                            "sparse matrices and all-continuous tables")
        X, y, attributes = adapter.read(self.probe, X, y)
        signs, encoded, classes, multilabel = encode_targets(
            label_vector(np.asarray(y) if not hasattr(y, "toarray") else y,
                         stacklevel=_Y_WARNING_LEVEL))
        n_samples = adapter.n_samples(X)
        weight = starting_weights(sample_weight, n_samples, self.params.class_weight, classes,
                                  encoded)
        attributes = {**attributes, "classes_": classes, "_multilabel": multilabel,
                      "_input": adapter}
        self.known = dict(attributes)
        return TrainingInputs(adapter, X, signs, encoded, classes, multilabel, weight,
                              attributes)

    # -- stage 2 ------------------------------------------------------------------------
    def hold_out(self, inputs, eval_set=None, eval_names=None):
        """Which rows train and which are scored: a ``Split``."""
        pairs = eval_pairs(eval_set, eval_names)
        given = eval_fingerprint(pairs)
        # which rows are held out is seeded by random_state, 0 when None: two fits of the
        # same data give the same model and the same probabilities (and a checkpoint
        # resumes them)
        seed = 0 if self.params.random_state is None else self.params.random_state
        stopping = self.params.early_stopping is True or (
            self.params.early_stopping == "auto" and bool(pairs))
        if pairs:
            return Split(None, [self._given_set(inputs, name, raw, y)
                                for name, (raw, y) in pairs], stopping, eval_fingerprint=given)
        n = inputs.n_samples
        if stopping:
            split = validation_split(n, inputs.encoded, self.params.validation_fraction, seed)
            if split is not None:
                return Split(split[0], [self._rows_set(inputs, "validation", split[1])], True,
                             eval_fingerprint=given)
            if self.params.early_stopping is True:
                raise ValueError(
                    f"early_stopping=True holds out validation_fraction="
                    f"{self.params.validation_fraction} of the {n} examples, too few (at "
                    f"least {MIN_HELD_OUT} held out, 2 of each class): pass more data, a "
                    "larger validation_fraction or an eval_set")
        if self.params.calibration is None:
            return Split(None, [], False, eval_fingerprint=given)
        folds = calibration_folds(n, inputs.encoded, self.params.validation_fraction,
                                  seed) or ()
        return Split(None, [], False,
                     [(train, self._rows_set(inputs, "fold", rows)) for train, rows in folds],
                     given)

    def _rows_set(self, inputs, name, rows):
        """Rows of the training data as an ``EvalSet``."""
        raw = take_rows(inputs.X, rows)
        y = ((inputs.signs[rows] > 0).astype(np.int64) if inputs.multilabel
             else inputs.classes[inputs.encoded[rows]])
        return EvalSet(name, inputs.adapter.held_out(self.probe, raw, True), raw, y,
                       inputs.signs[rows],
                       None if inputs.encoded is None else inputs.encoded[rows],
                       inputs.sample_weight[rows])

    def _given_set(self, inputs, name, raw, y):
        """An ``eval_set`` pair as an ``EvalSet`` (its labels against the fitted classes)."""
        signs, encoded = encode_eval_labels(y, inputs.classes, inputs.multilabel)
        X = inputs.adapter.held_out(self.probe, raw)
        n_rows = X.shape[0] if hasattr(X, "shape") else X.n_samples
        if n_rows != signs.shape[0]:
            raise ValueError(f"eval_set {name!r}: X has {n_rows} rows but y has "
                             f"{signs.shape[0]}")
        return EvalSet(name, X, raw, y, signs, encoded, np.ones(signs.shape[0]))

    # -- stage 3 ------------------------------------------------------------------------
    def build(self, inputs, split):
        """The runs of the fit, their callbacks and records: a ``FitState``."""
        fingerprint = inputs.fingerprint()  # before the runs: they may release text columns
        self.known["weak_learner_"] = default_learner(
            self.params.weak_learner, inputs.n_samples, inputs.attributes["n_features_in_"],
            inputs.signs.shape[1], self.params.scheme, self.params.trim)
        self.known["max_leaves_"], self.known["learning_rate_"] = tree_defaults(
            self.params.max_leaves, self.params.learning_rate, self.known["weak_learner_"],
            inputs.n_samples, inputs.attributes["n_features_in_"], inputs.signs.shape[1])
        main = self._part(inputs, split.train_rows)
        self.known["smoothing_"] = main.run.smoothing
        main.records = [self._record(inputs, main, each, split.stopping and i == 0)
                        for i, each in enumerate(split.eval_sets)]
        main.callbacks += main.records
        training = None
        if split.stopping:  # the training score (HistGradientBoosting's: with early
            # stopping only), on at most TRAIN_SCORE_ROWS rows
            training = self._record(inputs, main, self._training_set(inputs, split), False)
            main.callbacks.append(training)
        folds = []
        if len(split.folds) > 1 and self._scores_at_hand:
            # cross-fitted: the held-out rows are all the training rows
            main.callbacks.append(ScoresAt())
        for rows, eval_set in split.folds:  # short runs on the main run's bins
            fold = self._part(inputs, rows, self._fold_dataset(main, rows))
            fold.callbacks, fold.eval_set = [], eval_set  # only their held-out f is read
            folds.append(fold)
        return FitState(self.params.as_dict(), fingerprint, split.eval_fingerprint,
                        inputs.adapter.kind, inputs.n_samples,
                        inputs.attributes["n_features_in_"], inputs.work, main, folds,
                        training, split.stopping, self.known)

    def _training_set(self, inputs, split):
        rows = (np.arange(inputs.n_samples) if split.train_rows is None
                else np.asarray(split.train_rows))
        if rows.size > TRAIN_SCORE_ROWS:
            seed = 0 if self.params.random_state is None else self.params.random_state
            rows = np.sort(np.random.RandomState(seed).choice(rows, TRAIN_SCORE_ROWS,
                                                              replace=False))
        return self._rows_set(inputs, "training", rows)

    def _part(self, inputs, rows, dataset=None):
        """A ``RunPart`` training on ``rows`` (None: all), on ``dataset`` when it is given
        (those rows already binned), otherwise on the rows binned here."""
        signs, encoded, weight = self._rows_of(inputs, rows)
        place = self._scheme_place(inputs, rows)
        if dataset is None:  # before the scheme's arrays: the peak of the two is the larger
            dataset = self._dataset(inputs, rows, weight)
        scheme = self._scheme(signs, encoded, inputs.multilabel, weight, **place)
        k = scheme.labels.n_labels
        smoothing = (self._default_smoothing(inputs, rows, weight, k)
                     if self.params.smoothing == "auto" else float(self.params.smoothing))
        if (self.params.smoothing == "auto" and scheme.name == "mr" and self.params.alpha == "auto"
                and self.params.trim == 0 and self.mode in (REAL, REAL_ABSTAIN)):
            smoothing = pair_smoothing(smoothing)
        learner = self._learner(dataset, smoothing, k)
        params = {key: value for key, value in self.params.as_dict().items()
                  if key not in RUN_FREE}
        run = BoostingRun(dataset, scheme, learner, self._alpha_method(), self.mode, smoothing,
                          self.known["learning_rate_"], identity=(weight, params))
        return RunPart(run, self._run_callbacks(weight))

    def _alpha_method(self):
        """``alpha``, but "exact" for trimmed real confidences under "auto": they fit only the
        kept examples, so α = 1 no longer minimises Z_t over all (§3.2 finds it, Z_t <= 1)."""
        return ("exact" if self.params.trim > 0 and self.params.alpha == "auto"
                and self.mode in (REAL, REAL_ABSTAIN) else self.params.alpha)

    # -- where the training rows are: one machine here (``confboost.dask`` overrides) ---
    #: Whether a run's f on its training rows is at hand (``scheme.scores``, ``ScoresAt``).
    _scores_at_hand = True

    def _rows_of(self, inputs, rows):
        """The label signs, class indices and starting weights of the run on ``rows``
        (None: all)."""
        signs, encoded, weight = inputs.signs, inputs.encoded, inputs.sample_weight
        if rows is not None:
            signs, weight = signs[rows], weight[rows]
            encoded = None if encoded is None else encoded[rows]
        return signs, encoded, weight

    def _scheme_place(self, inputs, rows):
        """The scheme's ``total_weight`` and ``reducer`` (``build_scheme``): none here,
        its own rows' total and the identity."""
        return {}

    def _default_smoothing(self, inputs, rows, weight, k):
        """ε of ``smoothing="auto"`` from the run's starting weights."""
        return default_smoothing(weight, k)

    def _fold_dataset(self, main, rows):
        """A calibration run's Dataset: ``rows`` of the main run's, on its bins."""
        return dataset_rows(main.run.dataset, rows)

    def _dataset(self, inputs, rows, weight):
        """The run's ``Dataset``: ``rows`` of X (None: all), binned here."""
        return inputs.adapter.dataset(inputs.X, rows, self.params.max_bins,
                                      self.params.random_state, weight)

    def _learner(self, dataset, smoothing, k):
        """The run's weak learner (``learners.make_learner``) on ``dataset``."""
        return make_learner(self.known["weak_learner_"], dataset, self.mode, smoothing,
                            trim=float(self.params.trim), n_terms=int(self.params.product_terms),
                            **self.probe._tree_params(self.known["max_leaves_"]))

    def _run_callbacks(self, weight):
        """The run's own callbacks: the training cover of each round."""
        return [CoverRecord(weight)]

    def _scheme(self, signs, encoded, multilabel, weight, **place):
        """The scheme's training state on these examples (``schemes.build_scheme``); every
        run of a fit shares the first run's MO code. ``place``: where the rows are
        (``_scheme_place``)."""
        code, p = self.known.get("code_"), self.params
        scheme, built = build_scheme(p.scheme, signs, encoded, multilabel, weight,
                                     init=p.init, code=p.code if code is None else code,
                                     code_length=p.code_length if code is None else None,
                                     decoding=p.decoding, random_state=p.random_state,
                                     normalisation=self.normalisation, **place)
        if built is not None and code is None:
            self.known["code_"], self.known["code_distance_"] = built, min_distance(built)
        return scheme

    def _record(self, inputs, part, eval_set, stopping):
        """The ``ScoreRecord`` of ``eval_set`` for ``part``'s run."""
        k = part.run.scheme.labels.n_labels
        if self.params.scoring in ("loss", "exponential"):
            # the set as a scheme of its own (error, Hamming or ranking loss)
            judge = self._scheme(eval_set.signs, eval_set.encoded, inputs.multilabel,
                                 eval_set.weight)
            measure = LossMeasure(judge, eval_set.weight, self.params.scoring == "exponential")
        else:
            from sklearn.metrics import check_scoring

            scorer = check_scoring(self.probe, scoring=self.params.scoring)
            name = self.params.scoring if isinstance(self.params.scoring, str) else "score"
            measure = EstimatorMeasure(
                scorer, lambda scores, n_rounds: self.scoring_view(part, eval_set, scores,
                                                                   n_rounds),
                eval_set, name)
        return ScoreRecord(eval_set, k, measure,
                           self.params.n_iter_no_change if stopping else None,
                           float(self.params.tol))

    # -- stage 4 ------------------------------------------------------------------------
    def run(self, state, callbacks=(), tuner=None):
        """Run the main run of ``state`` to ``n_estimators`` rounds and each calibration run
        to ``calibration_rounds(n_estimators, K)`` (each, or until it stops); one progress
        display counts the rounds of all of them."""
        p, main = self.params, state.main
        short = calibration_rounds(p.n_estimators, len(state.folds))
        todo = (max(p.n_estimators - len(main.run.hypotheses), 0)
                + sum(max(short - len(fold.run.hypotheses), 0) for fold in state.folds))
        printer = ProgressPrinter(todo, p.verbose)
        for callback in main.callbacks:
            if isinstance(callback, ScoresAt):
                callback.rounds = short
        main.run.estimator = self.estimator_view()
        main.run.run(p.n_estimators, [printer, *callbacks, *main.callbacks])
        for number, fold in enumerate(state.folds, 1):  # on the fit's threads
            fold.run.run(short, [printer.labelled(f"calibration {number}/{len(state.folds)}"),
                                 *fold.callbacks, *([tuner] if tuner else [])])
        printer.close()

    def estimator_view(self):
        """A copy of the estimator with the fitted attributes known so far (no model):
        callbacks' ``env.estimator``."""
        view = copy.copy(self.probe)
        view.__dict__.update(self.known)
        return view

    def scoring_view(self, part, eval_set, scores, n_rounds):
        """An estimator whose outputs are those of f = ``scores`` on ``eval_set``'s rows after
        ``n_rounds`` rounds of ``part``'s run: what a scikit-learn scorer reads each round,
        without running the model again."""
        view = self.estimator_view()
        view.__dict__.update(self._thresholds(part, n_rounds), n_estimators_=n_rounds)
        view.calibrator_ = (self.calibrate([(part, eval_set)], n_rounds, scores)
                            if n_rounds else None)

        def known_scores(X):
            if X is not eval_set.raw:
                raise ValueError("a scoring view predicts its own rows only")
            return scores
        view._scores = known_scores
        return view

    # -- stage 5 ------------------------------------------------------------------------
    def result(self, state):
        """The model and every fitted attribute: a ``FitResult``."""
        main = state.main
        run = main.run
        history = run.history
        keep = len(run.hypotheses)
        attributes = dict(state.attributes)
        best = None
        first = main.records[0] if main.records else None
        if first is not None:
            history["validation_score"] = np.asarray(first.values, dtype=np.float64)
            best = first.best_round()
            if state.stopping:
                keep = best
            parts = [(main, first.eval_set)]
        else:
            parts = None  # the short calibration runs', carried to the kept rounds
        training = state.training_record
        attributes.update(
            self._thresholds(main, keep), _fit_params=self.params.as_dict(),
            model_=run.model(keep), n_estimators_=keep, history_=history,
            best_iteration_=best,
            calibrator_=(self.calibrate(parts, keep) if parts is not None
                         else self.carried_calibration(main, state.folds, keep)),
            n_iter_=len(run.hypotheses),
            train_score_=scores_with_initial(training),
            validation_score_=scores_with_initial(first),
            evals_result_={name: {metric: list(values) for metric, values in sets.items()}
                           for name, sets in run.evals_result.items()},
            best_score_={} if best is None else {
                record.eval_set.name: {record.measure.metric: record.metric_values[best - 1]}
                for record in [*main.records, *([training] if training else [])]})
        return FitResult(attributes, state)

    def _thresholds(self, part, n_rounds):
        """MR on multi-label data: ``thresholds_`` and ``threshold_`` after ``n_rounds``."""
        thresholds = getattr(part.run.scheme, "thresholds", None)
        if not thresholds or not n_rounds:
            return {}
        kept = np.asarray(thresholds[:n_rounds], dtype=np.float64)
        return {"thresholds_": kept, "threshold_": float(kept[-1])}

    def outputs(self, part, n_rounds):
        """The scheme's outputs for the first ``n_rounds`` rounds of ``part``'s run."""
        thresholds = self._thresholds(part, n_rounds).get("thresholds_")
        return scheme_outputs(self.params.scheme, self.known["classes_"], self.known["_multilabel"],
                              self.known.get("code_"), self.params.decoding, thresholds)

    def calibrate(self, parts, n_rounds, scores=None):
        """The ``Calibrator`` fitted on f of the held-out sets after (at most) ``n_rounds``
        rounds of each run (pooled); None without calibration.

        Parameters
        ----------
        parts : list of (RunPart, EvalSet)
        n_rounds : int
        scores : ndarray or None
            f of the single part's set, when the caller has it.
        """
        if self.params.calibration is None or not parts:
            return None
        from confboost.training.calibration import fit_calibrator  # SciPy: only when used

        logits, targets, weights = [], [], []
        for part, eval_set in parts:
            rounds = min(n_rounds, len(part.run.hypotheses))
            f = (scores if scores is not None and len(parts) == 1
                 else held_out_scores(part.run.model(rounds), eval_set.X))
            g, kind = self.outputs(part, rounds).logits(f)
            logits.append(g)
            targets.append(eval_set.encoded if kind == "softmax" else eval_set.signs > 0)
            weights.append(eval_set.weight)
        return fit_calibrator(np.concatenate(logits), np.concatenate(targets), kind,
                              np.concatenate(weights))

    def carried_calibration(self, main, folds, n_rounds):
        """The temperature fitted on the short calibration runs' held-out f, carried to the
        main run's ``n_rounds`` (``calibration.carry_slope``); None without calibration."""
        short = min((len(fold.run.hypotheses) for fold in folds), default=0)
        calibrator = self.calibrate([(fold, fold.eval_set) for fold in folds], short)
        if calibrator is None:
            return None
        short = min(short, n_rounds)
        # the main run's logits on the held-out examples, after T' rounds and after T. The
        # cross-fitted folds hold out every training row once, and s is a mean over the
        # rows: the main run's own f on its training rows serves, where it was kept.
        snapshot = next((each for each in main.callbacks if isinstance(each, ScoresAt)), None)
        kept = {} if snapshot is None else {snapshot.taken: snapshot.scores,
                                            len(main.run.hypotheses): main.run.scheme.scores}
        sets = [fold.eval_set.X for fold in folds]
        if all(isinstance(each, np.ndarray) for each in sets):  # one pass of each model
            sets = [np.concatenate(sets)]
        logits = []
        for rounds in (short, n_rounds):
            f = kept.get(rounds)
            if f is None:
                model = main.run.model(rounds)
                f = np.concatenate([held_out_scores(model, each) for each in sets])
            logits.append(self.outputs(main, rounds).logits(f)[0])
        return carry_slope(calibrator, *logits, carry_exponent(self.known["weak_learner_"]))

    # -- warm start's checks --------------------------------------------------------------
    def _check_same_params(self, state):
        changed = [f"{name}={state.params[name]!r} -> {value!r}"
                   for name, value in self.params.as_dict().items()
                   if name not in WARM_FREE and not _same(value, state.params.get(name))]
        if changed:
            raise ValueError(f"warm_start continues the previous fit, but its parameters "
                             f"changed: {', '.join(changed)} (set warm_start=False to start "
                             "afresh)")

    def _check_same_data(self, state, inputs):
        where = "(set warm_start=False to start afresh)"
        if inputs.adapter.kind != state.kind:
            raise ValueError(f"warm_start continues the previous fit, on a {state.kind} X; X "
                             f"is a {inputs.adapter.kind} {where}")
        n_features = inputs.attributes["n_features_in_"]
        if n_features != state.n_features:
            raise ValueError(f"warm_start continues the previous fit, on {state.n_features} "
                             f"columns; X has {n_features} {where}")
        if inputs.n_samples != state.n_samples:
            raise ValueError(f"warm_start continues the first fit's run, on its "
                             f"{state.n_samples} examples; X has {inputs.n_samples} rows "
                             f"{where}")
        if inputs.fingerprint() != state.fingerprint:
            raise ValueError("warm_start continues the previous fit, but X, y or "
                             f"sample_weight differ from its data {where}")


def _same(a, b):
    """Whether two parameter values are the same (arrays by value)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    try:
        return bool(a == b)
    except ValueError:  # values whose == is not a bool
        return repr(a) == repr(b)
