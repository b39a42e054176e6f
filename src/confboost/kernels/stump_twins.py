"""NumPy twins, to the bit, of the kernels a stump round runs: its histogram
(``histogram.build_histogram`` and ``build_histogram_binary``), its threshold search
(``stump_split.best_thresholds`` and ``best_stump``), its blocks
(``weight_update.stump_blocks``) and its weight update (``weight_update.apply_partition``).

A small fit in a fresh process runs these instead of the kernels (``lazy_numba.prefer_twin``):
then it neither imports numba nor loads a kernel from its cache, a third of a second or
more of a first fit of a few hundred rows. Each twin adds the same numbers in the same
order as its kernel: every histogram cell sums its examples in example order
(``np.bincount``), every running sum is ``np.cumsum``'s (one add at a time, in order), and
the weight update's sums are taken by ``REDUCTION_CHUNK`` rows, row by row and label by
label, then chunk by chunk, as the kernel's are. So a model is the same whichever ran.
"""

import numpy as np

from confboost.kernels.criterion_numpy import cell, z_from_sums
from confboost.kernels.weight_update import LOSS_PAIRS, REDUCTION_CHUNK
from confboost.utils.dtypes import ABSTAIN, MISSING_BIN, REAL_ABSTAIN


def histogram_twin(codes, weights, sign_index, hist):
    """Twin of ``build_histogram`` (2-D ``weights``) and ``build_histogram_binary``
    (1-D): ``hist`` overwritten with the W+/W- of every feature, bin and label.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    weights : ndarray of shape (n_samples, k) or (n_samples,), float64
    sign_index : ndarray of the shape of ``weights``, uint8
    hist : ndarray of shape (n_features, n_hist_bins, k, 2), float64
    """
    n_samples = codes.shape[1]
    weights = weights.reshape(n_samples, -1)
    k = weights.shape[1]
    width = hist.shape[1] * 2 * k
    # the flat cell of (code, label, sign), as the kernels address it: (code * k + l) * 2 + s
    offsets = 2 * np.arange(k, dtype=np.intp) + sign_index.reshape(n_samples, k)
    flat_weights = weights.ravel()
    flat = hist.reshape(codes.shape[0], width)
    for feature in range(codes.shape[0]):
        cells = codes[feature].astype(np.intp)[:, None] * (2 * k) + offsets
        flat[feature] = np.bincount(cells.ravel(), flat_weights, minlength=width)


def best_thresholds_twin(hist, n_bins, mode, total, best_z, best_bin):
    """Twin of ``best_thresholds``: the least Z of every feature (inf where none) and its
    first bin (-1 where none), into ``best_z`` and ``best_bin``; same arguments."""
    k = hist.shape[2]
    abstaining = mode in (ABSTAIN, REAL_ABSTAIN)
    for feature in range(hist.shape[0]):
        bins = int(n_bins[feature])
        if bins == 0:  # no threshold
            best_z[feature], best_bin[feature] = np.inf, -1
            continue
        # each label's W+ and W- up to and including bin b, one add at a time
        left_pos = np.cumsum(hist[feature, :bins, :, 0], axis=0)
        left_neg = np.cumsum(hist[feature, :bins, :, 1], axis=0)
        missing_u = 0.0
        abstained = 0.0
        for l in range(k):
            miss_pos = hist[feature, MISSING_BIN, l, 0]
            miss_neg = hist[feature, MISSING_BIN, l, 1]
            if abstaining:
                abstained += miss_pos + miss_neg
            else:
                missing_u += float(cell(miss_pos, miss_neg, mode))
        # the kernel's all-bins sum is the running sum's last: the same adds
        right_pos = np.maximum(left_pos[-1:] - left_pos, 0.0)
        right_neg = np.maximum(left_neg[-1:] - left_neg, 0.0)
        # per bin, the labels' terms added in label order, as the kernel's scalar sums
        u = np.cumsum(cell(left_pos, left_neg, mode) + cell(right_pos, right_neg, mode),
                      axis=1)[:, -1]
        v = (np.cumsum(np.minimum(left_pos, left_neg) + np.minimum(right_pos, right_neg),
                       axis=1)[:, -1] if mode == ABSTAIN else None)
        z = z_from_sums(u + missing_u, v, abstained, mode, total)
        z = np.where(np.isnan(z), np.inf, z)  # the kernel's ``z < best`` passes NaN by
        first = int(np.argmin(z))
        if z[first] < np.inf:
            best_z[feature], best_bin[feature] = z[first], first
        else:
            best_z[feature], best_bin[feature] = np.inf, -1


def best_stump_twin(hist, n_bins, mode, total, best_z, best_bin, weight_pos, weight_neg):
    """Twin of ``best_stump``: ``best_thresholds_twin``, the first feature of least Z
    (``np.argmin``) and its blocks' W+ / W- by NumPy sums over its bins (axis 0: one bin
    at a time, in order); same arguments, returns ``(feature, threshold_bin)``."""
    best_thresholds_twin(hist, n_bins, mode, total, best_z, best_bin)
    feature = int(np.argmin(best_z))
    threshold_bin = int(best_bin[feature])
    feature_hist = hist[feature]
    weight_pos[0], weight_neg[0] = feature_hist[: threshold_bin + 1].sum(axis=0).T
    weight_pos[1], weight_neg[1] = feature_hist[threshold_bin + 1: n_bins[feature]].sum(axis=0).T
    weight_pos[2], weight_neg[2] = feature_hist[MISSING_BIN].T
    return feature, threshold_bin


def stump_blocks_twin(column_codes, threshold_bin, missing_bin, blocks):
    """Twin of ``stump_blocks``: 0 (code <= b), 1 (> b), 2 (missing) into ``blocks``."""
    blocks[:] = np.where(column_codes == missing_bin, 2,
                         np.where(column_codes <= threshold_bin, 0, 1))


def _in_order(terms):
    """Σ of a 1-D array added one at a time, from the first (0.0 when empty)."""
    return float(np.cumsum(terms)[-1]) if terms.size else 0.0


def apply_partition_twin(weights, sign_index, blocks, steps, factors, scores, loss_kind,
                         loss_weights):
    """Twin of ``apply_partition``: the same update of ``weights`` and ``scores`` in
    place, and the same (Σ new weights, training loss), summed by chunks of
    ``REDUCTION_CHUNK`` rows as the kernel sums them."""
    n_samples, k = weights.shape
    weights *= factors[blocks[:, None], np.arange(k)[None, :], sign_index]
    scores += steps[blocks]
    if loss_kind == LOSS_PAIRS:
        wrong = scores * (1.0 - 2.0 * sign_index) <= 0.0
        row_terms = np.broadcast_to(loss_weights, scores.shape) * wrong
        row_loss = np.cumsum(row_terms, axis=1)[:, -1]  # each row's labels in order
    else:
        top_label = np.argmax(scores, axis=1)
        top = scores[np.arange(n_samples), top_label]
        ties = (scores == top[:, None]).sum(axis=1) > 1
        wrong = ties | (sign_index[np.arange(n_samples), top_label] != 0)
        row_loss = np.where(wrong, loss_weights[:, 0], 0.0)
    totals, losses = [], []
    for start in range(0, n_samples, REDUCTION_CHUNK):
        stop = min(start + REDUCTION_CHUNK, n_samples)
        totals.append(_in_order(weights[start:stop].ravel()))
        losses.append(_in_order(row_loss[start:stop]))
    return _in_order(np.array(totals)), _in_order(np.array(losses))
