"""icsiboost's text, byte for byte: its words, its '#'-joined terms, --drop, .shyp, memory.

The reference here is icsiboost's own ``text_expert`` rewritten literally from its C sources
(``_c_text_expert``: string_split on a single space, then the gram loops), independent of
``data.text_experts``. Where an icsiboost executable is given (``$ICSIBOOST``), the two
programs also run side by side on text with no-break spaces, '#' in words and doubled spaces.
"""


import numpy as np
import pytest

from confboost.data.postings import TermVocabulary, TextExpert, icsiboost_tokenize
from confboost.data.text_experts import check_pattern
from confboost.formats.shyp import ShypError, import_shyp
from tests.helpers import ICSIBOOST, first_met_dictionary, icsiboost_side_by_side, run

NBSP = "\u00a0"


def _c_split(text):
    """icsiboost's string_split(text, " "): a piece before each separator unless the
    separator is at offset 0, then the rest unless the last separator ends the text."""
    pieces, start = [], 0
    for at, character in enumerate(text):
        if character == " ":
            if at != 0:
                pieces.append(text[start:at])
            start = at + 1
    if start != len(text):
        pieces.append(text[start:])
    return pieces


def _c_text_expert(text, kind, length, no_unk=False, drop=None):
    """icsiboost's text_expert, loop for loop."""
    import re

    words = _c_split(text)
    output = words
    if length > 1 and len(words) > 1:
        output = []
        for i in range(len(words)):
            if kind == "ngram":
                gram = []
                for j in range(length):
                    if i + j >= len(words):
                        break
                    gram.append(words[i + j])
                    output.append("#".join(gram))
            elif kind == "fgram" and i + length - 1 < len(words):
                output.append("#".join(words[i:i + length]))
            elif kind == "sgram":
                output.append(words[i])
                for j in range(1, length):
                    if i + j >= len(words):
                        break
                    output.append(words[i] + "#" + words[i + j])
    if no_unk:
        return [term for term in output if not re.search("(^|#)unk(#|$)", term)]
    if drop:
        return [term for term in output if not re.search(drop, term)]
    return output


TEXTS = ["contains shared", "contains the shared", f"C# and{NBSP}PKCS#11  done ",
         "  two  leading", "x", "", " ", "   ", "a#b", "a b", "unk unk#x b\tc", "#", "a ##b"]


@pytest.mark.parametrize("text", TEXTS)
def test_icsiboost_words_are_its_string_split(text):
    assert icsiboost_tokenize(text) == _c_split(text)


@pytest.mark.parametrize("kind", ["ngram", "fgram", "sgram"])
@pytest.mark.parametrize("length", [1, 2, 3, 5])
def test_terms_are_icsiboost_text_expert(kind, length):
    for text in TEXTS:
        expert = TextExpert(kind, length, tokenizer="icsiboost", order="first")
        assert expert.ordered_terms(text) == _c_text_expert(text, kind, length)
        assert expert.terms(text) == set(_c_text_expert(text, kind, length))


def test_sgram_pairs_join_whatever_the_gap_and_equal_strings_are_one_term():
    expert = TextExpert("sgram", 3, tokenizer="icsiboost", order="first")
    documents = ["contains shared", "contains the shared", "a#b", "a b", None]
    vocabulary = TermVocabulary().fit(documents, expert)
    postings, missing = vocabulary.transform(documents)
    dense = postings.toarray()
    column = vocabulary.vocabulary_
    assert dense[:, column["contains#shared"]].tolist() == [1, 1, 0, 0, 0]
    assert dense[:, column["a#b"]].tolist() == [0, 0, 1, 1, 0]  # the word and the pair
    assert postings.indices.dtype == np.int32 and postings.indptr.dtype == np.int32
    assert missing.tolist() == [False] * 4 + [True]


@pytest.mark.parametrize("kind, length, cutoff, drop, no_unk", [
    ("ngram", 2, 0, None, False), ("sgram", 4, 2, None, False), ("fgram", 3, 1, None, False),
    ("ngram", 3, 3, None, False), ("sgram", 3, 0, "^w#|##", False),
    ("ngram", 2, 0, "C#$", True)])
def test_vocabulary_is_icsiboost_dictionary(kind, length, cutoff, drop, no_unk):
    rng = np.random.default_rng(length + cutoff)
    words = ["w", "x#", "#y", "", "z" + NBSP + "z", "C#", "unk"]
    documents = [" ".join(rng.choice(words, rng.integers(1, 9))) for _ in range(120)]
    expert = TextExpert(kind, length, cutoff, drop, tokenizer="icsiboost", order="first",
                        no_unk=no_unk)
    vocabulary = TermVocabulary().fit(documents, expert)
    terms, counts = first_met_dictionary(  # icsiboost's USE_CUTOFF on its text_expert
        (_c_text_expert(document, kind, length, no_unk, drop) for document in documents),
        cutoff)
    assert vocabulary.terms_ == terms
    assert vocabulary.document_frequency_.tolist() == [counts[term] for term in terms]


def test_drop_sees_hash_joined_terms_and_no_unk_overrides_it():
    expert = TextExpert("ngram", 2, drop="^the#|#the$", tokenizer="icsiboost")
    assert expert.terms("the cat the") == {"the", "cat"}
    quiet = TextExpert("ngram", 2, drop="^cat$", tokenizer="icsiboost", no_unk=True)
    # icsiboost's text_expert returns after --no-unk-ngrams: drop is not applied
    assert quiet.terms("cat unk") == {"cat"}


@pytest.mark.parametrize("pattern", ["a*a*a*a*a*a*a*a*c", ".*#.*", "x+x+", "a?" * 9 + "b",
                                     "[a-z]*[a-z]*$"])
def test_drop_patterns_of_polynomial_time_are_refused(pattern):
    with pytest.raises(ValueError, match="drop"):
        check_pattern(pattern)


@pytest.mark.parametrize("pattern", ["(^|#)(the|of)(#|$)", "^[0-9]+#[0-9]+$", "[a-z]+@[a-z]+",
                                     "http.*", "#"])
def test_drop_patterns_icsiboost_users_write_are_kept(pattern):
    check_pattern(pattern)


# ----------------------------------------------------------------------------- CLI

NAMES = "spam, ham.\nbody: text.\n"


@pytest.fixture
def stem(tmp_path):
    rng = np.random.default_rng(3)
    words = ["C#", "PKCS#11", f"no{NBSP}break", "cheap", "now", "team", "lunch", "", "the"]
    lines = []
    for _ in range(80):
        # spaces at the start of a line are the first text's (icsiboost refuses a line whose
        # first field is spaces only)
        body = " ".join(rng.choice(words, rng.integers(2, 7)))
        body = body if body.strip(" ") else "?"
        label = "spam" if ("cheap" in body or "C#" in body) != (rng.random() < 0.1) else "ham"
        lines.append(f"{body or '?'}, {label}.\n")
    (tmp_path / "t.names").write_text(NAMES)
    (tmp_path / "t.data").write_text("".join(lines[:60]), encoding="utf-8")
    (tmp_path / "t.test").write_text("".join(lines[60:]), encoding="utf-8")
    (tmp_path / "t.dev").write_text("".join(lines[40:70]), encoding="utf-8")
    return tmp_path / "t"


def test_shyp_numbers_and_optimal_layout_read_back_exactly(stem, capsys, tmp_path):
    status, out, err = run(["icsiboost", "-S", stem, "-n", 6, "-W", 3, "-N", "sgram",
                            "--optimal-iterations"], capsys)
    assert status == 0, err
    best = int(out.split("OPTIMAL ITERATIONS: ")[1].split(",")[0])
    text = (tmp_path / "t.shyp").read_text(encoding="utf-8")
    blocks = text.split("\n\n\n")
    assert text.startswith(f"{best}\n\n") and text.count(" Text:") == 6  # all, under best
    header = blocks[0].split("\n")[2]
    alpha = header.split()[0]
    assert len(alpha.split(".")[1]) == 12 and header.startswith("   ")
    values = blocks[0].split("\n")[4].split(" ")
    assert values[-1] == "" and all(len(v.split(".")[1]) == 10 for v in values[:-1])
    from confboost.estimators import load

    json_model = load(f"{stem}.model.json")
    assert len(json_model.model_) == best
    imported = subprocess_free_import(stem, tmp_path / "t.shyp")
    assert len(imported) == best
    # icsiboost -C -n N loads N rounds whatever the count at the top says
    assert len(subprocess_free_import(stem, tmp_path / "t.shyp", rounds=6)) == 6
    for ours, theirs in zip(imported.hypotheses, json_model.model_.hypotheses, strict=True):
        assert ours.term == theirs.term
        np.testing.assert_allclose(ours.values, theirs.values, rtol=0, atol=5e-11)


def subprocess_free_import(stem, path, rounds=None):
    from argparse import Namespace

    from confboost.cli.icsiboost_flags import experts
    from confboost.cli.stems import _encoder
    from confboost.formats.boostexter import read_names

    spec = read_names(f"{stem}.names", {"tokenizer": "icsiboost", "order": "first"})
    arguments = Namespace(window=3, expert="sgram")
    return import_shyp(path, _encoder(spec, experts(spec, arguments)), spec, rounds)


def test_training_keeps_its_model_when_the_shyp_cannot_be_written(stem, capsys, tmp_path):
    # confboost's own sgram terms keep their gaps, which a .shyp cannot express
    status, out, err = run(["train", "-S", stem, "-n", 8, "-W", 3, "-N", "sgram", "--text",
                            "confboost", "--model", tmp_path / "m.shyp"], capsys)
    assert out.count("rnd ") == 8
    if status != 0:
        assert "training finished and its model is saved in" in err and "gap" in err
    assert (tmp_path / "t.model.json").exists()


@pytest.mark.parametrize("alpha", ["nan", "inf", "-inf", "1e200"])
def test_shyp_alphas_that_no_score_survives_are_refused(stem, tmp_path, alpha):
    (tmp_path / "bad.shyp").write_text(
        f"1\n\n   {alpha} Text:SGRAM:body:cheap\n\n0.5 -0.5 \n\n1e200 -1 \n\n\n")
    with pytest.raises(ShypError, match="bad.shyp:3"):
        subprocess_free_import(stem, tmp_path / "bad.shyp")


def test_export_shyp_of_an_mo_model_is_refused(stem, capsys, tmp_path):
    status, out, err = run(["train", "-S", stem, "-n", 3, "--scheme", "mo"], capsys)
    assert status == 0, err
    status, out, err = run(["export-shyp", "-S", stem, "-o", tmp_path / "mo.shyp"], capsys)
    assert status == 2 and "AdaBoost.MO" in err
    assert not (tmp_path / "mo.shyp").exists()


def test_model_imported_from_shyp_shows_its_rules(stem, capsys, tmp_path):
    assert run(["icsiboost", "-S", stem, "-n", 3], capsys)[0] == 0
    status, out, err = run(["import-shyp", "-S", stem, "-o", tmp_path / "i.json"], capsys)
    assert status == 0, err
    status, out, err = run(["show", "-m", tmp_path / "i.json"], capsys)
    assert status == 0 and "round 3" in out and "Z nan" in out
    from confboost.estimators import load

    imported = load(tmp_path / "i.json")
    assert "round 1" in imported.rules()
    with pytest.raises(AttributeError, match="no Z_t"):
        imported.feature_importances_  # noqa: B018


def test_text_fields_keep_every_byte_but_the_spaces_around_them(tmp_path):
    from confboost.formats.boostexter import read_data, read_names

    (tmp_path / "t.names").write_text("a, b.\nx: text.\ny: continuous.\n")
    (tmp_path / "t.data").write_text(f"p\tq{NBSP} ,  1 , a.\n  \tr ,2,b.\n",
                                     encoding="utf-8")
    spec = read_names(tmp_path / "t.names")
    data = read_data(tmp_path / "t.data", spec)
    assert data.columns["x"] == [f"p\tq{NBSP}", "  \tr"]  # a line's start is its text's


# ----------------------------------------------------------------------------- icsiboost



@pytest.mark.skipif(not ICSIBOOST, reason="no icsiboost executable ($ICSIBOOST)")
@pytest.mark.parametrize("flags", [[], ["-W", "3", "-N", "sgram"], ["-W", "2", "-N", "fgram"],
                                   ["-W", "2", "-N", "ngram", "--drop", "#(the|C#)$"]])
def test_side_by_side_with_icsiboost(stem, tmp_path, flags):
    base = ["-S", "t", "-n", "10", *flags]
    rounds, shyps = icsiboost_side_by_side(tmp_path, base)
    assert rounds[0] == rounds[1]
    assert shyps[0] == shyps[1]
