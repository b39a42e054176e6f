"""Weak learners: each sees (Dataset, weights W, label signs Y) and returns a partition fit.

A learner never knows which scheme called it (paper Eq. 30: the same learner serves MH, MR
and MO). ``HYPOTHESIS_TYPES`` maps a saved hypothesis' ``"type"`` to its class, so a model
file is read as data only.
"""

from confboost.learners.stump import StumpHypothesis, StumpLearner

HYPOTHESIS_TYPES = {StumpHypothesis.type_name: StumpHypothesis}

LEARNERS = {"stump": StumpLearner}

__all__ = ["HYPOTHESIS_TYPES", "LEARNERS", "StumpHypothesis", "StumpLearner"]

# Mixed-data hypotheses (BoosTexter): categorical value tests and text term tests.
from confboost.learners.categorical import CategoricalHypothesis  # noqa: E402
from confboost.learners.term import TermHypothesis  # noqa: E402

HYPOTHESIS_TYPES[CategoricalHypothesis.type_name] = CategoricalHypothesis
HYPOTHESIS_TYPES[TermHypothesis.type_name] = TermHypothesis
