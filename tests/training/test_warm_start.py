"""warm_start: a second fit with a larger n_estimators continues the run, bit for bit."""

import pickle

import numpy as np
import pytest

from confboost import BoostClassifier

LEARNERS = ("stump", "tree", "hamming_tree", "product")


def _data(task, n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    if task == "binary":
        return X, (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    if task == "multilabel":
        return X, (X[:, :3] + 0.5 * rng.normal(size=(n, 3)) > 0).astype(int)
    return X, np.digitize(X[:, 0] + X[:, 1], [-0.7, 0.7])


CASES = [("binary", "mh"), ("multiclass", "mh"), ("multilabel", "mr"), ("multiclass", "mo")]


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("task,scheme", CASES)
def test_two_fits_equal_one_long_fit(task, scheme, learner):
    X, y = _data(task)
    params = {"scheme": scheme, "weak_learner": learner, "random_state": 0,
              "max_leaves": 4, "code_length": 5}
    long = BoostClassifier(n_estimators=8, **params).fit(X, y)
    warm = BoostClassifier(n_estimators=3, warm_start=True, **params).fit(X, y)
    assert len(warm.model_) == 3
    warm.set_params(n_estimators=8).fit(X, y)
    assert len(warm.model_) == len(long.model_) == 8
    assert np.array_equal(warm.model_.alphas, long.model_.alphas)
    assert warm.model_.to_dict() == long.model_.to_dict()
    for key, values in long.history_.items():
        assert np.array_equal(warm.history_[key], values), key
    assert np.array_equal(warm.decision_function(X), long.decision_function(X))
    assert np.array_equal(warm.predict_proba(X), long.predict_proba(X))


def test_warm_start_with_early_stopping_continues_the_record():
    X, y = _data("multiclass", n=300)
    params = {"early_stopping": True, "n_iter_no_change": 50, "random_state": 0}
    long = BoostClassifier(n_estimators=20, **params).fit(X, y)
    warm = BoostClassifier(n_estimators=10, warm_start=True, **params).fit(X, y)
    warm.set_params(n_estimators=20).fit(X, y)
    assert np.array_equal(warm.history_["validation_score"], long.history_["validation_score"])
    assert warm.best_iteration_ == long.best_iteration_
    assert np.array_equal(warm.predict_proba(X), long.predict_proba(X))


def test_warm_start_refuses_other_data_and_fewer_rounds():
    X, y = _data("binary")
    clf = BoostClassifier(n_estimators=4, warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="120 examples; X has 60 rows"):
        clf.set_params(n_estimators=6).fit(X[:60], y[:60])
    with pytest.raises(ValueError, match="n_estimators=2 must be at least the 4 rounds"):
        clf.set_params(n_estimators=2).fit(X, y)


def test_without_warm_start_a_second_fit_starts_afresh():
    X, y = _data("binary")
    clf = BoostClassifier(n_estimators=4).fit(X, y)
    clf.set_params(n_estimators=6).fit(X, y)
    fresh = BoostClassifier(n_estimators=6).fit(X, y)
    assert np.array_equal(clf.decision_function(X), fresh.decision_function(X))


def test_a_pickled_warm_model_predicts_the_same_and_restarts():
    X, y = _data("binary")
    clf = BoostClassifier(n_estimators=4, warm_start=True).fit(X, y)
    copy = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(copy.predict_proba(X), clf.predict_proba(X))
    assert copy.set_params(n_estimators=5).fit(X, y).n_estimators_ == 5


def test_warm_start_refuses_other_data_of_the_same_shape():
    X, y = _data("binary")
    clf = BoostClassifier(n_estimators=4, warm_start=True).fit(X, y)
    before = dict(clf.__dict__)
    clf.set_params(n_estimators=6)
    for other_X, other_y, weight in [(X + 1.0, y, None), (X, 1 - y, None),
                                     (X, y, np.linspace(1, 2, len(y)))]:
        with pytest.raises(ValueError, match="X, y or sample_weight differ from its data"):
            clf.fit(other_X, other_y, sample_weight=weight)
    assert {k: v for k, v in clf.__dict__.items() if k != "n_estimators"} == {
        k: v for k, v in before.items() if k != "n_estimators"}  # nothing changed
    assert clf.fit(X, y).n_estimators_ == 6  # the same data continues


def test_warm_start_refuses_fewer_columns_and_another_kind_of_x():
    from scipy.sparse import csr_matrix

    X, y = _data("binary")
    clf = BoostClassifier(n_estimators=4, warm_start=True).fit(X, y)
    clf.set_params(n_estimators=6)
    with pytest.raises(ValueError, match="on 4 columns; X has 3"):
        clf.fit(X[:, :3], y)
    with pytest.raises(ValueError, match="on a array X; X is a sparse"):
        clf.fit(csr_matrix(X), y)


@pytest.mark.parametrize(("change", "named"), [
    ({"scheme": "mh"}, "scheme='mo' -> 'mh'"),
    ({"learning_rate": 0.5}, "learning_rate='auto' -> 0.5"),
    ({"code_length": 7}, "code_length=5 -> 7"),
])
def test_warm_start_refuses_changed_parameters(change, named):
    X, y = _data("multiclass")
    clf = BoostClassifier(n_estimators=4, scheme="mo", code_length=5, warm_start=True,
                          random_state=0).fit(X, y)
    expected = clf.predict(X)
    clf.set_params(n_estimators=6, **change)
    with pytest.raises(ValueError, match=rf"parameters changed: {named}"):
        clf.fit(X, y)
    np.testing.assert_array_equal(clf.predict(X), expected)  # still the first model
    # n_jobs and verbose may change: they do not change the run
    clf.set_params(n_estimators=6, n_jobs=1, verbose=0, scheme="mo", code_length=5,
                   learning_rate="auto")
    assert clf.fit(X, y).n_estimators_ == 6


def test_warm_start_continues_with_the_same_eval_set_only():
    X, y = _data("multiclass", n=300)
    Xv, yv = _data("multiclass", n=80, seed=1)
    params = {"n_iter_no_change": 50, "random_state": 0}
    long = BoostClassifier(n_estimators=12, **params).fit(X, y, eval_set=[(Xv, yv)])
    warm = BoostClassifier(n_estimators=6, warm_start=True, **params).fit(
        X, y, eval_set=[(Xv, yv)])
    warm.set_params(n_estimators=12)
    for other in [{}, {"eval_set": [(Xv[:40], yv[:40])]},
                  {"eval_set": [(Xv, yv)], "eval_names": ["dev"]}]:
        with pytest.raises(ValueError, match="eval_set \\(or eval_names\\) differs"):
            warm.fit(X, y, **other)
    warm.fit(X, y, eval_set=[(Xv.copy(), list(yv))])  # the same values continue
    np.testing.assert_array_equal(warm.validation_score_, long.validation_score_)
    assert warm.evals_result_ == long.evals_result_ and warm.n_iter_ == long.n_iter_
