"""The tree learners take every sum over examples through their reducer
(``Reducer.total``): one machine's leaves them the local fit, bit for bit; a reducer that
sums two identical shards grows the tree of the rows taken twice."""

import dataclasses

import numpy as np
import pytest

from confboost.data.dataset import LabelSigns
from confboost.engine.learners import make_learner
from confboost.engine.reduction import LOCAL, LocalReducer
from confboost.kernels.criterion_numpy import DISCRETE, REAL
from tests.helpers import mixed_frame, table_fit_parts

LEARNERS = ["tree", "hamming_tree", "label_trees"]
NO_TEXT = {"text": "ignore", "row": "ignore"}


def test_the_local_total_is_the_value_itself():
    value = np.arange(4.0)
    assert LOCAL.total(value) is value
    assert LOCAL.total(value, out=value) is value
    parts = [value, 2.5, 3]
    assert LOCAL.total(parts) is parts
    out = np.empty(4)
    assert LOCAL.total(value, out=out) is out
    np.testing.assert_array_equal(out, value)


class Recording(LocalReducer):
    """The local reducer, recording what it is given to total."""

    def __init__(self):
        self.values = []

    def total(self, value, out=None):
        self.values.append(value)
        return super().total(value, out)


class TwoShards(LocalReducer):
    """A reducer over two shards that hold the same rows: each total is twice the value."""

    def total(self, value, out=None):
        doubled = _twice(value)
        if out is None:
            return doubled
        out[...] = doubled
        return out


def _twice(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_twice(part) for part in value)
    return value * 2


def _fit(name, dataset, weights, labels, mode, reducer):
    learner = make_learner(name, dataset, mode, 1e-3, max_leaves=6, min_leaf_weight=1e-3,
                           reducer=reducer)
    return learner, learner.fit(dataset, weights, labels)


def _n_splits(fit):
    trees = getattr(fit.hypothesis, "trees", [fit.hypothesis])
    return [tree.left.shape[0] for tree in trees]


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_a_recording_reducer_sees_each_sum_and_leaves_the_fit(rng, name, mode):
    frame, Y = mixed_frame(rng, n=300, k=3)
    _, dataset, _, labels, weights = table_fit_parts(frame, Y, rng)
    _, local = _fit(name, dataset, weights, labels, mode, LOCAL)
    reducer = Recording()
    learner, fit = _fit(name, dataset, weights, labels, mode, reducer)
    assert fit.hypothesis.to_dict() == local.hypothesis.to_dict()
    for field in ("train_blocks", "weight_pos", "weight_neg"):
        np.testing.assert_array_equal(getattr(fit, field), getattr(local, field))
    assert fit.criterion == local.criterion
    counts = [value for value in reducer.values if isinstance(value, int)]
    rows = [count for count in counts if count == dataset.n_samples]
    histograms = [value for value in reducer.values
                  if isinstance(value, np.ndarray) and value.ndim == 4]
    # the rows once a tree learner (a tree per label's: one a thread), then each split's
    # left size but the last of a full tree; the root's histogram (a Hamming tree's: of
    # every label) and each smaller child's
    splits = _n_splits(fit)
    searched = sum(n - (n + 1 == 6) for n in splits)
    assert 1 <= len(rows) <= (len(splits) if name == "label_trees" else 1)
    assert len(counts) - len(rows) == searched
    assert len(histograms) == len(splits) + searched
    assert histograms[0].shape[2] == (3 if name == "hamming_tree" else
                                      1 if name == "label_trees" else 3)
    # the leaves' statistics with the examples' mass, one total a tree
    leaves = [value for value in reducer.values if isinstance(value, list) and len(value) == 3
              and isinstance(value[2], float)]
    assert len(leaves) == len(splits)
    assert learner.grown is not None


@pytest.mark.parametrize("name", LEARNERS)
def test_two_shards_of_the_same_rows_grow_the_tree_of_the_rows_twice(rng, name):
    """Every sum the learner reads whole goes through the reducer: totals of twice each
    value (two shards holding the same rows) give the tree of the rows taken twice (real
    confidences: a ±1 tree's gain of a split whose children agree is 0 up to rounding,
    which the two ways of adding the rows round apart)."""
    mode = REAL
    frame, Y = mixed_frame(rng, n=300, k=3)
    _, dataset, _, labels, weights = table_fit_parts(frame, Y, rng, NO_TEXT)
    dataset_twice = dataclasses.replace(
        dataset, codes=np.hstack([dataset.codes, dataset.codes]),
        n_samples=2 * dataset.n_samples,
        categorical=[dataclasses.replace(column, codes=np.concatenate([column.codes] * 2))
                     for column in dataset.categorical])
    labels_twice = LabelSigns.from_signs(np.vstack([labels.signs, labels.signs]))
    _, local = _fit(name, dataset_twice, np.vstack([weights, weights]), labels_twice, mode,
                    LOCAL)
    _, shards = _fit(name, dataset, weights, labels, mode, TwoShards())
    assert _n_splits(shards) == _n_splits(local)
    mine, theirs = shards.hypothesis.to_dict(), local.hypothesis.to_dict()
    for key in ("values", "leaf_values"):
        np.testing.assert_allclose(mine.pop(key, []), theirs.pop(key, []), rtol=1e-9)
    if name == "label_trees":
        for tree in (*mine["trees"], *theirs["trees"]):
            tree.pop("values")
    assert mine == theirs
    np.testing.assert_allclose(shards.weight_pos, local.weight_pos, rtol=1e-12)
    np.testing.assert_allclose(shards.criterion, local.criterion, rtol=1e-9)
    np.testing.assert_array_equal(shards.train_blocks, local.train_blocks[:weights.shape[0]])
