"""``confboost train``: boost on a stem, one icsiboost line per round, write the model.

Owns ``train_command`` and what only training needs: the per-round printer (``wh-err`` is
icsiboost's unsmoothed objective of the weak learner, ``weak_objective``; ``th-err`` the
running product), the confidence and learner options, AdaBoost.MO's one-class-per-example
check, and icsiboost's ``--interruptible`` / ``--resume`` (a ``Checkpoint`` at
``STEM.checkpoint``, which keeps each round's ``wh-err``: a resumed run prints and chooses
as the uninterrupted one). See ``boostexter_commands.py`` for the format of the lines.
"""

import sys
from pathlib import Path

import numpy as np

from confboost.cli import icsiboost_flags as icsi
from confboost.cli.stems import (
    MODEL_SUFFIX,
    _class_index,
    _class_scores,
    _feature_types,
    _path,
    _read_optional,
    _save_model,
    _single_label,
    _spec,
    _truncate,
    icsiboost_error,
)
from confboost.data.text_values import TextValues
from confboost.engine.boosting import best_round
from confboost.engine.callbacks import TrainingCallback
from confboost.engine.schemes.mh import MHScheme
from confboost.formats.boostexter import read_data
from confboost.training.params import MIN_SMOOTHING
from confboost.utils.files import check_writable


def _return_free_memory():
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing
    elsewhere).

    Reading a data file and building its term postings free many small blocks that the
    heap keeps: after reading 720,000 lines the process holds some 160 MB that nothing uses.
    The command calls this between its stages, so that the run's peak is what it uses.
    """
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return
    trim(0)


def weak_objective(fit):
    """icsiboost's ``wh-err``: the weak learner's unsmoothed objective of the round.

    ``2 Σ_j Σ_l √(W+[j, l] W-[j, l])`` over the hypothesis's blocks, plus ``W+ + W-`` of a
    block that abstains (its values all 0: ``2√(W+ W-)`` equals that when ``W+ = W-``),
    under the round's weights normalised to sum 1 (Schapire & Singer 1999, Eq. 10 without the
    smoothing of §4.2). Its running product is ``th-err``.
    """
    pos, neg = np.asarray(fit.weight_pos), np.asarray(fit.weight_neg)
    total = float(pos.sum() + neg.sum())
    abstains = np.all(np.asarray(fit.hypothesis.values) == 0, axis=1)
    # icsiboost adds √(W+ W-) where the product is positive: a mass that icsiboost's
    # subtractions left a rounding error below 0 counts as 0
    value = 2.0 * np.sqrt(np.maximum(pos[~abstains] * neg[~abstains], 0.0)).sum() + (
        pos[abstains].sum() + neg[abstains].sum())
    return float(value / total) if total > 0 else 1.0


#: Training rows the round printer reads at a time.
_ROWS_AT_ONCE = 65536


def _errors(labels, scores, order, single_label):
    """icsiboost's errors among some training rows: single-label, the rows whose first top
    class (``np.argmax`` over the classes in the run's ``order``; a NaN tops) is not theirs;
    else the rows with a label whose score's sign is wrong."""
    if single_label:
        best, top = scores[:, order[0]].copy(), np.zeros(scores.shape[0], dtype=np.intp)
        for j in range(1, order.shape[0]):
            column = scores[:, order[j]]
            higher = (column > best) | (np.isnan(column) & ~np.isnan(best))
            best[higher], top[higher] = column[higher], j
        return int(np.count_nonzero(labels[np.arange(labels.shape[0]), top] == 0))
    truth = np.empty(labels.shape, dtype=bool)  # the labels in the run's class order
    truth[:, order] = labels > 0
    return int(np.count_nonzero(((scores > 0) != truth).any(axis=1)))


class WeakObjectives(TrainingCallback):
    """Each round's ``wh-err`` (``weak_objective``), kept beside the run.

    It runs before the checkpoint (a lower ``order``), so a checkpoint saves the round's
    value with the round (``Checkpoint(per_round=...)``) and a resume puts the list back.
    """

    order = -200

    def __init__(self):
        self.values = []

    def after_iteration(self, env):
        self.values.append(weak_objective(env.record["fit"]))
        return False


class RoundPrinter(TrainingCallback):
    """The per-round line of icsiboost, following the model on train, dev and test.

    A resumed run prints the rounds it runs; the rounds a checkpoint brought back are
    replayed first, silently, so ``th-err``, the scores and the measures
    ``--optimal-iterations`` chooses from are the uninterrupted run's. It runs before the
    checkpoint (a lower ``order``): a round's line is printed before the round is saved, so
    a kill between the two prints the round again on resume rather than never.
    """

    order = -150

    def __init__(self, estimator, train, dev, test, single_label, fmeasure_class, stream,
                 objectives):
        self.estimator = estimator
        self.sets = {"train": train, "dev": dev, "test": test}
        self.single_label = single_label
        self.fmeasure_class = fmeasure_class
        self.stream = stream
        self.objectives = objectives
        self.frames = {}
        self.scores = {}
        self.product = 1.0
        self.measures = {"dev": [], "test": []}
        self.thresholds = {"dev": [], "test": []}
        self.n_added = 0  # rounds in the scores and measures
        self.run_scores = None  # the run's own training scores, when shared

    def _train_measure(self):
        """The training part of the line, from the run's own scores (the run's class order)
        with no reordered (n, k) copy of them: the same number as ``_measure``'s."""
        labels, scores = self.sets["train"].labels, self.run_scores
        order = getattr(self.estimator, "class_order_", None)
        if (self.fmeasure_class is not None or scores.shape[1] != labels.shape[1]
                or not self.estimator._multilabel and scores.shape[1] == 1):
            return self._measure("train", scores)[0]
        order = np.arange(labels.shape[1]) if order is None else np.asarray(order)
        errors = 0  # counted a slice of rows at a time: no (n, k) nor (n,) temporaries
        for start in range(0, labels.shape[0], _ROWS_AT_ONCE):
            rows = slice(start, start + _ROWS_AT_ONCE)
            errors += _errors(labels[rows], scores[rows], order, self.single_label)
        return errors / labels.shape[0]

    def _measure(self, name, scores):
        labels = self.sets[name].labels
        scores = _class_scores(self.estimator, scores)
        if self.fmeasure_class is None:
            return icsiboost_error(labels, scores, self.single_label), None
        from confboost.evaluation.fmeasure import max_fmeasure

        return max_fmeasure(labels[:, self.fmeasure_class], scores[:, self.fmeasure_class]), None

    def before_training(self, env):
        """Read the fit's classes and encoder from the estimator being fitted (a training
        callback, ``engine/callbacks.py``); share the run's training scores where its scheme
        keeps them as this printer would (``dispose_training_texts``)."""
        self.estimator = env.estimator
        scheme = env.run.scheme
        train = self.sets["train"]
        if isinstance(scheme, MHScheme) and scheme.scores.shape[0] == len(train.line_numbers):
            # f on the training rows, the same sums (f += α v[block], round by round): the
            # printer keeps no copy, and needs no training texts (their postings are built)
            self.run_scores = scheme.scores
        _return_free_memory()  # what building the postings freed
        return False

    def dispose_training_texts(self, scheme):
        """Mark the training texts ``disposable`` (the fit releases each one once its term
        postings are built) where this printer will read the training part from the run's
        own scores: a run of AdaBoost.MH on every training row, as the command's are."""
        if scheme == "mh":
            for values in self.sets["train"].columns.values():
                if isinstance(values, TextValues):
                    values.disposable = True

    def _replay(self, run, n_rounds):
        """Add, silently, the run's rounds before ``n_rounds`` not added yet: those a
        checkpoint restored (after this callback's ``before_training``)."""
        for index in range(self.n_added, n_rounds):
            self._add_round(index, run.hypotheses[index], run.records["alpha"][index], None)

    def after_training(self, env):
        """Replay the restored rounds of a run that had no round left to run."""
        self._replay(env.run, len(env.run.hypotheses))

    def _add_round(self, round_index, hypothesis, alpha, train_blocks, live=False):
        """Add round ``round_index`` to th-err, the scores and the measures; the parts of
        its line by set (None for a set not given). ``train_blocks``: the training rows'
        blocks when the fit has them (None: computed from the training columns); ``live``:
        the round just run (not one replayed)."""
        n_labels = hypothesis.values.shape[1]
        self.product *= self.objectives[round_index]
        self.n_added = round_index + 1
        parts = {}
        for name, data in self.sets.items():
            if data is None:
                parts[name] = None
                continue
            if name == "train" and self.run_scores is not None:
                # the run's scores are at the round just run: a replayed round has no
                # training part (its line is not printed)
                parts[name] = self._train_measure() if live else None
                continue
            if name not in self.scores:
                self.scores[name] = np.zeros((len(data.line_numbers), n_labels))
            if name == "train" and train_blocks is not None:
                blocks = train_blocks
            else:
                if name not in self.frames:
                    self.frames[name] = self.estimator.encoder_.transform(data.columns)
                blocks = hypothesis.blocks(self.frames[name])
            self.scores[name] += alpha * hypothesis.block_outputs(blocks)
            parts[name] = self._measure(name, self.scores[name])[0]
        for name in ("dev", "test"):
            if parts[name] is not None:
                value = parts[name] if self.fmeasure_class is None else parts[name][0]
                threshold = None if self.fmeasure_class is None else parts[name][1]
                self.measures[name].append(value)
                self.thresholds[name].append(threshold)
        return parts

    def after_iteration(self, env):
        round_index, record = env.round_index, env.record
        fit = record["fit"]
        self._replay(env.run, round_index)
        parts = self._add_round(round_index, fit.hypothesis, record["alpha"], fit.train_blocks,
                                live=True)
        line = (f"rnd {round_index + 1}: wh-err= {self.objectives[round_index]:f} "
                f"th-err= {self.product:f}")
        for name in ("dev", "test", "train"):
            part = parts[name]
            if self.fmeasure_class is None:
                line += f" {name}= {np.nan if part is None else part:f}"
            elif part is None:
                line += f" {name}= {np.nan:f} (R=nan, P=nan)"
            else:
                line += f" {name}= {part[0]:f} (R={part[2]:.3f}, P={part[3]:.3f})"
        print(line, file=self.stream, flush=True)
        return False


def _confidence(arguments, spec, train):
    """--confidence, or real-abstain for icsiboost's --abstaining-stump / --no-unknown-stump.

    confboost's real-abstain abstains on both an absent term and a missing continuous value;
    each icsiboost flag on its own is that only where the other kind of block cannot occur.
    """
    abstaining, no_unknown = arguments.abstaining_stump, arguments.no_unknown_stump
    if not (abstaining or no_unknown):
        return arguments.confidence
    kinds = {column.kind for column in spec.columns}
    if abstaining and not no_unknown and any(
            np.isnan(train.columns[c.name]).any() for c in spec.columns
            if c.kind == "continuous"):
        raise ValueError("--abstaining-stump without --no-unknown-stump: a continuous column "
                         "has missing values, which confboost's abstaining mode also "
                         "abstains on; give both flags")
    if no_unknown and not abstaining and kinds & {"text", "categorical"}:
        raise ValueError("--no-unknown-stump without --abstaining-stump: the data has text or "
                         "set columns, which confboost's abstaining mode also abstains on; "
                         "give both flags")
    return "real-abstain"


def _learner_options(arguments):
    """``BoostClassifier``'s learner and AdaBoost.MO options from ``train``'s flags (the
    ``icsiboost`` command has none of them: the defaults)."""
    learner = getattr(arguments, "weak_learner", "stump")
    return {"weak_learner": learner,
            # icsiboost's stumps try every threshold of a continuous column
            "max_bins": None if learner == "stump" else 255,
            "max_leaves": getattr(arguments, "max_leaves", 8),
            "learning_rate": getattr(arguments, "learning_rate", 1.0),
            "code": getattr(arguments, "code", "random"),
            "code_length": getattr(arguments, "code_length", None),
            "decoding": getattr(arguments, "decoding", "loss"),
            "random_state": getattr(arguments, "seed", 0)}


def _one_class_each(data, spec, path):
    """AdaBoost.MO's y: each example's one class index; ValueError naming the first line
    with another number of labels, or a class without an example."""
    counts = data.labels.sum(axis=1)
    wrong = np.flatnonzero(counts != 1)
    if wrong.size:
        row = int(wrong[0])
        raise ValueError(f"{path}:{data.line_numbers[row]}: --scheme mo needs exactly one "
                         f"label per example; this one has {int(counts[row])}")
    classes = np.argmax(data.labels, axis=1)
    absent = [spec.classes[c] for c in range(len(spec.classes)) if not (classes == c).any()]
    if absent:
        raise ValueError(f"{path}: --scheme mo needs an example of every class; none of "
                         f"{', '.join(absent)}")
    return classes


def _checkpoint(arguments, objectives):
    """icsiboost's --interruptible / --resume: a ``Checkpoint`` at STEM.checkpoint saved every
    round with each round's ``wh-err`` (``objectives``), or None. Without --resume a run
    starts over (an old checkpoint is removed); with it, the run continues from the
    checkpoint, which must exist."""
    interruptible = getattr(arguments, "interruptible", False)
    resume = getattr(arguments, "resume", False)
    if not (interruptible or resume):
        return None
    from confboost.training.checkpoint import Checkpoint

    path = Path(str(arguments.stem) + ".checkpoint")
    if resume and not path.exists():
        raise ValueError(f"{path}: no checkpoint to resume from (a run with --interruptible "
                         "writes it)")
    if not resume:
        path.unlink(missing_ok=True)
    return Checkpoint(path, every=1, per_round={"wh_err": objectives})


def train_command(arguments):
    # the estimator without scikit-learn: a run imports none of it
    from confboost.cli.icsiboost_booster import IcsiboostBooster

    spec = _spec(arguments)
    fmeasure_class = _class_index(spec, arguments.max_fmeasure)
    train_path = _path(arguments, ".data")
    train = read_data(train_path, spec, single=True)  # numbers as icsiboost reads them
    if len(train.line_numbers) == 0:
        raise ValueError(f"{train_path}: no training examples")
    dev = _read_optional(arguments, ".dev", spec)
    test = _read_optional(arguments, ".test", spec)
    _return_free_memory()  # what reading the lines freed
    if arguments.dryrun:
        print(f"{train_path}: {len(train.line_numbers)} examples; the files read without "
              "error (--dryrun: nothing trained)", file=sys.stderr)
        return 0
    if arguments.optimal_iterations and dev is None and test is None:
        raise ValueError("--optimal-iterations needs STEM.dev (or STEM.test) to choose the round")
    experts = icsi.experts(spec, arguments)
    k = len(spec.classes)
    smoothing = ("auto" if arguments.smoothing is None
                 else arguments.smoothing / (len(train.line_numbers) * k))
    if smoothing != "auto" and smoothing < MIN_SMOOTHING:
        raise ValueError(f"-E {arguments.smoothing}: too small, ε = E / (examples × classes) "
                         f"must be at least {MIN_SMOOTHING:g}")
    estimator = IcsiboostBooster(
        n_estimators=arguments.rounds or 10, scheme=arguments.scheme,
        confidence=_confidence(arguments, spec, train), alpha=arguments.alpha,
        smoothing=smoothing, n_jobs=arguments.jobs, feature_types=_feature_types(spec),
        text_expert=experts or None, calibration=None, early_stopping=False,
        **_learner_options(arguments))
    output = arguments.output or str(arguments.stem) + MODEL_SUFFIX
    objectives = WeakObjectives()
    checkpoint = _checkpoint(arguments, objectives.values)
    for path in (output, arguments.model, checkpoint and checkpoint.path):
        if path:
            check_writable(path)  # before training, not after
    single_label = _single_label(train.labels)
    targets = train.labels
    if arguments.scheme == "mo":
        targets = _one_class_each(train, spec, train_path)
    printer = RoundPrinter(estimator, train, dev, test, single_label, fmeasure_class,
                           sys.stdout, objectives.values)
    printer.dispose_training_texts(arguments.scheme)
    estimator.fit(train.columns, targets,
                  callbacks=[objectives, printer] + ([checkpoint] if checkpoint else []))
    every_round = estimator.model_
    best = None
    if arguments.optimal_iterations:
        chosen = "dev" if dev is not None else "test"
        measures = np.asarray(printer.measures[chosen])
        best = best_round(measures, greater_is_better=fmeasure_class is not None)
        _truncate(estimator, best)
        what = "max_fmeasure" if fmeasure_class is not None else "error"
        line = f"OPTIMAL ITERATIONS: {best}, {what} = {measures[best - 1]:f}"
        if fmeasure_class is not None:
            line += f", threshold = {printer.thresholds[chosen][best - 1]:f}"
        print(line, flush=True)
    shyp = arguments.model if arguments.model and arguments.model.endswith(".shyp") else None
    if arguments.model and not shyp:
        output = arguments.model
    # the model is written first, whatever may fail after it
    _save_model(estimator, output, spec, single_label)
    print(f"model: {output} ({len(estimator.model_)} rounds)", file=sys.stderr)
    if shyp:
        from confboost.formats.shyp import export_shyp

        try:
            # icsiboost's layout: every round, the best count at the top
            export_shyp(shyp, every_round, estimator.encoder_, spec, loaded=best,
                        scheme=estimator.scheme)
        except (ValueError, OSError) as error:
            raise ValueError(f"training finished and its model is saved in {output}, but "
                             f"{shyp} could not be written: {error}") from None
        print(f"model: {shyp} (.shyp)", file=sys.stderr)
    return 0
