"""Block weights of term-presence tests: W+ and W- over the documents containing each term.

A BoosTexter weak hypothesis tests whether term ``j`` is in a document, a partition of the
examples into two blocks, "present" and "absent" (Schapire & Singer 1999, §7.1; BoosTexter,
ML 39, 2000). ``term_block_weights`` gives the present block's statistics of Eq. 9/16 for the
terms (or distinct posting lists) it is asked for,

    W+[j, l] = Σ_{i ∋ term j, Y[i, l] = +1} W[i, l],
    W-[j, l] = Σ_{i ∋ term j, Y[i, l] = -1} W[i, l],

reading their postings (CSC ``indptr`` / ``indices``) once: O(k · Σ list lengths) (a
Hamming tree's term votes, a slice of lists at a time). The absent block's statistics are
the totals minus these; the learner forms them.

The term learner sums the present blocks of the lists it scores as W+ and W+ + W-
(``present_sums``: sums over rows, which its reducer adds over the shards of a cluster),
and scores every list from those sums and the totals (``present_criteria``).
"""

import numpy as np

from confboost.kernels.criterion_numba import cell, is_abstaining, needs_v, z_from_sums
from confboost.kernels.criterion_numpy import partition_z
from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, parallel=True, nogil=True)
def term_block_weights(indptr, indices, lists, weights, signs, w_plus, w_minus):
    """W+ and W- of the "term present" block of each list in ``lists``, per label.

    Parameters
    ----------
    indptr : ndarray of shape (n_terms + 1,), int32 or int64
        CSC column pointers of the postings (documents × terms, or × distinct lists).
    indices : ndarray of shape (nnz,), int32 or int64
        Document (row) of each posting; list ``j``'s documents are
        ``indices[indptr[j]:indptr[j + 1]]``, each at most once.
    lists : ndarray of shape (n_scored,), integer
        The list (column of the postings) of each output row.
    weights : ndarray of shape (n_docs, k), float64
        W[i, l].
    signs : ndarray of shape (n_docs, k), int8
        Y[i, l] in {-1, +1}.
    w_plus, w_minus : ndarray of shape (n_scored, k), dtype of ``weights``
        Output (overwritten): ``w_plus[u, l]`` sums ``weights[i, l]`` over the documents
        ``i`` of list ``lists[u]`` with ``signs[i, l] = +1``, ``w_minus`` over the others,
        added in list order.
    """
    k = weights.shape[1]
    for u in prange(lists.shape[0]):
        at = lists[u]
        for l in range(k):
            w_plus[u, l] = 0.0
            w_minus[u, l] = 0.0
        for position in range(indptr[at], indptr[at + 1]):
            i = indices[position]
            for l in range(k):
                if signs[i, l] > 0:
                    w_plus[u, l] += weights[i, l]
                else:
                    w_minus[u, l] += weights[i, l]


def term_block_weights_naive(indptr, indices, lists, weights, signs):
    """Obviously-correct twin of ``term_block_weights``: a dense presence matrix product.

    Parameters are as in ``term_block_weights``, less the outputs, which it returns.
    """
    n_docs = weights.shape[0]
    n_terms = indptr.shape[0] - 1
    presence = np.zeros((n_docs, n_terms), dtype=weights.dtype)
    for term in range(n_terms):
        presence[indices[indptr[term] : indptr[term + 1]], term] = 1.0
    w_plus = presence.T @ np.where(signs == 1, weights, 0.0)
    w_minus = presence.T @ np.where(signs == -1, weights, 0.0)
    return w_plus[lists], w_minus[lists]


@njit(cache=True, parallel=True, nogil=True)
def present_sums(indptr, indices, lists, weights, signs, present_pos, present_all):
    """W+ and W+ + W- of the "term present" block of each list in ``lists``, per label.

    A term test's criterion needs, of its present block, W+ and W- per label (Eq. 9/16);
    these are summed as W+ and W+ + W- (each weight, and it or 0.0 by its label's sign: no
    (n_docs, k) copy), from which ``present_criteria`` takes W- as the difference.
    Sums over disjoint row sets add up to the sums over their union, so the sums of the
    same terms on the shards of a cluster add up to the whole set's.

    Cost O(k · Σ list lengths) time.

    Parameters
    ----------
    indptr, indices : CSC postings, as in ``term_block_weights``
    lists : ndarray of shape (n_scored,), int32
        The posting list of each output row (``TextColumn.scored_list``).
    weights : ndarray of shape (n_docs, k), float64
    signs : ndarray of shape (n_docs, k), int8
    present_pos, present_all : ndarray of shape (n_scored, k), float64
        Output (overwritten; the caller's, as an array made here would be zeroed page by
        page on each call): per row ``u`` and label ``l``, Σ of ``weights[i, l]`` over the
        documents ``i`` of list ``lists[u]`` with ``signs[i, l] > 0``, and over all of them;
        added in list order.
    """
    k = weights.shape[1]
    if k == 1:  # one label: the sums in scalars (the same additions, in the same order)
        for u in prange(lists.shape[0]):
            at = lists[u]
            pos = 0.0
            every = 0.0
            for position in range(indptr[at], indptr[at + 1]):
                i = indices[position]
                weight = weights[i, 0]
                pos += weight if signs[i, 0] > 0 else 0.0
                every += weight
            present_pos[u, 0] = pos
            present_all[u, 0] = every
        return
    for u in prange(lists.shape[0]):
        at = lists[u]
        for l in range(k):
            present_pos[u, l] = 0.0
            present_all[u, l] = 0.0
        for position in range(indptr[at], indptr[at + 1]):
            i = indices[position]
            for l in range(k):
                weight = weights[i, l]
                present_pos[u, l] += weight if signs[i, l] > 0 else 0.0
                present_all[u, l] += weight


def present_sums_naive(indptr, indices, lists, weights, signs):
    """Twin of ``present_sums``: ``term_block_weights_naive``'s dense product, row by row
    of ``lists``.

    Parameters are as in ``present_sums``, less the outputs, which it returns.
    """
    w_plus, w_minus = term_block_weights_naive(indptr, indices, lists, weights, signs)
    return w_plus, w_plus + w_minus


@njit(cache=True, nogil=True)
def present_criteria(present_pos, present_all, total_pos, total_neg, mode, total, out):
    """Z of the presence test of each row of ``present_sums``' output.

    The test partitions the documents into two blocks: present and absent (all others; the
    abstaining block of the abstaining modes). The present block's W- is W+ + W- less W+,
    the absent block's statistics are the totals minus the present ones, and the criterion
    of the confidence mode follows (as in ``kernels/stump_split.py``, with the absent block
    in the role of the missing block):

    - real: Z = 2 Σ_l (sqrt(P+ P-) + sqrt(A+ A-))                (Eq. 10, 16)
    - discrete: Z = sqrt(total² - r²), r = Σ_l |P+ - P-| + |A+ - A-|  (§3.1)
    - abstain: Z = W0 + 2 sqrt(a d), a = Σ_l max(P+, P-), d = Σ_l min(P+, P-), W0 = Σ_l A+ + A-
    - real-abstain: Z = W0 + 2 Σ_l sqrt(P+ P-)

    Parameters
    ----------
    present_pos, present_all : ndarray of shape (n_scored, k), float64
        The present blocks' W+ and W+ + W- (``present_sums``, summed over the shards).
    total_pos, total_neg : ndarray of shape (k,), float64
        W+ and W- of all documents per label.
    mode : int
        Confidence mode code.
    total : float
        Total weight mass.
    out : ndarray of shape (n_scored,), float64
        Output: Z of each row.

    One thread: vectorised, a row costs a few nanoseconds a label (Reuters-21578's 100,912
    lists × 90 labels: 8 ms), less than a second parallel region's start on busy cores.
    """
    n_scored, k = present_pos.shape
    abstaining = is_abstaining(mode)
    with_v = needs_v(mode)
    present_cell = np.empty(k, dtype=present_pos.dtype)
    absent_part = np.empty(k, dtype=present_pos.dtype)  # its cell, or its mass (W0)
    smaller = np.empty(k, dtype=present_pos.dtype)
    for u in range(n_scored):
        for l in range(k):  # no value carried from label to label: LLVM vectorises it
            p_pos = present_pos[u, l]
            p_neg = max(present_all[u, l] - p_pos, 0.0)
            absent_pos = max(total_pos[l] - p_pos, 0.0)
            absent_neg = max(total_neg[l] - p_neg, 0.0)
            present_cell[l] = cell(p_pos, p_neg, mode)
            smaller[l] = min(p_pos, p_neg)
            absent_part[l] = (absent_pos + absent_neg if abstaining
                              else cell(absent_pos, absent_neg, mode))
        u_sum = 0.0
        v = 0.0
        abstained = 0.0
        for l in range(k):  # the sums, label by label, in the order of Eq. 10's terms
            u_sum += present_cell[l]
            if with_v:
                v += smaller[l]
            if abstaining:
                abstained += absent_part[l]
            else:
                u_sum += absent_part[l]
        out[u] = z_from_sums(u_sum, v, abstained, mode, total)


def present_criteria_naive(present_pos, present_all, total_pos, total_neg, mode, total):
    """Twin of ``present_criteria``: the blocks' statistics stacked, then ``partition_z``.

    Returns
    -------
    z : ndarray of shape (n_scored,)
    """
    present_neg = np.maximum(present_all - present_pos, 0.0)
    weight_pos = np.stack([present_pos, np.maximum(total_pos - present_pos, 0.0)], axis=1)
    weight_neg = np.stack([present_neg, np.maximum(total_neg - present_neg, 0.0)], axis=1)
    return partition_z(weight_pos, weight_neg, np.array([False, True]), mode, total)
