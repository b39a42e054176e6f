"""What every worker runs in a round of the collective (``collective.shard_rounds``): the
round's parameters and rest (``RoundSpec``) and its weak learner (``round_learner``).

The learner is the engine's learner (``engine.learners.make_learner``) with the round's
``CollectiveReducer`` as its reducer, so that its sums are the whole set's (the term
learner's too: a shard's text columns have it score every term, ``text.py``), with the
learner whose local form reads the rows without a reducer replaced by its twin that
takes every sum through it: the trimmed stump (``trim.ClusterTrimmedStumpLearner``:
the cut from the workers' summed weight-mass buckets). Its sums are allreduces inside the
round's task, so the round stays one trip. The multi-label MR cut is taken in the round
too, after the update (``RoundSpec.cut``).
"""

from dataclasses import dataclass

from confboost.dask.cluster_label_trees import CollectiveLabelTreesLearner
from confboost.dask.collective import TREES
from confboost.dask.cut import cluster_threshold
from confboost.dask.trim import ClusterTrimmedStumpLearner
from confboost.engine.boosting import round_step
from confboost.engine.learners import StumpLearner, make_learner

#: The learners that grow trees over the collective's link, by ``weak_learner``: a shared
#: tree, a Hamming tree, a tree per label.
TREE_ROUNDS = {**TREES, "label_trees": CollectiveLabelTreesLearner}


def round_learner(name, dataset, mode, smoothing, trim, n_terms, reducer):
    """The learner ``name`` for a shard's ``dataset``, its sums through ``reducer``.

    Parameters
    ----------
    name : {"stump", "product"}
        ``weak_learner`` resolved (the trees are ``TREE_ROUNDS``).
    dataset : Dataset
        The shard's rows.
    mode : int
        Confidence mode code.
    smoothing : float
    trim : float
        β of weight trimming (0: none).
    n_terms : int
        A product's terms.
    reducer : Reducer
        The round's ``CollectiveReducer``.
    """
    learner = make_learner(name, dataset, mode, smoothing, trim=trim, n_terms=n_terms,
                           reducer=reducer)
    if type(learner) is StumpLearner and learner.trim > 0:  # its cut from bucket sums
        return ClusterTrimmedStumpLearner(mode, smoothing, learner.trim, reducer)
    return learner


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
    cut : bool
        Multi-label MR: the round's cut after the update, its histograms in the log.
    """

    learner: str
    mode: int
    smoothing: float
    alpha_method: str
    learning_rate: float
    learner_params: dict
    cut: bool = False

    def make_learner(self, link, dataset, reducer):
        """This rank's learner: ``round_learner``'s over ``reducer``, a tree over ``link``."""
        params = dict(self.learner_params)
        n_terms, trim = params.pop("n_terms"), params.pop("trim", 0.0)  # not the trees'
        if self.learner in TREE_ROUNDS:
            return TREE_ROUNDS[self.learner](link, self.mode, self.smoothing, **params)
        return round_learner(self.learner, dataset, self.mode, self.smoothing, trim, n_terms,
                             reducer)

    def finish(self, scheme, fit):
        """The rest of Figure 1's round after the learner (``BoostingRun.run``'s own
        ``boosting.round_step``): α, then the scheme's update (and MR's multi-label cut,
        ``cut``); returns the update's Z_t."""
        z = round_step(scheme, fit, self.alpha_method, self.mode, self.smoothing,
                       self.learning_rate)[2]
        if self.cut:
            cluster_threshold(scheme.reducer, scheme)
        return z
