"""Multiclass and multi-label through BoostClassifier: every scheme, bounds on real data."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_multilabel_classification

from confboost import BoostClassifier, load
from confboost.data.dataset import Dataset
from confboost.engine.boosting import run_boosting
from confboost.engine.confidence import default_smoothing
from confboost.engine.learners import StumpLearner
from confboost.engine.schemes.mh import MHScheme
from confboost.evaluation.metrics import hamming_loss, ranking_loss
from confboost.kernels.criterion_numpy import MODES
from tests.conftest import load_or_skip


@pytest.fixture(scope="module")
def multilabel():
    X, Y = make_multilabel_classification(300, 12, n_classes=6, n_labels=2,
                                          allow_unlabeled=True, random_state=0)
    return X, Y


@pytest.mark.parametrize("confidence", ["real", "discrete"])
def test_binary_path_equals_mh_with_two_columns(confidence):
    """Binary AdaBoost (k = 1) and AdaBoost.MH on the two columns (-y, y) agree."""
    X, y = load_breast_cancer(return_X_y=True)
    binary = BoostClassifier(30, confidence=confidence).fit(X, y)
    signs = np.where(np.column_stack([y == 0, y == 1]), 1, -1).astype(np.int8)
    weights = np.ones(len(y))
    mode = MODES[confidence]
    smoothing = default_smoothing(weights, 2)
    scheme = MHScheme(signs, weights, single_label=True)
    hypotheses, alphas, _ = run_boosting(Dataset.from_array(X, 255), scheme,
                                         StumpLearner(mode, smoothing), 30, "auto", mode,
                                         smoothing)
    assert [h.feature for h in hypotheses] == [h.feature for h in binary.model_.hypotheses]
    two_column = np.argmax(scheme.scores, axis=1)
    np.testing.assert_array_equal(binary.classes_[two_column], binary.predict(X))
    np.testing.assert_allclose(scheme.scores[:, 0], -scheme.scores[:, 1], atol=1e-9)
    if confidence == "real":
        # f(x, 1) = the binary f; discrete α differ slightly, as α's ε = 1/(2mk) is
        # added once to the agreeing mass of both columns, not once per column
        np.testing.assert_allclose(scheme.scores[:, 1], binary.decision_function(X),
                                   atol=1e-9)


@pytest.mark.parametrize("scheme", ["mh", "mr"])
def test_multilabel_outputs(multilabel, scheme):
    X, Y = multilabel
    clf = BoostClassifier(25, scheme=scheme).fit(X, Y)
    decision = clf.decision_function(X)
    assert decision.shape == Y.shape
    predicted = clf.predict(X)
    threshold = clf.threshold_ if scheme == "mr" else 0.0
    np.testing.assert_array_equal(predicted, (decision > threshold).astype(int))
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(proba > 0.5, predicted == 1)
    staged = list(clf.staged_predict(X))
    assert len(staged) == clf.n_estimators_
    np.testing.assert_array_equal(staged[-1], predicted)
    history = clf.history_
    assert np.all(history["train_loss"] <= history["bound"] + 1e-12)
    if scheme == "mh":
        assert history["train_loss"][-1] == pytest.approx(hamming_loss(Y, predicted))
    else:
        has_pair = (Y.sum(axis=1) > 0) & (Y.sum(axis=1) < Y.shape[1])
        assert history["train_loss"][-1] == pytest.approx(
            ranking_loss(Y[has_pair], decision[has_pair]))
        assert clf.thresholds_.shape == (clf.n_estimators_,)


def test_mr_single_label_is_m2_style_ranking():
    X, y = load_breast_cancer(return_X_y=True)
    y3 = np.where(X[:, 0] > 15, 2, y)  # three classes
    clf = BoostClassifier(30, scheme="mr", confidence="discrete").fit(X, y3)
    assert not hasattr(clf, "threshold_")
    decision = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(decision, axis=1)])
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), np.argmax(decision, axis=1))
    assert np.all(clf.history_["train_loss"] <= clf.history_["bound"])


@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
def test_save_load_every_scheme(tmp_path, multilabel, scheme):
    X, Y = multilabel
    y = Y.argmax(axis=1).astype(str)
    targets = [y] if scheme == "mo" else [y, Y]
    for target in targets:
        clf = BoostClassifier(10, scheme=scheme, random_state=0).fit(X, target)
        clf.save(tmp_path / "model.json")
        again = load(tmp_path / "model.json")
        np.testing.assert_array_equal(again.predict(X), clf.predict(X))
        np.testing.assert_allclose(again.predict_proba(X), clf.predict_proba(X))
        for a, b in zip(again.staged_predict(X), clf.staged_predict(X), strict=True):
            np.testing.assert_array_equal(a, b)


def test_indicator_with_other_values_is_refused(multilabel):
    X, Y = multilabel
    bad = Y.copy()
    bad[0, 0] = 2
    for scheme in ("mh", "mr"):
        with pytest.raises(ValueError, match="only 0 and 1"):
            BoostClassifier(3, scheme=scheme).fit(X, bad)
    with pytest.raises(ValueError, match="only 0 and 1"):
        BoostClassifier(3).fit(X, 2 * Y - 1)


def test_mr_without_any_crucial_pair_is_refused(multilabel):
    X, _ = multilabel
    Y = np.zeros((len(X), 4), dtype=int)
    Y[::2] = 1  # every label set empty or full
    with pytest.raises(ValueError, match="no crucial pair"):
        BoostClassifier(3, scheme="mr").fit(X, Y)
    BoostClassifier(3, scheme="mh").fit(X, Y)  # Hamming loss is defined: MH fits


def test_constant_label_columns(multilabel):
    """A label column all 0 or all 1 is legal: MR ranks it below or above every other."""
    X, Y = multilabel
    Y = np.column_stack([Y, np.zeros(len(Y), int), np.ones(len(Y), int)])
    for scheme in ("mh", "mr"):
        clf = BoostClassifier(20, scheme=scheme).fit(X, Y)
        decision = clf.decision_function(X)
        assert np.all(decision[:, -1] > decision[:, -2])
        assert np.all(clf.history_["train_loss"] <= clf.history_["bound"] + 1e-12)


# ---------------------------------------------------------------- real data, every round


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yeast-ml", "scene", "emotions"])
def test_bounds_hold_on_multilabel_benchmarks(name):
    split = load_or_skip(name)
    for scheme, confidence in [("mh", "real"), ("mh", "discrete"), ("mr", "real"),
                               ("mr", "discrete")]:
        history = BoostClassifier(20, scheme=scheme, confidence=confidence).fit(
            split.X_train, split.y_train).history_
        assert np.all(history["train_loss"] <= history["bound"] + 1e-12), (scheme, confidence)
        assert history["train_loss"][-1] < history["train_loss"][0]


@pytest.mark.slow
def test_bounds_hold_on_a_uci_multiclass_set():
    split = load_or_skip("segment")
    for params in [{"scheme": "mh"}, {"scheme": "mh", "init": "balanced"},
                   {"scheme": "mh", "confidence": "discrete"},
                   {"scheme": "mr", "confidence": "discrete"}, {"scheme": "mr"},
                   {"scheme": "mo", "decoding": "loss"},
                   {"scheme": "mo", "decoding": "hamming", "code": "exhaustive"}]:
        clf = BoostClassifier(20, random_state=0, **params).fit(split.X_train, split.y_train)
        history = clf.history_
        assert np.all(history["train_loss"] <= history["bound"] + 1e-12), params
        assert clf.score(split.X_test, split.y_test) > 0.8, params
