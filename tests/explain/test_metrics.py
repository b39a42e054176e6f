"""Tests of confboost.evaluation.metrics: hand-computed cases and agreement with scikit-learn."""

import numpy as np
import pytest
import sklearn.metrics as skm

from confboost.evaluation.metrics import (
    average_precision,
    coverage,
    error,
    hamming_loss,
    one_error,
    ranking_loss,
)

# Three examples, four labels; used by the hand-computed tests below.
Y = np.array(
    [
        [1, 0, 1, 0],
        [0, 1, 0, 0],
        [1, 1, 1, 0],
    ]
)
F = np.array(
    [
        [0.9, 0.5, 0.1, -0.2],  # ranking 0 > 1 > 2 > 3; true {0, 2}
        [0.3, 0.3, -1.0, 0.7],  # ranking 3 > {0 = 1} > 2; true {1}
        [0.0, 0.2, -0.5, -0.5],  # ranking 1 > 0 > {2 = 3}; true {0, 1, 2}
    ]
)


def random_problem(rng, n, k, n_levels=None):
    """Random labels with at least one true and one false label per row, and scores.

    With ``n_levels`` the scores take that many distinct values, so ties are frequent.
    """
    Y = rng.random((n, k)) < rng.random((n, 1))
    Y[np.arange(n), rng.integers(k, size=n)] = True
    off = rng.integers(k, size=n)
    Y[np.arange(n), off] = False
    Y[np.arange(n), (off + 1 + rng.integers(k - 1, size=n)) % k] = True
    if n_levels is None:
        scores = rng.normal(size=(n, k))
    else:
        scores = rng.integers(n_levels, size=(n, k)).astype(float)
    return Y.astype(int), scores


# --- hand-computed -----------------------------------------------------------------------


def test_hamming_loss_by_hand():
    # H = scores > 0: row 0 {0,1,2} vs {0,2}: 1 wrong; row 1 {0,1,3} vs {1}: 2 wrong;
    # row 2 {1} vs {0,1,2}: 2 wrong. 5 wrong of 12 pairs.
    assert hamming_loss(Y, F > 0) == pytest.approx(5 / 12)


def test_hamming_loss_accepts_signs():
    assert hamming_loss(2 * Y - 1, (F > 0).astype(int)) == pytest.approx(5 / 12)
    assert hamming_loss(Y, np.where(F > 0, 1, -1)) == pytest.approx(5 / 12)


def test_one_error_by_hand():
    # argmax: row 0 -> 0 (true), row 1 -> 3 (false), row 2 -> 1 (true). 1 of 3.
    assert one_error(Y, F) == pytest.approx(1 / 3)


def test_one_error_ties_go_to_first_label():
    # Labels 0 and 1 tie for the top; the first (0) is taken.
    assert one_error([[0, 1]], [[1.0, 1.0]]) == 1.0
    assert one_error([[1, 0]], [[1.0, 1.0]]) == 0.0


def test_one_error_counts_empty_row_as_error():
    assert one_error([[0, 0], [1, 0]], [[1.0, 0.0], [1.0, 0.0]]) == 0.5


def test_ranking_loss_by_hand():
    # row 0: pairs (l0, l1) in {1,3} x {0,2}: (1,2) wrong (0.5 >= 0.1); 1 of 4.
    # row 1: pairs {0,2,3} x {1}: (0,1) tie -> wrong, (3,1) wrong; 2 of 3.
    # row 2: pairs {3} x {0,1,2}: (3,2) tie -> wrong; 1 of 3.
    expected = (1 / 4 + 2 / 3 + 1 / 3) / 3
    assert ranking_loss(Y, F) == pytest.approx(expected)


def test_ranking_loss_skips_rows_without_crucial_pair():
    Y_extra = np.vstack([Y, [0, 0, 0, 0], [1, 1, 1, 1]])
    F_extra = np.vstack([F, [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]])
    assert ranking_loss(Y_extra, F_extra) == pytest.approx(ranking_loss(Y, F))
    # scikit-learn counts those rows as loss 0 instead.
    assert skm.label_ranking_loss(Y_extra, F_extra) == pytest.approx(3 / 5 * ranking_loss(Y, F))


def test_ranking_loss_without_any_crucial_pair_raises():
    with pytest.raises(ValueError, match="no example has both"):
        ranking_loss([[1, 1], [0, 0]], [[0.0, 1.0], [1.0, 0.0]])


def test_coverage_by_hand():
    # pessimistic rank of the lowest true label, minus 1:
    # row 0: lowest true is 2 (0.1), 3 labels >= 0.1 -> 2.
    # row 1: true 1 (0.3), labels >= 0.3 are 3, 0, 1 -> 2.
    # row 2: lowest true is 2 (-0.5), all 4 labels >= -0.5 -> 3.
    assert coverage(Y, F) == pytest.approx((2 + 2 + 3) / 3)


def test_coverage_skips_rows_without_label():
    Y_extra = np.vstack([Y, [0, 0, 0, 0]])
    F_extra = np.vstack([F, [1.0, 2.0, 3.0, 4.0]])
    assert coverage(Y_extra, F_extra) == pytest.approx((2 + 2 + 3) / 3)
    with pytest.raises(ValueError, match="no example has a true label"):
        coverage([[0, 0]], [[1.0, 2.0]])


def test_average_precision_by_hand():
    # precision at a true label l = |true labels scored >= f(l)| / |labels scored >= f(l)|.
    # row 0: label 0: 1/1; label 2: 2/3.            -> (1 + 2/3) / 2
    # row 1: label 1: 1/3 (labels 3, 0, 1 >= 0.3).  -> 1/3
    # row 2: label 1: 1/1; label 0: 2/2; label 2: 3/4 (tie with 3). -> (1 + 1 + 3/4) / 3
    expected = ((1 + 2 / 3) / 2 + 1 / 3 + (1 + 1 + 3 / 4) / 3) / 3
    assert average_precision(Y, F) == pytest.approx(expected)


def test_average_precision_skips_rows_without_label():
    Y_extra = np.vstack([Y, [0, 0, 0, 0]])
    F_extra = np.vstack([F, [1.0, 2.0, 3.0, 4.0]])
    assert average_precision(Y_extra, F_extra) == pytest.approx(average_precision(Y, F))
    with pytest.raises(ValueError, match="no example has a true label"):
        average_precision([[0, 0]], [[1.0, 2.0]])


def test_single_label_reductions():
    # One true label per row: average precision = mean reciprocal rank, and
    # coverage = mean (rank - 1). Ranks of the true label: 2, 1, 3.
    Y1 = np.eye(3, dtype=int)[[1, 2, 0]]
    F1 = np.array([[3.0, 2.0, 1.0], [0.0, 1.0, 5.0], [-1.0, 0.0, 1.0]])
    assert average_precision(Y1, F1) == pytest.approx((1 / 2 + 1 + 1 / 3) / 3)
    assert coverage(Y1, F1) == pytest.approx((1 + 0 + 2) / 3)
    assert one_error(Y1, F1) == pytest.approx(2 / 3)


def test_error():
    assert error([0, 1, 2, 2], [0, 2, 2, 1]) == 0.5
    assert error(["a", "b"], ["a", "b"]) == 0.0


# --- agreement with scikit-learn on random data --------------------------------------------


@pytest.mark.parametrize("n_levels", [None, 2, 3])
@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_sklearn(seed, n_levels):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 60)), int(rng.integers(2, 12))
    Y_rand, scores = random_problem(rng, n, k, n_levels)
    assert ranking_loss(Y_rand, scores) == pytest.approx(skm.label_ranking_loss(Y_rand, scores))
    assert coverage(Y_rand, scores) == pytest.approx(skm.coverage_error(Y_rand, scores) - 1)
    assert average_precision(Y_rand, scores) == pytest.approx(
        skm.label_ranking_average_precision_score(Y_rand, scores)
    )
    Y_pred = rng.integers(2, size=(n, k))
    assert hamming_loss(Y_rand, Y_pred) == pytest.approx(skm.hamming_loss(Y_rand, Y_pred))
    # Sign labels give the same values.
    assert ranking_loss(2 * Y_rand - 1, scores) == pytest.approx(ranking_loss(Y_rand, scores))


def test_ranking_loss_brute_force_with_ties():
    rng = np.random.default_rng(7)
    Y_rand, scores = random_problem(rng, 40, 6, n_levels=3)
    losses = []
    for y, f in zip(Y_rand.astype(bool), scores, strict=True):
        wrong = [f[l1] <= f[l0] for l0 in np.flatnonzero(~y) for l1 in np.flatnonzero(y)]
        losses.append(np.mean(wrong))
    assert ranking_loss(Y_rand, scores) == pytest.approx(np.mean(losses))


def test_large_input_is_fast():
    rng = np.random.default_rng(0)
    Y_rand, scores = random_problem(rng, 20_000, 50, n_levels=20)
    assert 0 <= ranking_loss(Y_rand, scores) <= 1
    assert 0 < average_precision(Y_rand, scores) <= 1


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("metric", [one_error, ranking_loss, coverage, average_precision])
def test_bad_inputs_raise(metric):
    with pytest.raises(ValueError, match="2-d"):
        metric([1, 0, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="shape of Y_true"):
        metric(Y, F[:, :3])
    with pytest.raises(ValueError, match="0/1"):
        metric(Y + 1, F)
    with pytest.raises(ValueError, match="0/1"):
        metric(np.where(Y == 1, 1, -1) * (np.arange(4) != 0), F)  # mixes 0 and -1
    with pytest.raises(ValueError, match="NaN or infinite"):
        metric(Y, np.where(F > 0.8, np.nan, F))
    with pytest.raises(ValueError, match="empty"):
        metric(np.zeros((0, 4)), np.zeros((0, 4)))


def test_bad_inputs_raise_hamming_and_error():
    with pytest.raises(ValueError, match="shape of Y_true"):
        hamming_loss(Y, Y[:2])
    with pytest.raises(ValueError, match="2-d"):
        hamming_loss([1, 0], [1, 0])
    with pytest.raises(ValueError, match="1-d"):
        error([[1, 2]], [[1, 2]])
    with pytest.raises(ValueError, match="shape of y_true"):
        error([1, 2], [1, 2, 3])
