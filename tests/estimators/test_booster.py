"""``Booster``, the estimator without scikit-learn that the BoosTexter commands run, against
``BoostClassifier`` (which is a ``Booster`` with scikit-learn's surface)."""

import numpy as np
import pytest

from confboost.estimators import BoostClassifier
from confboost.estimators.booster import Booster


def _table(n=120, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    x[::9] = np.nan
    colour = rng.choice(["red", "green", "blue"], size=n).tolist()
    colour[::11] = [None] * len(colour[::11])
    y = np.zeros((n, 3), dtype=int)
    y[np.arange(n), (x > 0).astype(int) + (np.asarray(colour) == "red")] = 1
    return {"x": x, "colour": colour}, y


@pytest.mark.parametrize("params", [
    {}, {"weak_learner": "tree", "max_leaves": 4, "learning_rate": 0.5},
    {"scheme": "mr", "confidence": "discrete"}])
def test_booster_fits_the_model_of_boost_classifier(params):
    X, y = _table()
    types = {"x": "continuous", "colour": "categorical"}
    common = dict(n_estimators=6, feature_types=types, calibration=None, **params)
    booster = Booster(**common).fit(X, y)
    classifier = BoostClassifier(**common).fit(X, y)
    assert booster.model_.to_dict() == classifier.model_.to_dict()
    assert booster.get_params() == classifier.get_params()
    for key, values in classifier.history_.items():
        np.testing.assert_array_equal(booster.history_[key], values)
    np.testing.assert_array_equal(booster.decision_function(X), classifier.decision_function(X))
    np.testing.assert_array_equal(booster.predict(X), classifier.predict(X))


def test_booster_saves_the_file_of_boost_classifier(tmp_path):
    X, y = _table()
    common = dict(n_estimators=4, feature_types={"x": "continuous", "colour": "categorical"},
                  calibration=None)
    Booster(**common).fit(X, y).save(tmp_path / "a.json")
    BoostClassifier(**common).fit(X, y).save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_booster_takes_tables_only_and_says_when_unfitted():
    X, y = _table()
    with pytest.raises(TypeError, match="use BoostClassifier for arrays"):
        Booster(n_estimators=2).fit(np.column_stack([X["x"], X["x"]]), y)
    with pytest.raises(ValueError, match="not fitted yet"):
        Booster().predict(X)
    fitted = Booster(n_estimators=2, feature_types={"colour": "categorical"},
                     calibration=None).fit(X, y)
    with pytest.raises(ValueError, match="X must be a DataFrame"):
        fitted.predict(np.zeros((3, 2)))
