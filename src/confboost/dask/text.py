"""Text columns on the cluster: the vocabulary from every partition, the postings on each
shard, and a tree node's term masses (BoosTexter, Schapire & Singer 2000; the term test of
§7.1 of the 1999 paper).

No document leaves its worker:

- each partition counts its own terms (``partition_terms``: every term of the column's
  expert with ``drop`` and ``no_unk`` applied, in the order it first meets them, and the
  number of its documents holding each); the client adds the counts and applies the local
  rule (``merged_vocabulary``: ``cutoff``, icsiboost's replay of it, the ``order``), which
  gives ``data.postings.TermVocabulary``'s terms on the gathered documents;
- each shard turns its documents into postings over that vocabulary
  (``ColumnVocabulary.of_rows``, called when the shard is built), whose every term the
  local term learner (``engine/learners/term.py``, its sums through the round's reducer)
  scores on its own;
- a tree's node takes its term splits from the node's rows' W+ and W- of every term
  (``node_term_masses``), allreduced as a numeric column's histogram is, and scored by the
  local kernel (``term_splits``); a Hamming tree's vote from every term's margins
  (``term_votes``).

A shard's distinct posting lists (terms found in the same documents share one) are its
own, so every sum over the shards is taken per term of the common vocabulary, never per
list.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from confboost.data.dataset import TextColumn
from confboost.data.postings import TermVocabulary, _icsiboost_cutoff
from confboost.engine.learners.tree import _best_factorised
from confboost.kernels.term_masses import term_block_weights
from confboost.kernels.tree_nodes import node_term_gains
from confboost.utils.dtypes import NODE_TERM


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


def node_term_masses(column, in_node, pos, neg):
    """W+ and W- of a tree node's rows holding each term of a text column, shape
    (n_terms, c) each.

    Parameters
    ----------
    column : TextColumn
        A shard's column (its postings over the common vocabulary).
    in_node : ndarray of shape (n_samples,), bool
        Whether each row is one of the node's.
    pos, neg : ndarray of shape (n_samples, c)
        Positive and negative mass of each row and histogram column.

    The masses of disjoint row sets add up to those of their union: the shards' sum is the
    node's over every row (as ``kernels/tree_nodes.node_term_gains`` forms it for a list).
    """
    indptr, indices = column.distinct_indptr, column.distinct_indices
    n_lists = indptr.shape[0] - 1
    lists = np.repeat(np.arange(n_lists), np.diff(indptr))
    held = in_node[indices]
    rows, lists = indices[held], lists[held]
    masses = [np.stack([np.bincount(lists, weights=side[rows, j], minlength=n_lists)
                        for j in range(side.shape[1])], axis=1)[column.term_list]
              for side in (pos, neg)]
    return masses[0], masses[1]


def term_splits(allreduce, text, in_node, pos, neg, node_pos, node_neg, mode, least_mass):
    """Each text column's best presence split at a tree node, from the node's term masses
    summed over the shards: ``NodeSplits.term_splits``' list, term by term of the common
    vocabulary (the first term of the largest gain, as the local rule's first term of the
    best distinct list).

    Parameters
    ----------
    allreduce : callable
        The sum over the shards (``link.Link.allreduce``).
    text : list of TextColumn
        The splitter's text columns (those with terms).
    in_node, pos, neg
        As ``node_term_masses``.
    node_pos, node_neg : ndarray of shape (c,)
        The node's W+ and W- (over every shard).
    mode : int
        Confidence mode code.
    least_mass : float
        Least mass of a child.
    """
    masses = allreduce([node_term_masses(column, in_node, pos, neg) for column in text])
    found = []
    for index, (w_plus, w_minus) in enumerate(masses):
        # the local kernel's arithmetic on the summed masses: each term its own "document"
        # holding them (0.0 + a sum is that sum), so one shard gives the local gains' bits
        n_terms = w_plus.shape[0]
        gains = np.empty(n_terms, dtype=np.float64)
        # int32, a fit's postings' dtype: no other specialisation to compile on the workers
        every = np.arange(n_terms + 1, dtype=np.int32)
        node_term_gains(every, every[:-1], np.ones(n_terms, dtype=bool),
                        np.ascontiguousarray(w_plus), np.ascontiguousarray(w_minus),
                        node_pos, node_neg, mode, least_mass, gains)
        term = int(np.argmax(gains))
        found.append((float(gains[term]), (NODE_TERM, index, term, False)))
    return found


def term_votes(allreduce, dataset, weights, labels, margin_total):
    """(edge, vote) of the best factorised term split of each text column with terms
    (``HammingTreeLearner._other_votes``), from every term's margins W+ - W- summed over
    the shards; ``margin_total``: the node's margins over every shard, shape (k,)."""
    columns = [column for column in dataset.text if column.n_terms]
    margins = []
    for column in columns:
        w_plus, w_minus = term_block_weights(column.distinct_indptr, column.distinct_indices,
                                             weights, labels.signs)
        margins.append((w_plus - w_minus)[column.term_list])
    return [_best_factorised(margin, margin_total) for margin in allreduce(margins)]
