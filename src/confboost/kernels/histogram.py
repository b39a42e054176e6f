"""Histograms of the weight mass W+ and W- per (feature, bin, label column).

``hist[f, b, l, 0]`` is W+ = Σ_i W[i, l] over examples with code ``b`` on feature ``f`` and
``Y[i, l] = +1``; ``hist[f, b, l, 1]`` is W- (``Y[i, l] = -1``). These are the block statistics
W_b^{jl} of the paper's Eq. 9-10 and 16, from which every split's Z follows.

A histogram is a plain sum over examples, so histograms of row partitions add up to the
histogram of their union (the distributed backend relies on this).

The kernels take the bins per feature from ``hist.shape[1]``: 256 (255 value bins and the
missing bin, code 255), or fewer for codes remapped so that the missing bin is the last one
(a tree's histograms on features of few values, ``learners/tree.py``'s ``compact_codes``).
"""

import numpy as np

from confboost.utils.dtypes import WEIGHT_DTYPE
from confboost.utils.lazy_numba import load_numba, njit, prange

#: Bins per feature in a histogram: the 255 value bins and the missing bin.
N_HIST_BINS = 256


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def build_histogram(codes, weights, sign_index, hist):
    """Fill ``hist`` with W+ and W- per (feature, bin, label).

    One task per feature (prange over features: each thread writes only its features'
    histograms, so there is no race and no false sharing between 4 KiB-aligned rows); the
    histogram is addressed flat, ``(code * k + l) * 2 + sign``, with unsigned indices so no
    negative-index wraparound test sits in the loop.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
        Binned features, feature-major.
    weights : ndarray of shape (n_samples, k), float64, C-contiguous
        W[i, l] (the scheme's weights: D for MH, d of Eq. 30 for MR).
    sign_index : ndarray of shape (n_samples, k), uint8, C-contiguous
        0 where ``Y[i, l] = +1``, 1 where ``Y[i, l] = -1``.
    hist : ndarray of shape (n_features, n_hist_bins, k, 2), float64, C-contiguous
        Output; overwritten. ``n_hist_bins`` (256) exceeds every code.
    """
    n_features, n_samples = codes.shape
    k = weights.shape[1]
    width = np.uintp(2 * k)
    flat = hist.reshape((n_features, hist.shape[1] * 2 * k))
    for feature in prange(n_features):
        feature_hist = flat[feature]
        feature_hist[:] = 0.0
        feature_codes = codes[feature]
        for i in range(n_samples):
            base = np.uintp(feature_codes[i]) * width
            weight_row = weights[i]
            sign_row = sign_index[i]
            for l in range(k):
                feature_hist[base + np.uintp(2 * l) + np.uintp(sign_row[l])] += weight_row[l]


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def build_histogram_rows(codes, rows, row_weights, row_sign_index, hist):
    """``build_histogram`` over the examples ``rows`` only (tree nodes, weight trimming).

    The rows' weights and signs come gathered (``weights[rows]``, contiguous), so each
    feature's pass streams them instead of gathering them again: on a tree node of half the
    examples that was 1.6x faster, on a tenth 2.7x (fashion-mnist, k = 10).

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    rows : ndarray of shape (n_rows,), integer
        Example indices (any order; increasing is fastest).
    row_weights : ndarray of shape (n_rows, k), float64, C-contiguous
        ``weights[rows]``.
    row_sign_index : ndarray of shape (n_rows, k), uint8, C-contiguous
        ``sign_index[rows]``.
    hist : ndarray of shape (n_features, n_hist_bins, k, 2), float64, C-contiguous
        Output; overwritten. ``n_hist_bins`` (256) exceeds every code.
    """
    n_features = codes.shape[0]
    k = row_weights.shape[1]
    width = np.uintp(2 * k)
    flat = hist.reshape((n_features, hist.shape[1] * 2 * k))
    for feature in prange(n_features):
        feature_hist = flat[feature]
        feature_hist[:] = 0.0
        feature_codes = codes[feature]
        for p in range(rows.shape[0]):
            base = np.uintp(feature_codes[rows[p]]) * width
            weight_row = row_weights[p]
            sign_row = row_sign_index[p]
            for l in range(k):
                feature_hist[base + np.uintp(2 * l) + np.uintp(sign_row[l])] += weight_row[l]


@njit(cache=True, parallel=True, nogil=True)
def split_by_sign(weights, sign_index, pos, neg):
    """Each example's weight split by its label's sign: the cells of its histogram bin.

    ``pos[i, l] = W[i, l]`` where ``Y[i, l] = +1`` else 0.0, ``neg`` the same for -1: one
    pass over the rows writing both, where two ``np.where`` and their copies took three
    (7% of a 16-leaf tree round on binary 400k x 50). Each value is copied, not computed,
    so the result is ``split_by_sign_naive``'s on any thread count.

    Parameters
    ----------
    weights : ndarray of shape (n_samples, k), float64, C-contiguous
    sign_index : ndarray of shape (n_samples, k), uint8, C-contiguous
        0 where ``Y[i, l] = +1``, 1 where ``Y[i, l] = -1``.
    pos, neg : ndarray of shape (n_samples, k), float64, C-contiguous
        Output; overwritten.
    """
    k = weights.shape[1]
    for i in prange(weights.shape[0]):
        for l in range(k):
            weight = weights[i, l]
            if sign_index[i, l] == 0:
                pos[i, l] = weight
                neg[i, l] = 0.0
            else:
                pos[i, l] = 0.0
                neg[i, l] = weight


def split_by_sign_naive(weights, sign_index):
    """Twin of ``split_by_sign``: two ``np.where``; returns ``(pos, neg)``."""
    positive = sign_index == 0
    return (np.where(positive, weights, 0.0).astype(WEIGHT_DTYPE, copy=False),
            np.where(positive, 0.0, weights).astype(WEIGHT_DTYPE, copy=False))


@njit(cache=True, parallel=True, nogil=True)
def interleaved_masses(weights, sign_index, masses):
    """Each example's weight split by its label's sign, interleaved in a histogram bin's
    cell order: the ``row_masses`` of ``build_histogram_masses``.

    ``masses[i, l, 0] = W[i, l]`` where ``Y[i, l] = +1`` else 0.0, ``masses[i, l, 1]`` the
    same for -1: ``split_by_sign``'s ``pos`` and ``neg`` side by side, written in one pass
    from the weights, where stacking ``pos`` and ``neg`` read both again (16,000 x 26
    masses on one thread: 0.23 ms against 0.27). Each value is copied, so the result is
    ``interleaved_masses_naive``'s on any thread count.

    Parameters
    ----------
    weights : ndarray of shape (n_samples, k), float64, C-contiguous
    sign_index : ndarray of shape (n_samples, k), uint8, C-contiguous
        0 where ``Y[i, l] = +1``, 1 where ``Y[i, l] = -1``.
    masses : ndarray of shape (n_samples, k, 2), float64, C-contiguous
        Output; overwritten.
    """
    k = weights.shape[1]
    for i in prange(weights.shape[0]):
        for l in range(k):
            weight = weights[i, l]
            if sign_index[i, l] == 0:
                masses[i, l, 0] = weight
                masses[i, l, 1] = 0.0
            else:
                masses[i, l, 0] = 0.0
                masses[i, l, 1] = weight


def interleaved_masses_naive(weights, sign_index):
    """Twin of ``interleaved_masses``: ``split_by_sign_naive``'s two arrays stacked on a
    last axis; returns the masses, shape (n_samples, k, 2)."""
    return np.stack(split_by_sign_naive(weights, sign_index), axis=-1)


#: Bytes of row masses ``build_histogram_masses`` streams per block (kept in L2 while a
#: task's features take it).
MASS_BLOCK_BYTES = 256 * 1024

#: Most features a task of ``build_histogram_masses`` fills (their histograms and the
#: masses' block stay in L2 together).
MASS_GROUP = 8

#: On one thread, the bytes of histograms a task of ``build_histogram_masses`` may fill
#: (with the masses' block, within L2): ``MASS_GROUP`` histograms of 256 bins and 24 labels.
MASS_GROUP_BYTES = MASS_GROUP * N_HIST_BINS * 2 * 24 * 8


def mass_group(n_features, feature_bytes=None):
    """Features a task of ``build_histogram_masses`` fills.

    With several threads (numba's current count), ``MASS_GROUP``, fewer when that would
    leave under 4 tasks a thread. On one thread no task waits for another, so a task takes
    as many features as keep their histograms within ``MASS_GROUP_BYTES``: the node's masses
    are then read from memory once per group, not once per 4 features (letter, 16 features
    of 17 bins and 26 labels: one task, 0.85-0.9x the time of four on the root and on a
    third of the rows).

    Parameters
    ----------
    n_features : int
    feature_bytes : int, optional
        Bytes of one feature's histogram (``hist[0].nbytes``); without it, the rule of
        several threads.

    Returns
    -------
    group : int
    """
    n_threads = load_numba().get_num_threads()
    if n_threads == 1 and feature_bytes:
        return max(1, min(n_features, MASS_GROUP_BYTES // feature_bytes))
    return max(1, min(MASS_GROUP, n_features // (4 * n_threads)))


#: The ``rows`` of a node histogram's call over every example (``node_rows``): not read.
EVERY_ROW = np.empty(0, dtype=np.intp)


def node_rows(rows):
    """The ``rows, every_row`` arguments of a node histogram's kernel
    (``build_histogram_masses``, ``node_histogram.build_node_histogram`` and
    ``node_histogram_binary``) for ``rows``, a node's examples (intp) or None for every
    example, in order. The flag is a value, not a type: ``rows=None`` itself would make
    numba compile each kernel twice, once for the root and once for the nodes below it
    (2.4-12.5 s of CPU each on an empty cache)."""
    return (EVERY_ROW, True) if rows is None else (rows, False)


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def build_histogram_masses(codes, rows, every_row, row_masses, hist, group):
    """``build_histogram_rows`` from each example's masses in the histogram's cell order.

    ``row_masses[p]`` holds W+ and W- of row ``rows[p]`` for every label, ``(l, sign)``
    as a histogram bin holds them, the cell of the other sign 0.0: a row adds its 2k values
    to 2k consecutive cells, one contiguous loop with no sign lookup, which LLVM vectorises.
    A task fills ``group`` features (``mass_group``), taking the rows a block of
    ``MASS_BLOCK_BYTES`` of masses at a time for all of them, so a block is read from memory
    once per group, not once per feature. Adding 0.0 leaves a sum of non-negative masses
    unchanged to the bit, and every cell sums its rows in the order of ``rows``, so the
    histogram is ``build_histogram_rows``'s bit for bit. It is faster from k = 8 labels on
    (fashion-mnist's nodes, k = 10: 0.71x the time; random 200k x 50 codes, k = 10-19:
    0.5-0.85x) and slower below (1.2-1.5x at k = 1-5): ``learners/tree.label_histograms``
    picks it from ``MASS_MIN_LABELS`` labels on.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    rows : ndarray of shape (n_rows,), intp
        Example indices (any order; increasing is fastest); not read with ``every_row``.
    every_row : bool
        Every example, in order (``rows[p] = p`` without the lookup, 12% faster on
        fashion-mnist's root): a value, not a type (``node_rows``), so one compiled kernel
        serves the root and the nodes below it.
    row_masses : ndarray of shape (n_samples, k, 2), float64, C-contiguous
        ``[i, l, 0]``: W[i, l] if Y[i, l] = +1 else 0.0; ``[i, l, 1]``: the same for
        Y = -1 (the ``label_masses`` of every example, interleaved). A node's rows are read
        in place: a row's 2k masses are contiguous, so a gathered copy saves no traffic.
    hist : ndarray of shape (n_features, n_hist_bins, k, 2), float64, C-contiguous
        Output; overwritten. ``n_hist_bins`` exceeds every code.
    group : int
        Features a task fills (``mass_group``); any value >= 1 gives the same histogram.
    """
    n_features = codes.shape[0]
    n_rows = row_masses.shape[0] if every_row else rows.shape[0]
    width = row_masses.shape[1] * 2
    masses = row_masses.reshape((row_masses.shape[0], width))
    flat = hist.reshape((n_features, hist.shape[1] * width))
    block_rows = max(64, MASS_BLOCK_BYTES // (8 * width))
    for task in prange((n_features + group - 1) // group):
        first = task * group
        last = min(first + group, n_features)
        for feature in range(first, last):
            flat[feature, :] = 0.0
        for start in range(0, n_rows, block_rows):
            stop = min(start + block_rows, n_rows)
            for feature in range(first, last):
                feature_hist = flat[feature]
                feature_codes = codes[feature]
                for p in range(start, stop):
                    row = p if every_row else rows[p]
                    base = np.uintp(feature_codes[row]) * np.uintp(width)
                    mass_row = masses[row]
                    for cell in range(width):
                        feature_hist[base + np.uintp(cell)] += mass_row[cell]


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def build_histogram_binary(codes, weights, sign_index, hist):
    """``build_histogram`` specialised for one label column (1-D weights and signs).

    The hot loop is one add per example into ``hist[f, code * 2 + sign]``. Features go in
    fours, one task a group: each example's weight and sign are loaded once for four
    histograms, and the four adds are independent (a task per feature pair was 1.5x faster
    on 1M x 50 than a task per feature; four a task take 0.9-0.95x the time of two on
    10k-100k x 50 at one thread). The features past the last four take a task each.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    weights : ndarray of shape (n_samples,), float64, contiguous
    sign_index : ndarray of shape (n_samples,), uint8, contiguous
    hist : ndarray of shape (n_features, 256, 1, 2), float64
        Output; overwritten.
    """
    n_features, n_samples = codes.shape
    flat = hist.reshape((n_features, N_HIST_BINS * 2))
    one = np.uintp(1)
    n_fours = n_features // 4
    for task in prange(n_fours + n_features % 4):
        if task < n_fours:
            first = 4 * task
            hist_0, hist_1, hist_2, hist_3 = (flat[first], flat[first + 1], flat[first + 2],
                                              flat[first + 3])
            codes_0, codes_1, codes_2, codes_3 = (codes[first], codes[first + 1],
                                                  codes[first + 2], codes[first + 3])
            hist_0[:] = 0.0
            hist_1[:] = 0.0
            hist_2[:] = 0.0
            hist_3[:] = 0.0
            for i in range(n_samples):
                weight = weights[i]
                sign = np.uintp(sign_index[i])
                hist_0[(np.uintp(codes_0[i]) << one) | sign] += weight
                hist_1[(np.uintp(codes_1[i]) << one) | sign] += weight
                hist_2[(np.uintp(codes_2[i]) << one) | sign] += weight
                hist_3[(np.uintp(codes_3[i]) << one) | sign] += weight
        else:
            feature = 4 * n_fours + task - n_fours
            feature_hist = flat[feature]
            feature_hist[:] = 0.0
            feature_codes = codes[feature]
            for i in range(n_samples):
                feature_hist[(np.uintp(feature_codes[i]) << one) | np.uintp(sign_index[i])] += (
                    weights[i])


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def build_histogram_binary_rows(codes, rows, row_weights, row_sign_index, hist):
    """``build_histogram_binary`` over the examples ``rows`` only, with their weights and
    signs gathered (1-D, as in ``build_histogram_rows``).

    Features go in pairs, one task a pair: each row's index, weight and sign are loaded
    once for two histograms (a task per feature made a weight-trimmed round's histogram of
    85% of the rows dearer than the full one).
    """
    n_features = codes.shape[0]
    flat = hist.reshape((n_features, N_HIST_BINS * 2))
    one = np.uintp(1)
    for pair in prange((n_features + 1) // 2):
        first = 2 * pair
        first_hist = flat[first]
        first_hist[:] = 0.0
        first_codes = codes[first]
        if first + 1 < n_features:
            second_hist = flat[first + 1]
            second_hist[:] = 0.0
            second_codes = codes[first + 1]
            for p in range(rows.shape[0]):
                row = rows[p]
                weight = row_weights[p]
                sign = np.uintp(row_sign_index[p])
                first_hist[(np.uintp(first_codes[row]) << one) | sign] += weight
                second_hist[(np.uintp(second_codes[row]) << one) | sign] += weight
        else:
            for p in range(rows.shape[0]):
                first_hist[(np.uintp(first_codes[rows[p]]) << one)
                           | np.uintp(row_sign_index[p])] += row_weights[p]


def build_histogram_naive(codes, weights, sign_index, n_hist_bins=N_HIST_BINS):
    """Obviously-correct twin of ``build_histogram``: one masked sum per cell.

    Parameters are as in ``build_histogram`` (2-D weights); returns the histogram, of
    ``n_hist_bins`` bins per feature.
    """
    n_features = codes.shape[0]
    k = weights.shape[1]
    hist = np.zeros((n_features, n_hist_bins, k, 2), dtype=WEIGHT_DTYPE)
    for feature in range(n_features):
        for b in np.unique(codes[feature]):
            rows = codes[feature] == b
            for l in range(k):
                for s in (0, 1):
                    hist[feature, b, l, s] = weights[rows & (sign_index[:, l] == s), l].sum()
    return hist
