"""Block weights of term-presence tests: W+ and W- over the documents containing each term.

A BoosTexter weak hypothesis tests whether term ``j`` is in a document, a partition of the
examples into two blocks, "present" and "absent" (Schapire & Singer 1999, §7.1; BoosTexter,
ML 39, 2000). ``term_block_weights`` gives the present block's statistics of Eq. 9/16 for every
term at once,

    W+[j, l] = Σ_{i ∋ term j, Y[i, l] = +1} W[i, l],
    W-[j, l] = Σ_{i ∋ term j, Y[i, l] = -1} W[i, l],

reading the term postings (CSC ``indptr`` / ``indices``) once: O(nnz · k). The absent block's
statistics are the totals minus these; the learner forms them.
"""

import numpy as np

from confboost.kernels.criterion_numba import cell, is_abstaining, needs_v, z_from_sums
from confboost.kernels.criterion_numpy import partition_z
from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, parallel=True, nogil=True)
def term_block_weights(indptr, indices, weights, signs):
    """W+ and W- of the "term present" block, for every term and label.

    Parameters
    ----------
    indptr : ndarray of shape (n_terms + 1,), int32 or int64
        CSC column pointers of the postings (documents × terms).
    indices : ndarray of shape (nnz,), int32 or int64
        Document (row) of each posting; term ``j``'s documents are
        ``indices[indptr[j]:indptr[j + 1]]``, each at most once.
    weights : ndarray of shape (n_docs, k), float64
        W[i, l].
    signs : ndarray of shape (n_docs, k), int8
        Y[i, l] in {-1, +1}.

    Returns
    -------
    w_plus, w_minus : ndarray of shape (n_terms, k), dtype of ``weights``
        ``w_plus[j, l]`` sums ``weights[i, l]`` over documents ``i`` containing term ``j`` with
        ``signs[i, l] = +1``; ``w_minus`` over those with ``signs[i, l] = -1``.
    """
    n_terms = indptr.shape[0] - 1
    k = weights.shape[1]
    w_plus = np.zeros((n_terms, k), dtype=weights.dtype)
    w_minus = np.zeros((n_terms, k), dtype=weights.dtype)
    for term in prange(n_terms):
        for position in range(indptr[term], indptr[term + 1]):
            i = indices[position]
            for l in range(k):
                if signs[i, l] > 0:
                    w_plus[term, l] += weights[i, l]
                else:
                    w_minus[term, l] += weights[i, l]
    return w_plus, w_minus


def term_block_weights_naive(indptr, indices, weights, signs):
    """Obviously-correct twin of ``term_block_weights``: a dense presence matrix product.

    Parameters and returns are as in ``term_block_weights``.
    """
    n_docs = weights.shape[0]
    n_terms = indptr.shape[0] - 1
    presence = np.zeros((n_docs, n_terms), dtype=weights.dtype)
    for term in range(n_terms):
        presence[indices[indptr[term] : indptr[term + 1]], term] = 1.0
    w_plus = presence.T @ np.where(signs == 1, weights, 0.0)
    w_minus = presence.T @ np.where(signs == -1, weights, 0.0)
    return w_plus, w_minus


@njit(cache=True, nogil=True)
def _criterion_of_present(present_pos, present_all, total_pos, total_neg, mode, total):
    """Z of a term test from its present block's W+ and W+ + W- (each of shape (k,)); the
    absent block is the abstaining one (``kernels/criterion_numba.py``)."""
    abstaining = is_abstaining(mode)
    with_v = needs_v(mode)
    u = 0.0
    v = 0.0
    abstained = 0.0
    for l in range(present_pos.shape[0]):
        p_pos = present_pos[l]
        p_neg = max(present_all[l] - p_pos, 0.0)
        absent_pos = max(total_pos[l] - p_pos, 0.0)
        absent_neg = max(total_neg[l] - p_neg, 0.0)
        u += cell(p_pos, p_neg, mode)
        if with_v:
            v += min(p_pos, p_neg)
        if abstaining:
            abstained += absent_pos + absent_neg
        else:
            u += cell(absent_pos, absent_neg, mode)
    return z_from_sums(u, v, abstained, mode, total)


#: Terms per parallel chunk of ``term_criteria`` (its two length-k buffers are per chunk).
_TERM_CHUNK = 512


@njit(cache=True, parallel=True, nogil=True)
def term_criteria(indptr, indices, weights, signs, total_pos, total_neg, mode, total, out):
    """Z of every term's presence test, fused: no (n_terms, k) array is materialised.

    The test on term ``j`` partitions the documents into two blocks: present (the postings of
    ``j``) and absent (all others; the abstaining block of the abstaining modes). Per term the
    present block's W+ and W+ + W- are summed into two length-k buffers (each weight, and it
    or 0.0 by its label's sign: no (n_docs, k) copy), its W- is the difference, the absent
    block's statistics are the totals minus the present ones, and the criterion of the
    confidence mode follows (as in ``kernels/stump_split.py``, with the absent block in the role of
    the missing block):

    - real: Z = 2 Σ_l (sqrt(P+ P-) + sqrt(A+ A-))                (Eq. 10, 16)
    - discrete: Z = sqrt(total² - r²), r = Σ_l |P+ - P-| + |A+ - A-|  (§3.1)
    - abstain: Z = W0 + 2 sqrt(a d), a = Σ_l max(P+, P-), d = Σ_l min(P+, P-), W0 = Σ_l A+ + A-
    - real-abstain: Z = W0 + 2 Σ_l sqrt(P+ P-)

    Cost O(nnz · k) time and O(threads · k) extra memory.

    Parameters
    ----------
    indptr, indices : CSC postings, as in ``term_block_weights``
    weights : ndarray of shape (n_docs, k), float64
    signs : ndarray of shape (n_docs, k), int8
    total_pos, total_neg : ndarray of shape (k,), float64
        W+ and W- of all documents per label.
    mode : int
        Confidence mode code.
    total : float
        Total weight mass.
    out : ndarray of shape (n_terms,), float64
        Output: Z of each term.
    """
    n_terms = indptr.shape[0] - 1
    k = weights.shape[1]
    n_chunks = (n_terms + _TERM_CHUNK - 1) // _TERM_CHUNK
    for chunk in prange(n_chunks):
        present_pos = np.empty(k, dtype=weights.dtype)
        present_all = np.empty(k, dtype=weights.dtype)
        for term in range(chunk * _TERM_CHUNK, min((chunk + 1) * _TERM_CHUNK, n_terms)):
            present_pos[:] = 0.0
            present_all[:] = 0.0
            for position in range(indptr[term], indptr[term + 1]):
                i = indices[position]
                for l in range(k):
                    weight = weights[i, l]
                    present_pos[l] += weight if signs[i, l] > 0 else 0.0
                    present_all[l] += weight
            out[term] = _criterion_of_present(present_pos, present_all, total_pos, total_neg,
                                              mode, total)


def term_criteria_naive(indptr, indices, weights, signs, mode):
    """Twin of ``term_criteria``: dense block statistics, then the criterion per term.

    Returns
    -------
    z : ndarray of shape (n_terms,)
    """
    w_plus, w_minus = term_block_weights_naive(indptr, indices, weights, signs)
    total_pos = np.where(signs > 0, weights, 0.0).sum(axis=0)
    total_neg = np.where(signs < 0, weights, 0.0).sum(axis=0)
    weight_pos = np.stack([w_plus, np.maximum(total_pos - w_plus, 0.0)], axis=1)
    weight_neg = np.stack([w_minus, np.maximum(total_neg - w_minus, 0.0)], axis=1)
    return partition_z(weight_pos, weight_neg, np.array([False, True]), mode,
                       float(weights.sum()))
