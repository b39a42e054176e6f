"""One data world: an array is a Dataset (and a Frame) with a numeric part only, a table is
the same Dataset with more parts, and every hypothesis names table column positions."""

import numpy as np
import pytest
from scipy import sparse

from confboost import BoostClassifier
from confboost.data.columns import FrameEncoder
from confboost.data.dataset import Dataset
from confboost.data.frame import Frame


def _table(rng, n=120):
    colour = rng.choice(["red", "green", "blue"], n).tolist()
    x = rng.normal(size=n)
    y = ((x > 0) ^ (np.array(colour) == "red")).astype(int)
    return {"colour": colour, "x": x, "ignored": ["z"] * n}, y


def test_array_dataset_is_numeric_part_at_its_own_positions(rng):
    X = rng.normal(size=(50, 3))
    dataset = Dataset.from_array(X, 255)
    assert dataset.numeric_columns.tolist() == [0, 1, 2] and dataset.n_columns == 3
    assert not dataset.categorical and not dataset.text


def test_table_dataset_and_frame_share_table_positions(rng):
    table, y = _table(rng)
    encoder = FrameEncoder.from_table(table, {"ignored": "ignore"})
    dataset = encoder.fit_dataset(table, 255)
    assert dataset.numeric_columns.tolist() == [1] and dataset.n_columns == 3
    assert [column.column for column in dataset.categorical] == [0]
    frame = encoder.transform(table)
    assert isinstance(frame, Frame) and frame.shape == (120, 3)
    np.testing.assert_array_equal(frame.continuous_values(1), table["x"])
    with pytest.raises(ValueError, match="not a continuous column"):
        frame.continuous_values(0)
    clf = BoostClassifier(6, feature_types={"ignored": "ignore"}).fit(table, y)
    stumps = [h for h in clf.model_.hypotheses if h.type_name == "stump"]
    assert stumps and all(h.feature == 1 for h in stumps)  # the table position of "x"
    assert clf.feature_importances_[2] == 0.0


@pytest.mark.parametrize("weak_learner", ["stump", "tree", "hamming_tree", "product"])
def test_sparse_input_predicts_as_dense(rng, weak_learner):
    X = rng.normal(size=(150, 6))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = (X[:, 0] + X[:, 3] > 0).astype(int)
    clf = BoostClassifier(6, weak_learner=weak_learner).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(sparse.csr_matrix(X)),
                               clf.decision_function(X), rtol=1e-12, atol=1e-12)
    staged = list(clf.staged_decision_function(sparse.csc_matrix(X)))
    np.testing.assert_allclose(staged[-1], clf.decision_function(X), rtol=1e-12, atol=1e-12)
