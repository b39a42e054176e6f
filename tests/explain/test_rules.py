"""Readable models: every hypothesis prints as a rule with column and class names, the
rounds are objects, ``rules`` and ``confboost show`` list them."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from confboost import BoostClassifier
from confboost.cli import main
from tests.helpers import mixed_frame


@pytest.fixture(scope="module")
def iris():
    data = load_iris(as_frame=True)
    return data.data, data.target_names[data.target]


def test_stump_rule_reads_with_names(iris):
    X, y = iris
    clf = BoostClassifier(3).fit(X, y)
    first = clf.rounds_[0]
    h = first.hypothesis
    assert first.column == h.feature and first.column_names == (X.columns[h.feature],)
    assert first.alpha == clf.estimator_weights_[0] and clf.estimators_[0] is h
    text = str(first)
    # the rule's numbers are α h on each block, with the class names
    left = first.alpha * h.values[0]
    assert f"{X.columns[h.feature]} <= {h.threshold:.6g} -> setosa {left[0]:+.3g}" in text
    assert "versicolor" in text and "virginica" in text
    assert str(h).startswith(f"x{h.feature} <= ")  # no names: x0, x1, ...


def test_tree_rule_has_one_line_per_node_and_leaf(iris):
    X, y = iris
    clf = BoostClassifier(2, weak_learner="tree", max_leaves=5).fit(X, y)
    h = clf.rounds_[0].hypothesis
    lines = str(clf.rounds_[0]).splitlines()[1:]
    assert sum(line.strip().startswith("if ") for line in lines) == h.left.shape[0]
    assert sum(line.strip().startswith("-> ") for line in lines) == h.values.shape[0]
    assert len(clf.rounds_[0].columns) >= 1


def test_rules_top_lists_the_rounds_of_least_z(iris):
    X, y = iris
    clf = BoostClassifier(10).fit(X, y)
    text = clf.rules(top=3)
    numbers = [int(line.split()[1]) for line in text.splitlines() if line.startswith("round")]
    assert numbers == list(np.argsort(clf.history_["z"], kind="stable")[:3] + 1)
    assert len([line for line in clf.rules().splitlines() if line.startswith("round")]) == 10


def test_mixed_rules_name_categorical_and_text_columns():
    frame, Y = mixed_frame(np.random.default_rng(0))
    for learner in ("stump", "tree"):
        clf = BoostClassifier(8, weak_learner=learner, max_leaves=4,
                              feature_types={"row": "ignore"}).fit(frame, Y)
        text = clf.rules()
        assert "text contains '" in text and "colour == '" in text
        assert "size" in text and "x0" not in text
        for r in clf.rounds_:
            assert set(r.column_names) <= {"size", "colour", "text"}


def test_binary_rules_name_the_positive_class():
    X = pd.DataFrame({"a": np.arange(20.0)})
    y = np.where(np.arange(20) < 10, "benign", "malignant")
    clf = BoostClassifier(1, weak_learner="product", product_terms=2).fit(X, y)
    assert "malignant" in clf.rules() and "benign" not in clf.rules()


def test_show_prints_the_rules(tmp_path, iris, capsys):
    X, y = iris
    clf = BoostClassifier(4).fit(X, y)
    clf.save(tmp_path / "m.json")
    assert main(["show", "-m", str(tmp_path / "m.json"), "-n", "2"]) == 0
    out = capsys.readouterr().out
    assert out == clf.rules().split("round 3")[0]
    assert main(["show", "-m", str(tmp_path / "none.json")]) == 2
    assert "no such model file" in capsys.readouterr().err
