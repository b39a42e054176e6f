"""The BoosTexter / icsiboost commands of ``confboost``: train, test, classify, shyp.

An icsiboost user's ``STEM.names`` / ``STEM.data`` (and ``STEM.dev``, ``STEM.test``) train with
the same command shape (``confboost train -S STEM -n 100 -W 2 -N ngram``) and print one line per
round in icsiboost's format::

    rnd 1: wh-err= 0.861304 th-err= 0.861304 dev= nan test= 0.230000 train= 0.180000

``wh-err`` is Z_t of the round and ``th-err`` the product Π Z_t (the bound of Theorem 3 on the
training Hamming loss). ``dev``, ``test`` and ``train`` are errors on STEM.dev, STEM.test and the
training data (``nan`` when the file is absent): the error of the top-scored class when every
training example has one label, otherwise the fraction of examples with any label wrong
(sign of f), as icsiboost computes them. With ``--max-fmeasure CLASS`` they are the best F1 of
that class over thresholds, with its recall and precision.

Models are confboost JSON (``STEM.model.json``); ``export-shyp`` and ``import-shyp`` convert
to and from icsiboost's ``.shyp`` (``formats/shyp.py``). Every command reads ``STEM.names`` for
the columns and classes, as icsiboost does.
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.special import expit

from confboost.criterion import MODES
from confboost.data.frame import FrameEncoder
from confboost.data.text import EXPERT_KINDS, TextExpert
from confboost.formats.boostexter import BoosTexterFormatError, read_data, read_names
from confboost.learners import StumpHypothesis
from confboost.model import BoostedModel

MODEL_SUFFIX = ".model.json"


# ----------------------------------------------------------------------------- helpers

def _experts(spec, window=None, kind=None, cutoff=None):
    """The expert of each text column: the .names options, then -W / -N / --cutoff.

    As in icsiboost, the command-line options apply to text columns whose ``.names`` line does
    not set the option (a column left at the default ngram / length 1 / cutoff 0 takes them).
    """
    experts = {}
    for column in spec.columns:
        if column.kind != "text":
            continue
        expert = column.expert
        changes = {}
        if kind is not None and expert.kind == "ngram":
            changes["kind"] = kind
        if window is not None and expert.length == 1:
            changes["length"] = window
        if cutoff is not None and expert.cutoff == 0:
            changes["cutoff"] = cutoff
        if changes:
            settings = {"kind": expert.kind, "length": expert.length, "cutoff": expert.cutoff,
                        "drop": expert.drop, "tokenizer": expert.tokenizer, **changes}
            expert = TextExpert(**settings)
        experts[column.name] = expert
    return experts


def _feature_types(spec):
    return {column.name: column.kind for column in spec.columns if column.kind != "ignore"}


def _encoder(spec, experts):
    """The ``FrameEncoder`` of the non-ignored columns of a ``.names`` spec."""
    columns = [column for column in spec.columns if column.kind != "ignore"]
    return FrameEncoder([c.name for c in columns], [c.kind for c in columns],
                        {p: experts[c.name] for p, c in enumerate(columns) if c.kind == "text"})


def _stem_file(stem, suffix):
    return Path(str(stem) + suffix)


def _read_optional(stem, suffix, spec):
    path = _stem_file(stem, suffix)
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


def _blocks(hypothesis, frame):
    return hypothesis.blocks(frame.numeric if isinstance(hypothesis, StumpHypothesis) else frame)


def _load_model(path, spec):
    from confboost.estimators import load

    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such model file (train one with `confboost train`)")
    estimator = load(path)
    document = json.loads(Path(path).read_text())
    classes = document.get("boostexter", {}).get("classes")
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
    estimator.save(path)
    document = json.loads(Path(path).read_text())
    document["boostexter"] = {"classes": list(spec.classes)}
    Path(path).write_text(json.dumps(document, allow_nan=False))


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
        if self.fmeasure_class is None:
            return icsiboost_error(labels, scores, self.single_label), None
        from confboost.fmeasure import max_fmeasure

        return max_fmeasure(labels[:, self.fmeasure_class], scores[:, self.fmeasure_class]), None

    def __call__(self, round_index, record):
        fit, alpha = record["fit"], record["alpha"]
        values = alpha * fit.hypothesis.values
        k = values.shape[1]
        self.product *= record["z"]
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
                self.scores[name] += values[_blocks(fit.hypothesis, self.frames[name])]
            parts[name] = self._measure(name, self.scores[name])[0]
        for name in ("dev", "test"):
            if parts[name] is not None:
                value = parts[name] if self.fmeasure_class is None else parts[name][0]
                threshold = None if self.fmeasure_class is None else parts[name][1]
                self.measures[name].append(value)
                self.thresholds[name].append(threshold)
        line = (f"rnd {round_index + 1}: wh-err= {record['z']:f} th-err= {self.product:f}")
        for name in ("dev", "test", "train"):
            part = parts[name]
            if self.fmeasure_class is None:
                line += f" {name}= {np.nan if part is None else part:f}"
            elif part is None:
                line += f" {name}= {np.nan:f} (R=nan, P=nan)"
            else:
                line += f" {name}= {part[0]:f} (R={part[2]:.3f}, P={part[3]:.3f})"
        print(line, file=self.stream, flush=True)


def train_command(arguments):
    from confboost.estimators import BoostClassifier

    stem = arguments.stem
    spec = read_names(_stem_file(stem, ".names"))
    fmeasure_class = _class_index(spec, arguments.max_fmeasure)
    train = read_data(_stem_file(stem, ".data"), spec)
    if len(train.line_numbers) == 0:
        raise ValueError(f"{_stem_file(stem, '.data')}: no training examples")
    dev = _read_optional(stem, ".dev", spec)
    test = _read_optional(stem, ".test", spec)
    if arguments.optimal_iterations and dev is None and test is None:
        raise ValueError("--optimal-iterations needs STEM.dev (or STEM.test) to choose the round")
    experts = _experts(spec, arguments.window, arguments.expert, arguments.cutoff)
    k = len(spec.classes)
    smoothing = ("auto" if arguments.smoothing is None
                 else arguments.smoothing / (len(train.line_numbers) * k))
    estimator = BoostClassifier(
        n_estimators=arguments.rounds, scheme=arguments.scheme,
        confidence=arguments.confidence, alpha=arguments.alpha, smoothing=smoothing,
        n_jobs=arguments.jobs, feature_types=_feature_types(spec),
        text_expert=experts or None)
    single_label = _single_label(train.labels)
    printer = RoundPrinter(estimator, train, dev, test, single_label, fmeasure_class,
                           sys.stdout)
    estimator.fit(train.columns, train.labels, callbacks=[printer])
    if arguments.optimal_iterations:
        chosen = "dev" if dev is not None else "test"
        measures = np.asarray(printer.measures[chosen])
        best = int(np.argmax(measures) if fmeasure_class is not None else np.argmin(measures))
        _truncate(estimator, best + 1)
        what = "max_fmeasure" if fmeasure_class is not None else "error"
        line = f"OPTIMAL ITERATIONS: {best + 1}, {what} = {measures[best]:f}"
        if fmeasure_class is not None:
            line += f", threshold = {printer.thresholds[chosen][best]:f}"
        print(line, flush=True)
    output = arguments.output or str(stem) + MODEL_SUFFIX
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
    scores = scores.reshape(len(labels), -1)
    predicted = scores > 0
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

def classify_command(arguments):
    stem = arguments.stem
    spec = read_names(_stem_file(stem, ".names"))
    estimator = _load_model(arguments.model or str(stem) + MODEL_SUFFIX, spec)
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
    if len(data.line_numbers) == 0:
        return 0
    scores = estimator.decision_function(data.columns).reshape(len(data.line_numbers), -1)
    if arguments.posteriors:
        scores = expit(2.0 * scores)
    elif not arguments.raw:
        total = float(np.sum(estimator.model_.alphas))
        scores = scores / total if total != 0 else scores
    out = sys.stdout
    for row in range(scores.shape[0]):
        gold = "" if data.labels is None else "".join(f"{v} " for v in data.labels[row])
        out.write(gold + " ".join(f"{value:.12f}" for value in scores[row]) + "\n")
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


def import_shyp_command(arguments):
    from confboost.estimators import BoostClassifier
    from confboost.formats.shyp import import_shyp

    stem = arguments.stem
    spec = read_names(_stem_file(stem, ".names"))
    experts = _experts(spec, arguments.window, arguments.expert, arguments.cutoff)
    encoder = _encoder(spec, experts)
    source = arguments.shyp or str(stem) + ".shyp"
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
    output = arguments.output or str(stem) + MODEL_SUFFIX
    _save_model(estimator, output, spec)
    print(f"wrote {output} ({len(model)} hypotheses)", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------- parsers

def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not 0 < value < np.inf:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _stem_arguments(parser):
    parser.add_argument("-S", "--stem", required=True, metavar="STEM",
                        help="file stem: STEM.names, STEM.data, STEM.dev, STEM.test")


def _expert_arguments(parser):
    parser.add_argument("-W", dest="window", type=_positive_int, metavar="N",
                        help="text expert window length (text columns that do not set "
                             "expert_length in .names)")
    parser.add_argument("-N", dest="expert", choices=EXPERT_KINDS,
                        help="text expert kind (text columns that do not set expert_type)")
    parser.add_argument("--cutoff", type=_positive_int, metavar="FREQ",
                        help="keep terms found in at least FREQ training documents")


def add_commands(commands, schemes):
    """Add train, test, classify, export-shyp and import-shyp to an argparse subparsers."""
    train = commands.add_parser(
        "train", help="boost on STEM.data, one line per round (icsiboost's command shape)",
        description="Boost on STEM.names / STEM.data; print 'rnd N: wh-err= Z_t th-err= "
                    "prod Z_t dev= .. test= .. train= ..' per round (STEM.dev and STEM.test "
                    "are used when they exist) and write the model (JSON).")
    _stem_arguments(train)
    train.add_argument("-n", dest="rounds", type=_positive_int, default=10, metavar="ROUNDS",
                       help="boosting rounds (default: %(default)s, as icsiboost)")
    _expert_arguments(train)
    train.add_argument("--scheme", choices=schemes, default="mh",
                       help="multiclass scheme: AdaBoost.MH or AdaBoost.MR (AdaBoost.MO needs "
                            "one class per example: BoostClassifier(scheme='mo') in Python)")
    train.add_argument("--confidence", choices=sorted(MODES), default="real",
                       help="weak hypothesis confidences (default: %(default)s); "
                            "'real-abstain' is BoosTexter's abstaining text stump")
    train.add_argument("--alpha", choices=["auto", "exact", "freund-schapire"], default="auto",
                       help="how alpha is chosen (default: %(default)s)")
    train.add_argument("-E", dest="smoothing", type=_positive_float, metavar="E",
                       help="smoothing: epsilon = E/(m k) (default 0.5, as icsiboost)")
    train.add_argument("--jobs", type=_positive_int, default=None, metavar="J",
                       help="threads (default: all cores)")
    train.add_argument("--optimal-iterations", action="store_true",
                       help="keep the round count with the least dev error (test error "
                            "without STEM.dev), or the best F1 with --max-fmeasure")
    train.add_argument("--max-fmeasure", metavar="CLASS",
                       help="report the best F1 of CLASS (over thresholds) instead of errors")
    train.add_argument("-o", "--output", metavar="MODEL",
                       help="model file (default: STEM.model.json)")
    train.set_defaults(handler=train_command)

    test = commands.add_parser(
        "test", help="evaluate a model on STEM.test",
        description="Error, Hamming loss, one-error, coverage, average precision, and "
                    "per-class precision / recall / F1 of a model on STEM.test.")
    _stem_arguments(test)
    test.add_argument("-m", "--model", help="model file (default: STEM.model.json)")
    test.add_argument("--data", help="labelled file to evaluate on (default: STEM.test)")
    test.add_argument("-n", dest="rounds", type=_positive_int, help="use only the first ROUNDS")
    test.add_argument("--max-fmeasure", metavar="CLASS",
                      help="also report the threshold on f that maximises F1 of CLASS")
    test.set_defaults(handler=test_command)

    classify = commands.add_parser(
        "classify", help="score examples read from stdin (icsiboost's -C)",
        description="For each input line (the .data format, labels optional) print the gold "
                    "labels as 0/1 when present, then one score per class: f(x, l) / sum of "
                    "alpha as icsiboost does, f itself with --raw, or probabilities "
                    "sigma(2 f) with --posteriors.")
    _stem_arguments(classify)
    classify.add_argument("-m", "--model", help="model file (default: STEM.model.json)")
    classify.add_argument("-i", "--input", help="read examples from this file (default: stdin)")
    classify.add_argument("-n", dest="rounds", type=_positive_int,
                          help="use only the first ROUNDS")
    output = classify.add_mutually_exclusive_group()
    output.add_argument("--posteriors", action="store_true",
                        help="probabilities sigma(2 f(x, l)) instead of scores")
    output.add_argument("--raw", action="store_true", help="f(x, l) itself")
    classify.set_defaults(handler=classify_command)

    export = commands.add_parser(
        "export-shyp", help="write a model as icsiboost's .shyp",
        description="Write STEM.model.json as icsiboost's STEM.shyp (continuous thresholds, "
                    "text terms, and set tests that icsiboost can express).")
    _stem_arguments(export)
    export.add_argument("-m", "--model", help="model file (default: STEM.model.json)")
    export.add_argument("-o", "--output", help="the .shyp file (default: STEM.shyp)")
    export.set_defaults(handler=export_shyp_command)

    imported = commands.add_parser(
        "import-shyp", help="read icsiboost's .shyp as a confboost model",
        description="Read an icsiboost (or exported) STEM.shyp as a confboost model over the "
                    "columns of STEM.names; -W/-N/--cutoff as given to icsiboost.")
    _stem_arguments(imported)
    imported.add_argument("--shyp", help="the .shyp file (default: STEM.shyp)")
    _expert_arguments(imported)
    imported.add_argument("-o", "--output", help="model file (default: STEM.model.json)")
    imported.set_defaults(handler=import_shyp_command)
