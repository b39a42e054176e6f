"""A term's documents found from the tokens (``data/term_presence.py``) equal those of
making every term (``TextExpert.terms``), and cost what the text costs."""

import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from confboost import BoostClassifier
from confboost.data.term_presence import DocumentTokens, term_rows_naive
from confboost.data.text_experts import TextExpert

WORDS = ["a", "b", "c", "_", "unk", "x.y", "B"]


def _documents(rng, n):
    return [None if rng.random() < 0.1 else
            " ".join(rng.choice(WORDS, rng.integers(0, 9))) for _ in range(n)]


def _terms(rng, documents, expert):
    made = sorted({term for document in documents if document is not None
                   for term in expert.terms(document)})
    picked = list(rng.choice(made, min(len(made), 30), replace=False)) if made else []
    invented = [" ".join(rng.choice(WORDS, rng.integers(1, 6))) for _ in range(30)]
    return picked + invented + ["", "a  b", "a _", "_ a", "a _ _ b"]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", ["ngram", "fgram", "sgram"])
def test_rows_with_equals_the_naive_twin(seed, kind):
    rng = np.random.default_rng(seed)
    expert = TextExpert(kind, length=int(rng.integers(1, 5)),
                        tokenizer=["word", "whitespace"][seed % 2],
                        drop=["b c", None][seed % 3 == 0], no_unk=bool(seed % 4 == 1))
    documents = _documents(rng, 25)
    fast = DocumentTokens(documents, expert)
    for term in _terms(rng, documents, expert):
        assert np.array_equal(fast.rows_with(term),
                              term_rows_naive(documents, expert, term)), (term, expert)


@pytest.mark.parametrize("kind", ["ngram", "fgram", "sgram"])
def test_icsiboost_terms_are_found_as_the_naive_twin_finds_them(kind):
    """icsiboost's '#'-joined terms ('#' inside words, no-break spaces, gapped sgram pairs,
    doubled spaces) are present exactly where the document's terms hold them."""
    expert = TextExpert(kind, length=3, tokenizer="icsiboost")
    documents = ["contains the shared C# code", "contains shared\u00a0code", None,
                 "PKCS#11  token", "shared", "code C# contains"]
    tokens = DocumentTokens(documents, expert)
    asked = {term for document in documents if document for term in expert.terms(document)}
    for term in sorted(asked | {"contains#shared", "C#", "C#code", "nothing#here"}):
        np.testing.assert_array_equal(tokens.rows_with(term),
                                      term_rows_naive(documents, expert, term))
    # the gapped pair of document 0 is an sgram term; a no-break space joins document 1's
    # "shared" to "code", so it holds no such pair
    assert list(tokens.rows_with("contains#shared")) == ([0] if kind == "sgram" else [])
    assert list(tokens.rows_with("C#")) == ([0, 5] if kind != "fgram" else [])


def test_rows_with_is_order_invariant_over_documents():
    rng = np.random.default_rng(5)
    expert = TextExpert("sgram", length=3, tokenizer="whitespace")
    documents = _documents(rng, 40)
    order = rng.permutation(len(documents))
    shuffled = DocumentTokens([documents[i] for i in order], expert)
    straight = DocumentTokens(documents, expert)
    for term in _terms(rng, documents, expert):
        assert np.array_equal(np.sort(order[shuffled.rows_with(term)]),
                              straight.rows_with(term))


def test_a_long_text_under_a_wide_window_predicts_in_linear_memory():
    rng = np.random.default_rng(0)
    vocabulary = [f"w{i}" for i in range(50)]
    documents = [" ".join(rng.choice(vocabulary, 8)) for _ in range(200)]
    y = np.array(["w1" in d for d in documents]).astype(int)
    clf = BoostClassifier(20, feature_types={"t": "text"},
                          text_expert=TextExpert("ngram", length=64))
    clf.fit(pd.DataFrame({"t": documents}), y)
    text = " ".join(rng.choice(vocabulary, 3000))  # about 11 KB, 190,000 terms
    terms = TextExpert("ngram", length=64).terms(text)  # the slow way, once
    expected = sum(alpha * h.values[int(h.term not in terms)]
                   for h, alpha in zip(clf.model_.hypotheses, clf.model_.alphas, strict=True))
    tracemalloc.start()
    started = time.perf_counter()
    try:
        scores = clf.decision_function(pd.DataFrame({"t": [text]}))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 60  # a hang detector: was 9-28 s, now 0.03 s
    assert peak < 16 * 2**20  # was 80 MB (every term made; 135 MB for 5,000 words)
    assert np.allclose(scores.ravel(), np.ravel(expected))
