"""Weak learners: each sees (Dataset, weights W, label signs Y) and returns a partition fit.

A learner never knows which scheme called it (paper Eq. 30: the same learner serves MH, MR
and MO). This package's registries are the one place that maps names to classes:
``LEARNERS`` (the ``weak_learner`` parameter; ``choose_learner`` resolves its ``"auto"``,
``make_learner`` builds one for a Dataset) and ``HYPOTHESIS_TYPES`` (a saved hypothesis'
``"type"``, so a model file is read as data only).
"""

from confboost.engine.learners.best_of import BestOfLearner
from confboost.engine.learners.categorical import CategoricalHypothesis, CategoricalLearner
from confboost.engine.learners.exact_stump import ExactStumpLearner
from confboost.engine.learners.label_trees import LabelTreesHypothesis, LabelTreesLearner
from confboost.engine.learners.product import ProductHypothesis, ProductLearner
from confboost.engine.learners.stump import StumpHypothesis, StumpLearner
from confboost.engine.learners.term import TermHypothesis, TermLearner
from confboost.engine.learners.tree import HammingTreeLearner, TreeLearner
from confboost.engine.learners.tree_hypothesis import (
    MAX_LEAVES,
    HammingTreeHypothesis,
    TreeHypothesis,
)
from confboost.engine.reduction import LOCAL
from confboost.utils.dtypes import MAX_BINS

HYPOTHESIS_TYPES = {
    hypothesis.type_name: hypothesis
    for hypothesis in (StumpHypothesis, TreeHypothesis, HammingTreeHypothesis,
                       CategoricalHypothesis, TermHypothesis, ProductHypothesis,
                       LabelTreesHypothesis)
}

#: Learners that take the tree parameters (max_leaves, max_depth, min_leaf_weight).
TREE_LEARNERS = {"tree": TreeLearner, "hamming_tree": HammingTreeLearner,
                 "label_trees": LabelTreesLearner}
LEARNERS = {"stump": StumpLearner, **TREE_LEARNERS, "product": ProductLearner}

#: ``weak_learner="auto"`` grows trees on more examples than this, stumps up to it. Measured
#: with the other defaults (100 rounds, the temperature; ``benchmarks/probabilities.py
#: --grid``): trees of 16 leaves beat stumps on letter (16,000 examples: 95.9% against 78.8%
#: accuracy), pendigits (7,494: 97.7% against 93.3%) and satimage (4,435: 91.1% against
#: 86.8%), and lose on yeast-ml (1,500: 77.5% against 78.3% per label) and wine (142 a fold:
#: 96.6% against 98.3%). 2,500 lies between yeast-ml and satimage (near their geometric
#: mean); size is a rough guide (trees also won on scene, 1,211, and emotions, 391).
TREES_ABOVE = 2_500


def choose_learner(name, n_samples, trim=0.0):
    """The weak learner a fit on ``n_samples`` examples uses for the parameter ``name``.

    ``"auto"``: ``"tree"`` above ``TREES_ABOVE`` examples, ``"stump"`` up to it or when
    weight trimming (a stump parameter) is on; any other name is itself.
    """
    if name != "auto":
        return name
    return "tree" if n_samples > TREES_ABOVE and trim == 0 else "stump"


def make_learner(name, dataset, mode, smoothing, *, trim=0.0, n_terms=3, max_leaves=8,
                 max_depth=None, min_leaf_weight=0.0, reducer=LOCAL):
    """The weak learner ``name`` for ``dataset``, with its parameters.

    ``"stump"`` on a Dataset with categorical, text or exact columns is the best of the
    stump, exact stump, categorical and term learners (``BestOfLearner``); trees split on
    every kind of column but exact ones; a product and weight trimming read binned
    continuous columns only.

    Parameters
    ----------
    name : {"stump", "tree", "hamming_tree", "label_trees", "product"}
    dataset : Dataset
    mode : int
        Confidence mode code.
    smoothing : float
    trim, n_terms, max_leaves, max_depth, min_leaf_weight
        The parameters of the stump, product and tree learners.
    reducer : Reducer, default=LOCAL
        Where the stump, categorical, term, product and tree learners' sums are taken
        (``engine/reduction.py``).
    """
    mixed = bool(dataset.categorical or dataset.text)
    if dataset.exact and (name != "stump" or trim > 0):
        raise ValueError("max_bins=None (every threshold of a column with more than "
                         f"{MAX_BINS} values) is for stumps without trimming; "
                         f"weak_learner={name!r}, trim={trim!r} need binned columns")
    if dataset.exact:
        return BestOfLearner([StumpLearner(mode, smoothing, reducer=reducer),
                              ExactStumpLearner(mode, smoothing),
                              CategoricalLearner(mode, smoothing, reducer),
                              TermLearner(mode, smoothing, reducer)])
    if name in TREE_LEARNERS:
        return TREE_LEARNERS[name](mode, smoothing, max_leaves=max_leaves,
                                   max_depth=max_depth, min_leaf_weight=min_leaf_weight,
                                   reducer=reducer)
    if name == "product":
        if mixed:
            raise ValueError("weak_learner='product' needs numeric features; a table with "
                             "categorical or text columns is boosted with stumps or trees")
        return ProductLearner(mode, smoothing, n_terms=n_terms, reducer=reducer)
    if not mixed:
        return StumpLearner(mode, smoothing, trim=trim, reducer=reducer)
    if trim > 0:
        raise ValueError("trim applies to numeric features only; a table with categorical "
                         "or text columns is boosted without trimming (trim=0)")
    return BestOfLearner([StumpLearner(mode, smoothing, reducer=reducer),
                          CategoricalLearner(mode, smoothing, reducer),
                          TermLearner(mode, smoothing, reducer)])


__all__ = ["HYPOTHESIS_TYPES", "LEARNERS", "MAX_LEAVES", "TREE_LEARNERS", "BestOfLearner",
           "CategoricalHypothesis", "ExactStumpLearner", "HammingTreeHypothesis",
           "HammingTreeLearner", "LabelTreesHypothesis", "LabelTreesLearner",
           "ProductHypothesis", "ProductLearner", "StumpHypothesis", "StumpLearner",
           "TermHypothesis", "TreeHypothesis", "TreeLearner", "make_learner"]
