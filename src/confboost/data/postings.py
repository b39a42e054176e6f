"""Text columns: a corpus's vocabulary and its term postings (BoosTexter).

Owns how a list of documents becomes the term postings that the text weak learner reads
(Schapire & Singer, "BoosTexter", ML 39, 2000: a weak hypothesis tests the presence of a term
in a document): ``TermVocabulary`` (fit on training documents: ``cutoff``, the term order;
transform: a sparse presence matrix). What a document's terms are (tokenisers, experts,
``drop``, ``no_unk``, the ``order`` rule) is defined in ``data.text_experts``, whose public
names are importable from here too.

``TextExpert.terms`` is the plain, string-by-string definition; ``TermVocabulary`` computes the
same sets for a whole corpus on integer codes (tokens are numbered, each gram *shape* is a
tuple of word offsets, and the words of a gram are folded into one code a step at a time,
numbering the distinct ``(code so far, next word)`` pairs seen at fit time). With the
``icsiboost`` tokeniser, whose terms are strings that different grams may share (``a#b``), the
vocabulary is keyed by the term strings themselves, document by document in icsiboost's order.
Either way the postings are compact integer arrays (CSC ``indptr`` / ``indices``, int32 where
they fit), never Python objects per posting.
"""

import itertools
from array import array

import numpy as np

from confboost.data.text_experts import (
    EXPERT_KINDS,
    ICSIBOOST,
    MAX_PATTERN,
    MAX_WINDOW,
    TERM_ORDERS,
    TOKENIZERS,
    TextExpert,
    check_pattern,
    expert_terms,
    gram_shapes,
    icsiboost_terms,
    icsiboost_tokenize,
    whitespace_tokenize,
    word_tokenize,
)
from confboost.utils.dtypes import POSTING_DTYPE

__all__ = ["EXPERT_KINDS", "ICSIBOOST", "MAX_PATTERN", "MAX_WINDOW", "TERM_ORDERS",
           "TOKENIZERS", "TermVocabulary", "TextExpert", "check_pattern", "expert_terms",
           "gram_shapes", "icsiboost_terms", "icsiboost_tokenize", "whitespace_tokenize",
           "word_tokenize"]


def _check_documents(documents):
    for index, document in enumerate(documents):
        if document is not None and not isinstance(document, str):
            raise TypeError(
                f"documents must be str or None, got {type(document).__name__} at index {index}"
            )


class TermVocabulary:
    """The terms of a text column and their postings.

    ``fit`` finds the vocabulary on training documents; ``transform`` turns documents into a
    sparse presence matrix over it. Terms unseen at fit time are ignored by ``transform``.
    Column ``j`` of the postings holds the documents whose ``expert_.terms`` contain
    ``terms_[j]``.

    Attributes
    ----------
    expert_ : TextExpert
        The expert the vocabulary was built with.
    terms_ : list of str
        The kept terms, in the expert's ``order``; ``terms_[j]`` is column ``j``.
    vocabulary_ : dict of str to int
        Term to column index.
    document_frequency_ : ndarray of shape (n_terms,), dtype int64
        Number of training documents containing each term.

    Examples
    --------
    >>> vocabulary = TermVocabulary().fit(["the cat", "the dog", None])
    >>> vocabulary.terms_
    ['cat', 'dog', 'the']
    >>> postings, missing = vocabulary.transform(["a cat", None])
    >>> postings.toarray()
    array([[1, 0, 0],
           [0, 0, 0]], dtype=int8)
    >>> missing
    array([False,  True])
    """

    def fit(self, documents, expert=None):
        """Build the vocabulary from training documents.

        Parameters
        ----------
        documents : sequence of (str or None), length n_docs
            None is a missing document (no terms).
        expert : TextExpert or None
            None is ``TextExpert()`` (unigrams, word tokeniser).

        Returns
        -------
        self
        """
        self.fit_transform(documents, expert)
        return self

    def fit_transform(self, documents, expert=None):
        """``fit(documents, expert)`` then ``transform(documents)``, tokenising once."""
        indptr, indices, missing = self.fit_postings(documents, expert)
        return _matrix(len(documents), indptr, indices), missing

    def fit_postings(self, documents, expert=None):
        """``fit_transform``'s postings as two integer arrays, with no sparse matrix.

        What training keeps of a text column: no SciPy, and no presence values (every entry
        is a 1). A ``TextValues`` marked ``disposable`` is released as soon as its documents
        are tokenised (``TextValues.release``), before the postings are laid out.

        Parameters
        ----------
        documents : sequence of (str or None), length n_docs
        expert : TextExpert or None
            None is ``TextExpert()``.

        Returns
        -------
        indptr : ndarray of shape (n_terms + 1,), int32 (int64 where the counts do not fit)
        indices : ndarray of shape (nnz,), same dtype as ``indptr``
            Term ``j``'s documents are ``indices[indptr[j]:indptr[j + 1]]``, increasing.
        missing : ndarray of shape (n_docs,), dtype bool
            True where the document is None.
        """
        expert = TextExpert() if expert is None else expert
        if isinstance(expert, TextExpert) and expert.tokenizer == ICSIBOOST:
            _check_documents(documents)
            return (*self._fit_strings(documents, expert), _missing(documents))
        rows, codes = self._fit(documents, expert)
        _release(documents)
        missing = _missing(documents)
        counts = np.bincount(rows, minlength=len(documents))
        del rows
        columns = self._column_of_code[codes].astype(np.int32)
        del codes
        return (*_by_column(len(self.terms_), counts, columns), missing)

    def transform(self, documents):
        """Term postings of documents.

        Parameters
        ----------
        documents : sequence of (str or None), length n_docs

        Returns
        -------
        postings : scipy.sparse.csc_matrix of shape (n_docs, n_terms), dtype int8
            ``postings[i, j] = 1`` when document ``i`` contains term ``j``; column ``j``'s
            documents are ``indices[indptr[j]:indptr[j + 1]]``, increasing.
        missing : ndarray of shape (n_docs,), dtype bool
            True where the document is None.
        """
        _check_documents(documents)
        if self.expert_.tokenizer == ICSIBOOST:
            indptr, indices = self._strings_postings(documents)
        else:
            tokens, lengths = self._tokens(documents)
            rows, codes = self._document_codes(self._ids(tokens), lengths)
            indptr, indices = _by_column(len(self.terms_),
                                         np.bincount(rows, minlength=len(documents)),
                                         self._column_of_code[codes].astype(np.int32))
        return _matrix(len(documents), indptr, indices), _missing(documents)

    def _fit(self, documents, expert):
        """Fit; return the training documents' distinct (row, gram code) pairs."""
        expert = TextExpert() if expert is None else expert
        if not isinstance(expert, TextExpert):
            raise TypeError(f"expert must be a TextExpert, got {type(expert).__name__}")
        _check_documents(documents)
        self.expert_ = expert
        flat, lengths = self._tokens(documents)
        self._token_index = {token: i for i, token in enumerate(dict.fromkeys(flat))}
        tokens = list(self._token_index)
        bad = [token for token in tokens if not isinstance(token, str) or token.split() != [token]]
        if bad:
            raise ValueError(f"tokens must be non-empty strings without whitespace, got {bad[0]!r}")
        ids = self._ids(flat)
        # Number the distinct (code so far, next word) pairs of each shape: the step keys.
        document, remaining = _positions(lengths)
        self._shapes = []  # (shape, step keys, first code, number of codes) per shape
        occurrences = []  # (start of each gram, its code within the shape) per shape
        base = 0
        for shape in gram_shapes(expert.kind, expert.length):
            starts = np.flatnonzero(remaining > shape[-1])
            code = ids[starts]
            steps = []
            for offset in shape[1:]:
                keys, code = _unique_inverse(code * len(tokens) + ids[starts + offset])
                steps.append(keys)
            size = len(steps[-1]) if steps else len(tokens)
            self._shapes.append((shape, steps, base, size))
            occurrences.append((starts, base + code))
            base += size
        rows, codes = _distinct_pairs(
            [document[starts] for starts, _ in occurrences], [code for _, code in occurrences], base
        )
        frequency = np.bincount(codes, minlength=base)
        # Where each code is first met: its first gram's start, then its shape's rank there.
        n_shapes = len(self._shapes)
        first_met = np.full(base, np.iinfo(np.int64).max, dtype=np.int64)
        for rank, (starts, code) in enumerate(occurrences):
            np.minimum.at(first_met, code, starts * n_shapes + rank)
        first = first_met // n_shapes
        # The term string of each candidate code (the frequent ones; all of them where
        # icsiboost's cutoff is to be replayed), from its first occurrence; drop; order.
        replay = expert.order == "first" and expert.cutoff > 1
        words = np.array(tokens, dtype=object)
        strings = {}
        for shape, _, shape_base, size in self._shapes:
            shape_frequency = frequency[shape_base : shape_base + size]
            candidates = shape_base + np.flatnonzero(
                shape_frequency > 0 if replay else shape_frequency >= expert.cutoff
            )
            starts = first[candidates]
            columns = [
                words[ids[starts + offset]].tolist() if offset in shape else ["_"] * starts.size
                for offset in range(shape[-1] + 1)
            ]
            terms = map(" ".join, zip(*columns, strict=True))
            strings.update(zip(candidates.tolist(), terms, strict=True))
        if expert.drop is not None or expert.no_unk:
            strings = {code: term for code, term in strings.items() if expert.keeps(term)}
        if expert.order == "sorted":
            order = sorted(strings, key=strings.__getitem__)
        else:
            order = sorted(strings, key=first_met.__getitem__)
            if replay:
                order = _icsiboost_cutoff(order, frequency >= expert.cutoff)
        self.terms_ = [strings[code] for code in order]
        self.vocabulary_ = {term: column for column, term in enumerate(self.terms_)}
        self.document_frequency_ = frequency[np.array(order, dtype=np.int64)]
        self._column_of_code = np.full(base, -1, dtype=np.int64)
        self._column_of_code[order] = np.arange(len(order))
        return rows, codes

    def _fit_strings(self, documents, expert):
        """Fit on icsiboost's term strings (``expert.tokenizer == "icsiboost"``); the postings.

        icsiboost's dictionary, literally: each document's distinct terms in the order its
        ``text_expert`` lists them, a term numbered when first met; then ``cutoff``
        (icsiboost's replay of it under ``order="first"``) and the order.
        """
        self.expert_ = expert
        index = {}
        kept = {}  # drop / no_unk decided once per distinct term
        filtering = expert.drop is not None or expert.no_unk
        counts = np.zeros(len(documents), dtype=np.int64)  # each document's distinct terms
        codes = array("i")
        for row, document in enumerate(documents):
            if document is None:
                continue
            distinct = dict.fromkeys(
                icsiboost_terms(icsiboost_tokenize(document), expert.kind, expert.length))
            if filtering:
                distinct = [term for term in distinct if kept.get(term) or (
                    term not in kept and kept.setdefault(term, expert.keeps(term)))]
            codes.extend(index.setdefault(term, len(index)) for term in distinct)
            counts[row] = len(distinct)
        _release(documents)
        strings = list(index)
        del index
        codes = np.frombuffer(codes, dtype=np.int32)
        frequency = _counts(codes, len(strings))
        if expert.order == "sorted":
            order = [code for code in sorted(range(len(strings)), key=strings.__getitem__)
                     if frequency[code] >= expert.cutoff]
        elif expert.cutoff > 1:
            order = _icsiboost_cutoff(list(range(len(strings))), frequency >= expert.cutoff)
        else:
            order = list(range(len(strings)))
        order = np.array(order, dtype=np.int64)
        self.terms_ = [strings[code] for code in order.tolist()]
        self.vocabulary_ = {term: column for column, term in enumerate(self.terms_)}
        self.document_frequency_ = frequency[order].astype(np.int64)
        column_of_code = np.full(len(strings), -1, dtype=np.int32)
        column_of_code[order] = np.arange(order.size, dtype=np.int32)
        for start in range(0, codes.shape[0], 1 << 18):  # the codes become columns, in
            part = codes[start:start + (1 << 18)]  # place (np.take would copy them as intp)
            part[:] = column_of_code[part]
        del column_of_code
        return _by_column(len(self.terms_), counts, codes)

    def _strings_postings(self, documents):
        """The postings of documents over a vocabulary of icsiboost term strings."""
        counts = np.zeros(len(documents), dtype=np.int64)
        columns = array("i")
        for row, document in enumerate(documents):
            if document is None:
                continue
            found = {self.vocabulary_.get(term, -1) for term in self.expert_.terms(document)}
            found.discard(-1)
            columns.extend(found)
            counts[row] = len(found)
        return _by_column(len(self.terms_), counts, np.frombuffer(columns, dtype=np.int32))

    def _tokens(self, documents):
        """All documents' tokens, concatenated, and each document's token count.

        Returns
        -------
        tokens : list of str
        lengths : ndarray of shape (n_docs,), dtype int64
        """
        tokens = []
        lengths = np.zeros(len(documents), dtype=np.int64)
        for row, document in enumerate(documents):
            if document is not None:
                document_tokens = self.expert_.tokenize(document)
                lengths[row] = len(document_tokens)
                tokens.extend(document_tokens)
        return tokens, lengths

    def _ids(self, tokens):
        """Token ids, -1 for a token not seen at fit time (ndarray of int64)."""
        ids = map(self._token_index.get, tokens, itertools.repeat(-1))
        return np.fromiter(ids, dtype=np.int64, count=len(tokens))

    def _document_codes(self, ids, lengths):
        """Distinct (document, gram code) pairs via the step keys; unknown grams left out.

        Returns
        -------
        rows, codes : ndarray of shape (n_pairs,), dtype int64
            Sorted by document, then code.
        """
        document, remaining = _positions(lengths)
        n_tokens = len(self._token_index)
        all_rows, all_codes = [], []
        for shape, steps, base, _ in self._shapes:
            starts = np.flatnonzero(remaining > shape[-1])
            code = ids[starts]
            known = code >= 0
            for offset, keys in zip(shape[1:], steps, strict=True):
                if keys.size == 0:
                    known[:] = False
                    break
                word = ids[starts + offset]
                pair = code * n_tokens + word
                found = np.minimum(np.searchsorted(keys, pair), keys.size - 1)
                known &= (word >= 0) & (keys[found] == pair)
                code = found
            all_rows.append(document[starts[known]])
            all_codes.append(base + code[known])
        return _distinct_pairs(all_rows, all_codes, sum(shape[3] for shape in self._shapes))


def _release(documents):
    """Release a ``TextValues`` whose owner marked it ``disposable``, once it is tokenised."""
    if getattr(documents, "disposable", False):
        documents.release()


def _matrix(n_docs, indptr, indices):
    """The ``scipy.sparse.csc_matrix`` (n_docs, n_terms) of presence 1 of CSC postings."""
    import scipy.sparse as sp  # only the public matrices: training needs no SciPy

    matrix = sp.csc_matrix((n_docs, indptr.shape[0] - 1), dtype=POSTING_DTYPE)
    matrix.data = np.ones(indices.shape[0], dtype=POSTING_DTYPE)
    matrix.indices, matrix.indptr = indices, indptr  # no index upcast
    return matrix


def _index_dtype(nnz, n_docs, n_terms):
    """int32 where every count and index fits it, else int64."""
    return np.int32 if max(nnz, n_docs, n_terms) < np.iinfo(np.int32).max else np.int64


def _by_column(n_terms, counts, columns, chunk=1 << 18):
    """CSC postings of (document, column) pairs given document by document; column -1 is
    left out.

    A counting sort with no copy of the pairs: the pairs of each column are counted, then
    each pair is written straight into its column's place, a chunk of pairs at a time (a
    stable sort of the chunk by column), so the rows of a column increase. Beside the input
    and the output it holds arrays of one chunk and of one value per term.

    Parameters
    ----------
    n_terms : int
    counts : ndarray of shape (n_docs,), integer
        The pairs of each document, one after another.
    columns : ndarray of shape (counts.sum(),), int32
        The column of each pair, each at most once per document.
    chunk : int
        Pairs written at a time.

    Returns
    -------
    indptr : ndarray of shape (n_terms + 1,)
    indices : ndarray of shape (n_kept,)
        int32 where every count and index fits it, else int64 (both); column ``j``'s
        documents are ``indices[indptr[j]:indptr[j + 1]]``, increasing.
    """
    n_docs = counts.shape[0]
    ends = np.cumsum(counts, dtype=np.int64)  # the end of each document's pairs
    per_column = _counts(columns, n_terms + 1, shift=1)[1:]  # column -1 at 0, then cut
    index = _index_dtype(int(per_column.sum()), n_docs, n_terms)
    indptr = np.zeros(n_terms + 1, dtype=index)
    np.cumsum(per_column, out=indptr[1:])
    del per_column
    indices = np.empty(int(indptr[-1]), dtype=index)
    place = indptr[:-1].astype(np.int64)  # the next free place of each column
    for start in range(0, columns.shape[0], chunk):
        part = columns[start:start + chunk]
        rows = np.searchsorted(ends, np.arange(start, start + part.shape[0]), side="right")
        kept = part >= 0
        order = np.argsort(part[kept], kind="stable")  # by column, rows increasing
        part, rows = part[kept][order], rows[kept][order]
        new = np.ones(part.shape[0], dtype=bool)
        new[1:] = part[1:] != part[:-1]
        starts = np.flatnonzero(new)
        sizes = np.diff(starts, append=part.shape[0])
        rank = np.arange(part.shape[0]) - np.repeat(starts, sizes)  # the place in its run
        indices[place[part] + rank] = rows
        place[part[starts]] += sizes
    return indptr, indices


def _counts(codes, n_codes, chunk=1 << 20, shift=0):
    """``np.bincount(codes + shift, minlength=n_codes)`` a chunk at a time: bincount reads its
    input as int64, which would be an 8-byte copy of all the int32 codes at once.

    Parameters
    ----------
    codes : ndarray of shape (n,), int32
    n_codes : int
    chunk : int
    shift : int
        Added to each code (1 counts the -1 codes at 0).

    Returns
    -------
    counts : ndarray of shape (n_codes,), int64
    """
    counts = np.zeros(n_codes, dtype=np.int64)
    for start in range(0, codes.shape[0], chunk):
        part = codes[start:start + chunk]
        counts += np.bincount(part + shift if shift else part, minlength=n_codes)
    return counts


def _icsiboost_cutoff(codes, frequent):
    """icsiboost's cutoff on a list of term codes: each infrequent one, met in list order, is
    replaced by the last code of the list, which is then checked in its turn.

    Parameters
    ----------
    codes : list of int
    frequent : ndarray of bool, indexed by code

    Returns
    -------
    kept : list of int
        The frequent codes, in icsiboost's order.
    """
    codes = list(codes)
    position, end = 0, len(codes)
    while position < end:
        if frequent[codes[position]]:
            position += 1
        else:
            end -= 1
            codes[position] = codes[end]
    return codes[:end]


def _positions(lengths):
    """Document of each token and how many tokens remain from it to the document's end.

    Parameters
    ----------
    lengths : ndarray of shape (n_docs,)

    Returns
    -------
    document, remaining : ndarray of shape (lengths.sum(),), dtype int64
    """
    document = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    ends = np.cumsum(lengths)
    return document, ends[document] - np.arange(document.size, dtype=np.int64)


def _missing(documents):
    if hasattr(documents, "missing"):  # a ``TextValues``
        return documents.missing.copy()
    return np.array([document is None for document in documents], dtype=bool)


def _distinct_pairs(rows, codes, n_codes):
    """Distinct (document, gram code) pairs, sorted by document then code.

    Parameters
    ----------
    rows, codes : list of ndarray of dtype int64
        Pieces of equal lengths to concatenate: the pairs, repeats allowed.
    n_codes : int
        Codes are in ``[0, n_codes)``.

    Returns
    -------
    rows, codes : ndarray of shape (n_distinct,), dtype int64
    """
    n_codes = max(n_codes, 1)
    # a sort, not np.unique: its hash table is 50x slower on this input (numpy 2.4)
    pairs = np.sort(np.concatenate(rows) * n_codes + np.concatenate(codes))
    new = np.ones(pairs.size, dtype=bool)
    new[1:] = pairs[1:] != pairs[:-1]
    pairs = pairs[new]
    return pairs // n_codes, pairs % n_codes


def _unique_inverse(values):
    """Sorted distinct values and the index of each value among them.

    Parameters
    ----------
    values : ndarray of shape (n,), dtype int64

    Returns
    -------
    distinct : ndarray of shape (n_distinct,), dtype int64
    inverse : ndarray of shape (n,), dtype int64
        ``distinct[inverse] == values``.
    """
    order = np.argsort(values)
    ordered = values[order]
    new = np.ones(values.size, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(values.size, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse
