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
Text is handled as icsiboost does unless ``--text confboost`` (``icsiboost_flags.py``, which
also owns icsiboost's other flags).

Models are confboost JSON (``STEM.model.json``); ``export-shyp`` and ``import-shyp`` convert
to and from icsiboost's ``.shyp`` (``formats/shyp.py``), and ``classify`` reads a ``.shyp``
directly. Every command reads ``STEM.names`` for the columns and classes, and the numbers of
the data files, as icsiboost does (each the float32 nearest its text, ``read_data``'s
``single``); stumps try every threshold of a continuous column (``max_bins=None``).
Training is ``train_command.py``; what the commands share, ``stems.py``.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from confboost.cli import icsiboost_flags as icsi
from confboost.cli.stems import (
    MODEL_SUFFIX,
    _class_index,
    _class_scores,
    _encoder,
    _feature_types,
    _load_model,
    _save_model,
    _single_label,
    _spec,
    _stem_file,
    _truncate,
    icsiboost_error,
)
from confboost.cli.train_command import train_command
from confboost.engine.learners import LEARNERS, MAX_LEAVES
from confboost.engine.schemes.mo import CODES, DECODINGS
from confboost.formats.boostexter import BoosTexterFormatError, read_data, read_names
from confboost.kernels.criterion_numpy import MODES

# ----------------------------------------------------------------------------- test

def test_command(arguments):
    from confboost.evaluation import metrics
    from confboost.evaluation.fmeasure import (
        max_fmeasure,
        micro_f1,
        per_class_counts,
        precision_recall_f1,
    )

    stem = arguments.stem
    spec = read_names(_stem_file(stem, ".names"))
    fmeasure_class = _class_index(spec, arguments.max_fmeasure)
    estimator = _load_model(arguments.model or str(stem) + MODEL_SUFFIX, spec)
    _truncate(estimator, arguments.rounds)
    path = arguments.data or _stem_file(stem, ".test")
    data = read_data(path, spec, unknown_values="missing", single=True)
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
            # its bytes as they came: ``read_data`` checks the UTF-8 and names the line
            buffer = getattr(source, "buffer", None)
            path.write_bytes(buffer.read() if buffer is not None
                             else source.read().encode("utf-8", "surrogateescape"))
            shown = "<stdin>"
        else:
            path = shown = arguments.input
        try:
            data = read_data(path, spec, labels_required=False, unknown_values="missing",
                             single=True)
        except BoosTexterFormatError as error:
            raise ValueError(str(error).replace(str(path), shown, 1)) from None
    n = len(data.line_numbers)
    if n == 0:
        return 0
    scores = _class_scores(estimator, estimator.decision_function(data.columns).reshape(n, -1),
                           decoded=True)
    if arguments.posteriors:
        from scipy.special import expit

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
    export_shyp(output, estimator.model_, estimator.encoder_, spec,
                scheme=getattr(estimator, "scheme", "mh"))
    print(f"wrote {output} ({len(estimator.model_)} hypotheses)", file=sys.stderr)
    return 0


def _imported_estimator(source, spec, arguments):
    """A ``Booster`` holding the model of a ``.shyp`` file, read with the text options (no
    parameter of it comes from the file: scikit-learn's table is not needed)."""
    from confboost.estimators.booster import Booster
    from confboost.formats.shyp import import_shyp
    from confboost.training.params import tree_defaults

    experts = icsi.experts(spec, arguments)
    encoder = _encoder(spec, experts)
    if not Path(source).exists():
        raise FileNotFoundError(f"{source}: no such .shyp file")
    model = import_shyp(source, encoder, spec, rounds=getattr(arguments, "rounds", None))
    estimator = Booster(n_estimators=max(len(model), 1), weak_learner="stump",
                        feature_types=_feature_types(spec), text_expert=experts or None)
    estimator.weak_learner_ = "stump"  # icsiboost's stumps (and term tests)
    estimator.max_leaves_, estimator.learning_rate_ = tree_defaults(  # stumps: step 1,
        estimator.max_leaves, estimator.learning_rate, "stump", 0, 0, 0)  # whatever the size
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
    icsi.add_checkpoint_arguments(train)
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
    icsi.add_icsiboost_arguments(classify, icsi.REFUSED + icsi.TRAINING_ONLY + ("-o",))
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
    icsi.add_checkpoint_arguments(icsiboost)
    icsiboost.add_argument("-C", dest="classify", action="store_true",
                           help="classification mode: read examples from stdin")
    icsiboost.add_argument("--model", help="the model file, written when training, read with "
                                           "-C (default: STEM.shyp, icsiboost's format)")
    icsiboost.set_defaults(handler=icsiboost_command, scheme="mh", confidence="real",
                           alpha="auto", output=None, input=None, raw=False)


def _int_in(low, high):
    """An argparse type: an integer in [low, high]."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer in [{low}, {high}], got "
                                             f"{text!r}")
        return value
    return parse


def _learning_rate(text):
    value = icsi.positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return value


def _train_arguments(train, schemes):
    # Each flag's type holds the bounds of its parameter in BoostClassifier's table: train
    # runs a Booster, which leaves the checking to its caller (tests/cli/test_cli_boostexter.py
    # holds the two together).
    train.add_argument("--scheme", choices=schemes, default="mh",
                       help="multiclass scheme (default: %(default)s): AdaBoost.MH, .MR, or "
                            ".MO (one class per example; --code, --code-length, --decoding)")
    train.add_argument("--code", choices=CODES, default="random",
                       help="AdaBoost.MO's output code (default: %(default)s)")
    train.add_argument("--code-length", type=icsi.positive_int, metavar="BITS",
                       help="bits of a random code (default: 10 log2 k, rounded up)")
    train.add_argument("--decoding", choices=DECODINGS, default="loss",
                       help="AdaBoost.MO's decoder (default: %(default)s)")
    train.add_argument("--seed", type=_int_in(0, 2**32 - 1), default=0, metavar="S",
                       help="seed of the random code (default: %(default)s)")
    train.add_argument("--weak-learner", choices=sorted(LEARNERS), default="stump",
                       help="weak learner (default: %(default)s, icsiboost's)")
    train.add_argument("--max-leaves", type=_int_in(2, MAX_LEAVES), default=8, metavar="L",
                       help="most leaves of a tree (default: %(default)s; trees only)")
    train.add_argument("--learning-rate", type=_learning_rate, default=1.0, metavar="NU",
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
