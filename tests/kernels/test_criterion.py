"""The one home of Z: the numba formulas equal the NumPy ones, and both the closed forms."""

import numpy as np
import pytest

from confboost.kernels import criterion_numba as kernel
from confboost.kernels import criterion_numpy as criterion
from confboost.kernels.criterion_numpy import ABSTAIN, DISCRETE, MODES, REAL, REAL_ABSTAIN


def _numba_z(pos, neg, abstaining, mode, total):
    """Z of one (n_blocks, k) partition the way the kernels form it."""
    u = v = abstained = 0.0
    for j in range(pos.shape[0]):
        for l in range(pos.shape[1]):
            if abstaining[j] and kernel.is_abstaining(mode):
                abstained += pos[j, l] + neg[j, l]
            else:
                u += kernel.cell(pos[j, l], neg[j, l], mode)
                if kernel.needs_v(mode):
                    v += min(pos[j, l], neg[j, l])
    return kernel.z_from_sums(u, v, abstained, mode, total)


@pytest.mark.parametrize("mode", sorted(MODES.values()))
@pytest.mark.parametrize("k", [1, 4])
def test_numba_z_equals_numpy_z(rng, mode, k):
    pos, neg = rng.random((3, k)) / 10, rng.random((3, k)) / 10
    total = float(pos.sum() + neg.sum())
    abstaining = np.array([False, False, True])
    expected = criterion.partition_z(pos, neg, abstaining, mode, total)
    assert _numba_z(pos, neg, abstaining, mode, total) == pytest.approx(expected, rel=1e-12)
    many = criterion.partition_z(np.stack([pos, neg]), np.stack([neg, pos]), abstaining,
                                 mode, total)
    assert many.shape == (2,) and many[0] == pytest.approx(expected, rel=1e-12)


def test_closed_forms(rng):
    pos, neg = rng.random((3, 2)), rng.random((3, 2))
    total = float(pos.sum() + neg.sum())
    assert criterion.partition_z(pos, neg, None, REAL, total) == pytest.approx(
        2 * sum(np.sqrt(p * n) for p, n in zip(pos.ravel(), neg.ravel(), strict=True)))
    r = np.abs(pos - neg).sum()
    assert criterion.partition_z(pos, neg, None, DISCRETE, total) == pytest.approx(
        np.sqrt(total**2 - r**2))
    # with no abstaining block the abstaining modes are their base modes (T² - r² = 4AD)
    assert criterion.partition_z(pos, neg, None, ABSTAIN, total) == pytest.approx(
        criterion.partition_z(pos, neg, np.zeros(3, dtype=bool), ABSTAIN, total))
    assert criterion.partition_z(pos, neg, None, REAL_ABSTAIN, total) == pytest.approx(
        criterion.partition_z(pos, neg, None, REAL, total))
    # abstaining block: its mass W0 plus the informative blocks' Z
    w0 = pos[2].sum() + neg[2].sum()
    agree, disagree = np.maximum(pos[:2], neg[:2]).sum(), np.minimum(pos[:2], neg[:2]).sum()
    assert criterion.partition_z(pos, neg, [False, False, True], ABSTAIN, total) == \
        pytest.approx(w0 + 2 * np.sqrt(agree * disagree))


@pytest.mark.parametrize("mode", sorted(MODES.values()))
def test_node_score_and_gain(rng, mode):
    pos, neg = rng.random(3), rng.random(3)
    expected = criterion.node_score(pos, neg, mode)
    assert sum(kernel.node_score(p, n, mode) for p, n in zip(pos, neg, strict=True)) == \
        pytest.approx(expected, rel=1e-12)
    left_pos, left_neg = pos / 3, neg / 4
    gain = criterion.split_gain(pos, neg, left_pos, left_neg, mode)
    # a tree's Z after the split: real modes Σ_leaves s; ±1 modes sqrt(T² - r²), r = -Σ s
    leaves = [(left_pos, left_neg), (pos - left_pos, neg - left_neg)]
    if criterion.base_mode(mode) == REAL:
        before = criterion.node_score(pos, neg, mode)
        after = sum(criterion.node_score(p, n, mode) for p, n in leaves)
        assert gain == pytest.approx(before - after)
    else:  # r = Σ |W+ - W-| grows by the gain (triangle inequality: never falls)
        r_before = np.abs(pos - neg).sum()
        r_after = sum(np.abs(p - n).sum() for p, n in leaves)
        assert gain == pytest.approx(r_after - r_before) and gain >= -1e-15
