"""The properties every fit shares, over one matrix: weak learner x scheme x confidence x
input kind (dense with missing values, sparse, a table with a categorical column).

Each fit's training loss stays under its bound every round (Theorem 1 and its MH, MO, MR
forms: Eq. 4, Theorems 5 and 6), the bound is Π Z_t times the scheme's constant, and the
model predicts the same after a JSON save and load and after a pickle round trip. Test
files of the single stages test what only they show.
"""

import itertools
import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris

import confboost
from confboost import BoostClassifier

LEARNERS = ["stump", "tree", "hamming_tree", "product"]
SCHEMES = ["binary", "mh", "mr", "mo"]
CONFIDENCES = ["real", "discrete", "abstain", "real-abstain"]
INPUTS = ["array", "sparse", "table"]


def _problem(scheme, kind):
    X, y = load_iris(return_X_y=True)
    if scheme == "binary":
        y = (y == 2).astype(int)
    dense = X.copy()
    dense[::9, 1] = np.nan
    if kind == "array":
        return dense, y
    if kind == "sparse":
        sparse = pytest.importorskip("scipy.sparse")
        return sparse.csr_matrix(X), y
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame({"a": dense[:, 0], "b": dense[:, 1], "c": X[:, 2],
                          "width": np.where(X[:, 3] > 1.2, "wide", "thin")})
    return table, y


CASES = list(itertools.product(LEARNERS, SCHEMES, CONFIDENCES, INPUTS))


@pytest.mark.parametrize("learner, scheme, confidence, kind", CASES,
                         ids=["-".join(case) for case in CASES])
def test_every_fit_keeps_its_bound_and_its_predictions(tmp_path, learner, scheme,
                                                       confidence, kind):
    X, y = _problem(scheme, kind)
    clf = BoostClassifier(8, weak_learner=learner, scheme="mh" if scheme == "binary" else scheme,
                          confidence=confidence, max_leaves=4, code="one-vs-rest",
                          calibration=None)
    if learner == "product" and kind == "table":
        with pytest.raises(ValueError, match="product.*numeric"):
            clf.fit(X, y)
        return
    clf.fit(X, y)
    history = clf.history_
    assert np.all(history["train_loss"] <= history["bound"] + 1e-12)
    # bound_t = constant x Π_{s<=t} Z_s: each round multiplies it by that round's Z
    np.testing.assert_allclose(history["bound"][1:], history["bound"][:-1] * history["z"][1:],
                               rtol=1e-10)
    decision = clf.decision_function(X)
    assert np.all(np.isfinite(decision))
    path = tmp_path / "model.json"
    clf.save(path)
    np.testing.assert_array_equal(confboost.load(path).decision_function(X), decision)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).decision_function(X),
                                  decision)
