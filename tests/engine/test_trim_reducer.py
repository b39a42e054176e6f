"""The trimmed stump over a reducer of row sets held in this process (no Dask): each set's
weight-mass buckets, kept rows' histogram and block statistics, summed, give the learner's
fit on one machine: one set bit for bit, three to rounding, the same rows kept and the same
rounds falling back to every row."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from confboost.data.dataset import Dataset, LabelSigns
from confboost.engine.boosting import run_boosting
from confboost.engine.learners.stump import StumpLearner, TrimPasses
from confboost.engine.schemes.mh import MHScheme
from confboost.kernels.criterion_numpy import mode_code
from confboost.training.calibration import dataset_rows

MODE = mode_code("real")


def _add(parts):
    """The sum of equal-shaped results: arrays, numbers, or tuples of them."""
    if isinstance(parts[0], tuple):
        return tuple(_add(list(each)) for each in zip(*parts, strict=True))
    return sum(parts[1:], parts[0])


class RowSetsReducer:
    """A ``Reducer`` over disjoint row sets, in order: each set's function of its own rows,
    weights (a copy, as a shard holds) and label signs, summed; its blocks concatenated."""

    def __init__(self, n_samples, n_sets):
        self.sets = np.array_split(np.arange(n_samples), n_sets)

    def sum(self, function, dataset, weights, labels, *args, out=None):
        return _add([function(dataset_rows(dataset, rows), np.ascontiguousarray(weights[rows]),
                              LabelSigns.from_signs(labels.signs[rows]), *args)
                     for rows in self.sets])

    def rows(self, function, dataset, *args):
        return np.concatenate([function(dataset_rows(dataset, rows), *args)
                               for rows in self.sets])

    def apply(self, function, scheme, *args):
        return function(scheme, *args)


def _run(reducer=None):
    """12 trimmed stump rounds (β = 0.3) on 3 classes with missing values; the run's
    hypotheses and the learner."""
    X, y = make_classification(900, 8, n_informative=5, n_classes=3, flip_y=0.05,
                               random_state=4)
    X[::13, 3] = np.nan
    weight = np.linspace(0.5, 2.0, y.size)
    signs = np.where(y[:, None] == np.arange(3), 1, -1).astype(np.int8)
    learner = StumpLearner(MODE, 1e-3, trim=0.3, **({} if reducer is None else
                                                     {"reducer": reducer}))
    dataset = Dataset.from_array(X, 64, 0, weight)
    hypotheses = run_boosting(dataset, MHScheme(signs, weight, True), learner, 12, "auto",
                              MODE, 1e-3)[0]
    return hypotheses, learner


@pytest.mark.parametrize("n_sets", [1, 3])
def test_trimmed_stumps_over_row_sets_are_the_local_ones(n_sets):
    local, local_learner = _run()
    sets, sets_learner = _run(RowSetsReducer(900, n_sets))
    kept = local_learner.kept_
    assert min(kept) < 900 and max(kept) == 900  # trimmed rounds and fall-backs
    assert sets_learner.kept_ == kept
    for mine, theirs in zip(sets, local, strict=True):
        assert (mine.feature, mine.threshold) == (theirs.feature, theirs.threshold)
        if n_sets == 1:
            assert np.array_equal(mine.values, theirs.values)
        else:
            np.testing.assert_allclose(mine.values, theirs.values, rtol=0, atol=1e-9)


def test_trim_passes_take_the_masses_once_for_the_same_weights():
    rng = np.random.default_rng(0)
    weights = rng.exponential(size=(200, 3))
    passes = TrimPasses()
    total = passes.buckets(None, weights, None)[1]
    mass = passes._masses(weights)
    assert passes._masses(weights) is mass  # the second pass reads the first's
    again = passes._masses(weights.copy())  # other weights: taken again, the same bits
    assert again is not mass and np.array_equal(again, mass)
    assert total == pytest.approx(weights.sum())
