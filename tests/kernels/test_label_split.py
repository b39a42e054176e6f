"""The one-label children split search (``kernels/label_split.py``) against
``node_split.children_splits`` and its naive twin, bit for bit."""

import numba
import numpy as np
import pytest

from confboost.kernels.label_split import (
    _ASK_BYTES,
    label_children_splits,
    label_children_splits_naive,
)
from confboost.kernels.node_split import children_splits
from confboost.utils.dtypes import REAL, REAL_ABSTAIN


def _histograms(rng, n_features, n_hist_bins, missing, empty_share):
    """A parent's and its smaller child's one-label histograms: random masses, a share of
    empty bins (as a small node has), the child's every cell at most the parent's; features
    of 1, 2, a few and all value bins."""
    n_bins = rng.integers(1, n_hist_bins, size=n_features).astype(np.intp)
    n_bins[:4] = [1, 2, 9, n_hist_bins - 1][: min(4, n_features)]
    parent = rng.random((n_features, n_hist_bins, 1, 2))
    parent *= rng.random((n_features, n_hist_bins, 1, 2)) >= empty_share
    for feature, bins in enumerate(n_bins):
        parent[feature, bins:-1] = 0.0  # no mass past the value bins
    if not missing:
        parent[:, -1] = 0.0
    small = parent * rng.random(parent.shape) * (rng.random(parent.shape) < 0.7)
    small[1] = parent[1]  # the whole feature in the smaller child: an empty larger one
    parent /= parent.sum() / n_features
    small /= parent.sum() / n_features
    return parent, small, n_bins


@pytest.mark.parametrize("n_hist_bins", [256, 40])
@pytest.mark.parametrize("missing", [True, False])
def test_equals_children_splits_and_naive_bit_for_bit(rng, n_hist_bins, missing):
    """Gains, bins, missing sides, the larger child's histogram and each child's choice are
    children_splits' (both of its scans: features of under 64 bins take its scalar loop)
    and the naive twin's, to the bit, on 1 and 2 threads, with and without a least leaf
    weight, under both real modes, with the tasks of 1, 2 and 3 threads: 19 features make
    one task a child, or tasks of 8, 8 and 3. With one child (a tree's root), the smaller
    child's row alone."""
    previous = numba.get_num_threads()
    try:
        for empty_share in (0.0, 0.6, 0.97):
            parent, small, n_bins = _histograms(rng, 19, n_hist_bins, missing, empty_share)
            for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
                numba.set_num_threads(threads)
                for mode in (REAL, REAL_ABSTAIN):
                    for least in (0.0, 0.02):
                        want_large = parent.copy()
                        want = label_children_splits_naive(small, want_large, n_bins, mode,
                                                           least)
                        fast_large = parent.copy()
                        fast = (np.empty((2, 19)), np.empty((2, 19), dtype=np.intp),
                                np.empty((2, 19), dtype=bool), np.empty((2, 3), np.intp))
                        children_splits(small, fast_large, n_bins, mode, least, *fast,
                                        threads, 2)
                        for share in (1, 2, 3):
                            large = parent.copy()
                            got = (np.empty((2, 19)), np.empty((2, 19), dtype=np.intp),
                                   np.empty((2, 19), dtype=bool), np.empty((2, 3), np.intp))
                            label_children_splits(small, large, n_bins, least, *got, share, 2)
                            np.testing.assert_array_equal(large, want_large)
                            np.testing.assert_array_equal(large, fast_large)
                            for got_part, want_part in zip(got[:3], want, strict=True):
                                np.testing.assert_array_equal(got_part, want_part)
                            for got_part, fast_part in zip(got, fast, strict=True):
                                np.testing.assert_array_equal(got_part, fast_part)
                            assert np.isfinite(got[0]).any()
                            # one child (a root): row 0 alone, the parent untouched
                            untouched = parent.copy()
                            alone = tuple(np.zeros_like(part) for part in got)
                            label_children_splits(small, untouched, n_bins, least, *alone,
                                                  share, 1)
                            np.testing.assert_array_equal(untouched, parent)
                            for alone_part, got_part in zip(alone, got, strict=True):
                                np.testing.assert_array_equal(alone_part[0], got_part[0])
                                assert not alone_part[1].any()
    finally:
        numba.set_num_threads(previous)


def test_cells_past_the_value_bins_are_neither_read_nor_written(rng):
    """The subtraction and the scan touch each feature's value bins and missing bin only:
    with NaN in the cells between (never a histogram's: they hold 0.0), the larger child's
    value and missing cells, its NaNs, and every output are those of the zeros."""
    parent, small, n_bins = _histograms(rng, 19, 256, True, 0.6)
    dead = np.zeros(parent.shape, dtype=bool)
    for feature, bins in enumerate(n_bins):
        dead[feature, bins:-1] = True
    outputs = []
    for fill in (0.0, np.nan):
        large, smaller = parent.copy(), small.copy()
        large[dead], smaller[dead] = fill, fill
        got = (np.empty((2, 19)), np.empty((2, 19), dtype=np.intp),
               np.empty((2, 19), dtype=bool), np.empty((2, 3), np.intp))
        label_children_splits(smaller, large, n_bins, 0.0, *got, 2, 2)
        if fill != fill:
            assert np.isnan(large[dead]).all()
        large[dead] = 0.0
        outputs.append((large, *got))
    for zeros_part, nans_part in zip(*outputs, strict=True):
        np.testing.assert_array_equal(zeros_part, nans_part)


def test_histograms_past_l2_equal_the_naive_twin(rng):
    """Histograms of ``_ASK_BYTES`` or more take the path that asks for the next feature's
    cells (a hint): the same outputs as the naive twin's, to the bit, on 1 and 2 threads."""
    n_features = _ASK_BYTES // (256 * 2 * 8) + 3
    parent, small, n_bins = _histograms(rng, n_features, 256, True, 0.6)
    assert small.nbytes >= _ASK_BYTES
    want_large = parent.copy()
    want = label_children_splits_naive(small, want_large, n_bins, REAL, 0.0)
    previous = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            large = parent.copy()
            got = (np.empty((2, n_features)), np.empty((2, n_features), dtype=np.intp),
                   np.empty((2, n_features), dtype=bool), np.empty((2, 3), np.intp))
            label_children_splits(small, large, n_bins, 0.0, *got, threads, 2)
            np.testing.assert_array_equal(large, want_large)
            for got_part, want_part in zip(got[:3], want, strict=True):
                np.testing.assert_array_equal(got_part, want_part)
    finally:
        numba.set_num_threads(previous)
