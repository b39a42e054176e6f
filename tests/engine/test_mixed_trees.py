"""Trees and Hamming trees on mixed tables: the node-split kernels against naive twins, the
root split and Z by brute force, the two-leaf tree as the best two-block learner, every
scheme with save/load, and clear errors."""

import numpy as np
import pandas as pd
import pytest

from confboost import BoostClassifier
from confboost.engine.learners import HYPOTHESIS_TYPES
from confboost.engine.learners.categorical import CategoricalLearner
from confboost.engine.learners.splitter import categorical_node_masses, value_split_gains
from confboost.engine.learners.stump import StumpLearner
from confboost.engine.learners.term import TermLearner
from confboost.engine.learners.tree import HammingTreeLearner, TreeLearner
from confboost.estimators import load
from confboost.kernels.criterion_numpy import DISCRETE, REAL, partition_z
from confboost.kernels.node_terms import (
    node_term_gains_naive,
    node_term_sums,
    node_term_sums_naive,
    term_split_gains,
    term_split_gains_naive,
)
from tests.helpers import TABLE_TYPES, mixed_frame, random_postings, table_fit_parts


def _block_masses(blocks, n_blocks, weights, signs):
    """W+ and W- of each block, shape (n_blocks, k) each, summed from the examples."""
    pos = np.array([[weights[(blocks == j) & (signs[:, l] > 0), l].sum()
                     for l in range(signs.shape[1])] for j in range(n_blocks)])
    neg = np.array([[weights[(blocks == j) & (signs[:, l] < 0), l].sum()
                     for l in range(signs.shape[1])] for j in range(n_blocks)])
    return pos, neg


def _z(blocks, n_blocks, weights, signs, mode):
    pos, neg = _block_masses(blocks, n_blocks, weights, signs)
    return partition_z(pos[None], neg[None], np.zeros(n_blocks, dtype=bool), mode,
                               weights.sum())[0]


# --- kernels and node gains against naive twins ----------------------------------------

@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("least_mass", [1e-12, 0.02])
def test_node_term_gains_equal_naive_in_any_order(rng, mode, k, least_mass):
    indptr, indices = random_postings(rng, 80, 600, 0.05)
    pos = rng.random((80, k)) * (rng.random((80, k)) < 0.4)
    neg = rng.random((80, k)) * (pos == 0)
    total = pos.sum() + neg.sum()
    pos, neg = pos / total, neg / total
    rows = rng.choice(80, 50, replace=False).astype(np.intp)
    expected = node_term_gains_naive(indptr, indices, rows, pos, neg, mode, least_mass)
    every = np.arange(600, dtype=np.int32)
    for order in (np.sort(rows), rng.permutation(rows)):
        in_node = np.zeros(80, dtype=bool)
        in_node[order] = True
        present_pos, present_neg = np.full((600, k), np.nan), np.full((600, k), np.nan)
        node_term_sums(indptr, indices, every, in_node, pos, neg, present_pos, present_neg)
        gains = np.empty(600)
        term_split_gains(present_pos, present_neg, pos[order].sum(axis=0),
                         neg[order].sum(axis=0), mode, least_mass, gains)
        np.testing.assert_allclose(gains, expected, rtol=1e-10, atol=1e-13)
    assert np.isfinite(expected).any() and np.isinf(expected).any()


@pytest.mark.parametrize("k", [1, 3])
def test_node_term_sums_equal_naive(rng, k):
    """Any lists, repeated and in any order; the outputs overwritten whatever they held."""
    indptr, indices = random_postings(rng, 70, 300, 0.06)
    pos, neg = rng.random((70, k)), rng.random((70, k))
    rows = rng.choice(70, 40, replace=False).astype(np.intp)
    in_node = np.zeros(70, dtype=bool)
    in_node[rows] = True
    lists = rng.integers(0, 300, 500).astype(np.int32)
    present_pos, present_neg = np.full((500, k), 7.0), np.full((500, k), -7.0)
    node_term_sums(indptr, indices, lists, in_node, pos, neg, present_pos, present_neg)
    expected_pos, expected_neg = node_term_sums_naive(indptr, indices, lists, rows, pos, neg)
    np.testing.assert_allclose(present_pos, expected_pos, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(present_neg, expected_neg, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("k", [1, 4])
def test_term_split_gains_equal_naive(rng, mode, k):
    node_pos, node_neg = rng.random(k), rng.random(k)
    present_pos = node_pos * rng.random((200, k)) * (rng.random((200, k)) < 0.7)
    present_neg = node_neg * rng.random((200, k))
    present_pos[:3], present_neg[:3] = 0.0, 0.0  # an empty left child
    least_mass = 0.05 * float(node_pos.sum() + node_neg.sum())
    gains = np.empty(200)
    term_split_gains(present_pos, present_neg, node_pos, node_neg, mode, least_mass, gains)
    expected = term_split_gains_naive(present_pos, present_neg, node_pos, node_neg, mode,
                                      least_mass)
    np.testing.assert_allclose(gains, expected, rtol=1e-10, atol=1e-13)
    assert np.isfinite(expected).any() and np.isinf(expected[:3]).all()


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("k", [1, 3])
def test_categorical_node_gains_equal_brute_force(rng, mode, k):
    codes = rng.integers(-1, 6, size=150).astype(np.int32)
    signs = np.where(rng.random((150, k)) < 0.4, 1, -1)
    weights = rng.random((150, k))
    weights /= weights.sum()
    pos, neg = np.where(signs > 0, weights, 0.0), np.where(signs > 0, 0.0, weights)
    rows = rng.permutation(rng.choice(150, 90, replace=False)).astype(np.intp)
    masses = categorical_node_masses(codes, rows, 6, pos, neg)
    gains = value_split_gains(pos[rows].sum(0), neg[rows].sum(0), masses[0], masses[1], mode,
                              0.0)
    node_z = _z(np.zeros(90, dtype=int), 1, weights[rows], signs[rows], REAL)
    for value in range(6):
        blocks = (codes[rows] != value).astype(int)
        if mode == REAL:
            expected = node_z - _z(blocks, 2, weights[rows], signs[rows], REAL)
        else:
            p, n = _block_masses(blocks, 2, weights[rows], signs[rows])
            expected = np.abs(p - n).sum() - np.abs(p.sum(0) - n.sum(0)).sum()
        assert gains[value] == pytest.approx(expected, rel=1e-10, abs=1e-13)


# --- the learners ----------------------------------------------------------------------

def _tiny_table(rng, n=40):
    """A small table with every kind; continuous with NaN, categorical and text missing."""
    size = np.round(rng.normal(size=n), 1)
    size[rng.random(n) < 0.15] = np.nan
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    colour[rng.random(n) < 0.15] = None
    text = [" ".join(rng.choice(["a", "b", "c", "d", "e"], rng.integers(1, 4)))
            for _ in range(n)]
    text = [None if rng.random() < 0.1 else t for t in text]
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    frame = pd.DataFrame({"size": size, "colour": colour, "text": text,
                          "row": np.arange(n).astype(str)})
    return frame, Y


def _every_root_split(frame, raw, dataset):
    """Go-left vector of every numeric threshold (NaN either way), value and term."""
    size = frame["size"].to_numpy()
    for threshold in np.unique(size[~np.isnan(size)]):
        for missing_left in (True, False):
            yield np.where(np.isnan(size), missing_left, size <= threshold)
    for column in dataset.categorical:
        for value in column.values:
            yield raw.categorical_blocks(column.column, value) == 0
    for column in dataset.text:
        for term in column.terms:
            yield raw.term_blocks(column.column, term) == 0


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_root_split_equals_brute_force(rng, mode):
    frame, Y = _tiny_table(rng)
    _, dataset, raw, labels, weights = table_fit_parts(frame, Y, rng)
    fit = TreeLearner(mode, 1e-3, max_leaves=2).fit(dataset, weights, labels)
    signs = labels.signs
    best = min(_z((~left).astype(int), 2, weights, signs, mode)
               for left in _every_root_split(frame, raw, dataset))
    assert fit.criterion == pytest.approx(best, rel=1e-10, abs=1e-13)
    np.testing.assert_array_equal(fit.hypothesis.blocks(raw), fit.train_blocks)
    assert _z(fit.train_blocks, 2, weights, signs, mode) == pytest.approx(best, rel=1e-10)


@pytest.mark.parametrize("k", [2, 3])
def test_grown_mixed_tree_z_is_two_sum_sqrt_over_its_leaves(rng, k):
    frame, Y = mixed_frame(rng, n=200, k=3)
    _, dataset, raw, labels, weights = table_fit_parts(frame, Y[:, :k], rng)
    fit = TreeLearner(REAL, 1e-3, max_leaves=7).fit(dataset, weights, labels)
    h = fit.hypothesis
    assert h.values.shape[0] == 7
    assert set(h.kind.tolist()) >= {1, 2}  # categorical and term splits both used
    np.testing.assert_array_equal(h.blocks(raw), fit.train_blocks)
    assert fit.criterion == pytest.approx(_z(fit.train_blocks, 7, weights, labels.signs, REAL),
                                          rel=1e-10)


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_z_falls_as_the_mixed_tree_grows(rng, mode):
    frame, Y = mixed_frame(rng, n=200)
    _, dataset, _, labels, weights = table_fit_parts(frame, Y, rng)
    for learner in (TreeLearner, HammingTreeLearner):
        criteria = [learner(mode, 1e-3, max_leaves=n).fit(dataset, weights, labels).criterion
                    for n in (2, 4, 8)]
        assert all(a >= b - 1e-12 for a, b in zip(criteria, criteria[1:], strict=False))
        assert criteria[-1] < criteria[0]


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_two_leaf_mixed_tree_is_the_best_two_block_learner(rng, mode):
    """Without NaN or a missing categorical value, the stump and the categorical test are
    two-block partitions (their missing block is empty), as the term test always is."""
    frame, Y = mixed_frame(rng, n=150)
    frame = frame.assign(size=frame["size"].fillna(0.25),
                         colour=frame["colour"].fillna("grey"))
    _, dataset, _, labels, weights = table_fit_parts(frame, Y, rng)
    best = min(StumpLearner(mode, 1e-3).fit(dataset, weights, labels).criterion,
               CategoricalLearner(mode, 1e-3).fit(dataset, weights, labels).criterion,
               TermLearner(mode, 1e-3).fit(dataset, weights, labels).criterion)
    fit = TreeLearner(mode, 1e-3, max_leaves=2).fit(dataset, weights, labels)
    assert fit.criterion == pytest.approx(best, rel=1e-10)


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("with_numeric", [True, False])
def test_mixed_hamming_tree_vote_and_leaf_masses(rng, mode, with_numeric):
    frame, Y = mixed_frame(rng, n=200)
    types = dict(TABLE_TYPES, **({} if with_numeric else {"size": "ignore"}))
    _, dataset, raw, labels, weights = table_fit_parts(frame, Y, rng, types)
    fit = HammingTreeLearner(mode, 1e-3, max_leaves=5).fit(dataset, weights, labels)
    h = fit.hypothesis
    np.testing.assert_allclose(h.values, np.outer(h.leaf_values, h.vote))
    np.testing.assert_array_equal(h.blocks(raw), fit.train_blocks)
    signs = labels.signs
    if not with_numeric:
        # v: the largest factorised edge over every value test and term, by brute force
        margin = np.where(signs > 0, weights, -weights)
        edges = [np.abs(margin[left].sum(0) - margin[~left].sum(0))
                 for left in _every_root_split(frame.assign(size=np.nan), raw, dataset)
                 if left.any()]
        differences = [margin[left].sum(0) - margin[~left].sum(0)
                       for left in _every_root_split(frame.assign(size=np.nan), raw, dataset)
                       if left.any()]
        best = int(np.argmax([e.sum() for e in edges]))
        np.testing.assert_array_equal(h.vote, np.where(differences[best] >= 0, 1.0, -1.0))
    agrees = signs * h.vote[None, :] > 0
    n_leaves = len(h.leaf_values)
    agree = np.array([weights[(fit.train_blocks == j)[:, None] & agrees].sum()
                      for j in range(n_leaves)])
    disagree = np.array([weights[(fit.train_blocks == j)[:, None] & ~agrees].sum()
                         for j in range(n_leaves)])
    if mode == REAL:
        assert fit.criterion == pytest.approx(2 * np.sqrt(agree * disagree).sum(), rel=1e-10)
    else:
        r = np.abs(agree - disagree).sum()
        assert fit.criterion == pytest.approx(np.sqrt(max(1 - r * r, 0.0)), rel=1e-9)


# --- the estimator -----------------------------------------------------------------------

def _targets(Y, kind):
    if kind == "multilabel":
        return Y
    if kind == "multiclass":
        return np.array(["spam", "colour", "other"])[np.argmax(Y, axis=1)]
    return Y[:, 1]


@pytest.mark.parametrize("weak_learner", ["tree", "hamming_tree"])
@pytest.mark.parametrize(("scheme", "target"), [
    (scheme, target) for scheme in ("mh", "mr", "mo")
    for target in ("multilabel", "multiclass", "binary")
    if (scheme, target) != ("mo", "multilabel")])  # AdaBoost.MO is for single-label data
def test_mixed_trees_every_scheme_bound_and_save_load(rng, tmp_path, weak_learner, scheme,
                                                      target):
    frame, Y = mixed_frame(rng)
    y = _targets(Y, target)
    for confidence in ("real", "discrete"):
        clf = BoostClassifier(10, weak_learner=weak_learner, scheme=scheme, max_leaves=4,
                              confidence=confidence, feature_types=TABLE_TYPES).fit(frame, y)
        history = clf.history_
        assert np.all(history["train_loss"] <= history["bound"] * (1 + 1e-12))
        clf.save(tmp_path / "model.json")
        again = load(tmp_path / "model.json")
        np.testing.assert_array_equal(again.decision_function(frame),
                                      clf.decision_function(frame))
        np.testing.assert_array_equal(again.predict(frame), clf.predict(frame))
        assert clf.feature_importances_[3] == 0.0  # the ignored column
        assert clf.feature_importances_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("confidence", ["abstain", "real-abstain"])
def test_mixed_trees_under_abstaining_confidences_are_bounded(rng, confidence):
    """A tree has no abstaining block: the abstaining modes are its discrete and real ones."""
    frame, Y = mixed_frame(rng)
    for weak_learner in ("tree", "hamming_tree"):
        clf = BoostClassifier(10, weak_learner=weak_learner, confidence=confidence,
                              feature_types=TABLE_TYPES).fit(frame, Y)
        assert np.all(clf.history_["train_loss"] <= clf.history_["bound"] * (1 + 1e-12))
        assert np.all(clf.history_["z"] <= 1.0 + 1e-12)


def test_mixed_tree_on_a_dict_of_continuous_columns_is_the_numeric_tree(rng):
    X = rng.normal(size=(120, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    table = {name: X[:, c] for c, name in enumerate("abc")}
    for weak_learner in ("tree", "hamming_tree"):
        mixed = BoostClassifier(8, weak_learner=weak_learner, max_leaves=5).fit(table, y)
        numeric = BoostClassifier(8, weak_learner=weak_learner, max_leaves=5).fit(X, y)
        np.testing.assert_allclose(mixed.decision_function(table),
                                   numeric.decision_function(X), rtol=1e-12, atol=1e-12)


def test_mixed_tree_bad_input_gives_clear_errors(rng):
    frame, Y = mixed_frame(rng)
    every = {name: "ignore" for name in frame.columns}
    for weak_learner in ("tree", "hamming_tree", "stump"):
        with pytest.raises(ValueError, match="every column of X is ignored"):
            BoostClassifier(3, weak_learner=weak_learner, feature_types=every).fit(frame, Y)
    with pytest.raises(ValueError, match="no usable feature"):
        BoostClassifier(3, weak_learner="tree").fit(pd.DataFrame({"t": [None] * 4}),
                                                    [0, 1, 0, 1])
    clf = BoostClassifier(3, weak_learner="tree", feature_types=TABLE_TYPES).fit(frame, Y)
    with pytest.raises(ValueError, match="lacks the columns"):
        clf.predict(frame.drop(columns="colour"))


def test_malformed_tree_data_is_a_value_error():
    good = {"type": "tree", "kind": ["threshold", "value", "term"],
            "column": [0, 1, 2], "threshold": [0.5, None, None], "value": [None, "red", "free"],
            "missing_left": [True, False, False], "left": [1, -1, -3], "right": [2, -2, -4],
            "values": [[0.1], [-0.1], [0.2], [0.3]]}
    tree = HYPOTHESIS_TYPES["tree"].from_dict(good)
    assert tree.to_dict() == good
    assert tree.features() == [0, 1, 2]
    for bad, message in (({"kind": ["threshold", "numeric", "term"]}, r"kind\[1\]"),
                         ({"column": [0, -1, 2]}, r"column\[1\]: must be an integer in"),
                         ({"threshold": ["x", None, None]}, r"threshold\[0\]"),
                         ({"threshold": [0.5, 1.0, None]}, "null"),
                         ({"value": [None, 3, "free"]}, r"value\[1\]: must be a string"),
                         ({"value": ["a", "red", "free"]}, "null"),
                         ({"left": [1, -1, -1]}, "children"),
                         ({"missing_left": [1, 0, 0]}, r"missing_left\[0\]"),
                         ({"missing_left": [True, True, False]}, r"missing_left\[1\]"),
                         ({"column": [0, 1]}, "column: must have 3 entries"),
                         ({"values": [[0.1]]}, "shape"),
                         ({"values": [[0.1], [-0.1], [0.2], [1e999]]}, "finite")):
        with pytest.raises(ValueError, match=message):
            HYPOTHESIS_TYPES["tree"].from_dict({**good, **bad})
    hamming = {key: value for key, value in good.items() if key != "values"}
    hamming.update(type="hamming_tree", vote=[1.0, -1.0], leaf_values=[0.1, 0.2, 0.3, 0.4])
    assert HYPOTHESIS_TYPES["hamming_tree"].from_dict(hamming).to_dict() == hamming
    with pytest.raises(ValueError, match="vote"):
        HYPOTHESIS_TYPES["hamming_tree"].from_dict({**hamming, "vote": [0.5, 1.0]})
    with pytest.raises(ValueError, match="leaf_values"):
        HYPOTHESIS_TYPES["hamming_tree"].from_dict({**hamming, "leaf_values": [0.1]})
