"""``staged_predict_proba``: after round t, the probabilities of the model cut to its first
t rounds, the last equal to ``predict_proba``; for every scheme and kind of target."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_multilabel_classification

from confboost import BoostClassifier


def _cut(clf, t):
    """A copy of ``clf`` that keeps only its first t rounds."""
    import copy

    from confboost.engine.model import BoostedModel

    cut = copy.deepcopy(clf)
    cut.model_ = BoostedModel(clf.model_.hypotheses[:t], clf.model_.alphas[:t],
                              clf.model_.n_labels)
    if hasattr(clf, "thresholds_"):
        cut.thresholds_ = clf.thresholds_[:t]
        cut.threshold_ = float(clf.thresholds_[t - 1])
    return cut


@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
@pytest.mark.parametrize("target", ["binary", "multiclass", "multilabel"])
@pytest.mark.parametrize("calibration", ["temperature", None])
def test_each_stage_is_the_cut_model(scheme, target, calibration):
    if target == "multilabel":
        if scheme == "mo":
            pytest.skip("AdaBoost.MO is single-label")
        X, y = make_multilabel_classification(120, 5, n_classes=3, random_state=0)
    else:
        X, y = load_iris(return_X_y=True)
        if target == "binary":
            y = (y == 2).astype(int)
    clf = BoostClassifier(6, scheme=scheme, calibration=calibration, random_state=0).fit(X, y)
    stages = list(clf.staged_predict_proba(X))
    assert len(stages) == clf.n_estimators_
    np.testing.assert_array_equal(stages[-1], clf.predict_proba(X))
    for t in (1, 3):
        np.testing.assert_allclose(stages[t - 1], _cut(clf, t).predict_proba(X), atol=1e-12)
    assert stages[0].shape == (X.shape[0], len(clf.classes_))
    assert not np.allclose(stages[0], stages[-1])


def test_staged_predict_proba_needs_a_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        next(BoostClassifier().staged_predict_proba(np.zeros((2, 2))))
