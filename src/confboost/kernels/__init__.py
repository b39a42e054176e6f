"""Numba kernels over arrays only: histograms, split search, weight update, prediction.

Every kernel is a module-level ``@njit(cache=True)`` function with a ``_naive`` twin in plain
NumPy/Python that the tests compare it against (DESIGN.md, rules 1 and 3). Loading this
package changes no process-wide setting: it only makes a pip-installed TBB findable for
numba's threads (``confboost.utils.threads.load_installed_tbb``), before any kernel runs.
"""

from confboost.utils.threads import load_installed_tbb

load_installed_tbb()
