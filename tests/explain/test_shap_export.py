"""The SHAP export: ``shap.TreeExplainer`` on ``explain.shap_model(clf)`` gives
``clf.explain``'s values and bias to 1e-9, for stumps and trees, binary and multiclass,
with missing values; the export itself (trees summing to f) is checked without shap."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from confboost import BoostClassifier
from confboost.explain import contribution_importances, shap_model


def _data(kind):
    if kind == "binary":
        X, y = load_breast_cancer(return_X_y=True)
        X, y = X[::3].copy(), y[::3]
    else:
        X, y = load_iris(return_X_y=True)
        X = X.copy()
    X[::7, 2] = np.nan  # the missing-value block and missing_left nodes are exported too
    return X, y


def _tree_outputs(tree, X):
    """A SHAP tree dict's output on the rows of X, walked as SHAP walks it."""
    out = np.empty((X.shape[0], tree["values"].shape[1]))
    for row, x in enumerate(X):
        node = 0
        while tree["children_left"][node] >= 0:
            value = x[tree["features"][node]]
            if np.isnan(value):
                node = tree["children_default"][node]
            elif value <= tree["thresholds"][node]:
                node = tree["children_left"][node]
            else:
                node = tree["children_right"][node]
        out[row] = tree["values"][node]
    return out


@pytest.mark.parametrize("learner", ["stump", "tree", "hamming_tree"])
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_exported_trees_sum_to_f(kind, learner):
    X, y = _data(kind)
    clf = BoostClassifier(8, weak_learner=learner, max_leaves=5).fit(X, y)
    model = shap_model(clf)
    assert len(model["trees"]) == len(clf.model_)
    total = sum(_tree_outputs(tree, X) for tree in model["trees"])
    f = clf.decision_function(X)
    np.testing.assert_allclose(total, f.reshape(total.shape), atol=1e-10)
    for tree in model["trees"]:
        assert np.all(tree["node_sample_weight"] > 0)  # SHAP refuses a weight of 0
        internal = tree["children_left"] >= 0
        weight = tree["node_sample_weight"]
        np.testing.assert_allclose(
            weight[internal],
            weight[tree["children_left"][internal]] + weight[tree["children_right"][internal]])


@pytest.mark.parametrize("learner", ["stump", "tree"])
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_tree_explainer_gives_explain_values(kind, learner):
    shap = pytest.importorskip("shap")
    X, y = _data(kind)
    clf = BoostClassifier(15, weak_learner=learner, max_leaves=6).fit(X, y)
    explainer = shap.TreeExplainer(shap_model(clf))
    values = np.asarray(explainer.shap_values(X))
    ours = clf.explain(X)
    if kind == "binary":
        assert values.shape == ours[:, :-1].shape
        np.testing.assert_allclose(values, ours[:, :-1], rtol=0, atol=1e-9)
        np.testing.assert_allclose(np.ravel(explainer.expected_value)[0], ours[0, -1],
                                   atol=1e-9)
    else:  # SHAP: (n_samples, n_features, n_outputs); explain: (n_samples, k, n_features + 1)
        np.testing.assert_allclose(np.moveaxis(values, -1, 1), ours[:, :, :-1], rtol=0,
                                   atol=1e-9)
        np.testing.assert_allclose(explainer.expected_value, ours[0, :, -1], atol=1e-9)


def test_products_and_categorical_tests_are_refused_by_name():
    X, y = _data("binary")
    clf = BoostClassifier(3, weak_learner="product").fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="round 1: a product hypothesis"):
        shap_model(clf)
    import pandas as pd

    frame = pd.DataFrame({"colour": ["red", "blue", "green"] * 20,
                          "size": np.arange(60.0)})
    labels = (frame["colour"] == "red").to_numpy()
    clf = BoostClassifier(2, weak_learner="stump").fit(frame, labels)
    with pytest.raises(ValueError, match="categorical hypothesis"):
        shap_model(clf)


def test_contribution_importances_take_binary_explain():
    X, y = _data("binary")
    clf = BoostClassifier(10).fit(X, y)
    explained = clf.explain(X)
    assert explained.ndim == 2  # binary: one column of f
    importances = contribution_importances(explained)
    np.testing.assert_allclose(importances, np.abs(explained[:, :-1]).mean(axis=0))
    assert importances.shape == (X.shape[1],)
    with pytest.raises(ValueError, match="must have shape"):
        contribution_importances(explained[0])
