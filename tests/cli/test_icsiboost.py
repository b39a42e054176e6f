"""confboost as a drop-in icsiboost: its outputs on the reference stems, its flags, its text.

The reference tests read icsiboost's own outputs (``../shared/golden/icsiboost``, or
``$CONFBOOST_GOLDEN/icsiboost``) and skip without them; they train a few rounds only (the full
comparison is ``benchmarks/icsiboost_compare.py``). The rest runs anywhere.
"""

import gzip
import os
import shutil
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest

from confboost.cli import main
from confboost.cli.icsiboost_flags import ICSIBOOST_FLAGS
from confboost.data.postings import TermVocabulary, TextExpert, expert_terms
from tests.helpers import first_met_dictionary, run

ROOT = Path(__file__).resolve().parents[2]


def _golden():
    env = os.environ.get("CONFBOOST_GOLDEN", "").strip()
    for candidate in ([Path(env)] if env else [ROOT.parent / "shared" / "golden",
                                               ROOT / "shared" / "golden"]):
        if (candidate / "icsiboost").is_dir():
            return candidate / "icsiboost"
    return None


GOLDEN = _golden()
needs_golden = pytest.mark.skipif(
    GOLDEN is None, reason="no icsiboost reference outputs (../shared/golden/icsiboost; set "
                           "CONFBOOST_GOLDEN to the folder holding icsiboost/)")

#: stem -> (rounds to train here, icsiboost's text options)
STEMS = {"satimage": (8, []), "reuters10": (3, ["-W", "2", "-N", "ngram"]),
         "reuters-raw": (6, ["-W", "2", "-N", "ngram"])}


@pytest.fixture(scope="module")
def golden_stems(tmp_path_factory):
    """The reference stems gunzipped into a temporary folder (never in place)."""
    folder = tmp_path_factory.mktemp("golden")
    for name in STEMS:
        for path in (GOLDEN / name).iterdir():
            if path.suffix == ".gz":
                with gzip.open(path, "rb") as stream:
                    (folder / path.stem).write_bytes(stream.read())
            else:
                shutil.copy(path, folder / path.name if path.name != "train.log"
                            else folder / f"{name}.train.log")
            if path.name == "classify.out.gz":
                (folder / "classify.out").rename(folder / f"{name}.classify.out")
    return folder


@needs_golden
@pytest.mark.parametrize("name", list(STEMS))
def test_train_prints_icsiboost_lines(golden_stems, name, capsys):
    rounds, options = STEMS[name]
    stem = golden_stems / name
    status, out, err = run(["train", "-S", stem, "-n", rounds, *options,
                            "-o", golden_stems / f"{name}.json"], capsys)
    assert status == 0, err
    ours = [line for line in out.splitlines() if line.startswith("rnd ")]
    theirs = (golden_stems / f"{name}.train.log").read_text().splitlines()[:rounds]
    assert ours == theirs


@needs_golden
@pytest.mark.parametrize("name", list(STEMS))
def test_classify_icsiboost_model_prints_its_scores(golden_stems, name, capsys, monkeypatch):
    _, options = STEMS[name]
    stem = golden_stems / name
    test = (golden_stems / f"{name}.test").read_text()
    # the .shyp read directly (icsiboost's default model), as `icsiboost -S STEM -C` does
    status, out, err = run(["icsiboost", "-S", stem, *options, "-C",
                            "--model", f"{stem}.shyp"], capsys, test, monkeypatch)
    assert status == 0, err
    ours = np.array([line.split() for line in out.splitlines()], dtype=float)
    theirs = np.array([line.split() for line in
                       (golden_stems / f"{name}.classify.out").read_text().splitlines()],
                      dtype=float)
    assert ours.shape == theirs.shape
    k = ours.shape[1] // 2
    np.testing.assert_array_equal(ours[:, :k], theirs[:, :k])
    np.testing.assert_allclose(ours[:, k:], theirs[:, k:], rtol=0, atol=1e-12)


@needs_golden
def test_classify_posteriors_as_icsiboost(golden_stems, capsys, monkeypatch):
    stem = golden_stems / "satimage"
    test = (golden_stems / "satimage.test").read_text()
    status, out, err = run(["classify", "-S", stem, "-m", f"{stem}.shyp", "--posteriors"],
                           capsys, test, monkeypatch)
    assert status == 0, err
    ours = np.array([line.split() for line in out.splitlines()], dtype=float)
    theirs = np.loadtxt(golden_stems / "classify_posteriors.out")
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


@needs_golden
def test_import_shyp_warns_about_terms_that_cannot_fire(golden_stems, capsys):
    stem = golden_stems / "reuters-raw"
    status, out, err = run(["import-shyp", "-S", stem, "-W", 2, "-N", "ngram",
                            "-o", golden_stems / "ok.json"], capsys)
    assert status == 0 and "warning" not in err
    status, out, err = run(["import-shyp", "-S", stem, "-o", golden_stems / "w1.json"], capsys)
    assert status == 0
    assert "column 'body'" in err and "ngram window of 1" in err  # e.g. 'said it'
    status, out, err = run(["import-shyp", "-S", stem, "-W", 2, "--text", "confboost",
                            "-o", golden_stems / "word.json"], capsys)
    assert status == 0
    assert "'word' tokenizer" in err and "'CORN'" in err


# ----------------------------------------------------------------------------- anywhere

NAMES = "spam, ham.\nsize: continuous.\nbody: text.\nid: ignore.\n"


@pytest.fixture
def stem(tmp_path):
    rng = np.random.default_rng(5)
    words = ["Cheap", "now!", "free", "lunch", "team", "U.S.", "report", "unk"]
    lines = []
    for i in range(60):
        body = " ".join(rng.choice(words, rng.integers(1, 5)))
        label = "spam" if ("Cheap" in body or "free" in body) else "ham"
        lines.append(f"{rng.normal(5, 2):.2f}, {body}, {i}, {label}.\n")
    (tmp_path / "t.names").write_text(NAMES)
    (tmp_path / "t.data").write_text("".join(lines[:40]))
    (tmp_path / "t.test").write_text("".join(lines[40:]))
    return tmp_path / "t"


def test_ties_go_to_the_term_first_met(tmp_path, capsys):
    # "zebra" and "apple" are in the same documents: the same Z. icsiboost keeps the first
    # met in the data (zebra); confboost's own order, the first alphabetically (apple).
    (tmp_path / "t.names").write_text("yes, no.\nbody: text.\n")
    (tmp_path / "t.data").write_text("zebra apple, yes.\nzebra apple x, yes.\nx, no.\ny, no.\n")
    chosen = {}
    for text in ("icsiboost", "confboost"):
        status, out, err = run(["train", "-S", tmp_path / "t", "-n", 1, "--text", text,
                                "--model", tmp_path / f"{text}.shyp"], capsys)
        assert status == 0, err
        chosen[text] = (tmp_path / f"{text}.shyp").read_text().split("Text:SGRAM:body:")[1]
    assert chosen["icsiboost"].startswith("zebra\n")
    assert chosen["confboost"].startswith("apple\n")


def test_wh_err_is_the_unsmoothed_objective(stem, capsys):
    import json

    status, out, err = run(["train", "-S", stem, "-n", 1], capsys)
    assert status == 0, err
    line = next(line for line in out.splitlines() if line.startswith("rnd 1:"))
    wh_err = float(line.split("wh-err=")[1].split()[0])
    document = json.loads(Path(f"{stem}.model.json").read_text())
    assert document  # the chosen test, recomputed by hand on uniform weights
    from confboost.formats.boostexter import read_data, read_names

    spec = read_names(f"{stem}.names", {"tokenizer": "whitespace", "order": "first"})
    train = read_data(f"{stem}.data", spec)
    from confboost.estimators import load

    hypothesis = load(f"{stem}.model.json").model_.hypotheses[0]
    if hasattr(hypothesis, "term"):
        present = np.array([hypothesis.term in (text or "").split()
                            for text in train.columns["body"]])
        blocks = np.where(present, 0, 1)
    else:
        values = train.columns["size"]
        blocks = np.where(np.isnan(values), 2, np.where(values <= hypothesis.threshold, 0, 1))
    weights = np.full(train.labels.shape, 1 / train.labels.size)
    expected = 0.0
    for block in np.unique(blocks):
        rows = blocks == block
        positive = (weights[rows] * (train.labels[rows] == 1)).sum(axis=0)
        negative = (weights[rows] * (train.labels[rows] == 0)).sum(axis=0)
        expected += 2 * np.sqrt(positive * negative).sum()
    assert wh_err == pytest.approx(expected, abs=1e-6)
    assert f"th-err= {wh_err:f}" in line


def test_classify_mixed_labelled_and_unlabelled_lines(stem, capsys, monkeypatch):
    assert run(["train", "-S", stem, "-n", 3], capsys)[0] == 0
    lines = "4.0, Cheap now!, 1, spam.\n4.0, Cheap now!, 1\n6.5, lunch, 2, ham.\n"
    status, out, err = run(["classify", "-S", stem], capsys, lines, monkeypatch)
    assert status == 0, err
    rows = [line.split() for line in out.splitlines()]
    assert [row[:2] for row in rows] == [["1", "0"], ["0", "0"], ["0", "1"]]
    assert rows[0][2:] == rows[1][2:] and all(len(row) == 4 for row in rows)


def test_icsiboost_command_trains_and_classifies(stem, capsys, monkeypatch, tmp_path):
    status, out, err = run(["icsiboost", "-S", stem, "-n", 4], capsys)
    assert status == 0, err
    assert out.count("rnd ") == 4 and (tmp_path / "t.shyp").exists()  # icsiboost's model
    test = (tmp_path / "t.test").read_text()
    status, out, err = run(["icsiboost", "-S", stem, "-C"], capsys, test, monkeypatch)
    assert status == 0, err
    from_shyp = np.array([line.split() for line in out.splitlines()], dtype=float)
    status, out, err = run(["classify", "-S", stem], capsys, test, monkeypatch)
    from_json = np.array([line.split() for line in out.splitlines()], dtype=float)
    np.testing.assert_allclose(from_shyp, from_json, atol=1e-11)


@pytest.mark.parametrize("flag", sorted(flag for flag, (ok, _) in ICSIBOOST_FLAGS.items()
                                        if not ok))
def test_unsupported_icsiboost_flags_are_refused_in_one_line(stem, capsys, flag):
    argv = ["icsiboost", "-S", str(stem), flag] + (["2"] if flag == "--fmeasure-beta" else [])
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert len(err.strip().splitlines()) == 1 and f"{flag} (icsiboost) is not supported" in err


def test_every_icsiboost_flag_is_known_to_the_icsiboost_command(capsys):
    with pytest.raises(SystemExit):
        main(["icsiboost", "--help"])
    shown = capsys.readouterr().out
    for flag, (supported, _) in ICSIBOOST_FLAGS.items():
        if supported and flag not in ("--version", "-S"):
            assert flag in shown, flag
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("confboost ")


def test_file_and_column_options(stem, capsys, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    for suffix in ("names", "data", "test"):
        shutil.copy(f"{stem}.{suffix}", other / f"x.{suffix}")
    status, out, err = run(["train", "-S", tmp_path / "nowhere", "--names", other / "x.names",
                            "--train", other / "x.data", "--test", other / "x.test", "-n", 2,
                            "--only", "body", "-o", tmp_path / "only.json"], capsys)
    assert status == 0, err
    assert "test= nan" not in out
    model = (tmp_path / "only.json").read_text()
    assert '"name": "body"' in model and '"name": "size"' not in model
    status, out, err = run(["train", "-S", stem, "--ignore-regex", "^s", "--dryrun"], capsys)
    assert status == 0 and out == "" and "--dryrun" in err
    status, out, err = run(["train", "-S", stem, "--ignore", "nope"], capsys)
    assert status == 2 and "--ignore: no column named 'nope'" in err
    status, out, err = run(["train", "-S", stem, "--only-regex", "^x$"], capsys)
    assert status == 2 and "leave no column" in err


def test_abstaining_flags(stem, capsys, tmp_path):
    status, out, err = run(["train", "-S", stem, "-n", 2, "--abstaining-stump",
                            "--no-unknown-stump"], capsys)
    assert status == 0, err
    status, out, err = run(["train", "-S", stem, "-n", 2, "--no-unknown-stump"], capsys)
    assert status == 2 and "give both flags" in err
    status, out, err = run(["train", "-S", stem, "-n", 2, "--abstaining-stump"], capsys)
    assert status == 0, err  # no missing continuous value here: the same as icsiboost's


def test_drop_and_no_unk(stem, capsys, tmp_path):
    from confboost.estimators import load

    status, out, err = run(["train", "-S", stem, "-n", 1, "--drop", "^(Cheap|free)$",
                            "--no-unk-ngrams"], capsys)
    assert status == 0, err
    encoder = load(f"{stem}.model.json").encoder_
    expert = encoder.experts[encoder.names.index("body")]
    assert expert.drop == "^(Cheap|free)$" and expert.no_unk
    # icsiboost's text_expert applies no drop once --no-unk-ngrams is given
    assert expert.terms("Cheap unk lunch free") == {"Cheap", "lunch", "free"}
    status, out, err = run(["train", "-S", stem, "-n", 1, "--drop", "^(Cheap|free)$"], capsys)
    assert status == 0, err
    encoder = load(f"{stem}.model.json").encoder_
    expert = encoder.experts[encoder.names.index("body")]
    assert expert.terms("Cheap unk lunch free") == {"unk", "lunch"}


def test_classify_warns_about_a_model_that_cannot_fire(stem, capsys, monkeypatch, tmp_path):
    (tmp_path / "m.shyp").write_text("2\n\n   1.0 Text:SGRAM:body:U.S.\n\n0 0 \n\n1 -1 \n\n\n"
                                     "   1.0 Text:SGRAM:body:free#lunch\n\n0 0 \n\n1 -1 \n\n\n")
    test = (tmp_path / "t.test").read_text()
    status, out, err = run(["classify", "-S", stem, "-m", tmp_path / "m.shyp"], capsys, test,
                           monkeypatch)
    assert status == 0 and "1 term test(s)" in err and "'free#lunch'" in err
    status, out, err = run(["classify", "-S", stem, "-m", tmp_path / "m.shyp", "-W", 2,
                            "--text", "confboost"], capsys, test, monkeypatch)
    assert status == 0 and "'word' tokenizer" in err and "'U.S.'" in err


# ----------------------------------------------------------------------------- text

def _icsiboost_order(words, kind, length):
    """The terms of icsiboost's text_expert, in its order (position by position)."""
    out = []
    for i in range(len(words)):
        if kind == "ngram":
            out += [" ".join(words[i:i + n]) for n in range(1, length + 1)
                    if i + n <= len(words)]
        elif kind == "fgram" and i + length <= len(words):
            out.append(" ".join(words[i:i + length]))
    return out


@pytest.mark.parametrize("kind, length, cutoff", [("ngram", 1, 0), ("ngram", 2, 0),
                                                  ("ngram", 3, 2), ("fgram", 2, 3)])
def test_first_met_order_is_icsiboost_dictionary(kind, length, cutoff):
    rng = np.random.default_rng(length * 10 + cutoff)
    words = [f"w{i}" for i in range(12)]
    documents = [None if rng.random() < 0.05 else
                 " ".join(rng.choice(words, rng.integers(length, 9))) for _ in range(80)]
    vocabulary = TermVocabulary().fit(
        documents, TextExpert(kind, length, cutoff, tokenizer="whitespace", order="first"))
    term_lists = (_icsiboost_order(document.split(), kind, length)
                  for document in documents if document is not None)
    assert vocabulary.terms_ == first_met_dictionary(term_lists, cutoff)[0]
    # the shapes as the module documents them
    assert expert_terms(["a", "b", "c"], "ngram", 2) == ["a", "b", "c", "a b", "b c"]


def test_no_unk_and_can_make():
    expert = TextExpert("ngram", length=2, tokenizer="whitespace", no_unk=True)
    assert expert.terms("a unk b") == {"a", "b"}
    assert TermVocabulary().fit(["a unk b", "unk"], expert).terms_ == ["a", "b"]
    assert expert.can_make("a b") and not expert.can_make("a unk")
    assert not expert.can_make("a b c") and not TextExpert().can_make("U.S.")
    assert TextExpert("sgram", 3).can_make("a _ c") and not TextExpert("fgram", 2).can_make("a")
    with pytest.raises(ValueError, match="term order"):
        TextExpert(order="random")
    with pytest.raises(ValueError, match="no_unk"):
        TextExpert(no_unk="yes")


def test_cli_text_settings_apply_to_names_defaults(tmp_path):
    from confboost.cli.icsiboost_flags import experts
    from confboost.formats.boostexter import read_names

    (tmp_path / "t.names").write_text(
        "a, b.\nx: text.\ny: text:expert_length=3 drop=^q tokenizer=word.\n")
    spec = read_names(tmp_path / "t.names", {"tokenizer": "whitespace", "order": "first"})
    chosen = experts(spec, Namespace(window=2, expert="sgram", cutoff=2, drop="^z",
                                     no_unk=True))
    assert chosen["x"] == TextExpert("sgram", 2, 2, "^z", "whitespace", "first", True)
    assert chosen["y"] == TextExpert("sgram", 3, 2, "^q", "word", "first", True)


@pytest.mark.parametrize("first", ["body", "x"])
def test_ties_across_columns_go_to_the_earlier_column(tmp_path, capsys, first):
    # x is 1 exactly where "cheap" is in body: the two tests split the examples alike, the
    # same Z (to rounding); icsiboost keeps the one on the earlier column of .names.
    rng = np.random.default_rng(2)
    rows = []
    for _ in range(40):
        cheap = rng.random() < 0.5
        body = ("cheap " if cheap else "") + " ".join(rng.choice(["a", "b", "c"], 2))
        label = "yes" if (cheap if rng.random() < 0.8 else not cheap) else "no"
        fields = {"body": body, "x": "1" if cheap else "0"}
        second = "x" if first == "body" else "body"
        rows.append(f"{fields[first]}, {fields[second]}, {label}.\n")
    kinds = {"body": "text", "x": "continuous"}
    second = "x" if first == "body" else "body"
    (tmp_path / "t.names").write_text(f"yes, no.\n{first}: {kinds[first]}.\n"
                                      f"{second}: {kinds[second]}.\n")
    (tmp_path / "t.data").write_text("".join(rows))
    status, out, err = run(["train", "-S", tmp_path / "t", "-n", 1, "--model",
                            tmp_path / "m.shyp"], capsys)
    assert status == 0, err
    chosen = (tmp_path / "m.shyp").read_text()
    expected = "Text:SGRAM:body:cheap" if first == "body" else "Text:THRESHOLD:x:"
    assert expected in chosen
