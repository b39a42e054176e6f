"""Distributed training on Dask: ``DaskBoostClassifier``, the local engine over shards.

Requires the ``dask`` extra: ``pip install 'confboost[dask]'``. The check below is the
layer's one guard: every module of this package imports Dask plainly after it.
"""

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is installed in the dev env
    raise ImportError("confboost.dask needs Dask: pip install 'confboost[dask]' "
                      "(dask[distributed])") from error

from confboost.dask.dask_classifier import DaskBoostClassifier

__all__ = ["DaskBoostClassifier"]
