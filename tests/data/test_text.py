"""Tokeniser, text experts, term vocabulary and the term block-weights kernel."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from confboost.data import postings as postings_module
from confboost.data.postings import (
    TermVocabulary,
    TextExpert,
    expert_terms,
    whitespace_tokenize,
    word_tokenize,
)
from confboost.kernels.term_masses import term_block_weights, term_block_weights_naive

SENTENCE = "The cat sat on the mat."


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The cat sat on the mat.", ["the", "cat", "sat", "on", "the", "mat"]),
        ("Profit rose 3.5% to $1,200", ["profit", "rose", "3", "5", "to", "1", "200"]),
        ("U.S.-based e-mail", ["u", "s", "based", "e", "mail"]),
        ("snake_case CamelCase abc123", ["snake", "case", "camelcase", "abc123"]),
        ("Café ZÜRICH naïve", ["café", "zürich", "naïve"]),
        ("東京 タワー", ["東京", "タワー"]),
        ("  \t\n", []),
        ("", []),
        ("!!! ??? ...", []),
    ],
)
def test_word_tokenize(text, tokens):
    assert word_tokenize(text) == tokens


def test_whitespace_tokenize_keeps_case_and_punctuation():
    assert whitespace_tokenize(" Hello,\tWorld!\n 3.5% ") == ["Hello,", "World!", "3.5%"]
    assert whitespace_tokenize("") == []


def test_ngram_expert():
    tokens = word_tokenize(SENTENCE)
    assert expert_terms(tokens, "ngram", 1) == ["the", "cat", "sat", "on", "the", "mat"]
    assert expert_terms(tokens, "ngram", 2) == [
        "the", "cat", "sat", "on", "the", "mat",
        "the cat", "cat sat", "sat on", "on the", "the mat",
    ]


def test_fgram_expert():
    tokens = word_tokenize(SENTENCE)
    assert expert_terms(tokens, "fgram", 3) == [
        "the cat sat", "cat sat on", "sat on the", "on the mat",
    ]
    assert expert_terms(tokens, "fgram", 7) == []
    assert expert_terms(["one"], "fgram", 1) == ["one"]


def test_sgram_expert():
    tokens = word_tokenize(SENTENCE)
    assert expert_terms(tokens, "sgram", 3) == [
        "the", "cat", "sat", "on", "the", "mat",
        "the cat", "cat sat", "sat on", "on the", "the mat",
        "the _ sat", "cat _ on", "sat _ the", "on _ mat",
    ]
    assert expert_terms(["a", "b", "c", "d"], "sgram", 4)[-1] == "a _ _ d"
    assert expert_terms(tokens, "sgram", 1) == tokens


def test_expert_terms_are_a_set_with_drop():
    expert = TextExpert("ngram", length=2, drop=r"^the\b|\bthe$")
    assert expert.terms(SENTENCE) == {"cat", "sat", "on", "mat", "cat sat", "sat on"}
    assert TextExpert(tokenizer="whitespace").terms("a A a.") == {"a", "A", "a."}
    assert TextExpert(tokenizer=str.split).terms("x y x") == {"x", "y"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "bigram"}, "kind must be one of"),
        ({"length": 0}, r"length must be an integer in \[1, 64\]"),
        ({"length": 1.5}, r"length must be an integer in \[1, 64\]"),
        ({"length": True}, r"length must be an integer in \[1, 64\]"),
        ({"cutoff": -1}, "cutoff must be an integer >= 0"),
        ({"drop": "("}, "not a valid regular expression"),
        ({"drop": 3}, "regular expression string"),
        ({"tokenizer": "spaces"}, "tokenizer must be one of"),
    ],
)
def test_text_expert_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TextExpert(**kwargs)


def test_vocabulary_cutoff_and_drop():
    documents = ["the cat", "the dog", "a cat and the dog", None, "the 1987 cat"]
    vocabulary = TermVocabulary().fit(documents, TextExpert(cutoff=2, drop=r"^\d+$"))
    assert vocabulary.terms_ == ["cat", "dog", "the"]
    assert vocabulary.vocabulary_ == {"cat": 0, "dog": 1, "the": 2}
    np.testing.assert_array_equal(vocabulary.document_frequency_, [3, 2, 4])
    bigrams = TermVocabulary().fit(documents, TextExpert(length=2, cutoff=2))
    assert bigrams.terms_ == ["cat", "dog", "the", "the dog"]  # "the cat" is in one only


def test_transform_ignores_unseen_terms_and_marks_missing():
    vocabulary = TermVocabulary().fit(["the cat sat", "a dog"], TextExpert(length=2))
    assert vocabulary.terms_ == ["a", "a dog", "cat", "cat sat", "dog", "sat", "the", "the cat"]
    postings, missing = vocabulary.transform(["The dog sat; the CAT sat!", None, "", "zebra"])
    assert sp.issparse(postings) and postings.format == "csc"
    assert postings.shape == (4, 8) and postings.dtype == np.int8
    present = [[vocabulary.terms_[j] for j in np.flatnonzero(row)] for row in postings.toarray()]
    assert present == [["cat", "cat sat", "dog", "sat", "the", "the cat"], [], [], []]
    np.testing.assert_array_equal(missing, [False, True, False, False])


def test_vocabulary_of_empty_corpus():
    vocabulary = TermVocabulary().fit([None, "", "..."], TextExpert("fgram", length=3))
    assert vocabulary.terms_ == []
    postings, missing = vocabulary.transform(["a b c", None])
    assert postings.shape == (2, 0) and postings.nnz == 0
    np.testing.assert_array_equal(missing, [False, True])


def test_fgram_ignores_short_documents_and_unknown_steps():
    vocabulary = TermVocabulary().fit(["a b c", "b c d"], TextExpert("fgram", length=3))
    assert vocabulary.terms_ == ["a b c", "b c d"]
    postings, _ = vocabulary.transform(["a b", "x b c d", "a b c b c d", "b c a"])
    np.testing.assert_array_equal(postings.toarray(), [[0, 0], [0, 1], [1, 1], [0, 0]])


def test_tokens_must_not_contain_whitespace():
    with pytest.raises(ValueError, match="without whitespace"):
        TermVocabulary().fit(["a b"], TextExpert(tokenizer=lambda text: [text]))
    with pytest.raises(TypeError, match="str or None"):
        TermVocabulary().fit(["a", 3])


def _naive_postings(documents, vocabulary):
    """Dense presence matrix from ``TextExpert.terms``, one document at a time."""
    dense = np.zeros((len(documents), len(vocabulary.terms_)), dtype=np.int8)
    for row, document in enumerate(documents):
        if document is not None:
            for term in vocabulary.expert_.terms(document):
                if term in vocabulary.vocabulary_:
                    dense[row, vocabulary.vocabulary_[term]] = 1
    return dense


def _naive_vocabulary(documents, expert):
    counts = {}
    for document in documents:
        if document is not None:
            for term in expert.terms(document):
                counts[term] = counts.get(term, 0) + 1
    return sorted(term for term, count in counts.items() if count >= expert.cutoff), counts


EXPERTS = [
    TextExpert(),
    TextExpert("ngram", length=3),
    TextExpert("fgram", length=2),
    TextExpert("sgram", length=4, tokenizer="whitespace"),
    TextExpert("ngram", length=2, cutoff=2, drop="b"),
]


def _check_against_naive(train, test, expert):
    vocabulary = TermVocabulary()
    postings, missing = vocabulary.fit_transform(train, expert)
    terms, counts = _naive_vocabulary(train, expert)
    assert vocabulary.terms_ == terms
    np.testing.assert_array_equal(vocabulary.document_frequency_, [counts[t] for t in terms])
    for documents, (matrix, mask) in [
        (train, (postings, missing)),
        (train, vocabulary.transform(train)),
        (test, vocabulary.transform(test)),
    ]:
        assert matrix.has_canonical_format
        np.testing.assert_array_equal(matrix.toarray(), _naive_postings(documents, vocabulary))
        np.testing.assert_array_equal(mask, [document is None for document in documents])


@pytest.mark.parametrize("expert", EXPERTS)
def test_vocabulary_equals_naive_on_random_corpus(expert):
    rng = np.random.default_rng(1)
    words = np.array(["a", "b", "c", "d", "e", "B", "c.", "x1"])

    def corpus(n):
        return [
            None if rng.random() < 0.1 else " ".join(rng.choice(words, rng.integers(0, 12)))
            for _ in range(n)
        ]

    _check_against_naive(corpus(60), corpus(40) + ["zz a zz b"], expert)


document_text = st.one_of(st.none(), st.text(max_size=40), st.text("ab c.A_1É", max_size=20))


@settings(max_examples=150, deadline=None)
@given(
    train=st.lists(document_text, max_size=8),
    test=st.lists(document_text, max_size=4),
    expert=st.sampled_from(EXPERTS),
)
def test_vocabulary_fuzz(train, test, expert):
    _check_against_naive(train, test, expert)


@settings(max_examples=200, deadline=None)
@given(text=st.text(), kind=st.sampled_from(["ngram", "fgram", "sgram"]), length=st.integers(1, 4))
def test_tokenisers_and_experts_never_fail(text, kind, length):
    for tokenizer in ("word", "whitespace"):
        tokens = TextExpert(tokenizer=tokenizer).tokenize(text)
        assert all(token and token.split() == [token] for token in tokens)
        terms = expert_terms(tokens, kind, length)
        assert all(isinstance(term, str) for term in terms)


def _random_postings(rng, n_docs, n_terms, density):
    postings = sp.random(n_docs, n_terms, density=density, format="csc", random_state=rng)
    postings.data[:] = 1
    return postings.astype(np.int8)


@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize(
    ("n_docs", "n_terms", "density"), [(1, 1, 1.0), (50, 30, 0.1), (300, 7, 0.5)]
)
def test_term_block_weights_equals_naive_in_any_order(k, n_docs, n_terms, density):
    rng = np.random.default_rng(n_docs + k)
    postings = _random_postings(rng, n_docs, n_terms, density)
    weights = rng.random((n_docs, k))
    signs = np.where(rng.random((n_docs, k)) < 0.4, 1, -1).astype(np.int8)
    every = np.arange(n_terms)
    w_plus, w_minus = _term_block_weights(postings.indptr, postings.indices, every, weights,
                                          signs)
    expected_plus, expected_minus = term_block_weights_naive(
        postings.indptr, postings.indices, every, weights, signs)
    assert w_plus.shape == w_minus.shape == (n_terms, k)
    np.testing.assert_allclose(w_plus, expected_plus, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(w_minus, expected_minus, rtol=1e-12, atol=1e-15)
    # every document's weight lands in exactly one block of every term it contains
    np.testing.assert_allclose(w_plus + w_minus, postings.T @ weights, rtol=1e-12)

    order = rng.permutation(n_docs)
    permuted = sp.csc_matrix(postings[order])
    shuffled = _term_block_weights(
        permuted.indptr, permuted.indices.astype(np.int64), every, weights[order], signs[order]
    )
    np.testing.assert_allclose(shuffled[0], w_plus, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(shuffled[1], w_minus, rtol=1e-12, atol=1e-15)
    # some lists, repeated and out of order: their rows of every list's, to the bit
    lists = rng.integers(0, n_terms, size=2 * n_terms).astype(np.int32)
    chosen = _term_block_weights(postings.indptr, postings.indices, lists, weights, signs)
    np.testing.assert_array_equal(chosen[0], w_plus[lists])
    np.testing.assert_array_equal(chosen[1], w_minus[lists])
    naive = term_block_weights_naive(postings.indptr, postings.indices, lists, weights, signs)
    np.testing.assert_allclose(chosen[0], naive[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(chosen[1], naive[1], rtol=1e-12, atol=1e-15)


def _term_block_weights(indptr, indices, lists, weights, signs):
    """``term_block_weights`` into new arrays: (w_plus, w_minus), (n_lists, k) each."""
    w_plus = np.full((lists.shape[0], weights.shape[1]), np.nan)
    w_minus = np.full((lists.shape[0], weights.shape[1]), np.nan)
    term_block_weights(indptr, indices, lists, weights, signs, w_plus, w_minus)
    return w_plus, w_minus


def test_term_block_weights_on_vocabulary_postings():
    vocabulary = TermVocabulary()
    postings, _ = vocabulary.fit_transform(["a b", "b c", None, "a c c"])
    weights = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]])
    signs = np.array([[1, -1], [-1, -1], [1, 1], [1, 1]], dtype=np.int8)
    w_plus, w_minus = _term_block_weights(postings.indptr, postings.indices, np.arange(3),
                                          weights, signs)
    # terms a, b, c: a in docs 0, 3; b in 0, 1; c in 1, 3
    np.testing.assert_allclose(w_plus, [[0.8, 0.8], [0.1, 0.0], [0.7, 0.8]])
    np.testing.assert_allclose(w_minus, [[0.0, 0.2], [0.3, 0.6], [0.3, 0.4]])


def test_term_block_weights_with_no_terms():
    w_plus, w_minus = _term_block_weights(
        np.zeros(1, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32),
        np.ones((3, 2)), np.ones((3, 2), dtype=np.int8),
    )
    assert w_plus.shape == w_minus.shape == (0, 2)


def test_postings_by_column_and_counts_equal_their_plain_forms():
    rng = np.random.default_rng(3)
    # pairs given document by document, some columns -1 (cut off): the CSC of the kept ones
    counts = rng.integers(0, 5, size=40)
    columns = np.concatenate([rng.choice(np.arange(-1, 12), size=c, replace=False)
                              for c in counts]).astype(np.int32)
    rows = np.repeat(np.arange(40), counts)
    kept = columns >= 0
    expected = sp.csc_matrix((np.ones(kept.sum(), dtype=np.int8), (rows[kept], columns[kept])),
                             shape=(40, 12)).sorted_indices()
    for chunk in (1, 3, 7, 1 << 18):  # a column's rows increase across the chunks
        indptr, indices = postings_module._by_column(12, counts, columns, chunk=chunk)
        assert indices.dtype == indptr.dtype == np.int32
        np.testing.assert_array_equal(indptr, expected.indptr)
        np.testing.assert_array_equal(indices, expected.indices)
    np.testing.assert_array_equal(postings_module._counts(columns[kept], 12, chunk=7),
                                  np.bincount(columns[kept], minlength=12))
    np.testing.assert_array_equal(postings_module._counts(columns, 13, chunk=5, shift=1),
                                  np.bincount(columns + 1, minlength=13))
