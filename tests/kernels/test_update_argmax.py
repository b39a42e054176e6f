"""The single-label error of the weight update's pass (``argmax_wrong``) against the running
maximum it replaces, on rows with ties, infinities and NaN."""

import numpy as np
import pytest

from confboost.kernels.label_update import apply_label_partition
from confboost.kernels.weight_update import (
    LOSS_ARGMAX,
    apply_partition,
    argmax_wrong,
    argmax_wrong_naive,
)

SPECIAL_ROWS = [
    [0.5, 0.5, -1.0],  # tie at the top
    [-np.inf, -np.inf, -np.inf],  # no top above -inf: label 0, and a tie
    [-np.inf, np.nan, np.nan],  # one -inf: label 0 is the first argmax
    [np.nan, -np.inf, np.nan],  # one -inf after a NaN: still label 0
    [np.nan, np.nan, np.nan],  # no label reaches the top: label 0
    [np.nan, 2.0, 1.0],  # NaN skipped
    [1.0, np.inf, np.inf],  # tie at +inf
    [1.0, np.inf, 3.0],
    [-1.0, -2.0, -0.5],
    [0.0, -0.0, -1.0],  # 0.0 == -0.0: a tie
]


def special_problem(rng, n_rows=400, k=3):
    """Scores drawn from a few values (many ties) with the special rows mixed in, and
    single-label sign indices."""
    scores = rng.choice([-1.0, 0.0, 0.5, 1.0, 2.0], size=(n_rows, k))
    scores[: len(SPECIAL_ROWS)] = SPECIAL_ROWS
    sign_index = np.ones((n_rows, k), dtype=np.uint8)
    sign_index[np.arange(n_rows), rng.integers(0, k, n_rows)] = 0
    return scores, sign_index


def test_argmax_wrong_equals_running_maximum(rng):
    scores, sign_index = special_problem(rng)
    for row, signs in zip(scores, sign_index, strict=True):
        want = argmax_wrong_naive(row, signs)
        assert argmax_wrong(row, signs) == want, row
        assert argmax_wrong.py_func(row, signs) == want, row
    # the special rows decide as the running loop does (a check of the checks)
    assert [argmax_wrong_naive(np.array(row), np.array([1, 0, 0])) for row in
            SPECIAL_ROWS[:5]] == [True, True, True, True, True]
    assert not argmax_wrong_naive(np.array(SPECIAL_ROWS[2]), np.array([0, 1, 1]))
    assert not argmax_wrong_naive(np.array(SPECIAL_ROWS[3]), np.array([0, 1, 1]))


@pytest.mark.parametrize("per_label_blocks", [False, True])
def test_update_loss_is_running_maximum_loss_to_the_bit(rng, per_label_blocks):
    n_rows, k = 3000, 3
    scores, sign_index = special_problem(rng, n_rows, k)
    steps = np.zeros((2, k))  # the scores stay as drawn: the loss sees the special rows
    factors = np.ones((2, k, 2))
    weights = rng.random((n_rows, k))
    loss_weights = rng.random((n_rows, 1))
    if per_label_blocks:
        blocks = rng.integers(0, 2, size=(n_rows, k)).astype(np.uint16)
        kernel = apply_label_partition
    else:
        blocks = rng.integers(0, 2, size=n_rows).astype(np.uint8)
        kernel = apply_partition
    _, loss = kernel(weights, sign_index, blocks, steps, factors, scores.copy(), LOSS_ARGMAX,
                     loss_weights)
    # the kernel's order: rows in chunks of 1024, the chunks' sums added in order
    row_loss = np.array([loss_weights[i, 0] if argmax_wrong_naive(scores[i], sign_index[i])
                         else 0.0 for i in range(n_rows)])
    want = 0.0
    for start in range(0, n_rows, 1024):
        chunk = 0.0
        for value in row_loss[start:start + 1024]:
            chunk += value
        want += chunk
    assert loss == want
