"""Tests of confboost.engine.schemes.codes: output codes and AdaBoost.MO decoders (paper §8)."""

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp

from confboost.engine.schemes.codes import (
    exhaustive_code,
    hamming_decode_scores,
    loss_decode_scores,
    min_distance,
    one_vs_rest_code,
    random_code,
    validate_code,
)

# --- codes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 3, 7])
def test_one_vs_rest_code(k):
    code = one_vs_rest_code(k)
    assert code.dtype == np.int8
    assert code.shape == (k, k)
    np.testing.assert_array_equal(code == 1, np.eye(k, dtype=bool))
    assert min_distance(code) == 2


def test_exhaustive_code_k4_matches_dietterich_bakiri():
    # D&B's table for k = 4, with 0 written as -1: 7 columns.
    expected = np.array(
        [
            [1, 1, 1, 1, 1, 1, 1],
            [-1, -1, -1, -1, 1, 1, 1],
            [-1, -1, 1, 1, -1, -1, 1],
            [-1, 1, -1, 1, -1, 1, -1],
        ]
    )
    np.testing.assert_array_equal(exhaustive_code(4), expected)


@pytest.mark.parametrize("k", range(3, 12))
def test_exhaustive_code_properties(k):
    code = exhaustive_code(k)
    assert code.dtype == np.int8
    assert code.shape == (k, 2 ** (k - 1) - 1)
    # Every pair of rows is at distance 2^(k-2).
    signs = code.astype(np.int64)
    distances = (code.shape[1] - signs @ signs.T) // 2
    off_diagonal = distances[~np.eye(k, dtype=bool)]
    assert np.all(off_diagonal == 2 ** (k - 2))
    assert min_distance(code) == 2 ** (k - 2)
    # Each column is a different non-trivial split; a column and its complement never both.
    columns = {tuple(c) for c in code.T}
    assert len(columns) == code.shape[1]
    assert not any(tuple(-np.array(c)) in columns for c in columns)
    assert not np.any(np.all(code == code[0], axis=0))


@pytest.mark.parametrize("k", [2, 12])
def test_exhaustive_code_out_of_range(k):
    with pytest.raises(ValueError, match="k"):
        exhaustive_code(k)


@pytest.mark.parametrize("k, length", [(2, 1), (3, 2), (4, 2), (8, 3), (10, 5), (26, 40)])
def test_random_code_properties(k, length):
    code = random_code(k, length, random_state=0)
    assert code.dtype == np.int8
    assert code.shape == (k, length)
    assert set(np.unique(code)) <= {-1, 1}
    assert not np.any(np.all(code == code[0], axis=0)), "constant column"
    assert len({tuple(r) for r in code}) == k, "repeated row"
    assert min_distance(code) >= 1
    np.testing.assert_array_equal(validate_code(code, k), code)


def test_random_code_is_reproducible():
    np.testing.assert_array_equal(random_code(10, 30, 42), random_code(10, 30, 42))
    assert not np.array_equal(random_code(10, 30, 1), random_code(10, 30, 2))


def test_random_code_is_balanced():
    # Each bit is +1 with probability 1/2; rho is near k'/2 for long codes.
    code = random_code(20, 500, random_state=0)
    assert abs(np.mean(code == 1) - 0.5) < 0.02
    assert min_distance(code) > 0.4 * 500


def test_random_code_impossible():
    with pytest.raises(ValueError, match="2\\*\\*code_length >= k"):
        random_code(5, 2)
    with pytest.raises(ValueError, match="k must be"):
        random_code(1, 5)
    with pytest.raises(ValueError, match="code_length must be"):
        random_code(3, 0)


# --- validation ----------------------------------------------------------------------------


def test_validate_code_accepts_zero_one():
    code01 = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_array_equal(validate_code(code01, 3), one_vs_rest_code(3))
    assert validate_code(code01.astype(float), 3).dtype == np.int8


def test_validate_code_accepts_constant_column():
    code = np.array([[1, 1, -1], [1, -1, 1], [1, -1, -1]])
    np.testing.assert_array_equal(validate_code(code, 3), code)


def test_validate_code_errors():
    with pytest.raises(ValueError, match="2-d"):
        validate_code([1, -1, 1], 3)
    with pytest.raises(ValueError, match="k >= 2"):
        validate_code([[1, -1]], 1)
    with pytest.raises(ValueError, match="3 rows but there are 4 classes"):
        validate_code(one_vs_rest_code(3), 4)
    with pytest.raises(ValueError, match="only -1/\\+1"):
        validate_code([[1, 0, -1], [-1, 1, 1]], 2)  # ternary codes are not supported
    with pytest.raises(ValueError, match="only -1/\\+1"):
        validate_code([[2, 1], [1, 2]], 2)
    with pytest.raises(ValueError, match="rows 1 and 3 of the code are equal"):
        validate_code([[1, 1], [1, -1], [-1, 1], [1, -1]], 4)


def test_min_distance_of_equal_rows_is_zero():
    assert min_distance([[1, -1], [1, -1]]) == 0
    assert min_distance([[1, 1, 1, 1], [1, -1, -1, 1], [-1, -1, -1, 1]]) == 1


# --- decoders ------------------------------------------------------------------------------

CODE = np.array(
    [
        [1, 1, -1, -1],
        [-1, 1, 1, -1],
        [1, -1, 1, 1],
    ]
)


def test_hamming_decode_by_hand():
    scores = np.array(
        [
            [2.0, 0.5, -1.0, -3.0],  # sign = row 0 exactly
            [-0.1, 0.1, 0.1, -0.1],  # sign = row 1 exactly, however small
            [1.0, -1.0, 1.0, -1.0],  # distances 2, 3, 1 -> class 2
            [0.0, 0.0, 0.0, 0.0],  # all abstain: distance 2 to every class -> first
            [1.0, 1.0, 0.0, -1.0],  # distances 0.5, 1.5, 2.5 -> class 0
        ]
    )
    np.testing.assert_array_equal(np.argmax(hamming_decode_scores(CODE, scores), axis=1),
                                  [0, 1, 2, 0, 0])


def test_loss_decode_by_hand():
    # Hamming decoding ties classes 0 and 1 (one disagreement each), but class 1's
    # disagreement is on a bit with a small score: loss decoding prefers it.
    scores = np.array([[0.1, 5.0, 5.0, -5.0]])
    assert np.argmax(hamming_decode_scores(CODE, scores), axis=1)[0] == 0
    # losses: class 0: e^-0.1 + e^-5 + e^5 + e^-5; class 1: e^0.1 + 3 e^-5;
    # class 2: e^-0.1 + e^5 + e^-5 + e^5.
    assert np.argmax(loss_decode_scores(CODE, scores), axis=1)[0] == 1
    expected = -np.log(
        [
            np.exp(-0.1) + 2 * np.exp(-5) + np.exp(5),
            np.exp(0.1) + 3 * np.exp(-5),
            np.exp(-0.1) + np.exp(-5) + 2 * np.exp(5),
        ]
    )
    np.testing.assert_allclose(loss_decode_scores(CODE, scores)[0], expected)


@pytest.mark.parametrize("seed", range(5))
def test_loss_decode_one_vs_rest_is_argmax(seed):
    # With λ(y) = {y}, Variant 2 equals AdaBoost.MH's argmax rule (paper §8, Eq. 17).
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 15))
    scores = rng.normal(scale=3.0, size=(300, k))
    code = one_vs_rest_code(k)
    np.testing.assert_array_equal(np.argmax(loss_decode_scores(code, scores), axis=1),
                                  np.argmax(scores, axis=1))
    # The class scores rank the classes as f does.
    np.testing.assert_array_equal(
        np.argsort(loss_decode_scores(code, scores), axis=1), np.argsort(scores, axis=1)
    )


def test_loss_decode_brute_force():
    rng = np.random.default_rng(3)
    code = random_code(6, 9, random_state=3)
    scores = rng.normal(size=(200, 9))
    losses = np.exp(-code[None, :, :] * scores[:, None, :]).sum(axis=2)
    np.testing.assert_array_equal(np.argmax(loss_decode_scores(code, scores), axis=1),
                                  np.argmin(losses, axis=1))
    np.testing.assert_allclose(loss_decode_scores(code, scores), -np.log(losses))


def test_decoders_do_not_overflow():
    # Scores ~1e4: exp would overflow; the log-sum-exp keeps the exact comparison.
    code = CODE
    scores = np.array(
        [
            [6e3, 1e4, 5e3, -1e4],  # class 0 disagrees on |f| = 5e3, class 1 on 6e3
            [1e4, 1e4, -1e4, -1e4],  # class 0 agrees everywhere
            [1e4, -2e4, 3e4, 4e4],  # class 2 agrees everywhere
        ]
    )
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        class_scores = loss_decode_scores(code, scores)
        classes = np.argmax(loss_decode_scores(code, scores), axis=1)
    assert np.all(np.isfinite(class_scores))
    np.testing.assert_array_equal(classes, [0, 0, 2])
    np.testing.assert_allclose(class_scores[0], [-5e3, -6e3, -1e4 - np.log(2)], rtol=1e-12)
    np.testing.assert_array_equal(np.argmax(hamming_decode_scores(code, scores), axis=1), [0, 0, 2])


@pytest.mark.parametrize("scale", [1.0, 300.0, 1e4])
def test_loss_decode_scores_at_any_scale(scale):
    # Small scores take the fast path, large ones the exact path, mixed ones both; both
    # must match a reference log-sum-exp over every (example, class).
    rng = np.random.default_rng(0)
    code = exhaustive_code(9)  # 255 bits; 600 x 9 entries span two exact-path blocks
    scores = rng.normal(scale=scale, size=(600, code.shape[1]))
    reference = -logsumexp(-code[None, :, :] * scores[:, None, :], axis=2)
    np.testing.assert_allclose(loss_decode_scores(code, scores), reference, rtol=1e-12)


def test_exhaustive_code_corrects_errors():
    # rho = 2^(k-2) = 4 for k = 4: Hamming decoding corrects any single flipped bit.
    code = exhaustive_code(4)
    for y, bit in itertools.product(range(4), range(code.shape[1])):
        scores = code[y].astype(float)
        scores[bit] *= -1
        assert np.argmax(hamming_decode_scores(code, scores[None]), axis=1)[0] == y
        assert np.argmax(loss_decode_scores(code, scores[None]), axis=1)[0] == y


def test_decoder_errors():
    with pytest.raises(ValueError, match="one column per code bit"):
        hamming_decode_scores(CODE, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="one column per code bit"):
        np.argmax(loss_decode_scores(CODE, np.zeros(4)), axis=1)
    with pytest.raises(ValueError, match="NaN or infinite"):
        loss_decode_scores(CODE, np.full((1, 4), np.inf))
    with pytest.raises(ValueError, match="rows 0 and 1"):
        loss_decode_scores([[1, -1], [1, -1]], np.zeros((1, 2)))
