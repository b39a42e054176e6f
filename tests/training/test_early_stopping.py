"""Early stopping (HistGradientBoosting's parameters, LightGBM's eval_set), best_iteration_."""

import numpy as np
import pytest
from sklearn.metrics import accuracy_score

from confboost import BoostClassifier
from confboost.engine.boosting import best_round
from confboost.training.round_scores import ScoreRecord


def _noisy(n=400, seed=0, classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.digitize(X[:, 0] + rng.normal(scale=1.0, size=n), np.linspace(-1, 1, classes - 1))
    return X, y


def test_the_stopping_rule_is_histgradientboostings():
    record = ScoreRecord.__new__(ScoreRecord)  # the rule alone, without a set to score
    record.n_iter_no_change, record.tol = 3, 0.1
    for values, stop in [([1.0, 1.0, 1.0], False), ([1.0, 1.05, 1.1, 1.09], True),
                         ([1.0, 1.05, 1.1, 1.2], False), ([1.0, 1.05, 1.1, 1.11], False)]:
        record.values = values
        assert record.should_stop() is stop, values
    assert best_round([0.1, 0.3, 0.3, 0.2]) == 2
    assert best_round([0.1, 0.3, 0.05], greater_is_better=False) == 3


def test_eval_set_scores_every_round_and_keeps_the_best():
    X, y = _noisy()
    Xv, yv = _noisy(seed=1)
    full = BoostClassifier(60, early_stopping=False).fit(X, y, eval_set=[(Xv, yv)])
    scores = full.history_["validation_score"]
    assert scores.shape == (60,) and full.n_estimators_ == 60
    # the default score is minus the held-out error of the argmax rule (MH's own loss)
    staged = [accuracy_score(yv, p) - 1 for p in full.staged_predict(Xv)]
    np.testing.assert_allclose(scores, staged)
    assert full.best_iteration_ == int(np.argmax(scores)) + 1

    stopped = BoostClassifier(60, n_iter_no_change=5).fit(X, y, eval_set=[(Xv, yv)])
    rounds_run = stopped.history_["z"].shape[0]
    np.testing.assert_array_equal(stopped.history_["validation_score"],
                                  scores[:rounds_run])
    best = stopped.best_iteration_
    assert stopped.n_estimators_ == len(stopped.model_) == best <= rounds_run
    if rounds_run < 60:  # stopped by the rule, exactly when it first held
        assert not any(scores[rounds_run - 5:rounds_run] > scores[rounds_run - 6] + 1e-7)
    # the kept model is the long run's first best rounds
    np.testing.assert_array_equal(stopped.decision_function(Xv),
                                  list(full.staged_decision_function(Xv))[best - 1])


def test_validation_fraction_holds_out_and_stops():
    X, y = _noisy(n=600)
    clf = BoostClassifier(300, early_stopping=True, validation_fraction=0.2, n_iter_no_change=5,
                          random_state=0).fit(X, y)
    rounds_run = clf.history_["validation_score"].shape[0]
    assert rounds_run < 300  # noisy labels: the held-out error stops improving
    assert clf.best_iteration_ == int(np.argmax(clf.history_["validation_score"])) + 1
    assert len(clf.model_) == clf.best_iteration_


def test_a_scorer_and_the_exponential_loss():
    X, y = _noisy()
    Xv, yv = _noisy(seed=2)
    clf = BoostClassifier(15, early_stopping=False, scoring="accuracy",
                          calibration=None).fit(X, y, eval_set=[(Xv, yv)])
    staged = [accuracy_score(yv, p) for p in clf.staged_predict(Xv)]
    np.testing.assert_allclose(clf.history_["validation_score"], staged)

    clf = BoostClassifier(15, early_stopping=False, scoring="exponential").fit(
        X, y, eval_set=[(Xv, yv)])
    signs = np.where(yv[:, None] == clf.classes_, 1.0, -1.0)
    brute = [-np.mean(np.exp(-signs * f).mean(axis=1)) for f in clf.staged_decision_function(Xv)]
    np.testing.assert_allclose(clf.history_["validation_score"], brute)


def test_mr_exponential_loss_is_the_pair_sum():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4))
    Y = (X[:, :3] + rng.normal(size=(200, 3)) > 0).astype(int)
    clf = BoostClassifier(5, scheme="mr", early_stopping=False, scoring="exponential").fit(
        X[:150], Y[:150], eval_set=[(X[150:], Y[150:])])
    f = clf.decision_function(X[150:])
    total, weights = 0.0, []
    for row, labels in zip(f, Y[150:], strict=True):
        pairs = [(a, b) for a in np.flatnonzero(labels == 0) for b in np.flatnonzero(labels)]
        if pairs:
            weights.append(1)
            total += np.mean([np.exp(0.5 * (row[a] - row[b])) for a, b in pairs])
    assert clf.history_["validation_score"][-1] == pytest.approx(-total / len(weights))


def test_bad_held_out_data_is_refused_clearly():
    X, y = _noisy(n=40)
    with pytest.raises(ValueError, match="early_stopping=True holds out"):
        BoostClassifier(early_stopping=True).fit(X, y)
    with pytest.raises(ValueError, match=r"eval_set's y holds classes the training y lacks: \[7\]"):
        BoostClassifier().fit(X, y, eval_set=[(X, np.full(40, 7))])
    with pytest.raises(ValueError, match=r"list of \(X_val, y_val\) pairs"):
        BoostClassifier().fit(X, y, eval_set=[(X, y, y)])
    with pytest.raises(ValueError, match="eval_names must name each of the 2"):
        BoostClassifier().fit(X, y, eval_set=[(X, y), (X, y)], eval_names=["a"])
    with pytest.raises(ValueError, match="eval_names must name each of the 2"):
        BoostClassifier().fit(X, y, eval_set=[(X, y), (X, y)], eval_names=["a", "a"])
    with pytest.raises(ValueError, match="'early_stopping' parameter"):
        BoostClassifier(early_stopping="yes").fit(X, y)


def test_a_stopped_model_survives_save_and_load(tmp_path):
    from confboost import load

    X, y = _noisy()
    Xv, yv = _noisy(seed=1)
    clf = BoostClassifier(60, n_iter_no_change=3, random_state=0).fit(
        X, y, eval_set=[(Xv, yv)])
    assert len(clf.history_["z"]) > clf.n_estimators_  # rounds cut off are kept
    clf.save(tmp_path / "m.json")
    again = load(tmp_path / "m.json")
    assert again.best_iteration_ == clf.best_iteration_ == len(again.model_)
    np.testing.assert_array_equal(again.history_["validation_score"],
                                  clf.history_["validation_score"])
    np.testing.assert_array_equal(again.predict_proba(Xv), clf.predict_proba(Xv))
