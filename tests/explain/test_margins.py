"""Tests of confboost.evaluation.margins: normalized margins and their distribution (paper §5)."""

import numpy as np
import pytest

from confboost.evaluation.margins import margin_distribution, normalized_margins


def test_binary_margins_by_hand():
    # y f / sum|alpha| with sum|alpha| = 2: (1)(1.0)/2, (-1)(1.0)/2, (-1)(-2.0)/2, (1)(0)/2.
    scores = [1.0, 1.0, -2.0, 0.0]
    expected = [0.5, -0.5, 1.0, 0.0]
    np.testing.assert_allclose(normalized_margins(scores, [1, -1, -1, 1], 2.0), expected)
    np.testing.assert_allclose(normalized_margins(scores, [1, 0, 0, 1], 2.0), expected)


def test_multiclass_margins_by_hand():
    # (f(x, y) - max_{l != y} f(x, l)) / (2 sum|alpha|), sum|alpha| = 1.
    scores = np.array([[0.8, 0.2, -0.5], [0.1, 0.3, -1.0], [-1.0, -1.0, 1.0]])
    Y = np.eye(3, dtype=int)[[0, 0, 2]]
    # row 0: (0.8 - 0.2) / 2 = 0.3; row 1: (0.1 - 0.3) / 2 = -0.1; row 2: (1 + 1) / 2 = 1.
    np.testing.assert_allclose(normalized_margins(scores, Y, 1.0), [0.3, -0.1, 1.0])


def test_multilabel_margins_by_hand():
    # (min over true - max over false) / (2 sum|alpha|), sum|alpha| = 0.5.
    scores = np.array([[0.4, 0.3, -0.2, 0.1], [0.2, -0.3, 0.1, 0.0]])
    Y = np.array([[1, 1, -1, -1], [1, -1, -1, 1]])
    # row 0: (0.3 - 0.1) / 1 = 0.2; row 1: (0.0 - 0.1) / 1 = -0.1 (label 2 above label 3).
    np.testing.assert_allclose(normalized_margins(scores, Y, 0.5), [0.2, -0.1])


def test_per_pair_margins_by_hand():
    scores = np.array([[0.4, -0.2], [0.6, 0.1]])
    Y = np.array([[1, 0], [0, 1]])
    expected = np.array([[0.4, 0.2], [-0.6, 0.1]]) / 0.8
    np.testing.assert_allclose(normalized_margins(scores, Y, 0.8, per_pair=True), expected)
    # Rows without a false label are fine per pair.
    assert normalized_margins([[1.0, 2.0]], [[1, 1]], 2.0, per_pair=True).shape == (1, 2)


def test_margins_lie_in_unit_interval():
    # f = sum_t alpha_t h_t with h_t in [-1, 1]: every margin is in [-1, 1].
    rng = np.random.default_rng(0)
    alphas = rng.normal(size=20)
    h = rng.uniform(-1, 1, size=(20, 50, 4))
    scores = np.tensordot(alphas, h, axes=1)
    Y = np.eye(4, dtype=int)[rng.integers(4, size=50)]
    for per_pair in (False, True):
        margins = normalized_margins(scores, Y, np.abs(alphas).sum(), per_pair=per_pair)
        assert np.all(np.abs(margins) <= 1)


def test_margin_sign_matches_correctness():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(100, 5))
    y = rng.integers(5, size=100)
    margins = normalized_margins(scores, np.eye(5, dtype=int)[y], 1.0)
    np.testing.assert_array_equal(margins > 0, np.argmax(scores, axis=1) == y)


def test_margin_distribution_by_hand():
    margins = [-0.5, 0.0, 0.0, 0.25, 1.0]
    grid = [-1.0, -0.5, 0.0, 0.1, 1.0]
    # fraction <= theta: 0/5, 1/5, 3/5, 3/5, 5/5.
    np.testing.assert_allclose(margin_distribution(margins, grid), [0, 0.2, 0.6, 0.6, 1.0])
    # A 2-d array (per-pair margins) is flattened.
    np.testing.assert_allclose(margin_distribution([[0.5, -0.5], [0.1, 0.2]], [0.0]), [0.25])


def test_margin_errors():
    with pytest.raises(ValueError, match="shape of scores"):
        normalized_margins([1.0, 2.0], [1, -1, 1], 1.0)
    with pytest.raises(ValueError, match="1-d \\(n,\\) or 2-d"):
        normalized_margins(np.zeros((2, 2, 2)), np.ones((2, 2, 2)), 1.0)
    with pytest.raises(ValueError, match="0/1"):
        normalized_margins([1.0, 2.0], [1, 2], 1.0)
    with pytest.raises(ValueError, match="positive finite"):
        normalized_margins([1.0, 2.0], [1, -1], 0.0)
    with pytest.raises(ValueError, match="positive finite"):
        normalized_margins([1.0, 2.0], [1, -1], np.nan)
    with pytest.raises(ValueError, match="NaN or infinite"):
        normalized_margins([1.0, np.inf], [1, -1], 1.0)
    with pytest.raises(ValueError, match="rows \\[1, 2\\]"):
        normalized_margins(np.zeros((3, 2)), [[1, 0], [1, 1], [0, 0]], 1.0)
    with pytest.raises(ValueError, match="empty"):
        margin_distribution([], [0.0])
    with pytest.raises(ValueError, match="1-d"):
        margin_distribution([0.1], [[0.0]])
    with pytest.raises(ValueError, match="NaN"):
        margin_distribution([np.nan], [0.0])
