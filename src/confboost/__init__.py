"""confboost: boosting with confidence-rated predictions.

Schapire & Singer, "Improved Boosting Algorithms Using Confidence-rated Predictions" (1999):
generalized AdaBoost, AdaBoost.MH, MR and MO, and the BoosTexter system built on them.
``import confboost`` has no side effects and imports no optional dependency.
"""

from confboost.estimators import BoostClassifier, load

__version__ = "0.1.0"

__all__ = ["BoostClassifier", "load", "__version__"]
