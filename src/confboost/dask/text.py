"""Text columns on the cluster: the vocabulary from every partition and the postings on
each shard (BoosTexter, Schapire & Singer 2000; the term test of §7.1 of the 1999 paper).

No document leaves its worker:

- each partition counts its own terms (``partition_terms``: every term of the column's
  expert with ``drop`` and ``no_unk`` applied, in the order it first meets them, and the
  number of its documents holding each); the client adds the counts and applies the local
  rule (``merged_vocabulary``: ``cutoff``, icsiboost's replay of it, the ``order``), which
  gives ``data.postings.TermVocabulary``'s terms on the gathered documents;
- each shard turns its documents into postings over that vocabulary
  (``ColumnVocabulary.of_rows``, called when the shard is built), whose every term the
  local learners score on their own (``TextColumn.scored_list``: the term learner,
  ``engine/learners/term.py``; a tree node's term splits, ``learners/splitter.py``, and a
  Hamming tree's term votes), their sums through the round's reducer.

A shard's distinct posting lists (terms found in the same documents share one) are its
own, so every sum over the shards is taken per term of the common vocabulary, never per
list.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from confboost.data.dataset import TextColumn
from confboost.data.postings import TermVocabulary, _icsiboost_cutoff


def counting_expert(expert):
    """The expert that lists every term of a partition: ``expert`` without its cutoff, in
    the order the terms are first met (the vocabulary's cutoff and order are the whole
    set's, applied by ``merged_vocabulary``)."""
    return dataclasses.replace(expert, cutoff=0, order="first")


def partition_terms(documents, expert):
    """Every term of one partition's documents and how many documents hold it (a term
    string is one gram shape's: the expert kinds' shapes differ in their word counts or
    gaps, so partitions' terms merge by their strings).

    Parameters
    ----------
    documents : ndarray of shape (n_docs,), object
        str, or None where missing.
    expert : TextExpert
        The column's expert (``counting_expert`` is applied here).

    Returns
    -------
    terms : list of str
        In the order the partition's documents first hold them.
    counts : ndarray of shape (n_terms,), int64
    """
    vocabulary = TermVocabulary().fit(documents.tolist(), counting_expert(expert))
    return vocabulary.terms_, np.asarray(vocabulary.document_frequency_, dtype=np.int64)


def merged_vocabulary(pieces, expert):
    """The column's vocabulary from its partitions' ``partition_terms``, in partition
    order: ``TermVocabulary.fit``'s terms on all the documents.

    Parameters
    ----------
    pieces : list of (list of str, ndarray of int64)
    expert : TextExpert

    Returns
    -------
    terms : list of str
    """
    frequency = {}  # the whole set's terms in the order they are first met, with their counts
    for terms, counts in pieces:
        for term, count in zip(terms, counts.tolist(), strict=True):
            frequency[term] = frequency.get(term, 0) + count
    terms = list(frequency)
    frequent = np.fromiter(frequency.values(), dtype=np.int64,
                           count=len(terms)) >= expert.cutoff
    if expert.order == "sorted":
        return sorted(term for term, kept in zip(terms, frequent, strict=True) if kept)
    if expert.cutoff > 1:  # icsiboost's replay of its cutoff on the first-met order
        return [terms[code] for code in _icsiboost_cutoff(range(len(terms)), frequent)]
    return terms


@dataclass
class ColumnVocabulary:
    """A text column of the cluster's Dataset of no rows: its vocabulary and expert; a
    shard's postings over it come from ``of_rows``.

    Parameters
    ----------
    column : int
        Position of the column in the input table.
    terms : list of str
        The vocabulary (``merged_vocabulary``).
    expert : TextExpert
    """

    column: int
    terms: list
    expert: object

    @property
    def n_terms(self):
        """Number of terms."""
        return len(self.terms)

    def of_rows(self, documents):
        """The ``TextColumn`` of a shard's documents over this vocabulary.

        Parameters
        ----------
        documents : ndarray of shape (n_docs,), object
            str, or None where missing.

        Returns
        -------
        TextColumn
            Term ``j``'s postings: the documents whose terms hold ``terms[j]``; the term
            learner scores each term (``per_term``): the shards' distinct lists differ, its
            sums are added up term by term of the vocabulary.
        """
        local = TermVocabulary()
        postings, _ = local.fit_transform(documents.tolist(), counting_expert(self.expert))
        index = {term: j for j, term in enumerate(self.terms)}
        at = np.array([index.get(term, -1) for term in local.terms_], dtype=np.int64)
        kept = np.flatnonzero(at >= 0)
        kept = kept[np.argsort(at[kept], kind="stable")]
        lengths = np.zeros(len(self.terms), dtype=np.int64)
        lengths[at[kept]] = np.diff(postings.indptr)[kept]
        indptr = np.zeros(len(self.terms) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = (np.concatenate([postings.indices[postings.indptr[j]:postings.indptr[j + 1]]
                                   for j in kept.tolist()]).astype(np.int64)
                   if kept.size else np.zeros(0, dtype=np.int64))
        return TextColumn(self.column, self.terms, indptr, indices, per_term=True)
