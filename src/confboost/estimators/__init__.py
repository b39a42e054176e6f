"""The estimators users hold: ``Booster`` (no scikit-learn) and ``BoostClassifier``.

``BoostClassifier`` and ``load`` are imported on first access, so that ``Booster`` (the
command line's estimator) never pulls in scikit-learn.
"""

__all__ = ["BoostClassifier", "load"]


def __getattr__(name):
    """``BoostClassifier`` and ``load`` from ``classifier``, on first access."""
    if name in __all__:
        from confboost.estimators import classifier

        return getattr(classifier, name)
    raise AttributeError(f"module 'confboost.estimators' has no attribute {name!r}")
