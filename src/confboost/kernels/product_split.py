"""Kernels of the product-of-stumps learner: grouped histograms and the best next term.

A product of stumps (Kégl & Busa-Fekete, "Boosting products of base classifiers", ICML 2009)
is P(x) = Π_j φ_j(x) with φ_j(x) = +1 if x[f_j] <= θ_j (or it is missing and goes left) and
-1 otherwise. Its blocks are P = +1 (block 0) and P = -1 (block 1). When one term φ is chosen
with the others fixed, their product π(x) splits the examples in two groups, and

    block 0 = (φ = +1 and π = +1) or (φ = -1 and π = -1),   block 1 = the rest,

so the W+ and W- of both blocks for every threshold follow from one histogram per group
(``build_histogram_grouped``) by cumulative sums, as for a stump (``best_product_terms``).
The criterion is the one of a partition without abstaining block: Z = 2 Σ_j Σ_l sqrt(W+ W-)
for real confidences (Eq. 10, 16) and sqrt(T² - r²), r = Σ_j Σ_l |W+ - W-|, for ±1 ones
(§3.1).
"""

import numpy as np

from confboost.kernels.criterion_numba import base_mode, cell, z_from_sums
from confboost.kernels.criterion_numpy import partition_z
from confboost.kernels.histogram import N_HIST_BINS
from confboost.utils.dtypes import MISSING_BIN, WEIGHT_DTYPE
from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def build_histogram_grouped(codes, weights, sign_index, group, hist):
    """W+ and W- per (feature, bin, group, label): ``build_histogram`` with two groups.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    weights : ndarray of shape (n_samples, k), float64, C-contiguous
    sign_index : ndarray of shape (n_samples, k), uint8, C-contiguous
        0 where Y[i, l] = +1, 1 where it is -1.
    group : ndarray of shape (n_samples,), uint8
        0 or 1: the example's group (π = +1 or -1).
    hist : ndarray of shape (n_features, 256, 2, k, 2), float64, C-contiguous
        Output; overwritten. ``hist[f, b, g, l, s]``.
    """
    n_features, n_samples = codes.shape
    k = weights.shape[1]
    width = np.uintp(2 * k)
    flat = hist.reshape((n_features, N_HIST_BINS * 2 * 2 * k))
    for feature in prange(n_features):
        feature_hist = flat[feature]
        feature_hist[:] = 0.0
        feature_codes = codes[feature]
        for i in range(n_samples):
            base = (np.uintp(feature_codes[i]) * np.uintp(2) + np.uintp(group[i])) * width
            weight_row = weights[i]
            sign_row = sign_index[i]
            for l in range(k):
                feature_hist[base + np.uintp(2 * l) + np.uintp(sign_row[l])] += weight_row[l]


def build_histogram_grouped_naive(codes, weights, sign_index, group):
    """Twin of ``build_histogram_grouped``: one masked sum per cell; returns the histogram."""
    n_features = codes.shape[0]
    k = weights.shape[1]
    hist = np.zeros((n_features, N_HIST_BINS, 2, k, 2), dtype=WEIGHT_DTYPE)
    for feature in range(n_features):
        for b in np.unique(codes[feature]):
            for g in (0, 1):
                rows = (codes[feature] == b) & (group == g)
                for l in range(k):
                    for s in (0, 1):
                        hist[feature, b, g, l, s] = weights[rows & (sign_index[:, l] == s),
                                                            l].sum()
    return hist


@njit(cache=True, nogil=True)
def _partition_z(block_pos, block_neg, mode, total):
    """Z of a two-block partition from its (2, k) statistics; no block abstains, so an
    abstaining mode scores as its base mode (``kernels/criterion_numba.py``)."""
    mode = base_mode(mode)
    u = 0.0
    for j in range(2):
        for l in range(block_pos.shape[1]):
            u += cell(block_pos[j, l], block_neg[j, l], mode)
    return z_from_sums(u, 0.0, 0.0, mode, total)


@njit(cache=True, parallel=True, nogil=True)
def best_product_terms(hist, n_bins, mode, total, best_z, best_bin, best_missing_left):
    """Each feature's best term φ (threshold bin, side of the missing values) given π.

    The term sends codes ``<= b`` to φ = +1 and codes ``> b`` to φ = -1; the missing bin
    goes to φ = +1 (``missing_left``) or -1, whichever gives the lower Z (+1 on ties). The
    blocks are as in the module docstring.

    Parameters
    ----------
    hist : ndarray of shape (n_features, 256, 2, k, 2)
        ``build_histogram_grouped``'s output for the groups of π.
    n_bins : ndarray of shape (n_features,), intp
        Value bins per feature.
    mode : int
        Confidence mode code.
    total : float
        Σ W over every example and label.
    best_z : ndarray of shape (n_features,), float64
        Output: Z of the product with the feature's best term.
    best_bin : ndarray of shape (n_features,), intp
        Output: its threshold bin (first on ties).
    best_missing_left : ndarray of shape (n_features,), bool
        Output: whether its missing values get φ = +1.
    """
    n_features = hist.shape[0]
    k = hist.shape[3]
    for feature in prange(n_features):
        totals = np.zeros((2, k, 2), dtype=WEIGHT_DTYPE)  # value bins, per group and sign
        for b in range(n_bins[feature]):
            for g in range(2):
                for l in range(k):
                    for s in range(2):
                        totals[g, l, s] += hist[feature, b, g, l, s]
        left = np.zeros((2, k, 2), dtype=WEIGHT_DTYPE)
        block_pos = np.empty((2, k), dtype=WEIGHT_DTYPE)
        block_neg = np.empty((2, k), dtype=WEIGHT_DTYPE)
        feature_z = np.inf
        feature_bin = 0
        feature_missing_left = True
        for b in range(n_bins[feature]):
            for g in range(2):
                for l in range(k):
                    for s in range(2):
                        left[g, l, s] += hist[feature, b, g, l, s]
            for missing_left in (True, False):
                for l in range(k):
                    for s in range(2):
                        # block 0: left of group 0 (π = +1) and right of group 1 (π = -1)
                        block_0 = left[0, l, s] + max(totals[1, l, s] - left[1, l, s], 0.0)
                        block_1 = left[1, l, s] + max(totals[0, l, s] - left[0, l, s], 0.0)
                        if missing_left:
                            block_0 += hist[feature, MISSING_BIN, 0, l, s]
                            block_1 += hist[feature, MISSING_BIN, 1, l, s]
                        else:
                            block_0 += hist[feature, MISSING_BIN, 1, l, s]
                            block_1 += hist[feature, MISSING_BIN, 0, l, s]
                        if s == 0:
                            block_pos[0, l] = block_0
                            block_pos[1, l] = block_1
                        else:
                            block_neg[0, l] = block_0
                            block_neg[1, l] = block_1
                z = _partition_z(block_pos, block_neg, mode, total)
                if z < feature_z:
                    feature_z = z
                    feature_bin = b
                    feature_missing_left = missing_left
        best_z[feature] = feature_z
        best_bin[feature] = feature_bin
        best_missing_left[feature] = feature_missing_left


def term_signs(column_codes, threshold_bin, missing_left):
    """φ of every example for one term, shape (n_samples,), int8 of ±1."""
    is_missing = column_codes == MISSING_BIN
    goes_left = np.where(is_missing, missing_left, column_codes <= threshold_bin)
    return np.where(goes_left, 1, -1).astype(np.int8)


def best_product_terms_naive(codes, weights, signs, others, n_bins, mode):
    """Twin of ``best_product_terms`` by brute force over the examples.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    weights : ndarray of shape (n_samples, k)
    signs : ndarray of shape (n_samples, k)
        Y in {-1, +1}.
    others : ndarray of shape (n_samples,)
        π, the product of the other terms, ±1.
    n_bins : ndarray of shape (n_features,)
    mode : int

    Returns
    -------
    best_z : ndarray of shape (n_features,)
    """
    total = float(weights.sum())
    best_z = np.full(codes.shape[0], np.inf)
    for feature in range(codes.shape[0]):
        for b in range(n_bins[feature]):
            for missing_left in (True, False):
                product = term_signs(codes[feature], b, missing_left) * others
                block_pos = np.stack([np.where((signs > 0) & (product == s)[:, None], weights,
                                               0.0).sum(axis=0) for s in (1, -1)])
                block_neg = np.stack([np.where((signs < 0) & (product == s)[:, None], weights,
                                               0.0).sum(axis=0) for s in (1, -1)])
                z = partition_z(block_pos, block_neg, None, mode, total)
                best_z[feature] = min(best_z[feature], z)
    return best_z
