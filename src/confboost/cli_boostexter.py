"""The BoosTexter / icsiboost commands of ``confboost``: train, test, classify, shyp, icsiboost.

An icsiboost user's ``STEM.names`` / ``STEM.data`` (and ``STEM.dev``, ``STEM.test``) train with
the same command line (``confboost train -S STEM -n 100 -W 2 -N ngram``, or ``confboost
icsiboost`` with icsiboost's arguments unchanged) and print one line per round in icsiboost's
format::

    rnd 1: wh-err= 0.861304 th-err= 0.861304 dev= nan test= 0.230000 train= 0.180000

``wh-err`` is icsiboost's: the weak learner's unsmoothed objective (``weak_objective``) and
``th-err`` the running product of those. ``dev``, ``test`` and ``train`` are errors on
STEM.dev, STEM.test and the training data (``nan`` when the file is absent): the error of the
top-scored class when every training example has one label, otherwise the fraction of
examples with any label wrong (sign of f), as icsiboost computes them. With ``--max-fmeasure
CLASS`` they are the best F1 of that class over thresholds, with its recall and precision.
Text is handled as icsiboost does unless ``--text confboost`` (``cli_icsiboost.py``, which
also owns icsiboost's other flags).

Models are confboost JSON (``STEM.model.json``); ``export-shyp`` and ``import-shyp`` convert
to and from icsiboost's ``.shyp`` (``formats/shyp.py``), and ``classify`` reads a ``.shyp``
directly. Every command reads ``STEM.names`` for the columns and classes, as icsiboost does.
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.special import expit

from confboost import cli_icsiboost as icsi
from confboost.boosting import best_round
from confboost.criterion import MODES
from confboost.data.columns import FrameEncoder
from confboost.formats.boostexter import BoosTexterFormatError, read_data, read_names
from confboost.learners import LEARNERS
from confboost.model import BoostedModel
from confboost.persistence import check_writable, load_document, save_estimator
from confboost.schemes.mo import CODES, DECODINGS

MODEL_SUFFIX = ".model.json"


# ----------------------------------------------------------------------------- helpers

def _feature_types(spec):
    return {column.name: column.kind for column in spec.columns if column.kind != "ignore"}


def _encoder(spec, experts):
    """The ``FrameEncoder`` of the non-ignored columns of a ``.names`` spec."""
    columns = [column for column in spec.columns if column.kind != "ignore"]
    return FrameEncoder([c.name for c in columns], [c.kind for c in columns],
                        {p: experts[c.name] for p, c in enumerate(columns) if c.kind == "text"})


def _stem_file(stem, suffix):
    return Path(str(stem) + suffix)


def _path(arguments, suffix):
    """The file of ``suffix`` (.names, .data, .dev, .test): its option, else STEM.suffix."""
    option = {".names": "names", ".data": "train_file", ".dev": "dev_file",
              ".test": "test_file"}[suffix]
    given = getattr(arguments, option, None)
    return Path(given) if given else _stem_file(arguments.stem, suffix)


def _spec(arguments):
    """The ``.names`` of the command: its file, --text's settings, --ignore/--only applied."""
    spec = read_names(_path(arguments, ".names"), icsi.text_defaults(arguments))
    return icsi.select_columns(spec, arguments)


def _read_optional(arguments, suffix, spec):
    path = _path(arguments, suffix)
    if getattr(arguments, suffix[1:] + "_file", None) and not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    return read_data(path, spec, unknown_values="missing") if path.exists() else None


def _single_label(labels):
    return bool(np.all(labels.sum(axis=1) == 1))


def icsiboost_error(labels, scores, single_label):
    """icsiboost's error: argmax error on single-label data, else any-label-wrong error."""
    if single_label:
        top = np.argmax(scores, axis=1)
        return float(np.mean(labels[np.arange(labels.shape[0]), top] == 0))
    wrong = (scores > 0) != (labels > 0)
    return float(np.mean(wrong.any(axis=1)))


def _load_model(path, spec):
    from confboost.estimators import load

    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such model file (train one with `confboost train`)")
    estimator = load(path)
    classes = load_document(path).get("boostexter", {}).get("classes")
    if classes is not None and classes != spec.classes:
        raise ValueError(f"{path}: the model's classes {classes} differ from the .names "
                         f"classes {spec.classes}")
    if not hasattr(estimator, "encoder_"):
        raise ValueError(f"{path}: not a model of a .names/.data data set")
    names = [column.name for column in spec.columns if column.kind != "ignore"]
    if estimator.encoder_.names != names:
        raise ValueError(f"{path}: the model's columns {estimator.encoder_.names} differ from "
                         f"the .names columns {names}")
    return estimator


def _save_model(estimator, path, spec):
    save_estimator(estimator, path, extra={"boostexter": {"classes": list(spec.classes)}})


def _truncate(estimator, rounds):
    if rounds is not None and rounds < len(estimator.model_):
        model = estimator.model_
        estimator.model_ = BoostedModel(model.hypotheses[:rounds], model.alphas[:rounds],
                                        model.n_labels)
        estimator.history_ = {key: value[:rounds] for key, value in estimator.history_.items()}
        estimator.n_estimators_ = rounds


def _class_index(spec, name):
    if name is None:
        return None
    if name not in spec.classes:
        raise ValueError(f"--max-fmeasure: {name!r} is not a class of the .names file "
                         f"({', '.join(spec.classes)})")
    return spec.classes.index(name)


# ----------------------------------------------------------------------------- train

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
    value = 2.0 * np.sqrt(pos[~abstains] * neg[~abstains]).sum() + (
        pos[abstains].sum() + neg[abstains].sum())
    return float(value / total) if total > 0 else 1.0


class RoundPrinter:
    """The per-round line of icsiboost, following the model on train, dev and test."""

    def __init__(self, estimator, train, dev, test, single_label, fmeasure_class, stream):
        self.estimator = estimator
        self.sets = {"train": train, "dev": dev, "test": test}
        self.single_label = single_label
        self.fmeasure_class = fmeasure_class
        self.stream = stream
        self.frames = {}
        self.scores = {}
        self.product = 1.0
        self.measures = {"dev": [], "test": []}
        self.thresholds = {"dev": [], "test": []}

    def _measure(self, name, scores):
        labels = self.sets[name].labels
        scores = _class_scores(self.estimator, scores)
        if self.fmeasure_class is None:
            return icsiboost_error(labels, scores, self.single_label), None
        from confboost.fmeasure import max_fmeasure

        return max_fmeasure(labels[:, self.fmeasure_class], scores[:, self.fmeasure_class]), None

    def __call__(self, round_index, record):
        fit, alpha = record["fit"], record["alpha"]
        values = alpha * fit.hypothesis.values
        k = values.shape[1]
        objective = weak_objective(fit)
        self.product *= objective
        parts = {}
        for name, data in self.sets.items():
            if data is None:
                parts[name] = None
                continue
            if name not in self.scores:
                self.scores[name] = np.zeros((len(data.line_numbers), k))
                if name != "train":
                    self.frames[name] = self.estimator.encoder_.transform(data.columns)
            if name == "train":
                self.scores[name] += values[fit.train_blocks]
            else:
                self.scores[name] += values[fit.hypothesis.blocks(self.frames[name])]
            parts[name] = self._measure(name, self.scores[name])[0]
        for name in ("dev", "test"):
            if parts[name] is not None:
                value = parts[name] if self.fmeasure_class is None else parts[name][0]
                threshold = None if self.fmeasure_class is None else parts[name][1]
                self.measures[name].append(value)
                self.thresholds[name].append(threshold)
        line = f"rnd {round_index + 1}: wh-err= {objective:f} th-err= {self.product:f}"
        for name in ("dev", "test", "train"):
            part = parts[name]
            if self.fmeasure_class is None:
                line += f" {name}= {np.nan if part is None else part:f}"
            elif part is None:
                line += f" {name}= {np.nan:f} (R=nan, P=nan)"
            else:
                line += f" {name}= {part[0]:f} (R={part[2]:.3f}, P={part[3]:.3f})"
        print(line, file=self.stream, flush=True)


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
    return {"weak_learner": getattr(arguments, "weak_learner", "stump"),
            "max_leaves": getattr(arguments, "max_leaves", 8),
            "learning_rate": getattr(arguments, "learning_rate", 1.0),
            "code": getattr(arguments, "code", "random"),
            "code_length": getattr(arguments, "code_length", None),
            "decoding": getattr(arguments, "decoding", "loss"),
            "random_state": getattr(arguments, "seed", 0)}


def _class_scores(estimator, scores, decoded=False):
    """One score per class, shape (n, k): AdaBoost.MO's f on its code bits decoded (unless
    ``decoded``), and the binary path's single f as [-f, f] (a 1-D y of two classes)."""
    if not decoded and getattr(estimator, "code_", np.zeros((0, 1))).shape[1] > 1:
        scores = estimator._outputs().decision_function(scores)  # AdaBoost.MO's decoder
    if scores.shape[1] == 1 and not estimator._multilabel:
        scores = np.column_stack([-scores[:, 0], scores[:, 0]])
    return scores


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


def train_command(arguments):
    from confboost.estimators import BoostClassifier

    spec = _spec(arguments)
    fmeasure_class = _class_index(spec, arguments.max_fmeasure)
    train_path = _path(arguments, ".data")
    train = read_data(train_path, spec)
    if len(train.line_numbers) == 0:
        raise ValueError(f"{train_path}: no training examples")
    dev = _read_optional(arguments, ".dev", spec)
    test = _read_optional(arguments, ".test", spec)
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
    estimator = BoostClassifier(
        n_estimators=arguments.rounds or 10, scheme=arguments.scheme,
        confidence=_confidence(arguments, spec, train), alpha=arguments.alpha,
        smoothing=smoothing, n_jobs=arguments.jobs, feature_types=_feature_types(spec),
        text_expert=experts or None, calibration=None, early_stopping=False,
        **_learner_options(arguments))
    output = arguments.output or str(arguments.stem) + MODEL_SUFFIX
    for path in (output, arguments.model):
        if path:
            check_writable(path)  # before training, not after
    single_label = _single_label(train.labels)
    targets = train.labels
    if arguments.scheme == "mo":
        targets = _one_class_each(train, spec, train_path)
    printer = RoundPrinter(estimator, train, dev, test, single_label, fmeasure_class,
                           sys.stdout)
    estimator.fit(train.columns, targets, callbacks=[printer])
    if arguments.optimal_iterations:
        chosen = "dev" if dev is not None else "test"
        measures = np.asarray(printer.measures[chosen])
        best = best_round(measures, greater_is_better=fmeasure_class is not None) - 1
        _truncate(estimator, best + 1)
        what = "max_fmeasure" if fmeasure_class is not None else "error"
        line = f"OPTIMAL ITERATIONS: {best + 1}, {what} = {measures[best]:f}"
        if fmeasure_class is not None:
            line += f", threshold = {printer.thresholds[chosen][best]:f}"
        print(line, flush=True)
    if arguments.model and arguments.model.endswith(".shyp"):
        from confboost.formats.shyp import export_shyp

        export_shyp(arguments.model, estimator.model_, estimator.encoder_, spec)
        print(f"model: {arguments.model} (.shyp)", file=sys.stderr)
    elif arguments.model:
        output = arguments.model
    _save_model(estimator, output, spec)
    print(f"model: {output} ({len(estimator.model_)} rounds)", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------- test

def test_command(arguments):
    from confboost import metrics
    from confboost.fmeasure import max_fmeasure, micro_f1, per_class_counts, precision_recall_f1

    stem = arguments.stem
    spec = read_names(_stem_file(stem, ".names"))
    fmeasure_class = _class_index(spec, arguments.max_fmeasure)
    estimator = _load_model(arguments.model or str(stem) + MODEL_SUFFIX, spec)
    _truncate(estimator, arguments.rounds)
    path = arguments.data or _stem_file(stem, ".test")
    data = read_data(path, spec, unknown_values="missing")
    if len(data.line_numbers) == 0:
        raise ValueError(f"{path}: no examples")
    labels = data.labels
    scores = estimator.decision_function(data.columns)
    scores = _class_scores(estimator, scores.reshape(len(labels), -1), decoded=True)
    predicted = scores > 0
    if estimator.scheme == "mo":  # one class per example: the decoded class is predicted
        predicted = np.eye(scores.shape[1], dtype=bool)[np.argmax(scores, axis=1)]
    single = _single_label(labels)
    print(f"{path}: {len(labels)} examples, {len(spec.classes)} classes, "
          f"{len(estimator.model_)} rounds")
    if single:
        print(f"error (top class, single-label): {icsiboost_error(labels, scores, True):.6f}")
    print(f"error (any label wrong, f > 0):  {icsiboost_error(labels, scores, False):.6f}")
    print(f"hamming loss:      {metrics.hamming_loss(labels, predicted):.6f}")
    has_label = labels.any(axis=1)
    if has_label.any():
        print(f"one-error:         {metrics.one_error(labels[has_label], scores[has_label]):.6f}")
        print(f"coverage:          {metrics.coverage(labels, scores):.6f}")
        print(f"average precision: {metrics.average_precision(labels, scores):.6f}")
    precision, recall, f1 = precision_recall_f1(labels, predicted)
    tp, fp, fn = per_class_counts(labels, predicted)
    print(f"micro F1: {micro_f1(labels, predicted):.6f}  macro F1: {float(np.mean(f1)):.6f}")
    width = max(len(name) for name in spec.classes)
    print(f"{'class':<{width}}  precision  recall     F1         tp     fp     fn")
    for l, name in enumerate(spec.classes):
        print(f"{name:<{width}}  {precision[l]:<9.6f}  {recall[l]:<9.6f}  {f1[l]:<9.6f}  "
              f"{tp[l]:<5d}  {fp[l]:<5d}  {fn[l]:<5d}")
    if fmeasure_class is not None:
        best, threshold, best_recall, best_precision = max_fmeasure(
            labels[:, fmeasure_class], scores[:, fmeasure_class])
        print(f"max F1 of {spec.classes[fmeasure_class]}: {best:.6f} at threshold "
              f"f > {threshold:.6f} (R={best_recall:.3f}, P={best_precision:.3f})")
    return 0


# ----------------------------------------------------------------------------- classify

_TEXT_OPTIONS = ("window", "expert", "cutoff", "drop", "no_unk", "text")


def _classify_estimator(arguments, spec):
    """The model classify reads: --model, else STEM.model.json, else icsiboost's STEM.shyp.

    A ``.shyp`` is imported with the text options given (as icsiboost reads its model). A
    confboost model keeps the experts it was trained with unless a text option is given,
    which then rules, as in icsiboost. Either way the term tests that cannot fire are warned
    about.
    """
    path = arguments.model
    if path is None:
        path = str(arguments.stem) + MODEL_SUFFIX
        shyp = str(arguments.stem) + ".shyp"
        if not Path(path).exists() and Path(shyp).exists():
            path = shyp
    if str(path).endswith(".shyp"):
        estimator = _imported_estimator(path, spec, arguments)
    else:
        estimator = _load_model(path, spec)
        if any(getattr(arguments, name, None) for name in _TEXT_OPTIONS):
            experts = icsi.experts(spec, arguments)
            estimator.encoder_ = _encoder(spec, experts)
    icsi.warn_unreachable_terms(estimator.model_, estimator.encoder_)
    return estimator


def classify_command(arguments):
    spec = _spec(arguments)
    estimator = _classify_estimator(arguments, spec)
    _truncate(estimator, arguments.rounds)
    source = sys.stdin if arguments.input in (None, "-") else None
    with tempfile.TemporaryDirectory() as directory:
        if source is not None:
            path = Path(directory) / "stdin"
            path.write_text(source.read(), encoding="utf-8")
            shown = "<stdin>"
        else:
            path = shown = arguments.input
        try:
            data = read_data(path, spec, labels_required=False, unknown_values="missing")
        except BoosTexterFormatError as error:
            raise ValueError(str(error).replace(str(path), shown, 1)) from None
    n = len(data.line_numbers)
    if n == 0:
        return 0
    scores = _class_scores(estimator, estimator.decision_function(data.columns).reshape(n, -1),
                           decoded=True)
    if arguments.posteriors:
        scores = expit(2.0 * scores)
    elif not arguments.raw:
        total = float(np.sum(estimator.model_.alphas))
        scores = scores / total if total != 0 else scores
    labels = (np.zeros((n, len(spec.classes)), dtype=int) if data.labels is None
              else data.labels)
    out = sys.stdout
    for row in range(n):
        out.write("".join(f"{v} " for v in labels[row])
                  + " ".join(f"{value:.12f}" for value in scores[row]) + "\n")
    out.flush()
    return 0


# ----------------------------------------------------------------------------- shyp

def export_shyp_command(arguments):
    from confboost.formats.shyp import export_shyp

    stem = arguments.stem
    spec = read_names(_stem_file(stem, ".names"))
    estimator = _load_model(arguments.model or str(stem) + MODEL_SUFFIX, spec)
    output = arguments.output or str(stem) + ".shyp"
    export_shyp(output, estimator.model_, estimator.encoder_, spec)
    print(f"wrote {output} ({len(estimator.model_)} hypotheses)", file=sys.stderr)
    return 0


def _imported_estimator(source, spec, arguments):
    """A BoostClassifier holding the model of a ``.shyp`` file, read with the text options."""
    from confboost.estimators import BoostClassifier
    from confboost.formats.shyp import import_shyp

    experts = icsi.experts(spec, arguments)
    encoder = _encoder(spec, experts)
    if not Path(source).exists():
        raise FileNotFoundError(f"{source}: no such .shyp file")
    model = import_shyp(source, encoder, spec)
    estimator = BoostClassifier(n_estimators=max(len(model), 1),
                                feature_types=_feature_types(spec), text_expert=experts or None)
    estimator.classes_ = np.arange(len(spec.classes))
    estimator._multilabel = True
    estimator.n_features_in_ = len(encoder.names)
    estimator.feature_names_in_ = np.asarray(encoder.names, dtype=object)
    estimator.smoothing_ = 0.0
    estimator.history_ = {}
    estimator.model_ = model
    estimator.encoder_ = encoder
    estimator.n_estimators_ = len(model)
    return estimator


def import_shyp_command(arguments):
    spec = _spec(arguments)
    source = arguments.shyp or str(arguments.stem) + ".shyp"
    estimator = _imported_estimator(source, spec, arguments)
    icsi.warn_unreachable_terms(estimator.model_, estimator.encoder_)
    output = arguments.output or str(arguments.stem) + MODEL_SUFFIX
    _save_model(estimator, output, spec)
    print(f"wrote {output} ({len(estimator.model_)} hypotheses)", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------- parsers

def add_commands(commands, schemes):
    """Add train, test, classify, export-shyp, import-shyp and icsiboost to a subparsers."""
    train = commands.add_parser(
        "train", help="boost on STEM.data, one line per round (icsiboost's command line)",
        description="Boost on STEM.names / STEM.data; print icsiboost's 'rnd N: wh-err= .. "
                    "th-err= .. dev= .. test= .. train= ..' per round (STEM.dev and STEM.test "
                    "are used when they exist) and write the model (JSON; --model X.shyp "
                    "also writes icsiboost's .shyp).")
    icsi.add_icsiboost_arguments(train, icsi.REFUSED + ("-C",))
    _train_arguments(train, schemes)
    train.set_defaults(handler=train_command)

    test = commands.add_parser(
        "test", help="evaluate a model on STEM.test",
        description="Error, Hamming loss, one-error, coverage, average precision, and "
                    "per-class precision / recall / F1 of a model on STEM.test.")
    icsi.add_stem_argument(test)
    test.add_argument("-m", "--model", help="model file (default: STEM.model.json)")
    test.add_argument("--data", help="labelled file to evaluate on (default: STEM.test)")
    test.add_argument("-n", dest="rounds", type=icsi.positive_int,
                      help="use only the first ROUNDS")
    test.add_argument("--max-fmeasure", metavar="CLASS",
                      help="also report the threshold on f that maximises F1 of CLASS")
    test.set_defaults(handler=test_command)

    classify = commands.add_parser(
        "classify", help="score examples read from stdin (icsiboost's -C)",
        description="For each input line (the .data format, labels optional on any line) "
                    "print icsiboost's -C columns: the gold labels as k 0/1 columns (zeros "
                    "without labels), then one score per class: f(x, l) / sum of alpha, f "
                    "itself with --raw, or probabilities sigma(2 f) with --posteriors. The "
                    "model is --model, else STEM.model.json, else icsiboost's STEM.shyp.")
    icsi.add_icsiboost_arguments(classify, icsi.REFUSED + ("-o",))
    _classify_arguments(classify)
    classify.set_defaults(handler=classify_command)

    export = commands.add_parser(
        "export-shyp", help="write a model as icsiboost's .shyp",
        description="Write STEM.model.json as icsiboost's STEM.shyp (continuous thresholds, "
                    "text terms, and set tests that icsiboost can express).")
    icsi.add_stem_argument(export)
    export.add_argument("-m", "--model", help="model file (default: STEM.model.json)")
    export.add_argument("-o", "--output", help="the .shyp file (default: STEM.shyp)")
    export.set_defaults(handler=export_shyp_command)

    imported = commands.add_parser(
        "import-shyp", help="read icsiboost's .shyp as a confboost model",
        description="Read an icsiboost (or exported) STEM.shyp as a confboost model over the "
                    "columns of STEM.names; -W/-N/--cutoff/--text as given to icsiboost. "
                    "Warns about term tests that cannot fire with these settings.")
    icsi.add_stem_argument(imported)
    imported.add_argument("--shyp", help="the .shyp file (default: STEM.shyp)")
    icsi.add_text_arguments(imported)
    icsi.add_file_arguments(imported, data_files=())
    imported.add_argument("-o", "--output", help="model file (default: STEM.model.json)")
    imported.set_defaults(handler=import_shyp_command)

    icsiboost = commands.add_parser(
        "icsiboost", help="icsiboost's own command line: trains, or classifies with -C",
        description="Takes icsiboost's arguments unchanged: 'confboost icsiboost -S STEM -n "
                    "100 -W 2 -N ngram' trains as 'confboost train' and writes STEM.shyp, "
                    "and with -C classifies stdin as 'confboost classify' with STEM.shyp.")
    icsi.add_icsiboost_arguments(icsiboost, icsi.REFUSED + ("-o",))
    icsiboost.add_argument("-C", dest="classify", action="store_true",
                           help="classification mode: read examples from stdin")
    icsiboost.add_argument("--model", help="the model file, written when training, read with "
                                           "-C (default: STEM.shyp, icsiboost's format)")
    icsiboost.set_defaults(handler=icsiboost_command, scheme="mh", confidence="real",
                           alpha="auto", output=None, input=None, raw=False)


def _train_arguments(train, schemes):
    train.add_argument("--scheme", choices=schemes, default="mh",
                       help="multiclass scheme (default: %(default)s): AdaBoost.MH, .MR, or "
                            ".MO (one class per example; --code, --code-length, --decoding)")
    train.add_argument("--code", choices=CODES, default="random",
                       help="AdaBoost.MO's output code (default: %(default)s)")
    train.add_argument("--code-length", type=icsi.positive_int, metavar="BITS",
                       help="bits of a random code (default: 10 log2 k, rounded up)")
    train.add_argument("--decoding", choices=DECODINGS, default="loss",
                       help="AdaBoost.MO's decoder (default: %(default)s)")
    train.add_argument("--seed", type=int, default=0, metavar="S",
                       help="seed of the random code (default: %(default)s)")
    train.add_argument("--weak-learner", choices=sorted(LEARNERS), default="stump",
                       help="weak learner (default: %(default)s, icsiboost's)")
    train.add_argument("--max-leaves", type=icsi.positive_int, default=8, metavar="L",
                       help="most leaves of a tree (default: %(default)s; trees only)")
    train.add_argument("--learning-rate", type=icsi.positive_float, default=1.0, metavar="NU",
                       help="shrinkage of every alpha, in (0, 1] (default: %(default)s)")
    train.add_argument("--confidence", choices=sorted(MODES), default="real",
                       help="weak hypothesis confidences (default: %(default)s); "
                            "'real-abstain' is BoosTexter's abstaining text stump")
    train.add_argument("--alpha", choices=["auto", "exact", "freund-schapire"], default="auto",
                       help="how alpha is chosen (default: %(default)s)")
    train.add_argument("-o", "--output", metavar="MODEL",
                       help="model file (default: STEM.model.json)")
    train.add_argument("--model", metavar="MODEL",
                       help="icsiboost's name for the model file: a name ending in .shyp "
                            "writes icsiboost's format (and STEM.model.json), any other the "
                            "JSON model")


def _classify_arguments(classify):
    classify.add_argument("-m", "--model",
                          help="model file: JSON, or icsiboost's .shyp (read with -W/-N/"
                               "--text); default STEM.model.json, else STEM.shyp")
    classify.add_argument("-i", "--input", help="read examples from this file (default: stdin)")
    classify.add_argument("--raw", action="store_true", help="f(x, l) itself")


def icsiboost_command(arguments):
    """``confboost icsiboost``: classify with -C, else train; the model is icsiboost's.

    As icsiboost, it writes and reads ``--model``, by default ``STEM.shyp`` (training also
    writes ``STEM.model.json`` for confboost's other commands).
    """
    if arguments.model is None:
        arguments.model = str(arguments.stem) + ".shyp"
    if arguments.classify:
        return classify_command(arguments)
    return train_command(arguments)
