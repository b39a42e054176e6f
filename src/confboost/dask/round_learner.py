"""The weak learner a worker runs in a round of the collective (``collective.RoundSpec``).

It is the engine's learner (``engine.learners.make_learner``) with the round's
``CollectiveReducer`` as its reducer, so that its sums are the whole set's, with the two
learners whose local form reads the rows without a reducer replaced by their twins that
take every sum through it: the term learner (``text.ClusterTermLearner``: every term's
masses summed over the workers) and the trimmed stump (``trim.ClusterTrimmedStumpLearner``:
the cut from the workers' summed weight-mass buckets). Their sums are allreduces inside the
round's task, so the round stays one trip.
"""

from confboost.dask.text import ClusterTermLearner
from confboost.dask.trim import ClusterTrimmedStumpLearner
from confboost.engine.learners import BestOfLearner, StumpLearner, TermLearner, make_learner


def round_learner(name, dataset, mode, smoothing, trim, n_terms, reducer):
    """The learner ``name`` for a shard's ``dataset``, its sums through ``reducer``.

    Parameters
    ----------
    name : {"stump", "product"}
        ``weak_learner`` resolved (the trees are ``collective.TREES``).
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
    if isinstance(learner, BestOfLearner):  # the term learner: its sums over the workers
        learner.learners = [ClusterTermLearner(mode, smoothing, reducer)
                            if type(each) is TermLearner else each
                            for each in learner.learners]
    return learner
