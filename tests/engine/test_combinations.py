"""Every scheme with every weak learner: the engine's promise (DESIGN.md: a learner never
knows the scheme, a scheme never knows the learner)."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from confboost import BoostClassifier


@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
@pytest.mark.parametrize("weak_learner", ["stump", "tree", "hamming_tree"])
def test_scheme_and_learner_combine(scheme, weak_learner):
    """Every pair learns (the bound and the round trips of every pair are the property
    matrix's, ``test_property_matrix.py``)."""
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::9, 1] = np.nan
    clf = BoostClassifier(15, scheme=scheme, weak_learner=weak_learner, max_leaves=4,
                          code="one-vs-rest").fit(X, y)
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
def test_text_column_with_every_scheme(scheme):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    words = {0: "grain wheat corn", 1: "oil crude barrel", 2: "bank rate money"}
    y = rng.integers(0, 3, size=90)
    docs = [f"{words[c].split()[rng.integers(3)]} report today" for c in y]
    X = pd.DataFrame({"doc": docs, "size": rng.normal(size=90)})
    # MR's real confidences smooth each label pair by the mass of 50/k examples, which on
    # 90 examples slows the fit: 20 rounds, not 10, to separate the three topics
    clf = BoostClassifier(20, scheme=scheme, feature_types={"doc": "text"}).fit(X, y)
    assert np.all(clf.history_["train_loss"] <= clf.history_["bound"] + 1e-12)
    assert clf.score(X, y) == 1.0
