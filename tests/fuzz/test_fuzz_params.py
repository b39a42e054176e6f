"""Fuzzer of parameters (``training/params.py``): every random combination is answered
alike by the plain checker and scikit-learn's validation, and then fits a model predicting
finite scores, or is refused with one line naming a parameter it was given.

Each parameter is drawn, with probability 0.3, from its valid values, the edges of its
range, and values of the wrong type or range (NaN, infinities, negative and subnormal
numbers, bools for numbers, NumPy scalars, bad class weights). Short run in ``make test``,
long run in ``make fuzz``.
"""

import functools
import math
import warnings

import numpy as np
from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints

from confboost import BoostClassifier
from confboost.data.text_experts import TextExpert
from confboost.training.params import check_across, check_parameters

from .fuzzing import Bound, Tally, cases, generator, run_case

RNG = np.random.default_rng(4)
X = RNG.normal(size=(60, 3))
Y = np.digitize(X[:, 0], [-0.4, 0.4])
BAD_NUMBERS = [float("nan"), float("inf"), -float("inf"), -1, -1e-300, 0, 1e-310, 5e-324,
               True, "1", None, np.float32(0.25), np.int64(2), 2**70]

#: Each parameter's valid values, then its invalid ones.
POOLS = {
    "n_estimators": ([1, 2, 4, np.int64(3)], [0, -1, 2.0, True, None]),
    "scheme": (["mh", "mr", "mo"], ["MH", "", None, 3]),
    "confidence": (["real", "discrete", "abstain", "real-abstain"], ["x", None]),
    "alpha": (["auto", "exact", "freund-schapire"], ["x", 1.0]),
    "smoothing": (["auto", 0.5, 1e-300, 1e300], BAD_NUMBERS),
    "code": (["random", "exhaustive", "one-vs-rest", [[1, -1], [-1, 1], [1, 1]]],
             ["x", [[1, 1], [1, 1], [1, 1]], [[0.5, 1], [1, -1], [-1, 1]]]),
    "decoding": (["loss", "hamming"], ["x"]),
    "init": (["uniform", "balanced"], ["x"]),
    "code_length": ([None, 1, 3], [0, -2, 2.5]),
    "max_bins": ([2, 16, 255], [1, 256, 3.0]),
    "trim": ([0.0, 0.1, 0.5], [0.6, *BAD_NUMBERS]),
    "n_jobs": ([None, 1, 2, -1], [0, -2, 1.5]),
    "random_state": ([None, 0, 2**32 - 1, np.random.RandomState(0)], [2**32, -1, "x"]),
    "weak_learner": (["auto", "stump", "tree", "hamming_tree", "product"], ["x"]),
    "max_leaves": ([2, 4], [1, 10**9, 3.0]),
    "max_depth": ([None, 1, 3], [0, -1]),
    "min_leaf_weight": ([0.0, 0.1, 0.5], [0.7, *BAD_NUMBERS]),
    "product_terms": ([1, 2, 16], [17, 0]),
    "learning_rate": ([1.0, 0.5, 1e-300], [0.0, 1.5, *BAD_NUMBERS]),
    "text_expert": ([None, TextExpert()], [{"x": TextExpert()}, "ngram"]),
    "early_stopping": (["auto", True, False, np.bool_(True)], [1, "yes"]),
    "validation_fraction": ([0.1, 0.5], [0.0, 1.0, *BAD_NUMBERS]),
    "n_iter_no_change": ([1, 3], [0, -1]),
    "tol": ([0.0, 1e-4], [-1e-4, *BAD_NUMBERS]),
    "class_weight": ([None, "balanced", {0: 1.0, 1: 2.0, 2: 1.0}],
                     [{0: -1.0, 1: 1.0, 2: 1.0}, {0: 0.0, 1: 1.0, 2: 1.0},
                      {0: math.nan, 1: 1.0, 2: 1.0}, {0: math.inf, 1: 1.0, 2: 1.0},
                      {0: True, 1: 1.0, 2: 1.0}, "x"]),
    "calibration": ([None, "temperature"], ["isotonic"]),
}


def _sklearn_answer(params):
    try:
        validate_parameter_constraints(BoostClassifier._parameter_constraints, params,
                                       "BoostClassifier")
    except InvalidParameterError as error:
        return str(error)
    return None


def _plain_answer(params):
    try:
        check_parameters(params)
    except ValueError as error:
        return str(error)
    return None


def _case(estimator, params, everything):
    """Fit on the small problem: finite scores, or a ValueError naming a parameter."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence and kind warnings
        try:
            estimator.fit(X, Y)
        except ValueError as error:
            named = [name for name in params if name in str(error)]
            assert named, f"{params}: the error names none of them: {error}"
            raise
    if _plain_answer(everything) is None:
        check_across(everything)  # accepted by the fit: the checks agree
    assert np.isfinite(estimator.decision_function(X)).all(), params
    return estimator


def test_fuzzed_parameters():
    rng = generator("params")
    tally = Tally("params")
    for number in range(cases(25)):
        params = {name: rng.choice(valid if rng.random() < 0.85 else invalid)
                  for name, (valid, invalid) in POOLS.items() if rng.random() < 0.3}
        params.setdefault("n_estimators", rng.choice([1, 2, 4]))
        estimator = BoostClassifier(**params)
        everything = estimator.get_params()
        assert _plain_answer(everything) == _sklearn_answer(everything), params

        run_case(functools.partial(_case, estimator, params, everything), tally,
                 input_size=0, bound=Bound(seconds=120, base_mb=128),
                 what=f"case {number}: {params}")
    print(tally.report())
    assert tally.accepted and tally.refused
