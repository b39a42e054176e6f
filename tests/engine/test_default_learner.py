"""``weak_learner="auto"`` (the default): stumps up to 2,500 examples, trees above; and
``max_leaves="auto"``, ``learning_rate="auto"``: 32 leaves at step 0.5 on large data of few
features × labels, a tree per label of 16 leaves at step 0.5 on many features × labels, 16
leaves at step 1 otherwise."""

import json

import numpy as np
import pytest

import confboost
from confboost import BoostClassifier
from confboost.engine.learners import TREES_ABOVE, choose_learner
from confboost.engine.learners.label_trees import MAX_LABEL_BLOCKS, LabelTreesHypothesis
from confboost.engine.learners.stump import StumpHypothesis
from confboost.engine.learners.tree_hypothesis import TreeHypothesis
from confboost.formats.model_json import save_document
from confboost.training.params import (
    LABEL_TREE_LEAVES,
    LARGE_ABOVE,
    LARGE_CELLS,
    default_learner,
)


@pytest.mark.parametrize(("name", "n_samples", "trim", "chosen"), [
    ("auto", 10, 0.0, "stump"),
    ("auto", TREES_ABOVE, 0.0, "stump"),
    ("auto", TREES_ABOVE + 1, 0.0, "tree"),
    ("auto", TREES_ABOVE + 1, 0.1, "stump"),  # trimming is a stump parameter
    ("stump", 10**6, 0.0, "stump"),
    ("tree", 10, 0.0, "tree"),
    ("hamming_tree", 10, 0.0, "hamming_tree"),
    ("product", 10**6, 0.0, "product"),
])
def test_choose_learner(name, n_samples, trim, chosen):
    assert choose_learner(name, n_samples, trim) == chosen


def _problem(n_samples, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    return X, y


def test_small_data_default_is_the_stump_model():
    X, y = _problem(300)
    default = BoostClassifier(5, calibration=None).fit(X, y)
    stumps = BoostClassifier(5, weak_learner="stump", calibration=None).fit(X, y)
    assert default.weak_learner == "auto" and default.weak_learner_ == "stump"
    assert default.model_.to_dict() == stumps.model_.to_dict()
    assert all(isinstance(h, StumpHypothesis) for h in default.model_.hypotheses)


def test_large_data_default_is_trees_of_16_leaves():
    X, y = _problem(TREES_ABOVE + 1)
    default = BoostClassifier(2, calibration=None).fit(X, y)
    trees = BoostClassifier(2, weak_learner="tree", max_leaves=16,
                            calibration=None).fit(X, y)
    assert default.weak_learner_ == "tree"
    assert (default.max_leaves_, default.learning_rate_) == (16, 1.0)
    assert default.model_.to_dict() == trees.model_.to_dict()
    assert all(isinstance(h, TreeHypothesis) for h in default.model_.hypotheses)
    # x0 + x1 x2 > 0 takes every leaf it may have: 16, not the former default's 8
    assert max(len(h.to_dict()["kind"]) + 1 for h in default.model_.hypotheses) == 16
    # a trimmed fit keeps to stumps instead of refusing trim on large data
    trimmed = BoostClassifier(2, trim=0.1, calibration=None).fit(X, y)
    assert trimmed.weak_learner_ == "stump"
    with pytest.raises(ValueError, match="trim applies to weak_learner='stump' only"):
        BoostClassifier(2, weak_learner="tree", trim=0.1).fit(X, y)


def _leaves(model):
    return max(len(h.to_dict()["kind"]) + 1 for h in model.model_.hypotheses)


def test_large_data_default_is_trees_of_32_leaves_at_half_the_step():
    X, y = _problem(LARGE_ABOVE + 1)
    default = BoostClassifier(2, calibration=None).fit(X, y)
    assert default.get_params()["max_leaves"] == default.get_params()["learning_rate"] == "auto"
    assert (default.weak_learner_, default.max_leaves_, default.learning_rate_) == (
        "tree", 32, 0.5)
    larger = BoostClassifier(2, max_leaves=32, learning_rate=0.5, calibration=None).fit(X, y)
    assert default.model_.to_dict() == larger.model_.to_dict()
    assert _leaves(default) == 32
    assert np.allclose(default.history_["alpha"], 0.5)  # real confidences: α = 1, shrunk
    # a value the user sets is kept; the other "auto" follows the data's shape
    mine = BoostClassifier(2, max_leaves=8, calibration=None).fit(X, y)
    assert (mine.max_leaves_, mine.learning_rate_, _leaves(mine)) == (8, 0.5, 8)
    # stumps and products keep the paper's step
    stumps = BoostClassifier(2, weak_learner="stump", calibration=None).fit(X, y)
    assert stumps.learning_rate_ == 1.0


def test_many_features_times_labels_grow_a_tree_per_label():
    # 3 classes x 667 features > LARGE_CELLS: a tree per class of LABEL_TREE_LEAVES leaves
    # at step 0.5
    n_features = LARGE_CELLS // 3 + 1
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(TREES_ABOVE + 1, n_features)).astype(np.float32)
    y = (X[:, 0] + X[:, 1]).astype(int) % 3
    fitted = BoostClassifier(1, calibration=None, n_jobs=1).fit(X, y)
    assert (fitted.weak_learner_, fitted.max_leaves_, fitted.learning_rate_) == (
        "label_trees", LABEL_TREE_LEAVES, 0.5)
    assert isinstance(fitted.model_.hypotheses[0], LabelTreesHypothesis)
    # binary data (one label column) and AdaBoost.MR keep the shared tree
    binary = BoostClassifier(1, calibration=None, n_jobs=1).fit(X, y > 0)
    assert (binary.weak_learner_, binary.max_leaves_, binary.learning_rate_) == (
        "tree", 16, 1.0)
    ranked = BoostClassifier(1, scheme="mr", calibration=None, n_jobs=1).fit(X, y)
    assert ranked.weak_learner_ == "tree"


@pytest.mark.parametrize(("shape", "scheme", "chosen"), [
    ((20_000, 784, 10), "mh", "label_trees"),  # fashion-mnist-like
    ((20_000, LARGE_CELLS // 2, 2), "mh", "tree"),  # not more than LARGE_CELLS
    ((20_000, 5_000, 1), "mh", "tree"),  # binary: one label column
    ((20_000, 784, 10), "mr", "tree"),
    ((20_000, 784, 10), "mo", "tree"),
    ((TREES_ABOVE, 784, 10), "mh", "stump"),
    # as many labels as k trees' blocks can number, and one more (the shared tree)
    ((20_000, 10, MAX_LABEL_BLOCKS // LABEL_TREE_LEAVES), "mh", "label_trees"),
    ((20_000, 10, MAX_LABEL_BLOCKS // LABEL_TREE_LEAVES + 1), "mh", "tree"),
])
def test_default_learner_by_shape(shape, scheme, chosen):
    assert default_learner("auto", *shape, scheme) == chosen
    assert default_learner("tree", *shape, scheme) == "tree"


def test_saved_model_keeps_the_chosen_learner(tmp_path):
    X, y = _problem(200)
    path = tmp_path / "m.json"
    BoostClassifier(3, calibration=None).fit(X, y).save(path)
    loaded = confboost.load(path)
    assert loaded.weak_learner == "auto" and loaded.weak_learner_ == "stump"
    assert "3 rounds of stump" in loaded.rules()

    document = json.loads(path.read_text())
    body = {key: value for key, value in document.items()
            if key not in ("format", "version", "checksum")}
    # a file from before "auto" has no "weak_learner" field: its params name the learner
    old = {**{k: v for k, v in body.items() if k != "weak_learner"},
           "params": {**body["params"], "weak_learner": "stump"}}
    save_document(tmp_path / "old.json", old)
    assert confboost.load(tmp_path / "old.json").weak_learner_ == "stump"
    # nor "max_leaves" and "learning_rate": its params hold the numbers used
    old = {**{k: v for k, v in body.items() if k not in ("max_leaves", "learning_rate")},
           "params": {**body["params"], "max_leaves": 8, "learning_rate": 0.3}}
    save_document(tmp_path / "old.json", old)
    assert (confboost.load(tmp_path / "old.json").max_leaves_,
            confboost.load(tmp_path / "old.json").learning_rate_) == (8, 0.3)
    assert (loaded.max_leaves_, loaded.learning_rate_) == (16, 1.0)
    for field, bad in (("max_leaves", "auto"), ("max_leaves", 1), ("learning_rate", 1.5),
                       ("learning_rate", "auto")):
        save_document(tmp_path / "bad.json", {**body, field: bad})
        with pytest.raises(ValueError, match=field):
            confboost.load(tmp_path / "bad.json")
    for bad in ("auto", "forest", ["stump"]):
        save_document(tmp_path / "bad.json", {**body, "weak_learner": bad})
        with pytest.raises(ValueError, match="weak_learner"):
            confboost.load(tmp_path / "bad.json")
