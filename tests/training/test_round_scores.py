"""Each round's scores (training/round_scores.py) and the attributes they give:
``n_iter_``, ``train_score_``, ``validation_score_`` (HistGradientBoosting's),
``evals_result_``, ``best_score_`` (LightGBM's), and ``eval_set`` as named pairs."""

import copy

import numpy as np
import pytest
from sklearn.metrics import check_scoring

from confboost import BoostClassifier
from confboost.engine.model import BoostedModel


def _noisy(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.digitize(X[:, 0] + rng.normal(scale=1.0, size=n), [-0.5, 0.5])
    return X, y


X, Y = _noisy()
XV, YV = _noisy(seed=1)
XW, YW = _noisy(n=100, seed=2)


def test_without_held_out_data_the_scores_are_empty():
    clf = BoostClassifier(7, calibration=None).fit(X, Y)
    assert clf.n_iter_ == 7 == len(clf.history_["z"])
    assert clf.train_score_.shape == clf.validation_score_.shape == (0,)
    assert clf.evals_result_ == {} and clf.best_score_ == {}
    assert clf.best_iteration_ is None


def test_scores_have_histgradientboostings_layout():
    clf = BoostClassifier(40, n_iter_no_change=5, random_state=0).fit(
        X, Y, eval_set=[(XV, YV)])
    n = clf.n_iter_
    assert n == len(clf.history_["z"]) >= clf.n_estimators_ == clf.best_iteration_
    assert clf.train_score_.shape == clf.validation_score_.shape == (n + 1,)
    # first entry: f = 0; then minus the held-out error after each round
    np.testing.assert_array_equal(clf.validation_score_[1:], clf.history_["validation_score"])
    np.testing.assert_array_equal(clf.validation_score_[1:],
                                  -np.asarray(clf.evals_result_["valid_0"]["loss"]))
    # the model keeps the best rounds: the rounds run are the long run's first
    full = BoostClassifier(40, early_stopping=False).fit(X, Y, eval_set=[(XV, YV)])
    np.testing.assert_allclose(clf.validation_score_[1:],
                               [np.mean(p == YV) - 1 for p in full.staged_predict(XV)][:n])
    # the training score is on the training rows (all 300 here)
    np.testing.assert_allclose(clf.train_score_[1:],
                               [np.mean(p == Y) - 1 for p in full.staged_predict(X)][:n])
    # f = 0 ranks no class first: every example is an error
    np.testing.assert_allclose([clf.train_score_[0], clf.validation_score_[0]], [-1, -1])
    best, results = clf.best_iteration_, clf.evals_result_
    assert clf.best_score_ == {name: {"loss": results[name]["loss"][best - 1]}
                               for name in ("valid_0", "training")}


def test_several_named_pairs_are_scored_and_the_first_stops():
    clf = BoostClassifier(60, n_iter_no_change=4, random_state=0).fit(
        X, Y, eval_set=[(XV, YV), (XW, YW)], eval_names=["dev", "test"])
    first = BoostClassifier(60, n_iter_no_change=4, random_state=0).fit(
        X, Y, eval_set=[(XV, YV)])
    # the second pair is recorded only: the same rounds, the same model as with the first
    assert clf.n_iter_ == first.n_iter_ and clf.best_iteration_ == first.best_iteration_
    np.testing.assert_array_equal(clf.predict_proba(XV), first.predict_proba(XV))
    assert set(clf.evals_result_) == {"dev", "test", "training"}
    assert len(clf.evals_result_["test"]["loss"]) == clf.n_iter_
    full = BoostClassifier(60, early_stopping=False).fit(X, Y, eval_set=[(XV, YV)])
    np.testing.assert_allclose(clf.evals_result_["test"]["loss"],
                               [np.mean(p != YW) for p in full.staged_predict(XW)][:clf.n_iter_])


def test_one_pair_alone_is_one_eval_set():
    a = BoostClassifier(10, random_state=0).fit(X, Y, eval_set=(XV, YV))
    b = BoostClassifier(10, random_state=0).fit(X, Y, eval_set=[(XV, YV)])
    np.testing.assert_array_equal(a.validation_score_, b.validation_score_)
    assert a.best_iteration_ == b.best_iteration_


def test_early_stopping_on_a_held_out_split_is_named_validation():
    clf = BoostClassifier(30, early_stopping=True, random_state=0).fit(X, Y)
    assert set(clf.evals_result_) == {"validation", "training"}
    assert clf.validation_score_.shape == (clf.n_iter_ + 1,)


# -- scorer-based early stopping: incremental, against the O(T^2) path it replaced ---------

def _old_quadratic_scores(clf, scoring, X_val, y_val, n_rounds):
    """The old path, kept as the oracle: every round, a copy of the estimator with the
    model cut at that round, scored from its first round again."""
    scorer = check_scoring(clf, scoring=scoring)
    model = clf.model_
    values = []
    for rounds in range(1, n_rounds + 1):
        view = copy.copy(clf)
        view.model_ = BoostedModel(model.hypotheses[:rounds], model.alphas[:rounds],
                                   model.n_labels)
        view.n_estimators_ = rounds
        if hasattr(clf, "thresholds_"):  # MR on multi-label data: the cut of that round
            view.thresholds_ = clf.thresholds_[:rounds]
            view.threshold_ = float(view.thresholds_[-1])
        values.append(scorer(view, X_val, y_val))
    return np.asarray(values)


def _should_stop(values, n, tol):
    if len(values) <= n:
        return False
    reference = values[-n - 1] + tol
    return not any(value > reference for value in values[-n:])


LABELS = (X[:, :3] + np.random.default_rng(4).normal(size=(300, 3)) > 0).astype(int)
LABELS_V = (XV[:, :3] + np.random.default_rng(5).normal(size=(300, 3)) > 0).astype(int)


@pytest.mark.parametrize(("scoring", "scheme", "multilabel"), [
    *[(scoring, scheme, False) for scoring in ("accuracy", "neg_log_loss", "roc_auc_ovr")
      for scheme in ("mh", "mo")],
    ("f1_samples", "mr", True), ("accuracy", "mh", True)])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")  # f1 of f = 0
def test_scorer_early_stopping_matches_the_quadratic_path(scoring, scheme, multilabel):
    params = {"scheme": scheme, "calibration": None, "random_state": 0, "code_length": 6}
    y, yv = (LABELS, LABELS_V) if multilabel else (Y, YV)
    full = BoostClassifier(40, early_stopping=False, scoring=scoring, **params).fit(
        X, y, eval_set=[(XV, yv)])
    oracle = _old_quadratic_scores(full, scoring, XV, yv, 40)
    np.testing.assert_allclose(full.history_["validation_score"], oracle, rtol=1e-10,
                               atol=1e-12)
    # with the stopping rule on: the round it stops at and the round it keeps are the
    # oracle's
    n, tol = 3, 1e-7
    stop = next((r for r in range(1, 41) if _should_stop(oracle[:r], n, tol)), 40)
    stopped = BoostClassifier(40, n_iter_no_change=n, tol=tol, scoring=scoring,
                              **params).fit(X, y, eval_set=[(XV, yv)])
    assert stopped.n_iter_ == stop
    assert stopped.best_iteration_ == int(np.argmax(oracle[:stop])) + 1
