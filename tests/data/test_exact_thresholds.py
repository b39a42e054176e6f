"""Exact thresholds (``max_bins=None``): a continuous column with more distinct values than a
bin code holds is kept unbinned, and its stumps try every midpoint of two neighbouring
values, as icsiboost's do. Where an icsiboost executable is given (``$ICSIBOOST``), the two
programs train on such a column and give the same rounds and the same ``.shyp``.
"""


import numpy as np
import pytest

from confboost.data.dataset import Dataset, ExactColumn, LabelSigns
from confboost.engine.learners import make_learner
from confboost.engine.learners.exact_stump import (
    ExactStumpLearner,
    threshold_z,
    value_masses,
)
from confboost.engine.learners.stump import STUMP_ABSTAINING, StumpLearner
from confboost.kernels.criterion_numpy import MODES, partition_z
from tests.helpers import ICSIBOOST, icsiboost_side_by_side


def _column(rng, n, distinct, missing=0.1):
    values = rng.choice(np.round(rng.normal(size=distinct) * 100, 3), n)
    values[rng.random(n) < missing] = np.nan
    return values


def _signs(rng, n, k):
    signs = -np.ones((n, k), dtype=np.int8)
    signs[np.arange(n), rng.integers(0, k, n)] = 1
    return signs


def test_only_columns_beyond_a_bin_code_are_kept_exact():
    rng = np.random.default_rng(0)
    X = np.column_stack([_column(rng, 3000, 12), _column(rng, 3000, 900), rng.normal(size=3000)])
    dataset = Dataset.from_array(X, None)
    assert [column.column for column in dataset.exact] == [1, 2]
    assert dataset.numeric_columns.tolist() == [0]
    wide = dataset.exact[0]
    known = ~np.isnan(X[:, 1])
    np.testing.assert_array_equal(wide.values[wide.ranks[known]], X[known, 1])
    assert (wide.ranks[~known] == -1).all() and (np.diff(wide.values) > 0).all()
    # the estimator's default keeps binning every column
    assert Dataset.from_array(X, 255).exact == []


@pytest.mark.parametrize("mode", sorted(MODES))
def test_threshold_z_is_partition_z_at_every_threshold(mode):
    rng = np.random.default_rng(1)
    n, k = 500, 3
    column = ExactColumn.from_values(0, _column(rng, n, 300))
    weights = rng.random((n, k))
    weights /= weights.sum()
    signs = _signs(rng, n, k)
    pos, neg = value_masses(column.ranks, column.values.shape[0], weights, signs)
    z = threshold_z(pos, neg, MODES[mode], 1.0)
    for rank in range(column.values.shape[0]):
        blocks = np.where(column.ranks < 0, 2, np.where(column.ranks <= rank, 0, 1))
        weight_pos = np.array([[weights[(blocks == j) & (signs[:, l] > 0), l].sum()
                                for l in range(k)] for j in range(3)])
        weight_neg = np.array([[weights[(blocks == j) & (signs[:, l] < 0), l].sum()
                                for l in range(k)] for j in range(3)])
        expected = partition_z(weight_pos, weight_neg, STUMP_ABSTAINING, MODES[mode], 1.0)
        assert z[rank] == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_exact_stump_is_the_binned_stump_where_every_value_has_its_bin(mode):
    rng = np.random.default_rng(2)
    n, k = 800, 4
    raw = _column(rng, n, 60)
    binned = Dataset.from_array(raw[:, None], 255)
    exact = Dataset(np.empty((0, n), dtype=np.uint8), np.empty(0, dtype=np.intp), None,
                    np.empty(0, dtype=np.intp), n_samples=n, n_columns=1,
                    exact=[ExactColumn.from_values(0, raw)])
    weights = rng.random((n, k))
    weights /= weights.sum()
    labels = LabelSigns.from_signs(_signs(rng, n, k))
    theirs = StumpLearner(MODES[mode], 1e-4).fit(binned, weights, labels)
    ours = ExactStumpLearner(MODES[mode], 1e-4).fit(exact, weights, labels)
    assert ours.hypothesis.threshold == theirs.hypothesis.threshold
    assert ours.criterion == pytest.approx(theirs.criterion, rel=1e-12)
    np.testing.assert_allclose(ours.hypothesis.values, theirs.hypothesis.values, rtol=1e-10)
    np.testing.assert_array_equal(ours.train_blocks, theirs.train_blocks)
    np.testing.assert_allclose(ours.weight_pos, theirs.weight_pos, rtol=1e-12)


def test_boosting_finds_a_threshold_between_bins():
    # one value among 1000 holds all the positives: only an exact threshold isolates it
    from confboost.estimators.booster import Booster

    values = np.arange(1000, dtype=np.float64)
    y = (values == 501).astype(int)
    exact = Booster(n_estimators=1, max_bins=None, weak_learner="stump").fit(
        {"x": values, "t": ["a b"] * 1000}, y, )
    binned = Booster(n_estimators=1, weak_learner="stump").fit(
        {"x": values, "t": ["a b"] * 1000}, y)
    assert exact.model_.hypotheses[0].threshold in (500.5, 501.5)
    assert binned.model_.hypotheses[0].threshold not in (500.5, 501.5)


def test_exact_columns_refuse_trees_and_trimming():
    raw = np.arange(400, dtype=np.float64)[:, None]
    dataset = Dataset.from_array(raw, None)
    with pytest.raises(ValueError, match="max_bins=None"):
        make_learner("tree", dataset, MODES["real"], 1e-4)
    with pytest.raises(ValueError, match="max_bins=None"):
        make_learner("stump", dataset, MODES["real"], 1e-4, trim=0.1)




@pytest.mark.skipif(not ICSIBOOST, reason="no icsiboost executable ($ICSIBOOST)")
def test_a_column_of_many_values_gives_icsiboost_rounds_and_shyp(tmp_path):
    rng = np.random.default_rng(4)
    n = 1500
    size = np.round(rng.lognormal(3, 1.5, n), 1)
    word = rng.choice(["lib", "doc", "dev", "py", "x"], n)
    label = np.where((size > np.median(size)) != (rng.random(n) < 0.2), "big", "small")
    lines = [f"{w} {v}, {'?' if i % 50 == 0 else v}, {c}.\n"
             for i, (w, v, c) in enumerate(zip(word, size, label, strict=True))]
    (tmp_path / "t.names").write_text("big, small.\nname: text.\nsize: continuous.\n")
    (tmp_path / "t.data").write_text("".join(lines[:1200]))
    (tmp_path / "t.test").write_text("".join(lines[1200:]))
    assert len(set(size[:1200])) > 255
    base = ["-S", "t", "-n", "30"]
    rounds, shyps = icsiboost_side_by_side(tmp_path, base)
    assert len(rounds[0]) == 30 and rounds[0] == rounds[1]
    assert shyps[0] == shyps[1]
