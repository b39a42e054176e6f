"""Fuzzer of BoosTexter files (``.names``, ``.data``): every mutated pair reads, and trains a
model that predicts finite scores, or is refused with one line naming the file and the line,
in memory that follows the files' size.

Mutations, on a small stem with every column kind: a character replaced by one the format
gives a meaning to (``,`` ``.`` ``:`` ``|`` ``?`` ``=``, blanks, line ends, a byte that is
not UTF-8, a byte-order mark), a line deleted, repeated or swapped, a field replaced by an
odd value (``1e999``, ``nan``, a long word, a regular expression), a long line. A third of
the accepted stems are trained through the command line (``confboost train``), whose errors
must be one line too. Short run in ``make test``, long run in ``make fuzz``.
"""

import contextlib
import functools
import io

import numpy as np

from confboost.cli import main
from confboost.formats.boostexter import BoosTexterFormatError, read_stem

from .fuzzing import Bound, Tally, cases, generator, run_case

NAMES = """| every column kind
spam, ham, urgent.
size: continuous.
colour: red, green, blue.
body: text:expert_type=ngram expert_length=2 cutoff=1.
id: ignore.
"""
WORDS = "buy cheap now meeting lunch free offer money report team".split()
ODD_FIELDS = ["1e999", "nan", "inf", "-0", ".5", "1_000", "?", "", " ", "x" * 5000, "a.b",
              "red green", "(a+)+b", "caf\u00e9", "\u00a0", "1e-400", "0x10", "spam ham."]
ODD_CHARACTERS = [",", ".", ":", "|", "?", "=", " ", "\t", "\n", "\r", "\ufeff", "\x00",
                  "_", "#"]


def _data(rng, n):
    lines = []
    for i in range(n):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6)))
        labels = "spam" if "free" in body or "cheap" in body else "ham"
        if rng.random() < 0.2:
            labels += " urgent"
        lines.append(f"{rng.uniform(0, 10):.2f}, {rng.choice(['red', 'green', 'blue', '?'])}, "
                     f"{body}, {i}, {labels}.")
    return "\n".join(lines) + "\n"


def _mutate(text, rng):
    """One random change of a file's text (str); may return bytes (invalid UTF-8)."""
    lines = text.split("\n")
    action = rng.choice(["character", "character", "field", "delete", "repeat", "swap",
                         "long", "bytes"])
    row = rng.randrange(len(lines))
    if action == "character" and text:
        where = rng.randrange(len(text))
        return text[:where] + rng.choice(ODD_CHARACTERS) + text[where + 1:]
    if action == "field":
        fields = lines[row].split(",")
        fields[rng.randrange(len(fields))] = rng.choice(ODD_FIELDS)
        lines[row] = ",".join(fields)
    elif action == "delete":
        del lines[row]
    elif action == "repeat":
        lines[row:row] = [lines[row]] * rng.choice([1, 2, 50])
    elif action == "swap":
        other = rng.randrange(len(lines))
        lines[row], lines[other] = lines[other], lines[row]
    elif action == "long":
        lines[row] = lines[row] + " w" * 20_000
    else:
        raw = text.encode()
        where = rng.randrange(len(raw) or 1)
        return raw[:where] + bytes([rng.choice([0xff, 0xc3, 0x80, 0xe2])]) + raw[where:]
    return "\n".join(lines)


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")


def _train(stem):
    """``confboost train -n 2`` on the stem: None, or its one-line error as a ValueError."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["train", "-S", str(stem), "-n", "2"])
    if status != 0:
        message = err.getvalue()
        assert message.count("\n") == 1, f"several lines: {message!r}"
        raise ValueError(message.strip())


def _case(stem, files, train):
    """Read the stem (and train on it, with ``train``): the spec, or a ValueError naming
    the file and the line."""
    try:
        spec, read, _, _ = read_stem(stem)
    except BoosTexterFormatError as error:
        assert str(error.path) in map(str, files)
        if error.line is not None:
            assert f"{error.path}:{error.line}: " in str(error)
        raise
    assert read.labels.shape == (len(read.line_numbers), len(spec.classes))
    for column in read.columns.values():
        if isinstance(column, np.ndarray):
            assert not np.isinf(column).any()
    if train:
        _train(stem)
    return spec


def test_fuzzed_names_and_data(tmp_path):
    rng = generator("boostexter")
    tally = Tally("names-data")
    names, data = NAMES, _data(rng, 40)
    for number in range(cases(60)):
        stem = tmp_path / f"case{number % 20}"
        which = rng.choice(["names", "data", "data", "both"])
        new_names = _mutate(names, rng) if which in ("names", "both") else names
        new_data = _mutate(data, rng) if which in ("data", "both") else data
        _write(stem.with_suffix(".names"), new_names)
        _write(stem.with_suffix(".data"), new_data)
        size = len(new_names) + len(new_data)
        files = {stem.with_suffix(".names"), stem.with_suffix(".data")}
        train = rng.random() < 0.33

        # the file named is the one refused: ``_case`` checks it is one of the two
        run_case(functools.partial(_case, stem, files, train), tally, input_size=size,
                 named=(str(stem),), bound=Bound(seconds=120, base_mb=64, per_byte=400),
                 what=f"case {number} ({which})")
    print(tally.report())
    assert tally.accepted and tally.refused
