"""``utils.libm``: the C library's exp and log, element by element, at every shape, with
the out-of-range elements that make ``math`` raise."""

import math

import numpy as np

from confboost.utils import libm


def _reference(function, values):
    """``function`` of each element of ``values``, one at a time, as a float64 array."""
    values = np.asarray(values, dtype=np.float64)
    return np.array([function(float(x)) for x in values.ravel()],
                    dtype=np.float64).reshape(values.shape)


def _exp_or_inf(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log_or_limit(x):
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


def test_exp_is_the_c_library_element_by_element():
    rng = np.random.default_rng(3)
    values = rng.uniform(-40.0, 40.0, size=(16, 26))
    assert np.array_equal(libm.exp(values), _reference(math.exp, values))
    values[3, 5] = 1e4  # one overflow: every element still the C library's, that one inf
    values[0, 0], values[0, 1], values[0, 2] = np.nan, np.inf, -np.inf
    got = libm.exp(values)
    assert np.array_equal(got, _reference(_exp_or_inf, values), equal_nan=True)
    assert got[3, 5] == np.inf and got[0, 2] == 0.0 and np.isnan(got[0, 0])


def test_log_is_the_c_library_element_by_element():
    rng = np.random.default_rng(4)
    values = rng.uniform(1e-300, 1e3, size=(16, 26))
    assert np.array_equal(libm.log(values), _reference(math.log, values))
    values[1, :4] = [0.0, -2.0, -np.inf, np.nan]  # math raises on the first three
    got = libm.log(values)
    assert np.array_equal(got, _reference(_log_or_limit, values), equal_nan=True)
    assert got[1, 0] == -np.inf and np.isnan(got[1, 1]) and np.isnan(got[1, 2])


def test_shapes_and_scalars_are_kept():
    assert libm.exp(0.0).shape == () and libm.exp(0.0) == 1.0
    assert libm.log([[1.0], [math.e]]).shape == (2, 1)
    assert libm.exp(np.empty((0, 3))).shape == (0, 3)
    assert libm.exp(np.arange(6.0).reshape(2, 3)[:, ::2]).shape == (2, 2)
