"""What every worker runs in a round of the collective (``collective.shard_rounds``): the
round's parameters, its weak learner and the rest of the round (``RoundSpec``).

The learner is the engine's learner (``engine.learners.make_learner``) with the round's
``CollectiveReducer`` as its reducer, so that its sums are the whole set's: no learner has
a twin (the trimmed stump's weight-mass buckets, kept rows' histogram and block statistics;
the term learner's present blocks, a shard's text columns scoring every term, ``text.py``;
a tree's node histograms and sizes, categorical masses, term masses, votes and leaf
statistics: a shard's text column scores every term there too). Their sums are allreduces inside
the round's task, so the round stays one trip (the scheme's too: multi-label MR's cut is
taken by its update, ``engine/schemes/mr_cut.py``).
"""

from dataclasses import dataclass

from confboost.dask.cluster_label_trees import label_trees_recipe
from confboost.dask.collective import tree_recipe
from confboost.engine.boosting import round_step
from confboost.engine.learners import TREE_LEARNERS, make_learner


@dataclass
class RoundSpec:
    """What every rank needs to run a round: the learner's and the loop's parameters.

    Attributes
    ----------
    learner : str
        ``weak_learner`` resolved.
    mode : int
    smoothing : float
    alpha_method : str
    learning_rate : float
    learner_params : dict
        ``n_terms``, ``trim`` and the tree parameters.
    """

    learner: str
    mode: int
    smoothing: float
    alpha_method: str
    learning_rate: float
    learner_params: dict

    def make_learner(self, dataset, reducer):
        """This rank's learner: the engine's (``make_learner``, as a local fit makes it)
        on the shard's ``dataset``, its sums through ``reducer`` (the round's
        ``CollectiveReducer``)."""
        return make_learner(self.learner, dataset, self.mode, self.smoothing, reducer=reducer,
                            **self.learner_params)

    def blocks_recipe(self, learner, reducer, fit):
        """How a later task makes the round's blocks on any shard: a tree's (a tree per
        label's) from the node arrays of the trees ``learner`` grew, the other learners'
        from ``reducer``'s recipe of ``fit.train_blocks``."""
        if self.learner == "label_trees":
            return label_trees_recipe(learner.grown)
        if self.learner in TREE_LEARNERS:
            return tree_recipe(learner.grown)
        return reducer.recipe(fit.train_blocks)

    def finish(self, scheme, fit):
        """The rest of Figure 1's round after the learner (``BoostingRun.run``'s own
        ``boosting.round_step``): α, then the scheme's update; returns the update's Z_t."""
        return round_step(scheme, fit, self.alpha_method, self.mode, self.smoothing,
                          self.learning_rate)[2]
