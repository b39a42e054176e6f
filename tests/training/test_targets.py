"""targets.py: y as label signs Y (Figure 1's k = 1 for binary data) and the starting weights."""

import numpy as np
import pytest

from confboost.training.targets import encode_targets, starting_weights


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


def test_a_column_vector_y_warns_at_the_users_fit_on_both_input_paths():
    import warnings

    import pandas as pd
    from sklearn.exceptions import DataConversionWarning

    from confboost import BoostClassifier

    X = np.arange(40.0).reshape(20, 2)
    y = (np.arange(20) % 2)[:, None]
    table = pd.DataFrame({"a": X[:, 0], "b": [f"v{i % 3}" for i in range(20)]})
    for data in (X, table):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf = BoostClassifier(3, calibration=None).fit(data, y)
        found = [w for w in caught if issubclass(w.category, DataConversionWarning)]
        assert len(found) == 1 and found[0].filename == __file__
        assert clf.predict(data).shape == (20,)
