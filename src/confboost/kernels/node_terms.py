"""A tree node's presence splits on a text column: its sums, then its gains.

A term's presence split sends the node's documents holding the term left and the others (a
missing text holds no term) right, scored by the drop in Z of ``kernels/tree_nodes.py``'s
threshold splits (paper §4.1, Eq. 10 and 16; §3.1 and Eq. 14 for ±1 hypotheses), the
node's score minus its children's with the mode's score

- real: s = Σ_l 2 sqrt(W+[l] W-[l])                                           (Eq. 10, 16)
- discrete: s = -Σ_l |W+[l] - W-[l]|.

Terms found in the same documents share one posting list, scored once on one machine; a
shard of a cluster scores every term of the common vocabulary (``TextColumn.scored_list``).
The left child's W+ and W- of each scored list are sums over the node's rows
(``node_term_sums``), which the tree learner's reducer adds over the shards
(``engine/reduction.py``); the gains come from those sums and the node's
(``term_split_gains``), so one machine and a shard score by the same code.
"""

import numpy as np

from confboost.kernels.criterion_numba import node_score as _score
from confboost.kernels.criterion_numpy import node_score as node_score_naive
from confboost.utils.dtypes import REAL, REAL_ABSTAIN
from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, parallel=True, nogil=True)
def node_term_sums(indptr, indices, lists, in_node, pos, neg, present_pos, present_neg):
    """W+ and W- of a node's rows holding the terms of each list in ``lists``, per column.

    A term's presence split of a node sends the node's documents holding the term left and
    the others (a missing text holds no term) right; its left child's W+ and W- are summed
    here over the list's postings whose document is in the node, in posting order (the
    right child's are the node's minus them, ``term_split_gains``). Sums over disjoint row
    sets add up to the sums over their union, so the sums of the same terms on the shards
    of a cluster add up to the node's over every row.

    Cost O(Σ list lengths + k · the node's postings) time.

    Parameters
    ----------
    indptr : ndarray of shape (n_lists + 1,), int32 or int64
        CSC column pointers of the postings (documents × posting lists).
    indices : ndarray of shape (nnz,), int32 or int64
        Document of each posting.
    lists : ndarray of shape (n_scored,), int32
        The posting list of each output row (``TextColumn.scored_list``).
    in_node : ndarray of shape (n_samples,), bool
        Whether each document is one of the node's rows.
    pos, neg : ndarray of shape (n_samples, k), float64
        Positive and negative mass of each example and column.
    present_pos, present_neg : ndarray of shape (n_scored, k), float64
        Output (overwritten; the caller's, kept from node to node: an array made here would
        be zeroed page by page on each call).
    """
    k = pos.shape[1]
    if k == 1:  # one column: the sums in scalars (the same additions, in the same order)
        for u in prange(lists.shape[0]):
            at = lists[u]
            sum_pos = 0.0
            sum_neg = 0.0
            for position in range(indptr[at], indptr[at + 1]):
                i = indices[position]
                if in_node[i]:
                    sum_pos += pos[i, 0]
                    sum_neg += neg[i, 0]
            present_pos[u, 0] = sum_pos
            present_neg[u, 0] = sum_neg
        return
    for u in prange(lists.shape[0]):
        at = lists[u]
        for l in range(k):
            present_pos[u, l] = 0.0
            present_neg[u, l] = 0.0
        for position in range(indptr[at], indptr[at + 1]):
            i = indices[position]
            if in_node[i]:
                for l in range(k):
                    present_pos[u, l] += pos[i, l]
                    present_neg[u, l] += neg[i, l]


def node_term_sums_naive(indptr, indices, lists, rows, pos, neg):
    """Twin of ``node_term_sums``: a dense presence matrix of the node's rows, multiplied.

    Parameters are as in ``node_term_sums``, with the node's ``rows`` (n_rows,) for
    ``in_node`` and less the outputs, which it returns.
    """
    presence = np.zeros((lists.shape[0], rows.shape[0]))
    for u, at in enumerate(lists):
        presence[u] = np.isin(rows, indices[indptr[at]: indptr[at + 1]])
    return presence @ pos[rows], presence @ neg[rows]


#: Cells (rows × k) per parallel chunk of ``term_split_gains``: its three buffers stay in
#: a core's L2 cache.
_CHUNK_CELLS = 4096


@njit(cache=True, parallel=True, nogil=True)
def term_split_gains(present_pos, present_neg, node_pos, node_neg, mode, least_mass, out):
    """Each presence split's drop in Z at a node, from its left child's sums:
    score(node) - score(left) - score(right), the right child the node less the left
    (module docstring; paper §4.1, Eq. 10 and 16; §3.1).

    A chunk of rows' scores are computed cell by cell in one branch-free loop, which LLVM
    vectorises (``criterion_numba.node_scores``), then added row by row, column by column,
    left child then right (each gain the bits of ``node_score``'s sums in that order).

    Parameters
    ----------
    present_pos, present_neg : ndarray of shape (n_scored, k), float64, C-contiguous
        W+ and W- of each split's left child (``node_term_sums``, summed over the shards).
    node_pos, node_neg : ndarray of shape (k,), float64
        The node's W+ and W- per column.
    mode : int
        Confidence mode code.
    least_mass : float
        Least mass (Σ over columns of W+ + W-) of a child.
    out : ndarray of shape (n_scored,), float64
        Output: the gain of each split, -inf where a child is lighter than ``least_mass``.
    """
    n_scored, k = present_pos.shape
    real = mode == REAL or mode == REAL_ABSTAIN
    node_score = 0.0
    node_mass = 0.0
    for l in range(k):
        node_score += _score(node_pos[l], node_neg[l], mode)
        node_mass += node_pos[l] + node_neg[l]
    rows = max(1, _CHUNK_CELLS // k)
    node_pos_cells = np.empty(rows * k, dtype=present_pos.dtype)  # the node's, row by row
    node_neg_cells = np.empty(rows * k, dtype=present_pos.dtype)
    for j in range(rows * k):
        node_pos_cells[j] = node_pos[j % k]
        node_neg_cells[j] = node_neg[j % k]
    flat_pos = present_pos.reshape(n_scored * k)
    flat_neg = present_neg.reshape(n_scored * k)
    for chunk in prange((n_scored + rows - 1) // rows):
        start = chunk * rows
        stop = min(start + rows, n_scored)
        base = start * k
        size = (stop - start) * k
        mass = np.empty(size, dtype=present_pos.dtype)
        left = np.empty(size, dtype=present_pos.dtype)
        right = np.empty(size, dtype=present_pos.dtype)
        if real:
            for j in range(size):
                left_pos = flat_pos[base + j]
                left_neg = flat_neg[base + j]
                mass[j] = left_pos + left_neg
                left[j] = 2.0 * np.sqrt(left_pos * left_neg)
                right[j] = 2.0 * np.sqrt(max(node_pos_cells[j] - left_pos, 0.0)
                                         * max(node_neg_cells[j] - left_neg, 0.0))
        else:
            for j in range(size):
                left_pos = flat_pos[base + j]
                left_neg = flat_neg[base + j]
                mass[j] = left_pos + left_neg
                left[j] = -abs(left_pos - left_neg)
                right[j] = -abs(max(node_pos_cells[j] - left_pos, 0.0)
                                - max(node_neg_cells[j] - left_neg, 0.0))
        for u in range(start, stop):
            at = (u - start) * k
            present_mass = 0.0
            children_score = 0.0
            for l in range(k):
                present_mass += mass[at + l]
                children_score += left[at + l]
                children_score += right[at + l]
            if present_mass < least_mass or node_mass - present_mass < least_mass:
                out[u] = -np.inf
            else:
                out[u] = node_score - children_score


def term_split_gains_naive(present_pos, present_neg, node_pos, node_neg, mode, least_mass):
    """Twin of ``term_split_gains``: each split's children scored by NumPy.

    Returns
    -------
    gains : ndarray of shape (n_scored,)
    """
    gains = np.full(present_pos.shape[0], -np.inf)
    node_score = node_score_naive(node_pos, node_neg, mode)
    for u in range(present_pos.shape[0]):
        right_pos = np.maximum(node_pos - present_pos[u], 0.0)
        right_neg = np.maximum(node_neg - present_neg[u], 0.0)
        left_mass = present_pos[u].sum() + present_neg[u].sum()
        if left_mass < least_mass or right_pos.sum() + right_neg.sum() < least_mass:
            continue
        gains[u] = node_score - (node_score_naive(present_pos[u], present_neg[u], mode)
                                 + node_score_naive(right_pos, right_neg, mode))
    return gains


def node_term_gains_naive(indptr, indices, rows, pos, neg, mode, least_mass):
    """Brute force of ``term_split_gains`` of ``node_term_sums`` over every list: each
    list's two children formed from the node's rows.

    Returns
    -------
    gains : ndarray of shape (n_terms,)
    """
    n_terms = indptr.shape[0] - 1
    gains = np.full(n_terms, -np.inf)
    node_score = node_score_naive(pos[rows].sum(axis=0), neg[rows].sum(axis=0), mode)
    for term in range(n_terms):
        present = np.isin(rows, indices[indptr[term]: indptr[term + 1]])
        left, right = rows[present], rows[~present]
        if (pos[left].sum() + neg[left].sum() < least_mass
                or pos[right].sum() + neg[right].sum() < least_mass):
            continue
        gains[term] = node_score - (
            node_score_naive(pos[left].sum(axis=0), neg[left].sum(axis=0), mode)
            + node_score_naive(pos[right].sum(axis=0), neg[right].sum(axis=0), mode))
    return gains
