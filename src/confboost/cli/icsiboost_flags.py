"""icsiboost's command line on confboost's BoosTexter commands: its flags, its text handling.

Owns what makes ``confboost train`` / ``classify`` / ``import-shyp`` read an icsiboost user's
command line: the options of ``icsiboost --help`` (``ICSIBOOST_FLAGS`` says, for each, what
confboost does with it), the ones refused with a one-line message, the text settings
(``--text icsiboost``, the default: icsiboost's own text handling, ``data.text_experts``'s
``icsiboost`` tokeniser: words cut at each space, case, punctuation and every other byte kept,
terms joined with ``#`` as icsiboost writes them, ordered as first met in the data,
icsiboost's tie-break; ``--text confboost``: confboost's own
tokenizer, lower-cased letters and digits, terms in alphabetical order), the file and column
selection (``--names/--train/--dev/--test``, ``--ignore/--only`` and their ``-regex`` forms)
and the warning for a model's terms that cannot fire under the settings given.

``confboost icsiboost ARGS`` takes icsiboost's own argument list: with ``-C`` it classifies
(``confboost classify``), without it trains (``confboost train``).
"""

import argparse
import re
import sys

import numpy as np

from confboost.data.text_experts import EXPERT_KINDS, TextExpert
from confboost.formats.boostexter import ColumnSpec, NamesSpec

#: The text settings of ``--text``: TextExpert fields for the text columns.
TEXT_MODES = {
    "icsiboost": {"tokenizer": "icsiboost", "order": "first"},
    "confboost": {"tokenizer": "word", "order": "sorted"},
}

#: Every flag of ``icsiboost --help`` (v0.3c): (supported, what confboost does with it).
ICSIBOOST_FLAGS = {
    "--version": (True, "confboost's version (`confboost --version` too)"),
    "-S": (True, "the file stem"),
    "-n": (True, "rounds; at classify time, use the first N"),
    "-E": (True, "smoothing ε = E / (m k), default 0.5"),
    "-V": (False, "icsiboost's debug listing is not reproduced"),
    "-C": (True, "`confboost classify` (or `confboost icsiboost -C`): k gold 0/1 columns, "
                 "then k scores"),
    "-o": (False, "the long classification output is not reproduced (use `confboost test`)"),
    "-N": (True, "text expert: ngram, fgram, sgram"),
    "-W": (True, "text expert window"),
    "--dryrun": (True, "read the names and data files, report errors, train nothing"),
    "--cutoff": (True, "keep terms found in at least FREQ training documents"),
    "--drop": (True, "drop the terms a regular expression finds (terms joined by #, as "
                     "icsiboost's; by spaces with --text confboost)"),
    "--no-unk-ngrams": (True, "drop the terms with the word `unk`"),
    "--jobs": (True, "threads"),
    "--do-not-pack-model": (True, "the default; nothing to do"),
    "--pack-model": (False, "confboost keeps one hypothesis per round"),
    "--output-weights": (False, "the weights are not printed"),
    "--posteriors": (True, "classify prints σ(2 f)"),
    "--model": (True, "the model file; a name ending in .shyp is icsiboost's format"),
    "--resume": (True, "training: continue the run --interruptible saved in STEM.checkpoint "
                       "(to -n rounds in all), to the model an uninterrupted run gives"),
    "--train": (True, "training file instead of STEM.data"),
    "--dev": (True, "dev file instead of STEM.dev"),
    "--test": (True, "test file instead of STEM.test"),
    "--names": (True, "names file instead of STEM.names"),
    "--ignore": (True, "ignore these comma-separated columns"),
    "--ignore-regex": (True, "ignore the columns whose name the expression finds"),
    "--only": (True, "use only these comma-separated columns"),
    "--only-regex": (True, "use only the columns whose name the expression finds"),
    "--interruptible": (True, "training: save the run's state to STEM.checkpoint after every "
                              "round (atomic), for --resume after a crash or a kill"),
    "--optimal-iterations": (True, "keep the rounds of least dev (else test) error"),
    "--max-fmeasure": (True, "print the best F1 of a class instead of errors"),
    "--fmeasure-beta": (False, "only β = 1 (F1)"),
    "--abstaining-stump": (True, "text tests abstain when the term is absent (refused where "
                                 "a continuous column has missing values)"),
    "--no-unknown-stump": (True, "continuous tests abstain on missing values (refused where "
                                 "there are text or set columns)"),
    "--sequence": (False, "no __SEQUENCE_PREVIOUS column"),
    "--anti-prior": (False, "the starting weights are uniform"),
    "--display-maxclass": (False, "the error is the argmax error when every training example "
                                  "has one label, as icsiboost decides by itself"),
}

_ARGUMENT = {"-n", "-E", "-N", "-W", "--cutoff", "--drop", "--jobs", "--model", "--train",
             "--dev", "--test", "--names", "--ignore", "--ignore-regex", "--only",
             "--only-regex", "--max-fmeasure", "--fmeasure-beta", "-S"}


class _Refuse(argparse.Action):
    """An icsiboost flag confboost does not support: exit 2 with one line saying so."""

    def __init__(self, option_strings, dest, **kwargs):
        kwargs.setdefault("nargs", 0)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string == "--fmeasure-beta" and values == ["1"]:
            return
        why = ("classification is `confboost classify` (or `confboost icsiboost -C`)"
               if option_string == "-C" else ICSIBOOST_FLAGS[option_string][1])
        parser.exit(2, f"{parser.prog}: error: {option_string} (icsiboost) is not supported "
                       f"here: {why}\n")


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _regex(text):
    try:
        re.compile(text)
    except re.error as error:
        raise argparse.ArgumentTypeError(f"not a regular expression ({error}): {text!r}") \
            from None
    return text


def add_text_arguments(parser):
    """-W, -N, --cutoff, --drop, --no-unk-ngrams and --text (every command that reads text)."""
    parser.add_argument("-W", dest="window", type=positive_int, metavar="N",
                        help="text expert window length (text columns that do not set "
                             "expert_length in .names)")
    parser.add_argument("-N", dest="expert", choices=EXPERT_KINDS,
                        help="text expert kind (text columns that do not set expert_type)")
    parser.add_argument("--cutoff", type=positive_int, metavar="FREQ",
                        help="keep terms found in at least FREQ training documents")
    parser.add_argument("--drop", type=_regex, metavar="REGEX",
                        help="drop the terms this expression finds (text columns without "
                             "drop= in .names; terms are words joined by '#' as in "
                             "icsiboost, by spaces with --text confboost)")
    parser.add_argument("--no-unk-ngrams", dest="no_unk", action="store_true",
                        help="drop the terms with the word 'unk'")
    parser.add_argument("--text", choices=sorted(TEXT_MODES), default=None,
                        help="text handling: 'icsiboost' (default) splits at each space, "
                             "keeps every other byte, joins grams with '#', and breaks ties "
                             "between terms by the "
                             "first met in the data; 'confboost' lower-cases, keeps runs of "
                             "letters and digits, and orders terms alphabetically")


def add_file_arguments(parser, data_files=("--train", "--dev", "--test")):
    """--names, --train/--dev/--test and the column selection options."""
    parser.add_argument("--names", metavar="FILE", help="names file instead of STEM.names")
    for flag in data_files:
        suffix = "data" if flag == "--train" else flag[2:]
        parser.add_argument(flag, dest=flag[2:] + "_file", metavar="FILE",
                            help=f"file instead of STEM.{suffix}")
    parser.add_argument("--ignore", metavar="COLUMNS",
                        help="ignore these comma-separated columns")
    parser.add_argument("--ignore-regex", type=_regex, metavar="REGEX",
                        help="ignore the columns whose name this expression finds")
    parser.add_argument("--only", metavar="COLUMNS",
                        help="use only these comma-separated columns")
    parser.add_argument("--only-regex", type=_regex, metavar="REGEX",
                        help="use only the columns whose name this expression finds")


def add_refused_arguments(parser, flags):
    """icsiboost flags this command refuses with a one-line message."""
    for flag in flags:
        parser.add_argument(flag, action=_Refuse, nargs=1 if flag in _ARGUMENT else 0,
                            help=argparse.SUPPRESS)


def text_defaults(arguments):
    """TextExpert fields for the text columns, from ``--text``."""
    return dict(TEXT_MODES[getattr(arguments, "text", None) or "icsiboost"])


def experts(spec, arguments):
    """The expert of each text column: the .names options, then the command line's.

    As in icsiboost, ``-W`` / ``-N`` / ``--cutoff`` / ``--drop`` apply to the text columns
    whose ``.names`` line leaves the setting at its default (window 1, ngram, cutoff 0, no
    drop); ``--no-unk-ngrams`` to every text column.
    """
    result = {}
    for column in spec.columns:
        if column.kind != "text":
            continue
        expert = column.expert
        changes = {}
        if getattr(arguments, "expert", None) is not None and expert.kind == "ngram":
            changes["kind"] = arguments.expert
        if getattr(arguments, "window", None) is not None and expert.length == 1:
            changes["length"] = arguments.window
        if getattr(arguments, "cutoff", None) is not None and expert.cutoff == 0:
            changes["cutoff"] = arguments.cutoff
        if getattr(arguments, "drop", None) is not None and expert.drop is None:
            changes["drop"] = arguments.drop
        if getattr(arguments, "no_unk", False):
            changes["no_unk"] = True
        if changes:
            settings = {name: getattr(expert, name) for name in
                        ("kind", "length", "cutoff", "drop", "tokenizer", "order", "no_unk")}
            expert = TextExpert(**{**settings, **changes})
        result[column.name] = expert
    return result


def select_columns(spec, arguments):
    """``spec`` with the columns that --ignore/--only (and -regex) leave out made ``ignore``."""
    names = [column.name for column in spec.columns]
    ignored = set()
    if getattr(arguments, "ignore", None):
        listed = [name.strip() for name in arguments.ignore.split(",") if name.strip()]
        _check_listed(listed, names, "--ignore")
        ignored.update(listed)
    if getattr(arguments, "ignore_regex", None):
        ignored.update(name for name in names if re.search(arguments.ignore_regex, name))
    if getattr(arguments, "only", None):
        listed = [name.strip() for name in arguments.only.split(",") if name.strip()]
        _check_listed(listed, names, "--only")
        ignored.update(name for name in names if name not in listed)
    if getattr(arguments, "only_regex", None):
        ignored.update(name for name in names if not re.search(arguments.only_regex, name))
    if not ignored:
        return spec
    columns = [ColumnSpec(column.name, "ignore") if column.name in ignored else column
               for column in spec.columns]
    if all(column.kind == "ignore" for column in columns):
        raise ValueError("--ignore/--only leave no column to use")
    return NamesSpec(classes=spec.classes, columns=columns)


def _check_listed(listed, names, flag):
    unknown = [name for name in listed if name not in names]
    if unknown:
        raise ValueError(f"{flag}: no column named {', '.join(map(repr, unknown))} in the "
                         f".names file (columns: {', '.join(names)})")


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not 0 < value < np.inf:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def add_stem_argument(parser):
    parser.add_argument("-S", "--stem", required=True, metavar="STEM",
                        help="file stem: STEM.names, STEM.data, STEM.dev, STEM.test")


def add_icsiboost_arguments(parser, refused):
    """The options of ``icsiboost --help`` that train and classify share (``ICSIBOOST_FLAGS``).

    Those that do not concern the command (``-E`` when classifying, ``--posteriors`` when
    training) are read and left unused, as icsiboost does.
    """
    from confboost.cli.version import VersionAction

    parser.add_argument("--version", action=VersionAction)
    add_stem_argument(parser)
    parser.add_argument("-n", dest="rounds", type=positive_int, metavar="ROUNDS",
                        help="boosting rounds (default 10, as icsiboost); when classifying, "
                             "use the first ROUNDS")
    add_text_arguments(parser)
    add_file_arguments(parser)
    parser.add_argument("-E", dest="smoothing", type=positive_float, metavar="E",
                        help="smoothing: epsilon = E/(m k) (default 0.5, as icsiboost)")
    parser.add_argument("--jobs", type=positive_int, default=None, metavar="J",
                        help="threads (default: all cores)")
    parser.add_argument("--dryrun", action="store_true",
                        help="read the names and data files, report errors, do nothing else")
    parser.add_argument("--optimal-iterations", action="store_true",
                        help="keep the round count with the least dev error (test error "
                             "without STEM.dev), or the best F1 with --max-fmeasure")
    parser.add_argument("--max-fmeasure", metavar="CLASS",
                        help="report the best F1 of CLASS (over thresholds) instead of errors")
    parser.add_argument("--posteriors", action="store_true",
                        help="classify: probabilities sigma(2 f(x, l)) instead of scores")
    parser.add_argument("--abstaining-stump", action="store_true",
                        help="text tests abstain when their term is absent (confboost's "
                             "--confidence real-abstain)")
    parser.add_argument("--no-unknown-stump", action="store_true",
                        help="continuous tests abstain on a missing value (confboost's "
                             "--confidence real-abstain)")
    parser.add_argument("--do-not-pack-model", action="store_true",
                        help="the default (one hypothesis per round); accepted for icsiboost")
    add_refused_arguments(parser, refused)


#: The flags of ``icsiboost --help`` that every command refuses.
REFUSED = ("-V", "--pack-model", "--output-weights",
            "--fmeasure-beta", "--sequence", "--anti-prior", "--display-maxclass")


#: The training flags of icsiboost that only a training command takes.
TRAINING_ONLY = ("--resume", "--interruptible")


def add_checkpoint_arguments(parser):
    """icsiboost's ``--interruptible`` and ``--resume`` (a training command's)."""
    parser.add_argument("--interruptible", action="store_true",
                        help=ICSIBOOST_FLAGS["--interruptible"][1])
    parser.add_argument("--resume", action="store_true", help=ICSIBOOST_FLAGS["--resume"][1])


def warn_unreachable_terms(model, encoder, stream=None):
    """Warn (one line per text column) about term tests that no text can make fire.

    A term fires only if the column's expert can produce it: its words must each be one token
    of the tokenizer (``word`` lower-cases and splits at punctuation, so ``U.S.`` never is),
    its length must be one the expert's window makes, and ``drop`` / ``no_unk`` must keep it.
    Such a test always gives its "absent" value, so the scores differ from the tool that
    wrote the model (icsiboost prints a similar warning for n-gram tokens).

    Returns
    -------
    count : int
        The number of term tests that cannot fire.
    """
    stream = stream or sys.stderr
    total = 0
    by_column = {}
    for hypothesis in model.hypotheses:
        term = getattr(hypothesis, "term", None)
        if term is None or getattr(hypothesis, "column", None) not in encoder.experts:
            continue
        expert = encoder.experts[hypothesis.column]
        if not expert.can_make(term):
            by_column.setdefault(hypothesis.column, []).append(term)
    for column, terms in by_column.items():
        expert = encoder.experts[column]
        total += len(terms)
        tokenizer = expert.tokenizer if isinstance(expert.tokenizer, str) else "callable"
        print(f"warning: column {encoder.names[column]!r}: {len(terms)} term test(s) of the "
              f"model can never fire with the {tokenizer!r} tokenizer and a {expert.kind} "
              f"window of {expert.length} (e.g. {terms[0]!r}); give the -W / -N / --text "
              "the model was trained with", file=stream)
    return total
