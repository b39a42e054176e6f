"""Exact contributions: they sum to decision_function for every learner and scheme, and
equal brute-force Shapley values (small trees, fitted trees, products)."""

from itertools import combinations, permutations
from math import factorial

import numpy as np
import pytest
from sklearn.datasets import load_iris

from confboost import BoostClassifier
from confboost.engine.learners import (
    CategoricalHypothesis,
    HammingTreeHypothesis,
    ProductHypothesis,
    StumpHypothesis,
    TermHypothesis,
    TreeHypothesis,
)
from confboost.estimators import load
from confboost.explain import contribution_importances
from confboost.explain.tree_shap import FlatTree, cover_ratio, tree_shap, tree_shap_naive
from confboost.utils.dtypes import NODE_TERM, NODE_THRESHOLD, NODE_VALUE
from tests.helpers import mixed_frame


def _assert_sums(clf, X):
    contribution = clf.explain(X)
    decoded = clf.scheme == "mo" and clf.code_.shape[1] > 1  # contributions to f on the bits
    f = (clf.model_.decision_function(clf._prepare(X)) if decoded
         else clf.decision_function(X))
    np.testing.assert_allclose(contribution.sum(axis=-1), f, rtol=1e-12, atol=1e-12)
    return contribution


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2]) > 0
         ).astype(int) + (np.nan_to_num(X[:, 3]) > 0.8)
    return X, y


@pytest.mark.parametrize("learner", ["stump", "tree", "hamming_tree", "product"])
@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
def test_contributions_sum_to_the_decision(data, learner, scheme):
    X, y = data
    clf = BoostClassifier(8, scheme=scheme, weak_learner=learner, max_leaves=5).fit(X, y)
    contribution = _assert_sums(clf, X)
    assert contribution.shape[-1] == X.shape[1] + 1


@pytest.mark.parametrize("learner", ["stump", "tree", "hamming_tree"])
def test_contributions_of_binary_and_multilabel_data(data, learner):
    X, y = data
    binary = BoostClassifier(6, weak_learner=learner).fit(X, y > 0)
    assert _assert_sums(binary, X).shape == (X.shape[0], X.shape[1] + 1)
    Y = np.column_stack([y > 0, y == 2, np.isnan(X[:, 0])]).astype(int)
    multilabel = BoostClassifier(6, weak_learner=learner).fit(X, Y)
    assert _assert_sums(multilabel, X).shape == (X.shape[0], 3, X.shape[1] + 1)


@pytest.mark.parametrize("learner", ["stump", "tree", "hamming_tree"])
def test_contributions_of_mixed_tables(learner):
    frame, Y = mixed_frame(np.random.default_rng(2))
    clf = BoostClassifier(10, weak_learner=learner, max_leaves=4,
                          feature_types={"row": "ignore"}).fit(frame, Y)
    contribution = _assert_sums(clf, frame)
    assert np.all(contribution[:, :, 3] == 0)  # the ignored column


def test_stump_contribution_is_the_column_sum_of_its_stumps(data):
    X, y = data
    weights = np.random.default_rng(3).random(X.shape[0])
    clf = BoostClassifier(12).fit(X, y, sample_weight=weights)
    contribution = clf.explain(X)
    for column in range(X.shape[1]):
        expected = np.zeros((X.shape[0], 3))
        for h, alpha in zip(clf.model_.hypotheses, clf.model_.alphas, strict=True):
            if h.feature == column:
                blocks = h.blocks(X)
                train_mean = np.array([weights[blocks == b].sum() for b in range(3)]) \
                    @ h.values / weights.sum()
                expected += alpha * (h.values[blocks] - train_mean)
        np.testing.assert_allclose(contribution[:, :, column], expected, atol=1e-12)


# --- TreeSHAP against brute force -------------------------------------------------------

def _expected_value(tree, node_cover, goes_left, row, subset, node=0):
    """Lundberg et al.'s Algorithm 1 (EXPVALUE): x's path on the columns of ``subset``,
    both children by cover elsewhere."""
    if tree.left.shape[0] == 0:
        return tree.leaf_values[0]
    total = 0.0
    for child, went_left in ((tree.left[node], True), (tree.right[node], False)):
        if tree.column[node] in subset:
            weight = float(goes_left[node, row] == went_left)
        else:
            weight = cover_ratio(tree, node_cover, node, went_left)
        if weight == 0:
            continue
        if child < 0:
            total = total + weight * tree.leaf_values[-child - 1]
        else:
            total = total + weight * _expected_value(tree, node_cover, goes_left, row, subset,
                                                     child)
    return total


def _brute_force_shapley(value, n_columns):
    """Shapley values from the subset formula, value(frozenset) -> (k,)."""
    phi = []
    players = range(n_columns)
    for i in players:
        others = [p for p in players if p != i]
        total = 0.0
        for size in range(n_columns):
            weight = factorial(size) * factorial(n_columns - size - 1) / factorial(n_columns)
            for subset in combinations(others, size):
                total = total + weight * (value(frozenset(subset) | {i})
                                          - value(frozenset(subset)))
        phi.append(total)
    return np.stack(phi, axis=-1)


def _random_tree(rng, n_leaves, n_columns, k, zero_cover=False):
    """A random tree grown by splitting random leaves; columns repeat along paths."""
    left, right, column = [], [], []
    leaves = [("root", None)]  # (parent, side) of each leaf slot
    refs = {}
    for _ in range(n_leaves - 1):
        parent, side = leaves.pop(rng.integers(len(leaves)))
        node = len(left)
        left.append(0)
        right.append(0)
        column.append(int(rng.integers(n_columns)))
        refs[(parent, side)] = node
        leaves += [(node, "left"), (node, "right")]
    for leaf, slot in enumerate(leaves):
        refs[slot] = -leaf - 1
    for (parent, side), ref in refs.items():
        if parent == "root":
            continue
        (left if side == "left" else right)[parent] = ref
    cover = rng.integers(1, 10, size=len(leaves)).astype(float)
    if zero_cover:
        cover[rng.random(len(leaves)) < 0.4] = 0.0
    return FlatTree(np.array(left, dtype=np.intp), np.array(right, dtype=np.intp),
                    np.array(column, dtype=np.intp), rng.normal(size=(len(leaves), k)),
                    cover)


@pytest.mark.parametrize("seed", range(6))
def test_tree_shap_equals_brute_force_shapley(seed):
    rng = np.random.default_rng(seed)
    n_columns, k = 4, 2
    tree = _random_tree(rng, int(rng.integers(2, 9)), n_columns, k, zero_cover=seed >= 4)
    n_samples = 12
    goes_left = rng.random((tree.left.shape[0], n_samples)) < 0.5
    phi, bias = tree_shap(tree, goes_left, n_columns)
    node_cover = tree.node_cover()
    for row in range(n_samples):
        def value(subset, row=row):
            return np.asarray(_expected_value(tree, node_cover, goes_left, row, subset))

        np.testing.assert_allclose(phi[row], _brute_force_shapley(value, n_columns),
                                   atol=1e-12)
        np.testing.assert_allclose(bias, value(frozenset()), atol=1e-12)
        np.testing.assert_allclose(phi[row].sum(axis=-1) + bias,
                                   value(frozenset(range(n_columns))), atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_tree_shap_kernel_equals_its_naive_twin(seed):
    rng = np.random.default_rng(10 + seed)
    tree = _random_tree(rng, int(rng.integers(1, 20)), 5, 3, zero_cover=seed % 2 == 1)
    goes_left = rng.random((tree.left.shape[0], 50)) < 0.5
    phi, bias = tree_shap(tree, goes_left, 6)
    naive_phi, naive_bias = tree_shap_naive(tree, goes_left, 6)
    np.testing.assert_allclose(phi, naive_phi, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bias, naive_bias, rtol=1e-12, atol=1e-12)
    # the examples' order does not matter
    order = rng.permutation(50)
    np.testing.assert_allclose(tree_shap(tree, goes_left[:, order], 6)[0], phi[order],
                               rtol=1e-12, atol=1e-12)


def test_fitted_tree_contributions_equal_brute_force():
    X, y = load_iris(return_X_y=True)
    clf = BoostClassifier(1, weak_learner="tree", max_leaves=6).fit(X, y)
    tree_h = clf.model_.hypotheses[0]
    tree = FlatTree(tree_h.left, tree_h.right, tree_h.column,
                    clf.model_.alphas[0] * tree_h.values, tree_h.cover)
    goes_left = tree_h.goes_left(X)
    node_cover = tree.node_cover()
    # the recorded cover is the training count of each leaf (no sample weights)
    np.testing.assert_array_equal(tree_h.cover, np.bincount(tree_h.blocks(X), minlength=6))
    contribution = clf.explain(X)
    for row in range(0, X.shape[0], 15):
        def value(subset, row=row):
            return np.asarray(_expected_value(tree, node_cover, goes_left, row, subset))

        np.testing.assert_allclose(contribution[row, :, :4], _brute_force_shapley(value, 4),
                                   atol=1e-12)


# --- products -----------------------------------------------------------------------------

def test_product_contributions_equal_permutation_shapley():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] * X[:, 1] > 0) ^ (X[:, 2] > 0.5)
    weights = rng.random(200)
    clf = BoostClassifier(1, weak_learner="product", product_terms=3).fit(
        X, y, sample_weight=weights)
    h, alpha = clf.model_.hypotheses[0], clf.model_.alphas[0]
    columns = h.feature
    players = sorted(set(columns.tolist()))
    train_left = h.goes_left(X)
    output = alpha * h.values[h.blocks(X), 0]
    contribution = clf.explain(X)
    for row in range(0, 200, 25):
        x_left = train_left[:, row]

        def value(subset, x_left=x_left):
            # mean training output over the examples whose terms on ``subset``'s columns
            # have x's signs
            terms = [j for j in range(columns.size) if columns[j] in subset]
            agree = np.all(train_left[terms] == x_left[terms, None], axis=0)
            return weights[agree] @ output[agree] / weights[agree].sum()

        shapley = np.zeros(X.shape[1])
        orders = list(permutations(players))
        for order in orders:
            present = set()
            for player in order:
                before = value(present)
                present.add(player)
                shapley[player] += (value(present) - before) / len(orders)
        np.testing.assert_allclose(contribution[row, :3], shapley, atol=1e-12)


# --- persistence, importances -------------------------------------------------------------

def test_saved_model_keeps_its_covers(tmp_path, data):
    X, y = data
    for learner in ("tree", "product"):
        clf = BoostClassifier(5, weak_learner=learner).fit(X, y)
        clf.save(tmp_path / "model.json")
        np.testing.assert_array_equal(load(tmp_path / "model.json").explain(X), clf.explain(X))


def test_model_without_covers_says_so(tmp_path, data):
    import json

    X, y = data
    clf = BoostClassifier(3, weak_learner="tree", max_leaves=8).fit(X, y)
    clf.save(tmp_path / "model.json")
    document = json.loads((tmp_path / "model.json").read_text())
    for entry in document["model"]["hypotheses"]:
        del entry["cover"]
    document["version"] = 2  # a file of the release before covers (and checksums)
    del document["checksum"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    old = load(tmp_path / "old.json")
    np.testing.assert_array_equal(old.predict(X), clf.predict(X))
    with pytest.raises(ValueError, match="no training cover"):
        old.explain(X)
    document["model"]["hypotheses"][0]["cover"] = [-1.0] * 8
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(ValueError, match=r"hypotheses\[0\]\.cover: must be"):
        load(tmp_path / "bad.json")


def test_contribution_importances(data):
    X, y = data
    clf = BoostClassifier(10).fit(X, y)
    contribution = clf.explain(X)
    per_label = contribution_importances(contribution, per_label=True)
    assert per_label.shape == (3, X.shape[1])
    np.testing.assert_allclose(contribution_importances(contribution), per_label.sum(axis=0))
    unused = set(range(X.shape[1])) - {h.feature for h in clf.model_.hypotheses}
    assert all(per_label[:, column].sum() == 0 for column in unused)


def test_tested_points_of_every_hypothesis_type():
    """Each hypothesis type names the thresholds and values it tests on a column (what
    ``plot_partial_dependence`` marks); infinite thresholds and terms are not points."""
    values3, values2 = np.zeros((3, 1)), np.zeros((2, 1))
    assert StumpHypothesis(2, 0.5, values3).tested_points(2) == ([0.5], [])
    assert StumpHypothesis(2, np.inf, values3).tested_points(2) == ([], [])
    assert StumpHypothesis(2, 0.5, values3).tested_points(1) == ([], [])
    product = ProductHypothesis([1, 2, 1], [0.25, 3.0, np.inf], [False, True, True], values2)
    assert product.tested_points(1) == ([0.25], [])
    assert CategoricalHypothesis(4, "red", values3).tested_points(4) == ([], ["red"])
    assert CategoricalHypothesis(4, "red", values3).tested_points(3) == ([], [])
    assert TermHypothesis(5, "cheap pills", values2).tested_points(5) == ([], [])
    structure = ([NODE_THRESHOLD, NODE_VALUE, NODE_TERM, NODE_THRESHOLD], [0, 0, 0, 0],
                 [1.5, np.nan, np.nan, np.inf], [None, "a", "word", None],
                 [False] * 4, [1, 2, 3, -1], [-2, -3, -4, -5])
    tree = TreeHypothesis(*structure, np.zeros((5, 2)))
    assert tree.tested_points(0) == ([1.5], ["a"])
    assert tree.tested_points(1) == ([], [])
    hamming = HammingTreeHypothesis(*structure, [1.0, -1.0], np.arange(5.0))
    assert hamming.tested_points(0) == ([1.5], ["a"])
    assert hamming.vote is not None and tree.vote is None
    hamming.set_leaf_values(2.0)
    np.testing.assert_array_equal(hamming.values, np.outer(np.full(5, 2.0), [1.0, -1.0]))
