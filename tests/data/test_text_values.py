"""``TextValues``: a text column as one UTF-8 buffer and offsets reads as the list it holds."""

import numpy as np
import pytest

from confboost.data import text_values
from confboost.data.postings import TermVocabulary, TextExpert
from confboost.data.text_values import TextValues
from confboost.training.checkpoint import run_fingerprint
from confboost.training.fit_state import data_parts

VALUES = ["une phrase", None, "été\u00a0ici", "", "C# and  PKCS#11", None, "\U0001f600 x"]


def test_reads_back_every_value_and_slice(monkeypatch):
    monkeypatch.setattr(text_values, "_CHUNK", 3)  # iteration crosses its chunks
    values = TextValues.from_strings(VALUES)
    assert len(values) == len(VALUES)
    assert list(values) == VALUES and values.tolist() == VALUES
    assert [values[i] for i in range(-len(VALUES), len(VALUES))] == VALUES + VALUES
    assert values[1:6:2] == VALUES[1:6:2]
    assert values == VALUES and values != VALUES[:-1] and values != ["x"] * len(VALUES)
    np.testing.assert_array_equal(values.missing, [v is None for v in VALUES])
    with pytest.raises(IndexError):
        values[len(VALUES)]
    # the buffer holds the UTF-8 bytes only: no per-value object
    assert len(values.buffer) == sum(len(v.encode()) for v in VALUES if v is not None)


@pytest.mark.parametrize("tokenizer", ["icsiboost", "word"])
def test_vocabulary_and_fingerprint_are_those_of_the_list(tokenizer):
    expert = TextExpert("ngram", length=2, tokenizer=tokenizer)
    ours, missing = TermVocabulary().fit_transform(TextValues.from_strings(VALUES), expert)
    theirs, their_missing = TermVocabulary().fit_transform(list(VALUES), expert)
    assert (ours != theirs).nnz == 0
    np.testing.assert_array_equal(missing, their_missing)
    table = {"t": TextValues.from_strings(VALUES), "x": np.arange(len(VALUES), dtype=float)}
    as_lists = {"t": list(VALUES), "x": table["x"]}
    assert run_fingerprint(*data_parts(table)) == run_fingerprint(*data_parts(as_lists))


def test_released_values_keep_their_length_and_refuse_reading():
    values = TextValues.from_strings(VALUES)
    values.release()
    assert values.buffer is None and len(values) == len(VALUES)
    np.testing.assert_array_equal(values.missing, [v is None for v in VALUES])
    for read in (lambda: values[0], lambda: list(values), lambda: values[1:3]):
        with pytest.raises(ValueError, match="released"):
            read()


@pytest.mark.parametrize("tokenizer", ["icsiboost", "word"])
def test_a_disposable_column_is_released_by_the_fit_that_builds_its_postings(tokenizer):
    expert = TextExpert("ngram", length=2, tokenizer=tokenizer)
    kept = TextValues.from_strings(VALUES)
    disposable = TextValues.from_strings(VALUES)
    disposable.disposable = True
    ours = TermVocabulary().fit_postings(disposable, expert)
    theirs = TermVocabulary().fit_postings(kept, expert)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)
    assert disposable.buffer is None and disposable.offsets is None
    assert kept.buffer is not None and kept == VALUES  # not marked: never released
    with pytest.raises(ValueError, match="released"):
        list(disposable)
