"""The one parameter table (``_params.PARAMETERS``): its plain-Python checker, which a
``Booster`` and every model file read use, answers exactly as scikit-learn's validation of
``BoostClassifier._parameter_constraints`` (built from the same table), value by value and
message by message; a ``Booster`` and a model file are refused with it."""

import inspect
import json
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints

from confboost.data.text_experts import TextExpert
from confboost.estimators import BoostClassifier
from confboost.estimators.booster import Booster
from confboost.estimators.classifier import load
from confboost.formats.model_json import read_model
from confboost.training.params import (
    LABEL_TREE_LEAVES,
    LARGE_ABOVE,
    LARGE_CELLS,
    PARAMETERS,
    Count,
    Number,
    Strings,
    check_parameters,
    tree_defaults,
)


def _sklearn_answer(name, value):
    """None if scikit-learn accepts ``value`` for ``name``, else its message."""
    try:
        validate_parameter_constraints(BoostClassifier._parameter_constraints,
                                       {name: value}, "BoostClassifier")
    except InvalidParameterError as error:
        return str(error)
    return None


def _pure_answer(name, value):
    """None if ``check_parameters`` accepts ``value`` for ``name``, else its message."""
    try:
        check_parameters({name: value})
    except ValueError as error:
        assert type(error) is ValueError
        return str(error)
    return None


def _bound_values(alternative):
    """Values at and beyond an interval's bounds, as ints, floats and NumPy scalars."""
    values = []
    for bound in (alternative.left, alternative.right):
        if bound is None:
            continue
        for near in (bound, bound - 1, bound + 1, math.nextafter(bound, -math.inf),
                     math.nextafter(bound, math.inf), bound - 1e-12, bound + 1e-12):
            values += [near, np.float64(near), np.float32(near)]
            if float(near).is_integer() and abs(near) < 2**62:
                values += [int(near), np.int64(int(near)), np.int32(int(near))
                           if abs(near) < 2**31 else np.int64(int(near))]
    return values


def _table_values():
    """Every option and every bound of the table, and their near misses."""
    values = []
    for alternatives in PARAMETERS.values():
        for alternative in alternatives:
            if isinstance(alternative, Strings):
                for option in alternative.options:
                    values += [option, option.upper(), option + " ", option[:-1]]
            elif isinstance(alternative, Count | Number):
                values += _bound_values(alternative)
    return values


#: Values of every kind a parameter may be given (from Python, or from a model file's JSON).
SPECIAL = [None, True, False, np.bool_(True), np.bool_(False), 0, 1, -1, 2**32 - 1, 2**32,
           2**64, -2**64, 0.0, -0.0, 1.0, 0.5, 1e-300, 1e300, math.inf, -math.inf, math.nan,
           np.nan, np.float32("nan"), np.float64(math.inf), np.int8(3), np.uint64(2**63),
           "", "auto", "none", "None", "True", "1", b"auto", 1j, [], [1, -1], [[1, -1], [-1, 1]],
           (), (1,), {}, {"a": "continuous"}, {"A": 1.0}, set(), {"auto"}, frozenset({"mh"}),
           np.array([]), np.array(1), np.array([[1.0, -1.0]]), np.ones((2, 3)),
           sp.csr_matrix(np.eye(2)), sp.csr_array(np.eye(2)), np.random.RandomState(0),
           np.random.default_rng(0), TextExpert(), len, lambda x: x, object(), Fraction(1, 4)]

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-3, 300),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-2.0, 2.0),
    st.floats(0.0, 1.0).map(np.float32), st.integers(-2**63, 2**63 - 1).map(np.int64),
    st.booleans().map(np.bool_), st.text(max_size=12), st.sampled_from(_table_values()),
    st.sampled_from(SPECIAL))
_values = st.one_of(
    _scalars,
    st.lists(_scalars, max_size=4), st.lists(_scalars, max_size=4).map(tuple),
    st.dictionaries(st.text(max_size=4), _scalars, max_size=3),
    st.lists(st.sampled_from([-1.0, 1.0]), min_size=1, max_size=6).map(np.asarray))


def _agree(name, value):
    # Fraction is a numbers.Real NumPy's isnan cannot read: scikit-learn raises a TypeError
    # from inside its Interval, where the table's checker reads it as the number it is
    if isinstance(value, Fraction):
        return
    assert _pure_answer(name, value) == _sklearn_answer(name, value), (name, value)


def test_the_table_names_every_parameter_of_the_estimator():
    signature = inspect.signature(Booster.__init__).parameters
    assert set(PARAMETERS) == set(signature) - {"self"}
    assert set(BoostClassifier._parameter_constraints) == set(PARAMETERS)


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_every_special_value_is_judged_as_scikit_learn_judges_it(name):
    for value in SPECIAL + _table_values():
        _agree(name, value)
    default = inspect.signature(Booster.__init__).parameters[name].default
    assert _pure_answer(name, default) is None


@pytest.mark.parametrize("name", sorted(PARAMETERS))
@settings(max_examples=150, deadline=None)
@given(value=_values)
def test_generated_values_are_judged_as_scikit_learn_judges_them(name, value):
    _agree(name, value)


def test_the_checker_refuses_with_the_message_of_scikit_learn():
    with pytest.raises(ValueError, match=r"^The 'max_bins' parameter of Booster must be None or "
                                         r"an int in the range \[2, 255\]\. Got 256 instead\.$"):
        check_parameters({"max_bins": 256}, "Booster")
    message = _pure_answer("scheme", "mx")
    assert message == ("The 'scheme' parameter of BoostClassifier must be a str among "
                       "{'mh', 'mo', 'mr'}. Got 'mx' instead.")
    assert _pure_answer("n_jobs", 0) == (
        "The 'n_jobs' parameter of BoostClassifier must be None, an int in the range "
        "(-inf, -1] or an int in the range [1, inf). Got 0 instead.")
    assert _pure_answer("learning_rate", True).endswith(
        "must be a str among {'auto'} or a float in the range (0.0, 1.0]. Got True instead.")
    # the first bad parameter, in the order given, is the one named
    assert "'trim'" in _pure_answer("trim", 0.6)
    with pytest.raises(ValueError, match="'tol'"):
        check_parameters({"max_bins": 255, "tol": -1.0, "trim": 2.0})


def _table_fit():
    X = {"x": np.arange(20.0), "c": ["a", "b"] * 10}
    return X, np.arange(20) % 2, {"x": "continuous", "c": "categorical"}


@pytest.mark.parametrize("params, named", [
    ({"max_bins": 1}, "max_bins"), ({"n_estimators": 2.0}, "n_estimators"),
    ({"scheme": "MH"}, "scheme"), ({"learning_rate": math.nan}, "learning_rate"),
    ({"early_stopping": 1}, "early_stopping")])
def test_a_booster_checks_each_parameter_at_fit(params, named):
    X, y, types = _table_fit()
    with pytest.raises(ValueError, match=f"^The '{named}' parameter of Booster must be"):
        Booster(**{"n_estimators": 2, "feature_types": types, "calibration": None,
                   **params}).fit(X, y)
    with pytest.raises(ValueError, match="trim applies to weak_learner='stump' only"):
        Booster(2, feature_types=types, weak_learner="tree", trim=0.1).fit(X, y)


@pytest.mark.parametrize("name, value", [
    ("max_bins", 256), ("max_bins", "x"), ("max_bins", 2.0), ("max_bins", True),
    ("scheme", "MH"), ("trim", 0.75), ("learning_rate", 0), ("n_jobs", 0),
    ("random_state", -1), ("random_state", 2**32), ("verbose", -1), ("warm_start", 1),
    ("early_stopping", "yes"), ("code", 3), ("feature_types", ["x"]), ("calibration", "t"),
    ("validation_fraction", 1.0), ("tol", -1e-9), ("code_length", 0), ("max_depth", 0)])
def test_a_model_file_with_a_bad_parameter_is_refused_naming_it(tmp_path, name, value):
    # a model file is untrusted input: the command line reads it as a Booster, the library
    # as a BoostClassifier, and both refuse it with the file, the parameter and the value
    X, y, types = _table_fit()
    path = tmp_path / "m.json"
    Booster(2, feature_types=types, calibration=None).fit(X, y).save(path)
    document = json.loads(path.read_text())
    document["params"][name] = value
    del document["checksum"]
    document["version"] = 2  # a version-2 file has no checksum to fix
    path.write_text(json.dumps(document))
    expected = f"{path}: params: {_sklearn_answer(name, value)}"
    assert _sklearn_answer(name, value) is not None
    for read in (lambda: read_model(path, Booster), lambda: load(path)):
        with pytest.raises(ValueError) as refused:
            read()
        assert str(refused.value) == expected


@pytest.mark.parametrize(("given", "learner", "shape", "used"), [
    (("auto", "auto"), "tree", (LARGE_ABOVE + 1, 16, 26), (32, 0.5)),  # letter-like
    (("auto", "auto"), "hamming_tree", (LARGE_ABOVE + 1, LARGE_CELLS, 1), (32, 0.5)),
    (("auto", "auto"), "tree", (LARGE_ABOVE, 16, 26), (16, 1.0)),  # not more than 10,000
    (("auto", "auto"), "tree", (20_000, 784, 10), (16, 1.0)),  # a shared tree asked for
    (("auto", "auto"), "label_trees", (20_000, 784, 10), (LABEL_TREE_LEAVES, 0.5)),  # fashion
    (("auto", "auto"), "label_trees", (LARGE_ABOVE + 1, 16, 26), (LABEL_TREE_LEAVES, 0.5)),
    ((8, "auto"), "label_trees", (100, 5, 3), (8, 0.5)),
    (("auto", "auto"), "tree", (LARGE_ABOVE + 1, LARGE_CELLS + 1, 1), (16, 1.0)),
    (("auto", "auto"), "stump", (10**6, 5, 1), (16, 1.0)),
    (("auto", "auto"), "product", (10**6, 5, 1), (16, 1.0)),
    ((8, "auto"), "tree", (10**6, 5, 1), (8, 0.5)),  # a value set is kept, the other follows
    (("auto", 0.3), "tree", (10**6, 5, 1), (32, 0.3)),
    ((64, 1.0), "tree", (100, 5, 1), (64, 1.0)),
])
def test_auto_tree_size_and_step_follow_the_data_shape(given, learner, shape, used):
    resolved = tree_defaults(*given, learner, *shape)
    assert resolved == used
    assert type(resolved[0]) is int and type(resolved[1]) is float
