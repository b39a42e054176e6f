"""targets.py: y as label signs Y (Figure 1's k = 1 for binary data) and the starting weights."""

import numpy as np
import pytest

from confboost.targets import encode_targets, starting_weights


def test_label_signs_of_binary_multiclass_and_multilabel_y():
    signs, encoded, classes, multilabel = encode_targets(np.array(["b", "a", "b"]))
    np.testing.assert_array_equal(signs, [[1], [-1], [1]])
    np.testing.assert_array_equal(classes, ["a", "b"])
    np.testing.assert_array_equal(encoded, [1, 0, 1])
    assert not multilabel
    signs, encoded, classes, _ = encode_targets(np.array([2, 0, 1]))
    np.testing.assert_array_equal(signs, [[-1, -1, 1], [1, -1, -1], [-1, 1, -1]])
    signs, encoded, classes, multilabel = encode_targets(np.array([[1, 0], [1, 1]]))
    np.testing.assert_array_equal(signs, [[1, -1], [1, 1]])
    assert encoded is None and multilabel and list(classes) == [0, 1]
    with pytest.raises(ValueError, match="only 0 and 1; found"):
        encode_targets(np.array([[2, 0], [1, 1]]))
    with pytest.raises(ValueError, match="only one class"):
        encode_targets(np.array([3, 3]))


def test_starting_weights_with_class_weights_and_an_overflowing_sum():
    classes, encoded = np.array([0, 1]), np.array([0, 1, 1, 1])
    np.testing.assert_allclose(starting_weights(None, 4, "balanced", classes, encoded),
                               [2.0, 2 / 3, 2 / 3, 2 / 3])
    big = np.full(4, np.finfo(np.float64).max / 2)
    weights = starting_weights(big, 4, None, classes, encoded)
    assert np.isfinite(weights.sum()) and np.allclose(weights, 1.0)  # w / max w: same D_1
    with pytest.raises(ValueError, match="at least one non-zero"):
        starting_weights(np.zeros(4), 4, None, classes, encoded)
