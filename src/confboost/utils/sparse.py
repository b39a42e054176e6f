"""``issparse`` without importing SciPy, so that a command that reads no sparse matrix
starts without loading it.

A SciPy sparse matrix can exist only once ``scipy.sparse`` has been imported, so a process
that never imported it holds none: the test costs nothing there, and SciPy's own test answers
everywhere else.
"""

import sys


def issparse(X):
    """``scipy.sparse.issparse(X)``, importing nothing.

    Parameters
    ----------
    X : object

    Returns
    -------
    bool
    """
    module = sys.modules.get("scipy.sparse")
    return module is not None and module.issparse(X)
