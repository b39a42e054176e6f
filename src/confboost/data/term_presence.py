"""Which documents of a text column hold a given term, found when a model asks for it.

At prediction a model tests a few terms, while a document of n words has up to n × w terms
of up to w words under a window of w (``data/text_experts.py``): making them all costs
O(n w²) time and memory (a 30 KB text under a window of 64: 250 MB). ``DocumentTokens``
keeps each document's tokens only, as integer ids in one array, and answers "which
documents hold this term" from the positions of its first word, checking the others at
their offsets: the cost is linear in the text, plus, per term asked, the occurrences of its
first word times its length.

A term is present in a document exactly when it is among the document's terms
(``TextExpert.terms``, which ``terms_rows_naive`` uses): its words form one of the expert's
gram shapes (``text_experts.gram_shapes``) and the expert keeps it (``drop``, ``no_unk``).

Under the ``icsiboost`` tokeniser a term is icsiboost's ``#``-joined string, in which a ``#``
may also be a word's own and an sgram pair carries no gap: there a term is not read back
into words, and each document's term set is made once, when a term is first asked
(icsiboost's windows are its command line's, a few words).
"""

import numpy as np

from confboost.data.text_experts import ICSIBOOST

_EMPTY = np.empty(0, dtype=np.intp)


def term_offsets(words, kind, length):
    """The word offsets of a term under an expert's gram shapes, or None if it has none.

    Parameters
    ----------
    words : list of str
        The term split on single spaces.
    kind : {"ngram", "fgram", "sgram"}
    length : int
        The window.

    Returns
    -------
    tuple of int or None
        The offsets whose words the term states (an sgram's skipped words, ``_``, apart).
    """
    m = len(words)
    if kind == "ngram":
        return tuple(range(m)) if m <= length else None
    if kind == "fgram":
        return tuple(range(m)) if m == length else None
    if m == 1:  # sgram: one word, or a pair w[i] _ ... _ w[i+j], 1 <= j < length
        return (0,)
    if m - 1 < length and all(word == "_" for word in words[1:-1]):
        return (0, m - 1)
    return None


class DocumentTokens:
    """The tokens of a text column's documents, and the documents holding a term.

    Parameters
    ----------
    documents : list of (str or None)
        The column's values (None: missing, no terms).
    expert : TextExpert
        The column's expert: its tokenizer, gram kind, window, ``drop`` and ``no_unk``.
    """

    def __init__(self, documents, expert):
        self.expert = expert
        self.n_documents = len(documents)
        self._term_sets = None
        if expert.tokenizer == ICSIBOOST:  # terms are not read back into words
            self._documents = list(documents)
            return
        ids, rows, vocabulary = [], [], {}
        for row, document in enumerate(documents):
            if document is None:
                continue
            tokens = expert.tokenize(document)
            ids.extend(vocabulary.setdefault(token, len(vocabulary)) for token in tokens)
            rows.extend([row] * len(tokens))
        self._vocabulary = vocabulary
        # padded past the end so that an offset up to the window reads a sentinel
        pad = max(expert.length, 1)
        self._ids = np.concatenate([np.asarray(ids, dtype=np.intp), np.full(pad, -1, np.intp)])
        self._rows = np.concatenate([np.asarray(rows, dtype=np.intp),
                                     np.full(pad, -1, np.intp)])
        order = np.argsort(self._ids[: len(ids)], kind="stable")
        sorted_ids = self._ids[order]
        self._starts = order
        self._bounds = np.searchsorted(sorted_ids, np.arange(len(vocabulary) + 1))

    def rows_with(self, term):
        """The documents whose terms include ``term``, sorted, intp."""
        expert = self.expert
        if expert.tokenizer == ICSIBOOST:
            if self._term_sets is None:
                self._term_sets = [None if document is None else expert.terms(document)
                                   for document in self._documents]
            return np.array([row for row, terms in enumerate(self._term_sets)
                             if terms is not None and term in terms], dtype=np.intp)
        words = term.split(" ")
        offsets = term_offsets(words, expert.kind, expert.length)
        if offsets is None or not expert.keeps(term):
            return _EMPTY
        wanted = [self._vocabulary.get(words[offset]) for offset in offsets]
        if any(word is None for word in wanted):
            return _EMPTY
        first = wanted[0]
        positions = self._starts[self._bounds[first]:self._bounds[first + 1]]
        rows = self._rows[positions]
        for offset, word in zip(offsets[1:], wanted[1:], strict=True):
            same = (self._ids[positions + offset] == word) & (self._rows[positions + offset]
                                                             == rows)
            positions, rows = positions[same], rows[same]
        return np.unique(rows)


def term_rows_naive(documents, expert, term):
    """``DocumentTokens.rows_with`` by making every term of every document (the twin of
    the fast path: ``TextExpert.terms``)."""
    return np.array([row for row, document in enumerate(documents)
                     if document is not None and term in expert.terms(document)],
                    dtype=np.intp)
