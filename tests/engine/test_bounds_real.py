"""Theorem 1 on real data: the training error never exceeds Π Z_t, on any round."""

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.datasets import load

pytestmark = pytest.mark.slow


def _binary_sets():
    """Real binary or binarised problems (bundled copies, so they always run)."""
    split = load("breast-cancer-wisconsin", data_dir="bundled")  # has missing values
    yield "breast-cancer-wisconsin", split.X_train, split.y_train
    split = load("satimage", data_dir="bundled")
    yield "satimage class 1 vs rest", split.X_train, split.y_train == split.classes[0]
    split = load("splice", data_dir="bundled")
    yield "splice class 1 vs rest", split.X_train, split.y_train == split.classes[0]


@pytest.mark.parametrize("confidence", ["real", "discrete", "abstain", "real-abstain"])
@pytest.mark.parametrize("alpha", ["auto", "exact", "freund-schapire"])
def test_training_error_below_bound_on_real_binary_data(confidence, alpha):
    for name, X, y in _binary_sets():
        clf = BoostClassifier(25, confidence=confidence, alpha=alpha).fit(X, y)
        history = clf.history_
        assert np.all(history["train_loss"] <= history["bound"]), name
        assert np.all(history["z"] <= 1.0 + 1e-12), name
        # and the recorded loss is the real training error of the model
        assert history["train_loss"][-1] == pytest.approx(np.mean(clf.predict(X) != y)), name
