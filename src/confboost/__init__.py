"""confboost: boosting with confidence-rated predictions.

Schapire & Singer, "Improved Boosting Algorithms Using Confidence-rated Predictions" (1999):
generalized AdaBoost, AdaBoost.MH, MR and MO, and the BoosTexter system built on them.
``import confboost`` imports nothing but this file and ``_legacy`` (the finder that keeps
the module paths of 0.1 importable): NumPy, the estimator (scikit-learn, SciPy) and the
numba kernels load when first used (DESIGN.md rule 13), so a command or a worker process
pays only for what it runs.
"""

from confboost import _legacy

__version__ = "0.2.0"

__all__ = ["BoostClassifier", "load", "__version__"]


def __getattr__(name):
    """``confboost.BoostClassifier`` and ``confboost.load``, imported on first access."""
    if name in ("BoostClassifier", "load"):
        from confboost.estimators import classifier

        return getattr(classifier, name)
    raise AttributeError(f"module 'confboost' has no attribute {name!r}")


_legacy.install()


def __dir__():
    return sorted(__all__)
