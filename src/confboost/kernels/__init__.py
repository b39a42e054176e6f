"""Numba kernels over arrays only: histograms, split search, weight update, prediction.

Every kernel is a module-level ``@njit(cache=True)`` function with a ``_naive`` twin in plain
NumPy/Python that the tests compare it against (DESIGN.md, rules 1 and 3). The kernels take
``njit`` and ``prange`` from ``confboost.utils.lazy_numba``: importing them loads no numba,
and the first kernel call does (with TBB for its threads where pip installed it). Nothing
here changes a process-wide setting.
"""
