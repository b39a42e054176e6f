"""The C library's ``exp`` and ``log`` on arrays: the functions icsiboost calls.

NumPy computes ``np.exp`` and ``np.log`` of float64 arrays with its own SIMD code on CPUs
that have it (AVX-512), and those results differ from the C library's in the last bit for
some arguments; so a model computed with them depends on the CPU, and differs from
icsiboost's. Python's ``math.exp`` and ``math.log`` call the C library. The arrays these
functions take are small (a hypothesis's blocks × labels), so an element at a time costs
microseconds.
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


_EXP = np.frompyfunc(_exp, 1, 1)
_LOG = np.frompyfunc(_log, 1, 1)


def exp(values):
    """e^x of every element, by the C library; ``inf`` where it overflows.

    Parameters
    ----------
    values : array_like of float

    Returns
    -------
    ndarray of float64, the shape of ``values``
    """
    with np.errstate(over="ignore"):  # the C library's overflow flag, caught in ``_exp``
        return np.asarray(_EXP(np.asarray(values, dtype=np.float64)), dtype=np.float64)


def log(values):
    """ln x of every element, by the C library; ``-inf`` at 0 and ``nan`` below, as NumPy.

    Parameters
    ----------
    values : array_like of float

    Returns
    -------
    ndarray of float64, the shape of ``values``
    """
    return np.asarray(_LOG(np.asarray(values, dtype=np.float64)), dtype=np.float64)
