"""Weak learners: each sees (Dataset, weights W, label signs Y) and returns a partition fit.

A learner never knows which scheme called it (paper Eq. 30: the same learner serves MH, MR
and MO). ``HYPOTHESIS_TYPES`` maps a saved hypothesis' ``"type"`` to its class, so a model
file is read as data only.
"""

from confboost.learners.categorical import CategoricalHypothesis
from confboost.learners.mixed_tree import (
    MixedHammingTreeHypothesis,
    MixedHammingTreeLearner,
    MixedTreeHypothesis,
    MixedTreeLearner,
)
from confboost.learners.product import ProductHypothesis, ProductLearner
from confboost.learners.stump import StumpHypothesis, StumpLearner
from confboost.learners.term import TermHypothesis
from confboost.learners.tree import (
    HammingTreeHypothesis,
    HammingTreeLearner,
    TreeHypothesis,
    TreeLearner,
)

HYPOTHESIS_TYPES = {
    hypothesis.type_name: hypothesis
    for hypothesis in (StumpHypothesis, TreeHypothesis, HammingTreeHypothesis,
                       CategoricalHypothesis, TermHypothesis, MixedTreeHypothesis,
                       MixedHammingTreeHypothesis, ProductHypothesis)
}

#: Learners that take the tree parameters (max_leaves, max_depth, min_leaf_weight).
TREE_LEARNERS = {"tree": TreeLearner, "hamming_tree": HammingTreeLearner}
#: The tree learners of mixed tables (``MixedDataset``), by the same names.
MIXED_TREE_LEARNERS = {"tree": MixedTreeLearner, "hamming_tree": MixedHammingTreeLearner}
LEARNERS = {"stump": StumpLearner, **TREE_LEARNERS, "product": ProductLearner}

__all__ = ["HYPOTHESIS_TYPES", "LEARNERS", "MIXED_TREE_LEARNERS", "TREE_LEARNERS",
           "CategoricalHypothesis", "HammingTreeHypothesis", "HammingTreeLearner",
           "MixedHammingTreeHypothesis", "MixedHammingTreeLearner", "MixedTreeHypothesis",
           "MixedTreeLearner", "ProductHypothesis", "ProductLearner", "StumpHypothesis",
           "StumpLearner", "TermHypothesis", "TreeHypothesis", "TreeLearner"]
