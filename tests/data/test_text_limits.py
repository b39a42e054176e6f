"""A file cannot make text work super-linear: bounded windows, and no
``drop`` pattern that backtracks catastrophically, from .names files and model files alike."""

import json

import pandas as pd
import pytest

import confboost
from confboost import BoostClassifier
from confboost.data.postings import MAX_WINDOW, TextExpert, check_pattern, expert_terms
from confboost.formats.boostexter import read_names
from confboost.formats.model_json import save_document


@pytest.mark.parametrize("pattern", ["(a+)+b", "(a*)*b", "(?:a|aa)*b", r"(a)\1",
                                     "(a?){30}a{30}", "((a+)b)*"])
def test_catastrophic_patterns_are_refused(pattern):
    with pytest.raises(ValueError, match="exponential time"):
        check_pattern(pattern)
    with pytest.raises(ValueError, match="exponential time"):
        TextExpert(drop=pattern)


@pytest.mark.parametrize("pattern", ["^[0-9]+$", "http", "[a-z]+@[a-z]+", "(ab)*c",
                                     "x{2,5}", "((ab)+c)?", "a|b"])
def test_ordinary_patterns_are_kept(pattern):
    check_pattern(pattern)
    assert TextExpert(drop=pattern).drop == pattern


def test_window_longer_than_the_text_costs_nothing_and_is_bounded():
    tokens = ["a", "b", "c"]
    for kind in ("ngram", "fgram", "sgram"):
        # a shape wider than the text makes no gram, so the window is cut to the text
        assert expert_terms(tokens, kind, MAX_WINDOW) == (
            expert_terms(tokens, kind, 3) if kind != "fgram" else [])
    with pytest.raises(ValueError, match=rf"length must be an integer in \[1, {MAX_WINDOW}\]"):
        TextExpert(length=3000)


def test_names_file_with_a_long_window_or_a_bad_drop_names_the_line(tmp_path):
    names = tmp_path / "t.names"
    names.write_text("a, b.\nbody: text:expert_length=3000.\n")
    with pytest.raises(ValueError, match=r"t\.names:2: .*length must be an integer"):
        read_names(names)
    names.write_text("a, b.\nbody: text:drop=(a+)+b.\n")
    with pytest.raises(ValueError, match=r"t\.names:2: .*exponential time"):
        read_names(names)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("length", 3000, "length must be an integer in"),
    ("drop", "(a+)+b", "exponential time"),
])
def test_model_file_text_expert_is_checked_at_load(tmp_path, field, value, message):
    table = pd.DataFrame({"text": ["cheap pills now", "team meeting", "cheap now", "notes"]})
    clf = BoostClassifier(2, feature_types={"text": "text"}).fit(table, [1, 0, 1, 0])
    path = tmp_path / "m.json"
    clf.save(path)
    document = json.loads(path.read_text())
    document["frame"]["columns"][0]["expert"][field] = value
    del document["checksum"]
    save_document(path, {k: v for k, v in document.items() if k not in ("format", "version")})
    with pytest.raises(ValueError, match=rf"^{path}: frame\.columns\[0\]\.expert: .*{message}"):
        confboost.load(path)
