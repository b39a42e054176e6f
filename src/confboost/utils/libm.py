"""The C library's ``exp`` and ``log`` on arrays: the functions icsiboost calls.

NumPy computes ``np.exp`` and ``np.log`` of float64 arrays with its own SIMD code on CPUs
that have it (AVX-512), and those results differ from the C library's in the last bit for
some arguments; so a model computed with them depends on the CPU, and differs from
icsiboost's. Python's ``math.exp`` and ``math.log`` call the C library. The arrays these
functions take are small (a hypothesis's blocks × labels), so an element at a time costs
microseconds: ``map`` over a list of the elements, 0.1 µs each (a ``np.frompyfunc`` of a
Python function that catches the overflow took four times that, 0.25 ms of a letter round's
10 ms for its 16 × 26 exp twice and log once); only an array with an element out of the
C library's range (an overflow, a log of 0 or below) is taken again by the slower function.
"""

import math

import numpy as np


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log(x):
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


def _elementwise(function, fallback, error, values):
    """``function`` of every element of ``values`` (float64), or ``fallback`` of every one
    when ``function`` raises ``error`` on one; an array of ``values``'s shape."""
    values = np.asarray(values, dtype=np.float64)
    flat = values.ravel().tolist()
    try:
        out = list(map(function, flat))
    except error:
        out = list(map(fallback, flat))
    return np.array(out, dtype=np.float64).reshape(values.shape)


def exp(values):
    """e^x of every element, by the C library; ``inf`` where it overflows.

    Parameters
    ----------
    values : array_like of float

    Returns
    -------
    ndarray of float64, the shape of ``values``
    """
    return _elementwise(math.exp, _exp, OverflowError, values)


def log(values):
    """ln x of every element, by the C library; ``-inf`` at 0 and ``nan`` below, as NumPy.

    Parameters
    ----------
    values : array_like of float

    Returns
    -------
    ndarray of float64, the shape of ``values``
    """
    return _elementwise(math.log, _log, ValueError, values)
