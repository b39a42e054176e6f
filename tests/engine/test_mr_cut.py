"""AdaBoost.MR's multi-label cut (``engine/schemes/mr_cut.py``): the histogram cut against
its twin, the sort of every score (``hamming_threshold_naive``).

On one machine (``LOCAL``) and over row sets whose histograms are summed (a reducer held
in the test, as a Dask cluster's sums them over shards), the cut is the sort's exactly
where the weights' sums are exact (integer weights): ties between scores, -0.0 beside
0.0, zero weights, the cuts below the least score or above the greatest, every score
equal, one row. With fractional weights its training Hamming loss is the least to
rounding.
"""

import types

import numpy as np
import pytest

from confboost.data.dataset import Dataset
from confboost.engine.boosting import run_boosting
from confboost.engine.learners import StumpLearner
from confboost.engine.reduction import LOCAL
from confboost.engine.schemes.mr import MRScheme
from confboost.engine.schemes.mr_cut import (
    LEVELS,
    cut_threshold,
    hamming_threshold_naive,
)
from confboost.kernels.criterion_numpy import MODES
from confboost.kernels.score_cells import key_value, score_keys


class Pieces:
    """A reducer over row sets held in the test: ``apply`` sums the function's results."""

    def __init__(self, pieces):
        self.pieces = pieces
        self.calls = 0

    def apply(self, function, scheme, *args):
        self.calls += 1
        return sum(function(piece, *args) for piece in self.pieces)


def _rows(scores, signs, weight):
    """What the cut reads of a scheme: its scores, label signs and sample weights."""
    return types.SimpleNamespace(scores=scores, _sample_weight=weight,
                                 labels=types.SimpleNamespace(signs=signs))


def _pieces(scores, signs, weight, bounds):
    return [_rows(s, y, w) for s, y, w in zip(np.split(scores, bounds), np.split(signs, bounds),
                                              np.split(weight, bounds), strict=True)]


def _hamming_loss(threshold, scores, signs, weight):
    """The weighted training Hamming loss of predicting {l : f(x, l) > θ}, by brute force."""
    wrong = (scores > threshold) != (signs > 0)
    return float(np.sum(wrong * weight[:, None]))


def _problem(case, n=300, k=4):
    rng = np.random.default_rng(case)
    scores = np.round(rng.normal(size=(n, k)) * (1, 3, 10, 0.01)[case % 4], 1 + case % 3)
    if case == 1:
        scores[::5] = -0.0  # ties with 0.0
    signs = np.where(rng.random((n, k)) < (0.3 if case != 4 else 0.02), 1, -1).astype(np.int8)
    if case == 5:
        signs[:] = 1  # every pair positive: the cut below the least score
    if case == 6:
        signs[:] = -1  # every pair negative: the cut above the greatest score
    return rng, scores, signs


def test_keys_keep_the_order_of_the_scores():
    values = np.array([-np.inf, -3.5, -1e-300, -0.0, 0.0, 5e-324, 1.0, 2.0, np.inf])
    keys = score_keys(values)
    assert np.all(keys[1:] >= keys[:-1]) and keys[3] == keys[4]
    assert [key_value(key) for key in keys[1:-1]] == [float(v) + 0.0 for v in values[1:-1]]


@pytest.mark.parametrize("case", range(7))
def test_integer_weights_give_the_sorted_cut_on_one_machine_and_over_row_sets(case):
    rng, scores, signs = _problem(case)
    weight = rng.integers(0, 4, scores.shape[0]).astype(np.float64)  # some zero
    expected = hamming_threshold_naive(signs, scores, weight)
    assert cut_threshold(LOCAL, _rows(scores, signs, weight)) == expected
    reducer = Pieces(_pieces(scores, signs, weight, [70, 71, 200]))
    assert cut_threshold(reducer, None) == expected
    assert reducer.calls <= 2 * LEVELS + 1


@pytest.mark.parametrize("case", range(7))
def test_fractional_weights_give_the_least_loss_to_rounding(case):
    rng, scores, signs = _problem(case, n=2000, k=6)
    weight = rng.uniform(0.01, 3.0, scores.shape[0])
    expected = hamming_threshold_naive(signs, scores, weight)
    for reducer in (LOCAL, Pieces(_pieces(scores, signs, weight, [500, 1999]))):
        threshold = cut_threshold(reducer, _rows(scores, signs, weight))
        least = _hamming_loss(expected, scores, signs, weight)
        assert _hamming_loss(threshold, scores, signs, weight) <= least * (1 + 1e-12)


def test_random_scores_without_ties():
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(5000, 8)) * np.exp(rng.normal(size=(5000, 1)) * 3)
    signs = np.where(rng.random(scores.shape) < 0.5 + 0.4 * np.tanh(scores), 1, -1)
    weight = rng.integers(1, 6, scores.shape[0]).astype(np.float64)
    assert cut_threshold(LOCAL, _rows(scores, signs.astype(np.int8), weight)) == \
        hamming_threshold_naive(signs, scores, weight)


@pytest.mark.parametrize("positive", [0.2, 0.8])
def test_every_score_equal(positive):
    """One distinct score: the cut is below it (every label predicted) or above it."""
    rng = np.random.default_rng(3)
    scores = np.full((50, 3), 1.25)
    signs = np.where(rng.random(scores.shape) < positive, 1, -1).astype(np.int8)
    weight = np.ones(50)
    threshold = cut_threshold(LOCAL, _rows(scores, signs, weight))
    assert threshold == hamming_threshold_naive(signs, scores, weight)
    assert threshold == (0.25 if positive > 0.5 else 2.25)


@pytest.mark.parametrize("labels", [[1, -1], [1, 1], [-1, -1], [-1, 1]])
def test_one_row(labels):
    scores = np.array([[0.5, -2.0]])
    signs = np.array([labels], dtype=np.int8)
    threshold = cut_threshold(LOCAL, _rows(scores, signs, np.ones(1)))
    assert threshold == hamming_threshold_naive(signs, scores, np.ones(1))
    # a true label ranked below a false one costs one of the two; otherwise none
    assert _hamming_loss(threshold, scores, signs, np.ones(1)) == (labels == [-1, 1])


@pytest.mark.parametrize("confidence", ["real", "discrete"])
def test_the_scheme_cuts_as_the_sort_after_every_round(confidence):
    """Multi-label MR's update (its reducer the identity) keeps, each round, the sort's cut
    of the scores it has just updated."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(400, 6))
    signs = np.where(X[:, :4] + rng.normal(size=(400, 4)) > 0.5, 1, -1).astype(np.int8)
    weight = rng.integers(1, 4, 400).astype(np.float64)
    scheme = MRScheme(signs, weight, True)
    sorted_cuts = []
    mode = MODES[confidence]
    run_boosting(Dataset.from_array(X, 255, 0, weight), scheme, StumpLearner(mode, 0.01), 12,
                 "auto", mode, 0.01, callbacks=[lambda env: sorted_cuts.append(
                     hamming_threshold_naive(signs, scheme.scores, weight))])
    assert len(scheme.thresholds) == 12 and scheme.thresholds == sorted_cuts
