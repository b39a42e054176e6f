"""icsiboost's ``.shyp`` model format: write a confboost model as one, read one as a model.

A ``.shyp`` file (icsiboost, github.com/benob/icsiboost, ``save_model`` / ``load_model`` in
``icsiboost.c``) is text: the number of weak hypotheses, then per hypothesis a header line
and its confidence lines, blank lines between::

    2

       1.000000000000 Text:THRESHOLD:age:

    c0[1] c0[2] ... c0[k]      (value missing)
    c1[1] ...                  (value < threshold)
    c2[1] ...                  (value >= threshold)
    THRESHOLD

       1.000000000000 Text:SGRAM:body:interest#rates

    c1[1] ...                  (term absent, or text missing)
    c2[1] ...                  (term present)

The score of label l is Σ alpha · c[block][l]. Numbers are written as icsiboost's
``save_model`` prints them (``%.12f`` for alpha, ``%.10f`` for confidences and thresholds,
each confidence followed by a space), so a model written by both tools is the same file byte
for byte. With the ``icsiboost`` tokeniser a term is written as it is (its words already joined
with ``#``, the empty word included); with the others the words of a term, joined by a space in
confboost, are joined with ``#``.

The count at the top is the number of hypotheses a reader loads: icsiboost's
``--optimal-iterations`` writes every round under the best round count, and readers (both
tools) stop after that many. ``export_shyp(..., loaded=N)`` writes that layout.

A categorical ("set") column's test is written as
``SGRAM:NAME:ID`` with ID the 0-based position of the value in the ``.names`` declaration;
it has two blocks (value present; absent or missing).

What converts (both ways, exactly, scores equal to rounding of the last digit):

- continuous stumps: icsiboost sends ``x < t`` to c1, confboost ``x <= θ`` to block 0, so
  ``t = nextafter(θ, +inf)`` on export and ``θ = nextafter(t, -inf)`` on import;
- term tests: present/absent are the two blocks;
- categorical tests: icsiboost's set test has two blocks (value present; absent or missing).
  A confboost test whose "other value" and "missing" blocks agree is one set test; otherwise
  it is written as one set test per declared value, whose sum is the three-block test exactly
  (``_set_tests``), so the file holds more hypotheses than the model has rounds.

Refused with a ``ShypError`` naming the round: a term of an ``sgram`` expert with a gap
(icsiboost's sparse pairs have no gap marker, so the two tools' terms differ), and any
hypothesis kind icsiboost lacks, or a model of AdaBoost.MO (its scores are decoded from an
output code, which icsiboost has not). The reader refuses what no tool could score: a
non-finite alpha, confidence or threshold, and alphas and confidences whose scores could
overflow a float (a sum of |alpha| · max |c| at or above 1e300).

Beware the tokenisers: icsiboost splits text on spaces only, case and punctuation kept
(confboost's ``tokenizer="whitespace"``, the default of the BoosTexter commands). A model
trained with the ``word`` tokeniser (the Python default, ``--text confboost``) scores the same
in icsiboost only on text already lower-cased and stripped of punctuation.
"""

import re
import sys
from pathlib import Path

import numpy as np

from confboost.data.text_experts import ICSIBOOST
from confboost.engine.learners import CategoricalHypothesis, StumpHypothesis, TermHypothesis
from confboost.engine.model import BoostedModel
from confboost.utils.files import check_regular_file, write_atomic

_HEADER = re.compile(r" *([^ ]+) Text:(SGRAM|THRESHOLD):([^:]+):(.*)")
_DBL_MAX = np.finfo(np.float64).max
#: The largest total Σ |alpha| · max |c| a model read from a file may have: its scores stay
#: finite (with room for the sums of classify's normalisation).
MAX_SCORE = 1e300


class ShypError(ValueError):
    """A ``.shyp`` file that cannot be read, or a model that cannot be written as one."""


def _alpha(value):
    return f"{float(value):.12f}"


def _number(value):
    return f"{float(value):.10f}"


def _row(values):
    return "".join(_number(v) + " " for v in values)


def export_shyp(path, model, encoder, spec, warn=None, loaded=None, scheme="mh"):
    """Write ``model`` (a ``BoostedModel`` over the columns of ``encoder``) as a ``.shyp`` file.

    Parameters
    ----------
    path : str or path-like
    model : BoostedModel
    encoder : FrameEncoder
        The columns the model was trained on (names, kinds, experts).
    spec : NamesSpec
        The ``.names`` the model belongs to (declared values of categorical columns).
    warn : callable or None
        Called with a one-line warning (default: print to stderr).
    loaded : int or None
        The count written at the top, the hypotheses a reader loads (icsiboost's
        ``--optimal-iterations`` layout: every round written, the best count at the top);
        None: all of them.
    scheme : str, default="mh"
        The model's multiclass scheme; only AdaBoost.MH's scores are icsiboost's.

    Raises
    ------
    ShypError
        If a hypothesis has no ``.shyp`` equivalent (see the module docstring).
    """
    if scheme != "mh":
        raise ShypError(f"an AdaBoost.{scheme.upper()} model has no .shyp equivalent: icsiboost "
                        "scores AdaBoost.MH models only (train with --scheme mh)")
    warn = warn or (lambda message: print(f"warning: {message}", file=sys.stderr))
    declared = {column.name: column.values for column in spec.columns}
    warned = set()

    def warn_once(name, message):
        if name not in warned:
            warned.add(name)
            warn(message)

    parts = []
    for round_index, (hypothesis, alpha) in enumerate(
            zip(model.hypotheses, model.alphas, strict=True), start=1):
        where = f"round {round_index}"
        writer = _WRITERS.get(hypothesis.type_name)
        if writer is None:
            raise ShypError(f"{where}: a {type(hypothesis).__name__} has no .shyp equivalent "
                            "(icsiboost has continuous thresholds, text and set tests only)")
        written = writer(hypothesis, alpha, encoder, declared, warn_once, where)
        if loaded is not None and round_index == loaded:
            loaded = len(parts) + len(written)
        parts.extend(written)
    count = len(parts) if loaded is None else min(loaded, len(parts))
    write_atomic(path, f"{count}\n\n" + "".join(parts))


def _threshold_test(hypothesis, alpha, encoder, declared, warn_once, where):
    """A stump as one THRESHOLD test (icsiboost's ``x < t`` is confboost's ``x <= θ``)."""
    name = encoder.names[hypothesis.feature]
    threshold = hypothesis.threshold
    exported = _DBL_MAX if threshold == np.inf else np.nextafter(threshold, np.inf)
    c1, c2, c0 = hypothesis.values
    return [f"   {_alpha(alpha)} Text:THRESHOLD:{name}:\n\n"
            f"{_row(c0)}\n\n{_row(c1)}\n\n{_row(c2)}\n\n{_number(exported)}\n\n\n"]


def _term_test(hypothesis, alpha, encoder, declared, warn_once, where):
    """A term test as one SGRAM test, its words joined with ``#``."""
    name = encoder.names[hypothesis.column]
    expert = encoder.experts[hypothesis.column]
    present, absent = hypothesis.values
    if expert.tokenizer == ICSIBOOST:
        if "\n" in hypothesis.term or "\r" in hypothesis.term:
            raise ShypError(f"{where}: the term {hypothesis.term!r} holds a line end, which a "
                            ".shyp line cannot")
        return [f"   {_alpha(alpha)} Text:SGRAM:{name}:{hypothesis.term}\n\n"
                f"{_row(absent)}\n\n{_row(present)}\n\n\n"]
    words = hypothesis.term.split(" ")
    if expert.kind == "sgram" and "_" in words[1:-1]:
        raise ShypError(f"{where}: the sgram term {hypothesis.term!r} has a gap, which "
                        "icsiboost's sparse pairs cannot express")
    warn_once(name, f"column {name!r} uses the {expert.tokenizer!r} tokenizer; icsiboost "
              "splits on single spaces only, so it scores the same only on pre-tokenized text")
    return [f"   {_alpha(alpha)} Text:SGRAM:{name}:{'#'.join(words)}\n\n"
            f"{_row(absent)}\n\n{_row(present)}\n\n\n"]


def _value_tests(hypothesis, alpha, encoder, declared, warn_once, where):
    """A categorical test as one set test, or one per declared value (``_set_tests``)."""
    name = encoder.names[hypothesis.column]
    values = list(declared.get(name, ()))
    if hypothesis.value not in values:
        raise ShypError(f"{where}: value {hypothesis.value!r} of column {name!r} is not "
                        "declared in the .names file")
    return [f"   {_alpha(alpha)} Text:SGRAM:{name}:{value_id}\n\n"
            f"{_row(absent)}\n\n{_row(present)}\n\n\n"
            for value_id, present, absent in _set_tests(hypothesis, values)]


#: The ``.shyp`` writer of each hypothesis type icsiboost has (by ``type_name``):
#: ``writer(hypothesis, alpha, encoder, declared, warn_once, where)`` -> the file's
#: hypotheses as text, one string each.
_WRITERS = {"stump": _threshold_test, "term": _term_test, "categorical": _value_tests}


def _set_tests(hypothesis, declared):
    """icsiboost set tests (value id, present row, absent row) equal to a categorical test.

    With A, B, C the values on "= v", "≠ v" and "missing": if B = C one test on v does.
    Otherwise one test per declared value u (V of them), absent ``C / V`` and present
    ``A - (V-1) C / V`` for u = v, ``B - (V-1) C / V`` for the others: an example with value w
    gets present(w) + (V-1) C / V, which is A or B, and a missing one V · C / V = C.
    """
    equal, other, missing = hypothesis.values
    v = declared.index(hypothesis.value)
    if np.array_equal(other, missing):
        return [(v, equal, other)]
    n_values = len(declared)
    absent = missing / n_values
    shift = (n_values - 1) * missing / n_values
    return [(u, (equal if u == v else other) - shift, absent) for u in range(n_values)]


def _floats(path, line, text, k):
    fields = text.split()
    try:
        values = [float(field) for field in fields]
    except ValueError:
        raise ShypError(f"{path}:{line}: expected {k} numbers, got {text.strip()!r}") from None
    if len(values) != k or not np.all(np.isfinite(values)):
        raise ShypError(f"{path}:{line}: expected {k} finite numbers, got {text.strip()!r}")
    return np.array(values)


def import_shyp(path, encoder, spec, rounds=None):
    """Read a ``.shyp`` file as a ``BoostedModel`` over the columns of ``encoder``.

    Parameters
    ----------
    path : str or path-like
    encoder : FrameEncoder
        The columns of the ``.names`` file (``FrameEncoder`` of the spec).
    spec : NamesSpec
    rounds : int or None
        Read this many hypotheses whatever the count at the top says (icsiboost's ``-n``
        when classifying: with ``--optimal-iterations`` the file holds more rounds than its
        count), or all there are if fewer; None: the count at the top.

    Returns
    -------
    model : BoostedModel

    Raises
    ------
    ShypError
        On a malformed file, an unknown column, or a test that does not fit the column's kind;
        the message names the file and line.
    """
    k = len(spec.classes)
    position = {name: c for c, name in enumerate(encoder.names)}
    declared = {column.name: column.values for column in spec.columns}
    check_regular_file(path)
    try:
        raw_lines = Path(path).read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as error:
        raise ShypError(f"{path}: not a UTF-8 text file ({error.reason})") from None
    # icsiboost's reading: line ends (\r, \n) removed, lines of spaces only skipped; a term
    # keeps every other character, trailing tabs and no-break spaces included
    lines = [(number, text.rstrip("\r")) for number, text in enumerate(raw_lines, start=1)
             if text.rstrip("\r").strip(" ")]
    if not lines:
        raise ShypError(f"{path}: empty file: expected the number of hypotheses")
    number, text = lines[0]
    if not text.strip().isdigit():
        raise ShypError(f"{path}:{number}: expected the number of hypotheses, got {text!r}")
    count = int(text)
    wanted = count if rounds is None else rounds
    hypotheses, alphas = [], []
    bound = 0.0
    index = 1
    while index < len(lines) and len(hypotheses) < wanted:
        number, text = lines[index]
        match = _HEADER.fullmatch(text)
        if match is None:
            raise ShypError(f"{path}:{number}: expected a hypothesis header "
                            f"'ALPHA Text:SGRAM|THRESHOLD:COLUMN:...', got {text.strip()!r}")
        alpha_text, kind, name, token = match.groups()
        try:
            alpha = float(alpha_text)
        except ValueError:
            raise ShypError(f"{path}:{number}: invalid alpha {alpha_text!r}") from None
        if not np.isfinite(alpha):
            raise ShypError(f"{path}:{number}: invalid alpha {alpha_text!r} (not finite)")
        if name not in position:
            raise ShypError(f"{path}:{number}: column {name!r} is not in the .names file")
        column = position[name]
        column_kind = encoder.kinds[column]
        n_rows = 3 if kind == "THRESHOLD" else 2
        rows = lines[index + 1: index + 1 + n_rows]
        if len(rows) < n_rows:
            raise ShypError(f"{path}:{number}: the hypothesis is cut short")
        values = [_floats(path, line, row, k) for line, row in rows]
        index += 1 + n_rows
        if kind == "THRESHOLD":
            if column_kind != "continuous":
                raise ShypError(f"{path}:{number}: a THRESHOLD test on column {name!r}, which "
                                f"is {column_kind}, not continuous")
            if index >= len(lines):
                raise ShypError(f"{path}:{number}: the threshold line is missing")
            line, threshold_text = lines[index]
            index += 1
            try:
                threshold = float(threshold_text)
            except ValueError:
                raise ShypError(f"{path}:{line}: invalid threshold {threshold_text!r}") from None
            if np.isnan(threshold):
                raise ShypError(f"{path}:{line}: invalid threshold {threshold_text!r}")
            if threshold >= _DBL_MAX:
                threshold = np.inf
            else:
                threshold = max(float(np.nextafter(threshold, -np.inf)), -_DBL_MAX)
            c0, c1, c2 = values
            hypothesis = StumpHypothesis(column, threshold,
                                         np.stack([c1, c2, c0]))
        elif column_kind == "text":
            absent, present = values
            term = (token if encoder.experts[column].tokenizer == ICSIBOOST
                    else token.replace("#", " "))
            hypothesis = TermHypothesis(column, term, np.stack([present, absent]))
        elif column_kind == "categorical":
            choices = declared.get(name, ())
            if not token.isdigit() or int(token) >= len(choices):
                raise ShypError(f"{path}:{number}: expected a value number below "
                                f"{len(choices)} for set column {name!r}, got {token!r}")
            other, equal = values
            hypothesis = CategoricalHypothesis(column, choices[int(token)],
                                               np.stack([equal, other, other]))
        else:
            raise ShypError(f"{path}:{number}: an SGRAM test on column {name!r}, which is "
                            f"{column_kind}")
        hypotheses.append(hypothesis)
        alphas.append(alpha)
        bound += abs(alpha) * float(np.max(np.abs(hypothesis.values)))
        if not bound < MAX_SCORE:
            raise ShypError(f"{path}:{number}: alpha {alpha_text} with confidences up to "
                            f"{float(np.max(np.abs(hypothesis.values))):g} makes the scores "
                            f"of {len(hypotheses)} hypotheses reach {MAX_SCORE:g}, "
                            "beyond what a float sums exactly")
    if rounds is None and len(hypotheses) < count and index >= len(lines):
        raise ShypError(f"{path}: the header announces {count} hypotheses, the file holds "
                        f"{len(hypotheses)}")
    return BoostedModel(hypotheses, alphas, k)
