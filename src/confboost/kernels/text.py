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
from numba import njit, prange


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
