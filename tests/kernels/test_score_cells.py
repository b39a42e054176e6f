"""Histograms of scores over cells of their keys (``kernels/score_cells.py``): the one-pass
kernel against its NumPy twin, bit for bit (the same sums in the same row order)."""

import numpy as np
import pytest

from confboost.kernels.score_cells import (
    score_cell_histograms,
    score_cell_histograms_naive,
    score_keys,
)


def _kernel(scores, signs, weight, levels, prefixes, width):
    order = np.lexsort((prefixes, levels))
    level_of, first = np.unique(levels[order], return_index=True)
    out = np.zeros((len(levels), 1 << width, 3))
    score_cell_histograms(scores.view(np.uint64), signs, weight, level_of.astype(np.int64),
                          np.append(first, len(levels)).astype(np.int64),
                          prefixes[order], order.astype(np.int64), width, out)
    return out


def _inside(width, level, prefix, outer_level, outer_prefix):
    """Whether cell (level, prefix) lies in cell (outer_level, outer_prefix)."""
    return level >= outer_level and prefix >> (width * (level - outer_level)) == outer_prefix


@pytest.mark.parametrize("width", [8, 16])
@pytest.mark.parametrize("seed", range(3))
def test_kernel_equals_twin(width, seed):
    rng = np.random.default_rng(seed)
    n, k = 400, 5
    scores = np.round(rng.normal(size=(n, k)) * 3, 2)  # ties
    scores[::7, 1] = -0.0
    scores[::11, 2] = 0.0
    scores[3, 3], scores[4, 4] = np.inf, -np.inf
    signs = np.where(rng.random((n, k)) < 0.4, 1, -1).astype(np.int8)
    weight = rng.uniform(0.0, 2.0, n)
    keys = score_keys(scores)
    # disjoint cells of mixed levels: of two keys at the deepest level but one, of others
    # at level 1, and one that holds no score
    deep = 64 // width - 1
    picks = [(deep, keys[9]), (deep, keys[10]), (1, keys[3 * k + 3]), (1, keys[4 * k + 4]),
             (1, keys[0]), (2, np.uint64(1) << np.uint64(64 - 2 * width))]  # ±inf; empty
    cells = []
    for level, key in picks:
        prefix = int(key) >> (64 - width * level)
        if not any(_inside(width, level, prefix, *cell) or _inside(width, *cell, level, prefix)
                   for cell in cells):
            cells.append((level, prefix))
    levels = np.array([c[0] for c in cells], dtype=np.int64)
    prefixes = np.array([c[1] for c in cells], dtype=np.uint64)
    assert len(cells) >= 4 and len(set(levels.tolist())) >= 2
    mine = _kernel(scores, signs, weight, levels, prefixes, width)
    np.testing.assert_array_equal(mine, score_cell_histograms_naive(scores, signs, weight,
                                                                    levels, prefixes, width))
    assert mine[:, :, 2].sum() > 0


def test_level_zero_holds_every_score():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=(100, 3))
    signs = np.where(rng.random((100, 3)) < 0.5, 1, -1).astype(np.int8)
    weight = rng.integers(1, 4, 100).astype(np.float64)
    levels, prefixes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64)
    out = _kernel(scores, signs, weight, levels, prefixes, 8)
    np.testing.assert_array_equal(out, score_cell_histograms_naive(scores, signs, weight,
                                                                   levels, prefixes, 8))
    assert out[0, :, 2].sum() == 300
    assert out[0, :, 0].sum() + out[0, :, 1].sum() == 3 * weight.sum()
