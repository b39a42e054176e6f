"""What several test modules share: small problems, a BoosTexter stem, the CLI runner."""

import io
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import confboost
from confboost.cli import main
from confboost.data.columns import FrameEncoder
from confboost.data.dataset import LabelSigns

MIXED_WORDS = ["cheap", "pills", "meeting", "notes", "flights", "free", "team", "report"]
#: A mixed table's column kinds, its row id ignored (``table_fit_parts``).
TABLE_TYPES = {"row": "ignore"}


def mixed_frame(rng, n=120, k=3):
    text = [" ".join(rng.choice(MIXED_WORDS, rng.integers(1, 6))) for _ in range(n)]
    text = [None if rng.random() < 0.1 else t for t in text]
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    colour[rng.random(n) < 0.15] = None
    size = rng.normal(size=n)
    size[rng.random(n) < 0.1] = np.nan
    Y = np.zeros((n, k), dtype=int)
    Y[:, 0] = [t is not None and ("cheap" in t or "free" in t) for t in text]
    Y[:, 1] = (colour == "red") | (size > 0.5)
    Y[:, 2] = rng.random(n) < 0.3
    Y[Y.sum(axis=1) == 0, 2] = 1
    frame = pd.DataFrame({"size": size, "colour": colour, "text": text,
                          "row": np.arange(n).astype(str)})
    return frame, Y


def random_postings(rng, n_docs, n_terms, density):
    """Random CSC postings (indptr, indices), int32 as a fit's postings are, so that the
    kernels' tests run the specialisation a fit compiles, not one more."""
    presence = rng.random((n_docs, n_terms)) < density
    indptr = np.concatenate([[0], np.cumsum(presence.sum(axis=0))]).astype(np.int32)
    indices = np.concatenate([np.flatnonzero(presence[:, j]) for j in range(n_terms)] + [[]])
    return indptr, indices.astype(np.int32)


def table_fit_parts(frame, Y, rng, types=TABLE_TYPES):
    """Encoder, Dataset, its prediction Frame, label signs and random normalised weights."""
    encoder = FrameEncoder.from_table(frame, types)
    dataset = encoder.fit_dataset(frame, 255)
    labels = LabelSigns.from_signs(np.where(Y > 0, 1, -1).astype(np.int8))
    weights = rng.random(Y.shape)
    weights /= weights.sum()
    return encoder, dataset, encoder.transform(frame), labels, weights


NAMES = """| a small mixed task: every column kind, missing values, multi-label rows
spam, ham, urgent.
size: continuous.
colour: red, green, blue.
body: text:expert_length=2.
id: ignore.
"""
STEM_WORDS = "buy cheap now meeting lunch free offer money report team deadline today".split()


def stem_line(rng, i, labels=True):
    size = "?" if rng.random() < 0.1 else f"{rng.normal(5, 2):.2f}"
    colour = rng.choice(["red", "green", "blue", "?"])
    body = "?" if rng.random() < 0.05 else " ".join(rng.choice(STEM_WORDS, rng.integers(2, 8)))
    tags = ["spam" if ("free" in body or "cheap" in body or (size != "?" and float(size) > 7))
            else "ham"]
    if "deadline" in body or colour == "red":
        tags.append("urgent")
    fields = f"{size}, {colour}, {body}, {i}"
    return fields + (f", {' '.join(tags)}." if labels else "")


def write_stem(tmp_path):
    rng = np.random.default_rng(3)
    (tmp_path / "t.names").write_text(NAMES)
    for suffix, n in ((".data", 150), (".dev", 40), (".test", 60)):
        (tmp_path / f"t{suffix}").write_text("".join(stem_line(rng, i) + "\n" for i in range(n)))
    return tmp_path / "t"


def run(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


ROUND = re.compile(r"rnd (\d+): wh-err= (\d\.\d{6}) th-err= (\d\.\d{6}) dev= (\d\.\d{6}) "
                   r"test= (\d\.\d{6}) train= (\d\.\d{6})")


def png_size(path):
    """(width, height) from a PNG's signature and IHDR chunk; AssertionError if malformed."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def child_env():
    """The environment of a child Python that imports this very confboost."""
    source = str(Path(confboost.__file__).parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [source, *filter(None, [os.environ.get("PYTHONPATH")])])}


#: icsiboost's executable, for the side-by-side tests that run it ($ICSIBOOST or on PATH)
ICSIBOOST = os.environ.get("ICSIBOOST") or shutil.which("icsiboost")


def icsiboost_side_by_side(folder, args):
    """Run icsiboost and ``confboost icsiboost`` with ``args`` in ``folder``, each writing
    its model (``i.shyp``, ``c.shyp``); returns their per-round lines (``rnd ...``), icsiboost's
    first, and the two ``.shyp`` files' bytes."""
    theirs = subprocess.run([ICSIBOOST, *args, "--model", "i.shyp"], cwd=folder,
                            capture_output=True, text=True, check=True)
    ours = subprocess.run([sys.executable, "-m", "confboost.cli", "icsiboost", *args,
                           "--model", "c.shyp"], cwd=folder, capture_output=True,
                          text=True, check=True)
    rounds = [[line for line in result.stdout.splitlines() if line.startswith("rnd")]
              for result in (theirs, ours)]
    return rounds, [(Path(folder) / name).read_bytes() for name in ("i.shyp", "c.shyp")]


def json_paths(value, items=6, prefix=()):
    """Every path to a value inside a JSON document (the first ``items`` of each list)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, items, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:items]):
            yield from json_paths(item, items, (*prefix, index))


def first_met_dictionary(term_lists, cutoff):
    """icsiboost's token list, built literally: each document's terms (``term_lists``, one
    list per document, in icsiboost's order) added as first met, counted once a document,
    then its cutoff, which fills each removed term's place with the last one. Returns the
    tokens and each term's document count."""
    tokens, counts = [], {}
    for terms in term_lists:
        seen = set()
        for term in terms:
            if term not in counts:
                tokens.append(term)
                counts[term] = 0
            if term not in seen:
                seen.add(term)
                counts[term] += 1
    j = 0
    while j < len(tokens):
        if counts[tokens[j]] < cutoff:
            tokens[j] = tokens[-1]
            tokens.pop()
        else:
            j += 1
    return tokens, counts
