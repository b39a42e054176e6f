"""Numba kernels over arrays only: histograms, split search, weight update, prediction.

Every kernel is a module-level ``@njit(cache=True)`` function with a ``_naive`` twin in plain
NumPy/Python that the tests compare it against (DESIGN.md, rules 1 and 3).
"""

from confboost.utils.threads import prefer_yielding_wait

# Before any kernel runs: OpenMP reads its wait policy once, when numba first loads it.
prefer_yielding_wait()
