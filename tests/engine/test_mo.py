"""AdaBoost.MO: codes by name, both decoders, Eq. 21, Theorem 5, bad codes."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine

from confboost import BoostClassifier, load
from confboost.engine.schemes.codes import hamming_decode_scores, loss_decode_scores, min_distance
from confboost.engine.schemes.mo import build_code, class_scores


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


@pytest.mark.parametrize("confidence", ["real", "discrete"])
def test_one_per_class_code_with_loss_decoding_is_mh_argmax(wine, confidence):
    """Eq. 21: with λ(y) = {y}, Variant 2 predicts AdaBoost.MH's argmax."""
    X, y = wine
    mh = BoostClassifier(40, scheme="mh", confidence=confidence, init="uniform").fit(X, y)
    mo = BoostClassifier(40, scheme="mo", confidence=confidence, code="one-vs-rest",
                         decoding="loss").fit(X, y)
    np.testing.assert_array_equal(mo.predict(X), mh.predict(X))
    for staged_mo, staged_mh in zip(mo.staged_predict(X), mh.staged_predict(X), strict=True):
        np.testing.assert_array_equal(staged_mo, staged_mh)
    # the boosting itself is the same: MH on the same label signs
    np.testing.assert_allclose(mo.history_["z"], mh.history_["z"])


@pytest.mark.parametrize("code", ["random", "exhaustive", "one-vs-rest"])
@pytest.mark.parametrize("decoding", ["loss", "hamming"])
def test_theorem_5_bound_every_round(wine, code, decoding):
    X, y = wine
    clf = BoostClassifier(40, scheme="mo", code=code, decoding=decoding,
                          random_state=0).fit(X, y)
    history = clf.history_
    assert np.all(history["train_loss"] <= history["bound"])
    k_bits = clf.code_.shape[1]
    factor = 1 if decoding == "loss" else 2
    np.testing.assert_allclose(history["bound"],
                               factor * k_bits / clf.code_distance_ * np.cumprod(history["z"]))
    assert clf.code_distance_ == min_distance(clf.code_)
    # the training loss is the training error of the decoded class (ties count as errors)
    assert history["train_loss"][-1] >= np.mean(clf.predict(X) != y)


def test_decoders_match_the_codes_module(rng):
    code = build_code("random", 5, 12, random_state=3)
    scores = rng.normal(size=(40, 12))
    scores[0, :4] = 0.0
    np.testing.assert_array_equal(np.argmax(class_scores(code, scores, "hamming"), axis=1),
                                  np.argmax(hamming_decode_scores(code, scores), axis=1))
    np.testing.assert_array_equal(np.argmax(class_scores(code, scores, "loss"), axis=1),
                                  np.argmax(loss_decode_scores(code, scores), axis=1))


def test_decision_function_and_proba_follow_the_decoder(wine):
    X, y = wine
    for decoding in ("loss", "hamming"):
        clf = BoostClassifier(20, scheme="mo", decoding=decoding, random_state=1).fit(X, y)
        decision = clf.decision_function(X)
        assert decision.shape == (len(y), 3)
        np.testing.assert_array_equal(clf.classes_[np.argmax(decision, axis=1)], clf.predict(X))
        proba = clf.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_array_equal(np.argmax(proba, axis=1), np.argmax(decision, axis=1))


def test_random_code_is_seeded_and_has_the_asked_length(wine):
    X, y = wine
    first = BoostClassifier(5, scheme="mo", code_length=9, random_state=7).fit(X, y)
    second = BoostClassifier(5, scheme="mo", code_length=9, random_state=7).fit(X, y)
    assert first.code_.shape == (3, 9)
    np.testing.assert_array_equal(first.code_, second.code_)
    default = BoostClassifier(5, scheme="mo", random_state=7).fit(X, y)
    assert default.code_.shape == (3, 16)  # ⌈10 log2 3⌉


def test_user_code_and_save_load(tmp_path, wine):
    X, y = wine
    code = np.array([[1, 1, -1, -1], [-1, 1, 1, -1], [1, -1, 1, 1]])
    clf = BoostClassifier(15, scheme="mo", code=code, decoding="hamming").fit(X, y)
    np.testing.assert_array_equal(clf.code_, code)
    assert clf.code_distance_ == 2
    path = tmp_path / "mo.json"
    clf.save(path)
    again = load(path)
    np.testing.assert_array_equal(again.code_, code)
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    np.testing.assert_allclose(again.decision_function(X), clf.decision_function(X))


def test_binary_data_takes_the_binary_path(wine):
    X, y = wine
    binary = y == 0
    mo = BoostClassifier(10, scheme="mo").fit(X, binary)
    mh = BoostClassifier(10, scheme="mh").fit(X, binary)
    np.testing.assert_array_equal(mo.code_, [[-1], [1]])
    np.testing.assert_allclose(mo.decision_function(X), mh.decision_function(X))


@pytest.mark.parametrize("params, message", [
    ({"code": [[1, -1, 1], [1, -1, 1], [-1, 1, 1]]}, "rows 0 and 1 of the code are equal"),
    ({"code": [[1, -1], [-1, 1]]}, "2 rows but there are 3 classes"),
    ({"code": "one-vs-rest", "code_length": 5}, "code_length sets the bits"),
    ({"code": "bch"}, "'code' parameter of BoostClassifier must be a str among"),
    ({"decoding": "viterbi"}, "'decoding' parameter of BoostClassifier must be a str"),
])
def test_bad_codes_are_refused(wine, params, message):
    X, y = wine
    with pytest.raises(ValueError, match=message):
        BoostClassifier(3, scheme="mo", **params).fit(X, y)


def test_multilabel_y_is_refused():
    X, _ = load_iris(return_X_y=True)
    Y = (np.random.default_rng(0).random((150, 3)) < 0.5).astype(int)
    with pytest.raises(ValueError, match="single-label"):
        BoostClassifier(3, scheme="mo").fit(X, Y)
