"""The shards of the Dask layer: each worker's training state, and the client's handles on
them.

A *shard* (``Shard``) is the rows of the input partitions that one worker holds,
concatenated (``build_shards``), binned with the common bins and coded with the common
vocabularies (a ``Dataset``), and the local ``MHScheme`` (or ``MOScheme``) over them,
normalised by the whole set's weight so that every shard's D, loss and Z_t are its share of
the whole set's; it holds the W+/W- histograms of its rows under the current D. Shards are
immutable: a round (``advance_shard``: the local update, then the next histograms) makes
new ones, so Dask can recompute a lost one from the lineage.

``Shards`` is the client's side: it submits one task per shard, sums what they return by
a reduction tree of pairwise additions on the workers (``_tree_sum``; a shard's summary is
taken on its own worker, so no shard moves), and on a failure rebuilds the shards from the
input partitions and replays the rounds (``attempt``).
"""

import copy
import dataclasses

import numpy as np
from dask import delayed
from distributed import get_worker, wait

from confboost.dask.sharded_trees import tree_code_blocks
from confboost.engine.learners.base import PartitionFit
from confboost.engine.learners.categorical import CategoricalLearner
from confboost.engine.learners.stump import StumpLearner
from confboost.engine.schemes.mh import MHScheme
from confboost.engine.schemes.mo import MOScheme
from confboost.engine.schemes.mr import MRScheme
from confboost.kernels.weight_update import stump_blocks
from confboost.utils.dtypes import MISSING_BIN
from confboost.utils.threads import numba_threads


class Shard:
    """One partition's training state, on the worker that holds it.

    Attributes
    ----------
    dataset : Dataset
        The partition's rows, binned with the common bins and coded with the common
        vocabularies.
    scheme : MHScheme
        D, f and the labels of the partition's rows, normalised by the whole set's weight.
    sample_weight : ndarray of shape (n_rows,)
    hist : ndarray of shape (n_features, 256, k, 2)
        The W+/W- histogram of the rows under the current D (``StumpLearner.histogram``).
    value_hists : list of ndarray of shape (2, n_values + 1, k)
        The value histogram of each categorical column (``CategoricalLearner.histograms``).
    shares : ndarray
        This partition's share of the last round's Z_t, training loss and training cover
        of the hypothesis' blocks (zeros before the first round).
    """

    def __init__(self, dataset, scheme, sample_weight, shares, histograms=True):
        self.dataset = dataset
        self.scheme = scheme
        self.sample_weight = sample_weight
        self.shares = shares
        if not histograms:  # a step between rounds (``dask_mr``): nothing to learn from yet
            self.hist, self.value_hists = np.zeros(0), []
            return
        weights, labels = scheme.learner_weights, scheme.labels
        self.hist = StumpLearner.histogram(dataset, weights, labels)
        self.value_hists = CategoricalLearner.histograms(dataset, weights, labels)

    def summary(self):
        """What the client sums over the shards: [hist, shares, *value_hists]."""
        return [self.hist, self.shares, *self.value_hists]


def _piece(*part):
    """One input partition, computed: (X, y, sample_weight, value codes)."""
    return part


def build_shards(client, parts, timeout, *arguments):
    """One shard per worker, of the input partitions it holds: list of Future.

    Each partition is computed where Dask puts it (``parts``: delayed (X, y, w, value
    codes), ``dask_input.partitions``); then every worker concatenates its own, in partition
    order, into one shard (``make_shard(pieces, *arguments)``), as LightGBM's Dask layer
    gives each worker one local data set: a round then costs one task per worker, not one
    per partition, and no partition moves.
    """
    pieces = client.compute([delayed(_piece)(*part) for part in parts])
    wait(pieces, timeout=timeout)
    holders = client.who_has(pieces)
    groups = {}
    for piece in pieces:
        groups.setdefault(holders[piece.key][0], []).append(piece)
    return [client.submit(make_shard, group, *arguments, workers=[worker],
                          allow_other_workers=True, pure=False)
            for worker, group in groups.items()]


def make_shard(pieces, header, classes, multilabel, init, total_weight, code=None,
               decoding="loss", mr=False):
    """The shard of a worker's partitions ``pieces`` ((X, y, w, value codes) each),
    concatenated: bin its rows (the header's bins and columns, its categorical columns with
    the partitions' value codes), encode its labels, start D (AdaBoost.MO with a code of
    more than one bit: MH on the code-relabelled signs, ``MOScheme``; AdaBoost.MR on
    single-label data, ``mr``: ``MRScheme``)."""
    X = np.concatenate([piece[0] for piece in pieces])
    y = np.concatenate([np.asarray(piece[1]) for piece in pieces])
    sample_weight = np.concatenate([piece[2] for piece in pieces])
    value_codes = [np.concatenate([piece[3][c] for piece in pieces])
                   for c in range(len(header.categorical))]
    if multilabel:
        signs = np.where(np.asarray(y) > 0, 1, -1).astype(np.int8)
        single_label = False
    else:
        encoded = np.searchsorted(classes, y)
        if classes.size == 2:
            signs = np.where(encoded == 1, 1, -1).astype(np.int8)[:, None]
        else:
            signs = -np.ones((encoded.size, classes.size), dtype=np.int8)
            signs[np.arange(encoded.size), encoded] = 1
        single_label = classes.size > 2
    codes = np.ascontiguousarray(header.bin_mapper.transform(X))
    categorical = [dataclasses.replace(column, codes=column_codes)
                   for column, column_codes in zip(header.categorical, value_codes,
                                                   strict=True)]
    dataset = dataclasses.replace(header, codes=codes, categorical=categorical,
                                  n_samples=X.shape[0])
    if mr:
        scheme = MRScheme(signs, sample_weight, total_weight=total_weight)
    elif code is not None and code.shape[1] > 1:
        scheme = MOScheme(encoded, code, decoding, sample_weight, total_weight=total_weight)
    else:
        scheme = MHScheme(signs, sample_weight, single_label, init, total_weight=total_weight)
    with numba_threads(_worker_threads()):
        return Shard(dataset, scheme, sample_weight, np.zeros(5))


def _worker_threads():
    """The kernels' threads in a task: the worker's own thread count (as LightGBM's Dask
    layer sets ``num_threads``), so two workers on one machine do not each take every core."""
    try:
        return get_worker().state.nthreads
    except ValueError:  # not in a worker (a local scheduler)
        return None


def _in_worker(function, *args):
    """``function(*args)`` with the kernels on the worker's threads (a task's body)."""
    with numba_threads(_worker_threads()):
        return function(*args)


def blocks_of(dataset, split):
    """The block of every row of the shard under the round's stump or tree."""
    if "tree" in split:
        return tree_code_blocks(dataset, *split["tree"])
    if "value" in split:  # a categorical stump (``CategoricalLearner.fit``'s blocks)
        index, code = split["value"]
        codes = dataset.categorical[index].codes
        return np.where(codes < 0, 2, np.where(codes == code, 0, 1)).astype(np.uint8)
    blocks = np.empty(dataset.n_samples, dtype=np.uint8)
    stump_blocks(dataset.codes[split["feature_row"]], split["threshold_bin"], MISSING_BIN,
                 blocks)
    return blocks


def advance_shard(shard, split, alpha):
    """The shard after the round's α h_t, with its shares and its next histogram (a new
    object: the old one stays valid for Dask's recomputation)."""
    scheme = copy.copy(shard.scheme)
    scheme.weights = shard.scheme.weights.copy()
    scheme.scores = shard.scheme.scores.copy()
    blocks = blocks_of(shard.dataset, split)
    fit = PartitionFit(split["hypothesis"], blocks, split["weight_pos"], split["weight_neg"],
                       split["criterion"])
    z_share = scheme.update(fit, alpha)
    cover = np.bincount(blocks, weights=shard.sample_weight,
                        minlength=split["weight_pos"].shape[0])
    shares = np.concatenate([[z_share, scheme.train_loss()], cover])
    return Shard(shard.dataset, scheme, shard.sample_weight, shares)


def _summary(shard):
    """The shard's summary (taken on its worker: the shard itself never moves)."""
    return shard.summary()


def _add(*parts):
    """Arrays of one shape, or lists of them, summed (a node of the reduction)."""
    if isinstance(parts[0], list):
        return [_add(*group) for group in zip(*parts, strict=True)]
    return parts[0] + sum(parts[1:])


def _tree_sum(client, futures):
    """The arrays (or lists of arrays) of ``futures`` summed by pairwise additions on the
    workers (a reduction tree: no worker receives more than two). The client may change
    what it receives: every task returns new arrays (a new list)."""
    while len(futures) > 1:
        paired = [client.submit(_add, futures[i], futures[i + 1], pure=False)
                  for i in range(0, len(futures) - 1, 2)]
        futures = paired + futures[len(futures) - len(futures) % 2:]
    return futures[0]


class Shards:
    """The client's handles on the shards, with what it takes to rebuild them.

    Each round costs one task per shard (``advance_shard``: the update and the next
    histograms), one that takes its summary and the reduction; one result, the summed
    histograms and shares, comes to the client (``summary``).

    Parameters
    ----------
    client : distributed.Client
    build : callable
        ``build()`` -> list of shard futures, from the input partitions.
    timeout : float
        Seconds one round's results may take.
    max_retries : int
    """

    def __init__(self, client, build, timeout, max_retries):
        self.client = client
        self.build = build
        self.timeout = timeout
        self.max_retries = max_retries
        self.rounds = []  # (function, args) of every step applied, to replay after a rebuild
        self.futures = None
        self.summary = None
        self.run()

    @property
    def hist(self):
        """The shards' summed numeric histogram, (n_features, 256, k, 2)."""
        return self.summary[0]

    @property
    def value_hists(self):
        """The shards' summed value histograms, one (2, n_values + 1, k) per column."""
        return self.summary[2:]

    def run(self, function=None, *args):
        """Every shard ← ``function(shard, *args)`` (none: the shards as they are), under
        ``attempt``; keeps the summed ``summary`` of the new shards and returns their summed
        shares. The step is recorded, to replay after a rebuild."""

        def step():
            new_futures = (self.futures if function is None else
                           self.each(function, self.futures, *args))
            summaries = [self.client.submit(_summary, f, pure=False) for f in new_futures]
            total = _tree_sum(self.client, summaries).result(timeout=self.timeout)
            self.futures = new_futures
            if function is not None:
                self.rounds.append((function, args))
            self.summary = total
            return total[1]

        return self.attempt(step)

    def each(self, function, futures, *args):
        """One task ``function(future's value, *args)`` per future, on the worker's threads."""
        return [self.client.submit(_in_worker, function, future, *args, pure=False)
                for future in futures]

    def total(self, futures):
        """The sum of the arrays (or lists of arrays) of ``futures``, by the reduction tree,
        on the client."""
        return _tree_sum(self.client, futures).result(timeout=self.timeout)

    def attempt(self, step):
        """``step()``, which reads the current shards ``futures``. A failure (a lost worker,
        ``timeout``) rebuilds the shards from the input partitions, replays the rounds so far
        and calls ``step`` again, ``max_retries`` times, then raises ``RuntimeError`` naming
        the round (1-based) and the last failure (a lost worker's error names it)."""
        for attempt in range(self.max_retries + 1):
            try:
                if self.futures is None:
                    self.futures = self._replay(self.build())
                return step()
            except Exception as error:  # noqa: BLE001 - any failure of the cluster
                self.futures = None
                if attempt == self.max_retries:
                    raise RuntimeError(
                        f"distributed fit failed at round {len(self.rounds) + 1} after "
                        f"{attempt + 1} tries (each within timeout={self.timeout:g} s, the "
                        f"shards rebuilt from the input partitions between tries): "
                        f"{type(error).__name__}: {str(error) or 'no result in time'}") from error
        raise AssertionError("unreachable")

    def _replay(self, futures):
        for function, args in self.rounds:
            futures = self.each(function, futures, *args)
        return futures
