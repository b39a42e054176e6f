"""The collective of a distributed fit: the same round on every worker, its sums allreduced.

XGBoost trains on many machines through one ``collective`` (an allreduce at each sum), and
LightGBM's Dask layer runs the same training function on every worker. Here a round runs
on every worker that holds rows (``run_round``; a task of several rounds, ``shard_rounds``):
the engine's own weak learner runs on the worker's shard, then the scheme's
``choose_alpha`` and ``update`` (Figure 1's loop body), with a ``CollectiveReducer`` as
their reducer:

- ``sum``: the function of the shard's own rows, allreduced over the fit's workers;
- ``total``: a value the learner computed of the shard's own rows, allreduced (a tree's
  node histograms in place, ``Link.allreduce_into``);
- ``rows``: the function of the shard's rows, kept here (and how to make it again on any
  shard: ``recipe``);
- ``apply``: the shard's scheme changed in place, what it returns allreduced (and kept in
  the round's ``log``).

Every worker gets the identical sum (added up a binomial tree of the ranks in a fixed
pairwise order and sent back down from rank 0, ``link.Link.allreduce``), so every worker
makes the identical choice at each split and grows the identical tree; one rank returns
it. The tree learners are the local ones (``engine.learners.make_learner`` with the round's
reducer): their row sets, splitter (a text column's term masses too, per term of the
common vocabulary on a shard, ``text.py``) and leaves take their sums through ``total``.
What stays here is a tree's blocks made again on any shard from its node arrays
(``tree_recipe``: they come from the grower's rows, not from ``rows``); the round's cover
rides with a shared or Hamming tree's leaf statistics (``tree_cover``,
``TreeLearner.leaf_extra``), saving the round an allreduce of its own. On one rank every
allreduce is the identity, so a collective of one worker is the local fit, bit for bit.

The client's side of a round (``CollectiveLearner``) gets the round's hypothesis, its block
statistics and the log of the scheme's allreduced results; the client's scheme of no rows
then runs the same ``choose_alpha`` and ``update`` and reads each of its sums from the log
(``shards.ClusterReducer``), so the client's α, Z_t and loss are the workers'. What a round
did is recorded as a ``Recorded`` round: after a lost worker the rebuilt shards replay it
(``shard_replay``) without a collective: the blocks from the recipe, the sums from the log.
A trip's rounds stop early only where the client's loop would (``boosting.no_edge``); the
client takes them one by one and may stop before their end (``CollectiveLearner.finish``,
``LearnerCalls``).

The link between the ranks (TCP sockets, ``Link.allreduce``) is ``dask/link.py``.
"""

from dataclasses import dataclass
from functools import partial

import numpy as np
from distributed import get_worker, secede

from confboost.dask.link import join, listen
from confboost.engine.boosting import no_edge
from confboost.engine.callbacks import TrainingCallback
from confboost.engine.learners.base import PartitionFit
from confboost.engine.learners.tree import TreeLearner
from confboost.explain.contributions import block_cover_of
from confboost.kernels.tree_nodes import (
    code_goes_left,
    term_goes_left,
    value_goes_left,
)
from confboost.utils.dtypes import BLOCK_DTYPE, NODE_TERM, NODE_THRESHOLD
from confboost.utils.threads import numba_threads


class OnShards:
    """A value over the rows kept on the shards: each shard's part is ``function(its
    dataset, *args)``, made where it is read (a round's blocks: ``CollectiveReducer.rows``'
    recipe, a tree's ``tree_code_blocks``).

    Parameters
    ----------
    function : callable
    args : tuple

    Attributes
    ----------
    cover : ndarray or None
        Σ of the sample weights of the rows at each value of the array (its weighted
        ``bincount``), over every shard, when the round that made it took it
        (``run_round``); None when a later task must (``shards.ClusterReducer.covers``).
    """

    def __init__(self, function, args):
        self.function = function
        self.args = args
        self.cover = None

    def on(self, dataset):
        """This shard's part (an ``OnShards`` among the arguments: its part too)."""
        return self.function(dataset, *resolved(self.args, dataset))


def resolved(args, dataset):
    """``args`` with each ``OnShards`` replaced by its part on the shard's ``dataset``."""
    return [arg.on(dataset) if isinstance(arg, OnShards) else arg for arg in args]


#: Cells (float64) of a slice of a text learner's per-list sums on a shard
#: (``engine/reduction.slices``): 32 MiB an array, so the icsiboost stems and the tests'
#: sets (every term of the common vocabulary a row) are one slice, one allreduce, as the
#: sums of every list were; Reuters-21578's 338k terms × 90 labels, 8 slices. A slice more
#: costs one more allreduce inside the round's task (the pairwise tree's latency, about
#: log2(workers) link hops; the bytes of a round are the same), never a scheduler trip.
CLUSTER_SLICE_CELLS = 1 << 22


class CollectiveReducer:
    """The ``engine/protocols.Reducer`` of one rank of a collective (module docstring).

    Parameters
    ----------
    link : Link

    Attributes
    ----------
    slice_cells : int
        ``CLUSTER_SLICE_CELLS``.
    log : list
        The allreduced results of the round's ``apply`` calls, in order.
    recipes : dict
        id of an array ``rows`` returned -> (the array, its ``OnShards`` recipe).
    """

    slice_cells = CLUSTER_SLICE_CELLS

    def __init__(self, link):
        self.link = link
        self.log = []
        self.recipes = {}

    def sum(self, function, dataset, weights, labels, *args, out=None):
        if out is None:
            return self.link.allreduce(function(dataset, weights, labels, *args))
        local = function(dataset, weights, labels, *args, out=out)
        total = self.link.allreduce(local)
        if total is not local:
            out[...] = total
        return out

    def total(self, value, out=None):
        if out is None:
            return self.link.allreduce(value)
        if out is value and out.flags.c_contiguous and out.dtype == np.float64:
            return self.link.allreduce_into(out)
        out[...] = self.link.allreduce(value)
        return out

    def rows(self, function, dataset, *args):
        result = function(dataset, *args)
        made = [self.recipes[id(arg)][1] if id(arg) in self.recipes else arg for arg in args]
        self.recipes[id(result)] = (result, OnShards(function, made))
        return result

    def apply(self, function, scheme, *args):
        total = self.link.allreduce(function(scheme, *args))
        self.log.append(total)
        return total

    def recipe(self, array):
        """How a later task makes ``array`` (returned by ``rows``) on any shard."""
        return None if array is None else self.recipes[id(array)][1]


def tree_recipe(tree):
    """How a later task makes a grown tree's blocks on any shard (``OnShards`` of
    ``tree_code_blocks``): a tree's blocks come from the grower's row sets, not from
    ``CollectiveReducer.rows``.

    Parameters
    ----------
    tree : GrownTree
    """
    return OnShards(tree_code_blocks, (tree.kind, tree.feature, tree.threshold_bin,
                                       tree.missing_left, tree.left, tree.right))


def tree_cover(sample_weight, unit, tree):
    """Σ of the shard's sample weights at each leaf of a grown tree (``block_cover_of``),
    shape (n_leaves,): the round's cover, summed with the leaves' statistics
    (``TreeLearner.leaf_extra``)."""
    return block_cover_of(tree.train_blocks, sample_weight, unit, tree.n_leaves)


def tree_code_blocks(dataset, kind, feature, threshold_bin, missing_left, left, right):
    """The leaf of every row of a ``Dataset`` under a grown tree, shape (n_samples,), uint8.

    A row goes left by the rules growth uses (``kernels/tree_nodes.code_goes_left`` at a
    threshold node, ``value_goes_left`` at a value node, the value code ``threshold_bin``,
    ``term_goes_left`` at a term node, the term ``threshold_bin``), so the leaves are those
    of the growth.

    Parameters
    ----------
    dataset : Dataset
    kind, feature, threshold_bin : ndarray of shape (n_nodes,), intp
        ``GrownTree``'s node arrays (``feature``: a row of ``codes``, or an index into the
        categorical columns that have values or the text columns that have terms, as
        ``NodeSplits.categorical`` and ``NodeSplits.text``).
    missing_left : ndarray of shape (n_nodes,), bool
    left, right : ndarray of shape (n_nodes,), intp
    """
    out = np.zeros(dataset.n_samples, dtype=BLOCK_DTYPE)
    if kind.shape[0] == 0:
        return out
    categorical = [column for column in dataset.categorical if column.values]
    text = [column for column in dataset.text if column.n_terms > 0]
    stack = [(0, np.arange(dataset.n_samples, dtype=np.intp))]
    while stack:
        node, rows = stack.pop()
        if kind[node] == NODE_THRESHOLD:
            goes_left = code_goes_left.py_func(dataset.codes[feature[node], rows],
                                               threshold_bin[node], missing_left[node])
        elif kind[node] == NODE_TERM:
            goes_left = term_goes_left(text[feature[node]].postings(threshold_bin[node]), rows,
                                       np.zeros(dataset.n_samples, dtype=bool))
        else:
            goes_left = value_goes_left.py_func(categorical[feature[node]].codes[rows],
                                                threshold_bin[node])
        for child, child_rows in ((left[node], rows[goes_left]), (right[node], rows[~goes_left])):
            if child < 0:
                out[child_rows] = -child - 1
            else:
                stack.append((child, child_rows))
    return out


@dataclass
class Recorded:
    """A round as the client sees it and a rebuilt shard replays it.

    Attributes
    ----------
    fit : PartitionFit
        The round's hypothesis and block statistics; ``train_blocks`` (and a product's
        ``train_patterns``) an ``OnShards`` recipe.
    log : list
        The scheme's allreduced results, in the order ``choose_alpha`` and ``update``
        asked for them.
    """

    fit: PartitionFit
    log: list


class _Replayed:
    """A reducer that changes the shard's scheme and answers each ``apply`` from a log."""

    def __init__(self, log):
        self.log = list(log)

    def apply(self, function, scheme, *args):
        function(scheme, *args)
        return self.log.pop(0)


def _worker_threads():
    """The kernels' threads in a task: the worker's own thread count (as LightGBM's Dask
    layer sets ``num_threads``), so two workers on one machine do not each take every core."""
    try:
        return get_worker().state.nthreads
    except ValueError:  # not in a worker (a local scheduler)
        return None


def shard_listen(shard, timeout):
    """A rank with children in the collective's tree (``link.children``): a listening
    socket kept on the shard; returns its (host, port)."""
    shard.close()
    shard.server, address = listen(timeout)
    return address


def shard_rounds(shard, rank, size, addresses, token, spec, round_index, count, timeout):
    """Rounds ``round_index`` on of this rank's shard, as one task (``run_round`` each):
    ``count`` of them, fewer when one leaves no edge (``boosting.no_edge``: the
    client's loop stops there too); rank 0 returns their ``Recorded``s, the others None.

    The task leaves the worker's thread pool first (``distributed.secede``): it waits on
    the other ranks' tasks, which must be able to start even on workers of one thread, or
    under another fit's rounds."""
    secede()
    recorded = []
    for index in range(round_index, round_index + count):
        each, z = run_round(shard, rank, size, addresses, token, spec, index, timeout)
        recorded.append(each)
        if no_edge(z):  # the client's loop ends there too (the same allreduced sums)
            break
    return recorded if rank == 0 else None


def run_round(shard, rank, size, addresses, token, spec, round_index, timeout):
    """One round on this rank's shard (module docstring), joining the collective of
    ``token`` on its first (``addresses``: each rank's ``shard_listen`` address, None for
    a rank without children): (the round's ``Recorded`` on rank 0, None on the others;
    its Z_t). A failure closes the shard's sockets (its peers' reads then fail too)."""
    if shard.rounds != round_index:
        raise RuntimeError(f"shard at round {shard.rounds} asked for round {round_index} "
                           "(recomputed after a lost worker)")
    try:
        if shard.link is None or shard.token != token:
            shard.link = join(rank, size, shard.server, addresses, token, timeout)
            shard.server, shard.token = None, token
            shard.reducer = CollectiveReducer(shard.link)
            shard.learner = spec.make_learner(shard.dataset, shard.reducer)
            if isinstance(shard.learner, TreeLearner):  # its blocks are its leaves
                shard.learner.leaf_extra = partial(tree_cover, shard.sample_weight,
                                                   shard.unit_weight)
        reducer, learner, scheme = shard.reducer, shard.learner, shard.scheme
        reducer.log, reducer.recipes = [], {}
        with numba_threads(_worker_threads()):
            fit = learner.fit(shard.dataset, scheme.learner_weights, scheme.labels)
            scheme.reducer = reducer
            z = spec.finish(scheme, fit)
        covers = ((learner.leaf_extra_sum, None) if isinstance(learner, TreeLearner)
                  else _round_covers(shard.link, fit, shard.sample_weight, shard.unit_weight))
    except BaseException:
        shard.close()
        raise
    shard.rounds += 1
    if rank != 0:
        return None, z
    blocks = spec.blocks_recipe(learner, reducer, fit)
    patterns = reducer.recipe(fit.train_patterns)
    for recipe, cover in zip((blocks, patterns), covers, strict=True):
        if recipe is not None:
            recipe.cover = cover
    return Recorded(PartitionFit(fit.hypothesis, blocks, fit.weight_pos, fit.weight_neg,
                                 fit.criterion, patterns), reducer.log), z


def _round_covers(link, fit, sample_weight, unit):
    """The training cover of the round's hypothesis (Σ sample weight per block; a tree per
    label's, tree after tree) and of a product's sign patterns (None for the other kinds),
    allreduced in one buffer: taken
    here, where the round's blocks are, rather than made again from a recipe after the
    run (``shards.shard_covers``, the same sums); a shared or Hamming tree's rode with its
    leaves' statistics (``TreeLearner.leaf_extra``) and is not taken here."""
    n_patterns = (0 if fit.train_patterns is None
                  else 1 << len(fit.hypothesis.test_columns()))
    cover = block_cover_of(fit.train_blocks, sample_weight, unit,
                           fit.hypothesis.values.shape[0])
    parts = [cover,
             np.zeros(0) if fit.train_patterns is None else
             np.bincount(fit.train_patterns, weights=sample_weight, minlength=n_patterns)]
    cover, pattern_cover = link.allreduce(parts)
    return cover, None if fit.train_patterns is None else pattern_cover


def shard_replay(shard, recorded, spec):
    """A recorded round applied to a rebuilt shard, without a collective: the blocks made
    here, the scheme's sums read from the round's log."""
    fit = recorded.fit
    train_blocks, patterns = resolved([fit.train_blocks, fit.train_patterns], shard.dataset)
    here = PartitionFit(fit.hypothesis, train_blocks, fit.weight_pos, fit.weight_neg,
                        fit.criterion, patterns)
    scheme, reducer = shard.scheme, shard.scheme.reducer
    scheme.reducer = _Replayed(recorded.log)
    with numba_threads(_worker_threads()):
        spec.finish(scheme, here)
    scheme.reducer = reducer
    shard.rounds += 1
    return shard


class CollectiveLearner:
    """The client's weak learner of a distributed fit: each ``fit`` is the next round run
    on the shards (``Shards.round``: a trip carries several, ``shards.batch_size``), whose
    log the client's scheme reads its sums from (the run's ``ClusterReducer``).

    Parameters
    ----------
    shards : Shards
    reducer : ClusterReducer
        The client scheme's reducer.
    spec : round_learner.RoundSpec

    Attributes
    ----------
    run : BoostingRun or None
        The run being boosted and the rounds it asks for in all (``end``), told by
        ``plan``: the rounds left bound a trip's; None outside a run's call (a trip of one
        round).
    end : int or None
    """

    def __init__(self, shards, reducer, spec):
        self.shards, self.reducer, self.spec = shards, reducer, spec
        self.run = self.end = None

    def plan(self, run, end):
        """A call of ``run`` boosting to ``end`` rounds in all begins."""
        self.run, self.end = run, end

    def finish(self):
        """The call ends: the rounds the shards ran past the client's last are dropped
        (``Shards.drop_ahead``)."""
        self.run = self.end = None
        self.shards.drop_ahead()

    def fit(self, dataset, weights, labels):
        """The round's ``PartitionFit`` (its blocks a recipe on the shards); the scheme's
        ``choose_alpha`` and ``update`` that follow read the round's log."""
        left = None if self.run is None else self.end - len(self.run.hypotheses)
        recorded = self.shards.round(self.spec, left)
        self.reducer.log = list(recorded.log)
        return recorded.fit


class LearnerCalls(TrainingCallback):
    """Tells a run's ``CollectiveLearner`` when each call of the run begins (the rounds it
    asks for) and ends (the rounds the shards ran past it dropped).

    Parameters
    ----------
    learner : CollectiveLearner
    """

    def __init__(self, learner):
        self.learner = learner

    def before_training(self, env):
        self.learner.plan(env.run, env.end_round)
        return False

    def after_training(self, env):
        self.learner.finish()
