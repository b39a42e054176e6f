"""One fit's boosting runs: the main run, its held-out record, the calibration folds.

``all_or_nothing`` sets the previous fit's attributes aside and puts them back if the fit
fails. ``fit`` is ``BoostClassifier.fit``'s work once the parameters are checked: a warm
start continues the runs of the previous fit; otherwise the training data is read
(``inputs.training_data``) and ``start`` begins afresh, on the threads the data is worth
(``_threads.numba_threads``; with the default ``n_jobs`` its ``ThreadTuner`` times the
rounds and keeps the thread count that runs them fastest). ``start`` decides which examples
train and which are held out (``holdout.py``), builds the main ``BoostingRun`` and, for
calibration without held-out data, one short run per fold; ``resume`` runs the main run to
``n_estimators`` rounds and the calibration runs to a tenth of them (``warm_start`` calls it
again on the same state, which continues every run bit for bit), keeps the main run's model,
cut at its best round when early stopping is on, and fits the probability temperature on
held-out f (``calibration.py``). The estimator (``est``) supplies the scheme, the learner
and the link from f to probabilities; these functions set its fitted attributes.
"""

import copy
from contextlib import contextmanager

import numpy as np

from confboost.engine.boosting import BoostingRun, ProgressPrinter, ValidationRecord
from confboost.engine.confidence import default_smoothing
from confboost.engine.learners import choose_learner, make_learner
from confboost.engine.model import BoostedModel
from confboost.engine.schemes import build_scheme, scheme_outputs
from confboost.engine.schemes.codes import min_distance
from confboost.engine.schemes.mr import pair_smoothing
from confboost.explain.contributions import record_cover
from confboost.kernels.criterion_numpy import REAL, REAL_ABSTAIN
from confboost.training.calibration import calibration_rounds, carry_slope, rows_builder
from confboost.training.checkpoint import Checkpoint, dataset_parts, run_fingerprint
from confboost.training.holdout import (
    MIN_HELD_OUT,
    calibration_folds,
    encode_eval_labels,
    take_rows,
    validation_split,
)
from confboost.training.inputs import training_data
from confboost.utils.threads import ThreadTuner, numba_threads


def _is_fitted_attribute(name):
    """Whether ``name`` is fit's state (scikit-learn's trailing underscore, or private)."""
    return (name.endswith("_") and not name.startswith("__")) or name == "_multilabel"


@contextmanager
def all_or_nothing(est):
    """A fit of ``est`` inside the block starts from its parameters alone; if the block
    raises (KeyboardInterrupt too), every attribute is put back as it was, in one store.

    The previous fitted attributes are set aside, not changed (a warm start, which
    continues the previous fit, keeps them); the block sets the new ones.
    """
    previous = est.__dict__
    warm = est.warm_start and previous.get("_warm") is not None
    est.__dict__ = {key: value for key, value in previous.items()
                    if warm or not _is_fitted_attribute(key)}
    done = False
    try:
        yield
        done = True
    finally:
        if not done:
            est.__dict__ = previous  # one store: every attribute as it was


def fit(est, X, y, sample_weight, callbacks, eval_set, mode):
    """Fit ``est`` (its parameters checked, no fitted attributes but a warm start's) on
    (X, y): ``BoostClassifier.fit``'s arguments, ``mode`` the confidence mode code."""
    callbacks = list(callbacks or ())
    state = getattr(est, "_warm", None)
    if est.warm_start and state is not None:
        # the first fit's thread rule (the model is the same on any thread count)
        with numba_threads(est.n_jobs, state["work"]) as tuner:
            return resume(est, state, X, [*callbacks, tuner])
    est._warm = None
    data = training_data(est, X, y, sample_weight)
    est.weak_learner_ = choose_learner(est.weak_learner, data.sample_weight.shape[0], est.trim)
    with numba_threads(est.n_jobs, data.work) as tuner:  # it times the rounds of every run
        start(est, data.X, data.targets, data.sample_weight, data.build, data.prepare, mode,
              [*callbacks, tuner], eval_set, data.work)


def held_out(est, X, targets, sample_weight, prepare, eval_set):
    """Which rows train, which are held out, and whether early stopping is on.

    Returns
    -------
    train_rows : ndarray or None
        The main run's rows (None: all).
    held : dict or None
        The main run's held-out examples: "X" (prepared), "raw" (as given), "y",
        "signs", "encoded", "weight".
    stopping : bool
    folds : list of (train_rows, held) or None
        Without held-out data for the main run but with calibration: the folds whose
        runs give out-of-fold f to calibrate on (``holdout.calibration_folds``).
    """
    signs, encoded = targets
    n = signs.shape[0]
    # which rows are held out is seeded by random_state, 0 when None: two fits of the same
    # data give the same model and the same probabilities (and a checkpoint resumes them)
    seed = 0 if est.random_state is None else est.random_state
    stopping = est.early_stopping is True or (
        est.early_stopping == "auto" and eval_set is not None)

    def held_rows(rows):
        raw = take_rows(X, rows)
        y = ((signs[rows] > 0).astype(np.int64) if est._multilabel
             else est.classes_[encoded[rows]])
        return {"X": prepare(raw, True), "raw": raw, "y": y, "signs": signs[rows],
                "encoded": None if encoded is None else encoded[rows],
                "weight": sample_weight[rows]}

    if eval_set is not None:
        if len(eval_set) != 1 or len(eval_set[0]) != 2:
            raise ValueError("eval_set must be a list of one (X_val, y_val) pair")
        raw, y_val = eval_set[0]
        val_signs, val_encoded = encode_eval_labels(y_val, est.classes_, est._multilabel)
        held = {"X": prepare(raw), "raw": raw, "y": y_val, "signs": val_signs,
                "encoded": val_encoded, "weight": np.ones(val_signs.shape[0])}
        if held["X"].shape[0] != val_signs.shape[0]:
            raise ValueError(f"eval_set: X_val has {held['X'].shape[0]} rows but y_val "
                             f"has {val_signs.shape[0]}")
        return None, held, stopping, None
    if stopping:
        split = validation_split(n, encoded, est.validation_fraction, seed)
        if split is None:
            if est.early_stopping is True:
                raise ValueError(
                    f"early_stopping=True holds out validation_fraction="
                    f"{est.validation_fraction} of the {n} examples, too few (at least "
                    f"{MIN_HELD_OUT} held out, 2 of each class): pass more data, a larger "
                    "validation_fraction or an eval_set")
        else:
            return split[0], held_rows(split[1]), True, None
    if est.calibration is None:
        return None, None, False, None
    folds = calibration_folds(n, encoded, est.validation_fraction, seed)
    if folds is None:
        return None, None, False, None
    return None, None, False, [(train, held_rows(rows)) for train, rows in folds]


def start(est, X, targets, sample_weight, build, prepare, mode, callbacks, eval_set, work):
    """Hold data out, build the runs, run them and keep the model.

    ``targets``, ``build``, ``prepare`` and ``work`` are those of ``inputs.TrainingData``
    (``work`` is kept so a warm start runs on the same threads).
    """
    signs, encoded = targets
    for fitted in ("code_", "code_distance_", "threshold_", "thresholds_"):
        est.__dict__.pop(fitted, None)
    train, held, stopping, folds = held_out(est, X, targets, sample_weight, prepare,
                                            eval_set)
    main = new_run(est, build, train, targets, sample_weight, mode, held, stopping)
    est.smoothing_ = main["run"].smoothing
    checkpoints = [c for c in callbacks if isinstance(c, Checkpoint)]
    if len(checkpoints) > 1:
        raise ValueError("callbacks hold more than one Checkpoint")
    if checkpoints:  # the main run's state, bound to its data and parameters
        run = main["run"]
        rows = slice(None) if train is None else train
        params = {key: value for key, value in est.get_params().items()
                  if key not in ("n_estimators", "n_jobs", "verbose")}
        checkpoints[0].bind(run_fingerprint(*dataset_parts(run.dataset), signs[rows],
                                            sample_weight[rows], params, run.smoothing),
                            {"thresholds": getattr(run.scheme, "thresholds", [])})
    fold_build = rows_builder(build, main["run"].dataset)  # binned once
    state = {"n_samples": signs.shape[0], "main": main, "stopping": stopping,
             "work": work, "checkpoint": checkpoints[0] if checkpoints else None,
             "folds": [{**new_run(est, fold_build, rows, targets, sample_weight, mode,
                                  None, False), "held": held_part}
                       for rows, held_part in folds or ()]}
    resume(est, state, None, callbacks)


def new_run(est, build, rows, targets, sample_weight, mode, held, stopping):
    """A ``BoostingRun`` on ``rows`` (None: all) with its scheme's callbacks and, when
    ``held`` is given, the ``ValidationRecord`` of those held-out examples."""
    signs, encoded = targets
    if rows is not None:
        signs, sample_weight = signs[rows], sample_weight[rows]
        encoded = None if encoded is None else encoded[rows]
    scheme = _scheme(est, signs, encoded, sample_weight)
    k = scheme.labels.n_labels
    smoothing = (default_smoothing(sample_weight, k) if est.smoothing == "auto"
                 else float(est.smoothing))
    if (est.smoothing == "auto" and scheme.name == "mr" and est.alpha == "auto"
            and est.trim == 0 and mode in (REAL, REAL_ABSTAIN)):
        smoothing = pair_smoothing(smoothing)
    # Trimmed real confidences fit only the kept examples, so α = 1 is no longer the
    # minimiser of Z_t over all of them: find it (§3.2), which keeps Z_t <= 1.
    alpha_method = ("exact" if est.trim > 0 and est.alpha == "auto"
                    and mode in (REAL, REAL_ABSTAIN) else est.alpha)
    dataset = build(rows, sample_weight)
    learner = make_learner(est.weak_learner_, dataset, mode, smoothing, trim=float(est.trim),
                           n_terms=int(est.product_terms), **est._tree_params())
    run = BoostingRun(dataset, scheme, learner, alpha_method, mode, smoothing,
                      float(est.learning_rate))
    # each round's training cover, which the explanations average over (explain.py)
    cover_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    unit = bool((cover_weight == 1.0).all())
    part = {"run": run, "record": None, "held": held,
            "thresholds": getattr(scheme, "thresholds", None),  # MR on multi-label data
            "callbacks": [lambda round_index, record: record_cover(record["fit"],
                                                                   cover_weight, unit)]}
    if held is not None:
        part["record"] = ValidationRecord(
            held["X"], k, validation_score(est, part, held),
            est.n_iter_no_change if stopping else None, float(est.tol))
        part["callbacks"].append(part["record"])
    return part


def _scheme(est, signs, encoded, sample_weight):
    """The scheme's training state on these examples (``schemes.build_scheme``); every run
    of a fit shares the first run's MO code."""
    scheme, code = build_scheme(est.scheme, signs, encoded, est._multilabel, sample_weight,
                                init=est.init, code=getattr(est, "code_", est.code),
                                code_length=None if hasattr(est, "code_") else est.code_length,
                                decoding=est.decoding,
                                random_state=est.random_state)
    if code is not None and not hasattr(est, "code_"):
        est.code_, est.code_distance_ = code, min_distance(code)
    return scheme


def _outputs(est, part, n_rounds):
    """The scheme's outputs for the first ``n_rounds`` rounds of ``part``'s run."""
    thresholds = part["thresholds"]
    return scheme_outputs(est.scheme, est.classes_, est._multilabel,
                          getattr(est, "code_", None), est.decoding,
                          None if not thresholds else np.asarray(thresholds[:n_rounds]))


def validation_score(est, part, held):
    """``score(scores, round_index)`` for the held-out examples: minus the scheme's own
    loss (``scoring="loss"``: the one its theorem bounds), minus its exponential loss
    (``"exponential"``), or a scikit-learn scorer of the model so far."""
    if est.scoring in ("loss", "exponential"):
        # the held-out examples as a scheme of their own (error, Hamming or ranking loss)
        judge = _scheme(est, held["signs"], held["encoded"], held["weight"])

        def loss(scores, round_index):
            if est.scoring == "exponential":
                return -judge.exponential_loss(judge.labels.signs, scores, held["weight"])
            return -judge.loss_of(scores)
        return loss
    from sklearn.metrics import check_scoring

    scorer = check_scoring(est, scoring=est.scoring)

    def score(scores, round_index):
        view = copy.copy(est)
        set_rounds(view, part, round_index + 1)
        view.calibrator_ = fit_calibration(view, [part], round_index + 1, scores)
        return scorer(view, held["raw"], held["y"])
    return score


def set_rounds(est, part, n_rounds):
    """Keep the first ``n_rounds`` rounds of a run as the model."""
    run = part["run"]
    est.model_ = BoostedModel(run.hypotheses[:n_rounds], run.alphas[:n_rounds],
                               run.scheme.labels.n_labels)
    est.n_estimators_ = n_rounds
    if part["thresholds"]:
        est.thresholds_ = np.asarray(part["thresholds"][:n_rounds], dtype=np.float64)
        est.threshold_ = float(est.thresholds_[-1])


def fit_calibration(est, parts, n_rounds, scores=None):
    """The ``Calibrator`` fitted on f of held-out examples after (at most) ``n_rounds``
    rounds of each run in ``parts`` (pooled); None without calibration.

    ``scores``: f of the single part's held-out examples, when the caller has it.
    """
    if est.calibration is None or not parts:
        return None
    from confboost.training.calibration import fit_calibrator  # SciPy's optimiser: only when used

    logits, targets, weights = [], [], []
    for part in parts:
        run, held = part["run"], part["held"]
        rounds = min(n_rounds, len(run.hypotheses))
        if scores is None or len(parts) > 1:
            scores = BoostedModel(run.hypotheses[:rounds], run.alphas[:rounds],
                                  run.scheme.labels.n_labels).decision_function(held["X"])
        g, kind = _outputs(est, part, rounds).logits(scores)
        logits.append(g)
        targets.append(held["encoded"] if kind == "softmax" else held["signs"] > 0)
        weights.append(held["weight"])
    return fit_calibrator(np.concatenate(logits), np.concatenate(targets), kind,
                          np.concatenate(weights))


def carried_calibration(est, main, folds, n_rounds):
    """The temperature fitted on the short calibration runs' held-out f, carried to the
    main run's ``n_rounds`` (``calibration.carry_slope``); None without calibration."""
    short = min(len(fold["run"].hypotheses) for fold in folds) if folds else 0
    calibrator = fit_calibration(est, folds, short)
    if calibrator is None:
        return None
    run, k = main["run"], main["run"].scheme.labels.n_labels
    short = min(short, n_rounds)
    first = BoostedModel(run.hypotheses[:short], run.alphas[:short], k)
    rest = BoostedModel(run.hypotheses[short:n_rounds], run.alphas[short:n_rounds], k)
    logits = ([], [])
    for fold in folds:  # the main run's f on the held-out examples, after both
        scores = first.decision_function(fold["held"]["X"])
        logits[0].append(_outputs(est, main, short).logits(scores)[0])
        scores += rest.decision_function(fold["held"]["X"])
        logits[1].append(_outputs(est, main, n_rounds).logits(scores)[0])
    return carry_slope(calibrator, np.concatenate(logits[0]), np.concatenate(logits[1]))


def resume(est, state, X, callbacks):
    """Run (or, for ``warm_start``, continue) the runs of ``state`` up to
    ``n_estimators`` rounds and keep the model (cut at the best round when stopping)."""
    main = state["main"]
    if X is not None:
        n = X.shape[0] if hasattr(X, "shape") else len(next(iter(X.values())))
        if n != state["n_samples"]:
            raise ValueError(f"warm_start continues the first fit's run, on its "
                             f"{state['n_samples']} examples; X has {n} rows (set "
                             "warm_start=False to start afresh)")
        if est.n_estimators < len(main["run"].hypotheses):
            raise ValueError(f"n_estimators={est.n_estimators} must be at least the "
                             f"{len(main['run'].hypotheses)} rounds already run when "
                             "warm_start=True")
    folds, short = state["folds"], calibration_rounds(est.n_estimators)
    printer = ProgressPrinter(  # every round the fit runs, calibration runs included
        max(est.n_estimators - len(main["run"].hypotheses), 0)
        + sum(max(short - len(fold["run"].hypotheses), 0) for fold in folds), est.verbose)
    callbacks = [c for c in callbacks if not isinstance(c, Checkpoint)]
    main["run"].run(est.n_estimators, [printer, *callbacks, *main["callbacks"]],
                    state["checkpoint"])
    tuners = [c for c in callbacks if isinstance(c, ThreadTuner)]  # fit's threads
    for number, fold in enumerate(folds, 1):  # only their f on held-out data is read
        fold["run"].run(short, [printer.labelled(f"calibration {number}/{len(folds)}"),
                                *tuners])
    printer.close()
    run, record = main["run"], main["record"]
    history = run.history
    keep = len(run.hypotheses)
    est.best_iteration_ = None
    if record is not None:
        history["validation_score"] = np.asarray(record.values, dtype=np.float64)
        est.best_iteration_ = record.best_round()
        if state["stopping"]:
            keep = est.best_iteration_
    calibrator = (fit_calibration(est, [main], keep) if record is not None
                  else carried_calibration(est, main, folds, keep))
    set_rounds(est, main, keep)
    est.calibrator_ = calibrator
    est.history_ = history
    est._warm = state if est.warm_start else None
    return est
