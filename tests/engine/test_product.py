"""Products of stumps: kernels against naive twins, each term optimal given the others, the
one-term product as the two-block stump, the bounds under every scheme, and save/load."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from confboost import BoostClassifier
from confboost.data.dataset import Dataset, LabelSigns
from confboost.engine.learners import HYPOTHESIS_TYPES
from confboost.engine.learners.product import ProductLearner
from confboost.estimators import load
from confboost.kernels.criterion_numpy import DISCRETE, REAL
from confboost.kernels.histogram import N_HIST_BINS
from confboost.kernels.product_split import (
    best_product_terms,
    best_product_terms_naive,
    build_histogram_grouped,
    build_histogram_grouped_naive,
    term_signs,
)
from tests.conftest import random_problem


def _problem(rng, k, n_samples=160, n_features=3):
    X, signs, weights = random_problem(rng, n_samples=n_samples, n_features=n_features, k=k,
                                       missing=0.1, distinct=3)
    return Dataset.from_array(X, 255), LabelSigns.from_signs(signs), weights, X


@pytest.mark.parametrize("k", [1, 3])
def test_grouped_histogram_equals_naive(rng, k):
    dataset, labels, weights, _ = _problem(rng, k)
    group = (rng.random(160) < 0.4).astype(np.uint8)
    hist = np.empty((3, N_HIST_BINS, 2, k, 2))
    build_histogram_grouped(dataset.codes, weights, labels.sign_index, group, hist)
    expected = build_histogram_grouped_naive(dataset.codes, weights, labels.sign_index, group)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("k", [1, 3])
def test_best_term_equals_brute_force(rng, mode, k):
    """Each feature's best term given π: Z as a brute force over thresholds and NaN sides."""
    dataset, labels, weights, _ = _problem(rng, k)
    others = np.where(rng.random(160) < 0.5, 1, -1).astype(np.int8)
    hist = np.empty((3, N_HIST_BINS, 2, k, 2))
    build_histogram_grouped(dataset.codes, weights, labels.sign_index,
                            (others < 0).astype(np.uint8), hist)
    best_z = np.empty(3)
    best_bin = np.empty(3, dtype=np.intp)
    best_missing_left = np.empty(3, dtype=bool)
    best_product_terms(hist, dataset.n_bins, mode, float(weights.sum()), best_z, best_bin,
                       best_missing_left)
    expected = best_product_terms_naive(dataset.codes, weights, labels.signs, others,
                                        dataset.n_bins, mode)
    np.testing.assert_allclose(best_z, expected, rtol=1e-9)
    for feature in range(3):  # the reported term reaches that Z
        product = term_signs(dataset.codes[feature], best_bin[feature],
                             best_missing_left[feature]) * others
        pos = [np.where((labels.signs > 0) & (product == s)[:, None], weights, 0).sum(0)
               for s in (1, -1)]
        neg = [np.where((labels.signs < 0) & (product == s)[:, None], weights, 0).sum(0)
               for s in (1, -1)]
        if mode == REAL:
            z = 2 * sum(np.sqrt(p * n).sum() for p, n in zip(pos, neg, strict=True))
        else:
            r = sum(np.abs(p - n).sum() for p, n in zip(pos, neg, strict=True))
            z = np.sqrt(weights.sum() ** 2 - r ** 2)
        assert z == pytest.approx(expected[feature], rel=1e-9)


@pytest.mark.parametrize("mode", [REAL, DISCRETE])
def test_each_term_is_optimal_given_the_others(rng, mode):
    """After the coordinate descent no single term can be changed to lower Z."""
    dataset, labels, weights, X = _problem(rng, 2, n_samples=200, n_features=4)
    fit = ProductLearner(mode, 1e-4, n_terms=3).fit(dataset, weights, labels)
    hypothesis = fit.hypothesis
    term_values = [np.where(np.where(np.isnan(X[:, f]), m, X[:, f] <= t), 1, -1)
                   for f, t, m in zip(hypothesis.feature, hypothesis.threshold,
                                      hypothesis.missing_left, strict=True)]
    product = np.prod(term_values, axis=0)
    np.testing.assert_array_equal(fit.train_blocks, (product < 0).astype(np.uint8))
    for position in range(3):
        others = np.prod(term_values[:position] + term_values[position + 1:], axis=0)
        best = best_product_terms_naive(dataset.codes, weights, labels.signs, others,
                                        dataset.n_bins, mode).min()
        assert best >= fit.criterion - 1e-9 * fit.criterion


def test_one_term_is_the_two_block_stump(rng):
    """m = 1: the least Z over every threshold and NaN side, by brute force."""
    dataset, labels, weights, _ = _problem(rng, 3)
    fit = ProductLearner(REAL, 1e-4, n_terms=1).fit(dataset, weights, labels)
    expected = best_product_terms_naive(dataset.codes, weights, labels.signs,
                                        np.ones(160, dtype=np.int8), dataset.n_bins,
                                        REAL).min()
    assert fit.criterion == pytest.approx(expected, rel=1e-9)
    assert fit.weight_pos.shape == (2, 3)


def test_more_terms_never_raise_the_first_round_z():
    X, y = load_breast_cancer(return_X_y=True)
    z = [BoostClassifier(1, weak_learner="product", product_terms=m).fit(X, y).history_["z"][0]
         for m in (1, 2, 3)]
    assert z[1] <= z[0] + 1e-12 and z[2] <= z[1] + 1e-12


@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
@pytest.mark.parametrize("confidence", ["real", "discrete", "abstain"])
def test_training_loss_bound_holds_every_round(scheme, confidence):
    X, y = load_iris(return_X_y=True)
    clf = BoostClassifier(15, scheme=scheme, weak_learner="product", product_terms=2,
                          confidence=confidence, learning_rate=0.7).fit(X, y)
    history = clf.history_
    assert np.all(history["train_loss"] <= history["bound"] + 1e-12)


def test_binary_and_multilabel_fit_and_save_load_predicts_the_same(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[::9, 3] = np.nan
    binary = BoostClassifier(30, weak_learner="product").fit(X, y)
    assert np.mean(binary.predict(X) != y) < 0.05
    Y = np.stack([y, X[:, 0] > 14], axis=1).astype(int)
    for clf, target in ((binary, y), (BoostClassifier(10, weak_learner="product",
                                                      product_terms=2).fit(X, Y), Y)):
        assert np.all(clf.history_["train_loss"] <= clf.history_["bound"] + 1e-12)
        path = tmp_path / "model.json"
        clf.save(path)
        loaded = load(path)
        np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
        np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
        assert loaded.get_params() == clf.get_params()
        assert clf.predict(X).shape == target.shape


def test_malformed_product_data_is_a_value_error():
    good = {"type": "product", "feature": [0, 1], "threshold": [0.5, "inf"],
            "missing_left": [True, False], "values": [[0.1], [-0.1]]}
    hypothesis = HYPOTHESIS_TYPES["product"].from_dict(good)
    X = np.array([[0.0, 1.0], [1.0, 1.0], [np.nan, np.nan]])
    # φ: (+1, +1) -> block 0; (-1, +1) -> block 1; (NaN left +1, NaN right -1) -> block 1
    np.testing.assert_array_equal(hypothesis.blocks(X), [0, 1, 1])
    for bad in ({**good, "threshold": ["x", 1.0]}, {**good, "feature": [0]},
                {**good, "feature": [-1, 0]}, {**good, "missing_left": [1, 0]},
                {**good, "values": [[0.1]]}, {**good, "feature": [], "threshold": [],
                                              "missing_left": []}):
        with pytest.raises(ValueError):
            HYPOTHESIS_TYPES["product"].from_dict(bad)


@pytest.mark.parametrize("value", [0, 17, 2.5, True, "3"])
def test_bad_product_terms_is_a_value_error(value):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="product_terms"):
        BoostClassifier(3, weak_learner="product", product_terms=value).fit(X, y)


def test_product_on_a_table_with_text_is_a_clear_error():
    X = {"words": ["a b", "b c", "c a", "a a"], "x": [0.0, 1.0, 2.0, 3.0]}
    with pytest.raises(ValueError, match="product.*numeric"):
        BoostClassifier(3, weak_learner="product", feature_types={"words": "text"}).fit(
            X, [0, 1, 0, 1])
