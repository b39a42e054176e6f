"""A fitted model in SHAP's own tree format, for ``shap.TreeExplainer``.

Owns ``shap_model``: the model's rounds as the dictionary of trees that
``shap.TreeExplainer`` accepts (``{"trees": [...]}``, each tree with ``children_left``,
``children_right``, ``children_default``, ``features``, ``thresholds``, ``values`` and
``node_sample_weight``; a leaf has children -1; ``x[feature] <= threshold`` goes left and a
missing value goes to ``children_default``). Each round t becomes one tree whose leaf values
are α_t h_t(x, l), so the trees' sum is f(x, l) and SHAP's path-dependent values (no
background data: its default) are those of ``BoostClassifier.explain``: both are the
path-dependent TreeSHAP of Lundberg et al. (2020) over the same training covers.

A stump ``x <= θ`` with its missing-value block (three blocks) is a two-node tree: the root
tests ``x <= +inf`` (every known value goes left, a missing one to the missing block) and
its left child ``x <= θ``. A threshold tree keeps its nodes (node i stays node i; leaf j is
node n_internal + j); a leaf no training example reached gets a cover of ``EMPTY_COVER``
times the least positive one, as SHAP refuses a weight of 0. Categorical value tests, text
term tests and products of stumps have no form in SHAP's format (it compares numbers with
thresholds only): ``shap_model`` refuses them, naming the round; ``explain`` covers every
model.
"""

import numpy as np

from confboost.explain.tree_shap import FlatTree
from confboost.utils.dtypes import NODE_THRESHOLD

__all__ = ["shap_model"]

#: The cover given to a leaf no training example reached, relative to the least positive
#: cover of its tree: SHAP's tree format needs every node's weight positive.
EMPTY_COVER = 1e-12


def shap_model(model):
    """The model as ``shap.TreeExplainer``'s dictionary of trees.

    Parameters
    ----------
    model : BoostClassifier, Booster or BoostedModel
        Fitted on numeric columns, with stumps or threshold trees (``weak_learner`` "stump",
        "tree" or "hamming_tree"; the default on numeric data) and the training covers
        every fit records.

    Returns
    -------
    dict
        ``{"trees": [...], "base_offset": 0.0, "tree_output": "raw_value", ...}``, one tree
        per round, each a dict of arrays over its nodes: ``children_left``,
        ``children_right``, ``children_default`` (int, shape (n_nodes,)), ``features``
        (int), ``thresholds`` (float), ``values`` (shape (n_nodes, k)) and
        ``node_sample_weight`` (the training cover). The trees' outputs sum to the model's
        f(x, l), shape (n_samples, k): ``decision_function`` for binary, MH and MR models,
        the code columns of an MO model (what ``explain`` explains).

    Raises
    ------
    ValueError
        A round that SHAP's format cannot hold (a categorical or text test, a product of
        stumps), or a model saved without training covers.

    Examples
    --------
    >>> import numpy as np, shap  # doctest: +SKIP
    >>> explainer = shap.TreeExplainer(shap_model(clf))  # doctest: +SKIP
    >>> values = explainer.shap_values(X)  # doctest: +SKIP
    >>> np.allclose(values, clf.explain(X)[..., :-1])  # binary data  # doctest: +SKIP
    True
    """
    boosted = getattr(model, "model_", model)
    trees = [_round_tree(hypothesis, alpha, t + 1)
             for t, (hypothesis, alpha) in enumerate(
                 zip(boosted.hypotheses, boosted.alphas, strict=True))]
    return {"trees": trees, "base_offset": 0.0, "tree_output": "raw_value",
            "input_dtype": np.float64, "internal_dtype": np.float64}


def _cover(hypothesis, round_number):
    if getattr(hypothesis, "cover", None) is None:
        raise ValueError(f"round {round_number}: the {hypothesis.type_name} hypothesis has no "
                         "training cover (a model saved before confboost recorded covers): "
                         "refit the model to export it")
    return np.asarray(hypothesis.cover, dtype=np.float64)


def _round_tree(hypothesis, alpha, round_number):
    """One round's α h as a SHAP tree dict (see the module docstring)."""
    values = alpha * np.asarray(hypothesis.values, dtype=np.float64)
    cover = _cover(hypothesis, round_number)
    if hypothesis.type_name == "stump":
        column = hypothesis.feature
        # node 0: known (left) or missing (default: leaf 2); node 1: x <= θ
        left = np.array([1, -1], dtype=np.intp)  # internal children as FlatTree reads them
        right = np.array([-3, -2], dtype=np.intp)
        tree = FlatTree(left, right, np.array([column, column], dtype=np.intp), values, cover)
        return _layout(tree, np.array([np.inf, hypothesis.threshold]),
                       missing_left=np.array([False, False]))
    if hypothesis.test_layout == "tree" and np.all(hypothesis.kind == NODE_THRESHOLD):
        tree = FlatTree(hypothesis.left, hypothesis.right, hypothesis.column, values, cover)
        return _layout(tree, hypothesis.threshold, hypothesis.missing_left)
    raise ValueError(f"round {round_number}: a {hypothesis.type_name} hypothesis "
                     f"({hypothesis.test_layout} layout, or categorical or text tests) has no "
                     "form in SHAP's tree format, which compares numbers with thresholds "
                     "only; use BoostClassifier.explain, which covers every model")


def _layout(tree, thresholds, missing_left):
    """SHAP's node arrays of a ``FlatTree``: internal nodes first, then the leaves."""
    n_internal = tree.left.shape[0]
    n_leaves, k = tree.leaf_values.shape
    n_nodes = n_internal + n_leaves

    def index(child):
        return int(child) if child >= 0 else n_internal + int(-child - 1)

    children_left = np.full(n_nodes, -1, dtype=np.int64)
    children_right = np.full(n_nodes, -1, dtype=np.int64)
    children_default = np.full(n_nodes, -1, dtype=np.int64)
    features = np.full(n_nodes, -1, dtype=np.int64)
    node_thresholds = np.zeros(n_nodes, dtype=np.float64)
    for node in range(n_internal):
        children_left[node] = index(tree.left[node])
        children_right[node] = index(tree.right[node])
        children_default[node] = (children_left if missing_left[node]
                                  else children_right)[node]
        features[node] = tree.column[node]
        node_thresholds[node] = thresholds[node]
    weight = np.concatenate([tree.node_cover(), tree.leaf_cover])
    if np.any(tree.leaf_cover <= 0):
        tree = _no_empty_leaf(tree)
        weight = np.concatenate([tree.node_cover(), tree.leaf_cover])
    node_values = np.zeros((n_nodes, k), dtype=np.float64)
    node_values[n_internal:] = tree.leaf_values
    # an internal node's value: the cover-weighted mean of its leaves (SHAP reads the root's
    # as the tree's expected value)
    if n_internal:
        _fill_mean(0, children_left, children_right, weight, node_values)
    return {"children_left": children_left, "children_right": children_right,
            "children_default": children_default, "features": features,
            "thresholds": node_thresholds, "values": node_values,
            "node_sample_weight": weight}


def _no_empty_leaf(tree):
    """The tree with every leaf of zero cover given ``EMPTY_COVER`` times the least positive
    cover (SHAP refuses a node of zero weight). A leaf's share of its parent then moves by at
    most that fraction: 0 becomes ~1e-12, and a parent of two empty leaves keeps ½, ½ as
    ``explain`` splits it."""
    cover = tree.leaf_cover.astype(np.float64, copy=True)
    positive = cover[cover > 0]
    cover[cover <= 0] = EMPTY_COVER * (positive.min() if positive.size else 1.0)
    return FlatTree(tree.left, tree.right, tree.column, tree.leaf_values, cover)


def _fill_mean(node, children_left, children_right, weight, node_values):
    """Set ``node_values`` of ``node`` and the internal nodes below it, children first."""
    pair = (children_left[node], children_right[node])
    for child in pair:
        if children_left[child] >= 0:
            _fill_mean(child, children_left, children_right, weight, node_values)
    total = weight[pair[0]] + weight[pair[1]]
    if total > 0:
        node_values[node] = (weight[pair[0]] * node_values[pair[0]]
                             + weight[pair[1]] * node_values[pair[1]]) / total
    else:
        node_values[node] = 0.5 * (node_values[pair[0]] + node_values[pair[1]])
