"""The shards of the Dask layer and the reducer over them: each worker's training state,
and the client's handles on it.

A *shard* (``Shard``) is the rows of the input partitions that one worker holds,
concatenated (``build_shards``), binned with the common bins and coded with the common
vocabularies (a ``Dataset``), and the local scheme (``MHScheme``, ``MOScheme``,
``MRScheme``) over them, normalised by the whole set's weight so that every shard's D, loss
and Z_t are its share of the whole set's. Shards are immutable: a change of a scheme makes
new shards, so Dask can recompute a lost one from the lineage.

``ClusterReducer`` is the ``engine/reduction.Reducer`` of the shards: the engine's own
learners and schemes, given the Dataset and the scheme of no rows that hold the bins,
vocabularies and label count, reach the rows only through it. ``Shards`` is the client's
side: it submits one task per shard (no shard moves) and sums what they return, and on a
failure rebuilds the shards from the input partitions and replays the changes (``attempt``).

A round trip is what the client waits for; its cost on a cluster is the scheduler's hops,
not the sums. So:

- up to ``CLIENT_SUM`` shards, the client gathers their results and adds them itself, in
  the reduction tree's pairwise order (``_pairwise``); above, a reduction tree of pairwise
  additions runs on the workers (``_tree_sum``: no worker receives more than two);
- a change of the shards (``run``, a scheme's update) also takes, in the same tasks, the
  sum that followed the last change (``shard_step``): a round's first sum (the stumps' and
  trees' histogram of the new weights) then costs no trip of its own. It is the sum of the
  new shards, so it is the value the round's ``reduce`` would get.
"""

import copy
import dataclasses
import inspect

import numpy as np
from dask import delayed
from distributed import get_worker, wait

from confboost.engine.schemes.mh import MHScheme
from confboost.engine.schemes.mo import MOScheme
from confboost.engine.schemes.mr import MRScheme
from confboost.utils.threads import numba_threads


class Shard:
    """One worker's rows and training state.

    Attributes
    ----------
    dataset : Dataset
        The rows, binned with the common bins and coded with the common vocabularies.
    scheme : MHScheme, MOScheme or MRScheme
        D (or MR's v), f and the label signs of the rows, normalised by the whole set's
        weight.
    sample_weight : ndarray of shape (n_rows,)
    result : object
        What the last change of the scheme returned (its shares), None at first.
    """

    def __init__(self, dataset, scheme, sample_weight, result=None):
        self.dataset = dataset
        self.scheme = scheme
        self.sample_weight = sample_weight
        self.result = result


class OnShards:
    """A value over the rows kept on the shards (``ClusterReducer.rows``): each shard's part
    is ``function(its dataset, *args)``, made where it is read.

    Parameters
    ----------
    function : callable
    args : tuple
    """

    def __init__(self, function, args):
        self.function = function
        self.args = args

    def on(self, dataset):
        """This shard's part (an ``OnShards`` among the arguments: its part too)."""
        return self.function(dataset, *_resolved(self.args, dataset))


def _resolved(args, dataset):
    """``args`` with each ``OnShards`` replaced by its part on the shard's ``dataset``."""
    return [arg.on(dataset) if isinstance(arg, OnShards) else arg for arg in args]


def shard_sum(shard, function, args):
    """``function`` of the shard's rows, weights and label signs (``ClusterReducer.sum``)."""
    scheme = shard.scheme
    return function(shard.dataset, np.ascontiguousarray(scheme.learner_weights),
                    scheme.labels, *_resolved(args, shard.dataset))


def shard_apply(shard, function, args):
    """A new shard whose scheme is a copy changed by ``function(scheme, *args)``; its
    ``result`` what the call returned (``ClusterReducer.apply``). The old shard stays
    valid for Dask's recomputation."""
    scheme = copy.copy(shard.scheme)
    for name in scheme.state_arrays:
        setattr(scheme, name, getattr(scheme, name).copy())
    result = function(scheme, *_resolved(args, shard.dataset))
    return Shard(shard.dataset, scheme, shard.sample_weight, result)


def shard_step(shard, function, args, then):
    """``function(shard, *args)`` (a new shard); with ``then`` = (sum function, its args),
    the new shard's ``result`` is (the call's result, ``shard_sum`` of the new shard), so
    that the next sum comes back in the same trip."""
    new = function(shard, *args)
    if then is not None:
        new.result = (new.result, shard_sum(new, *then))
    return new


def shard_result(shard):
    """The shard's last result (taken on its worker: the shard itself never moves)."""
    return shard.result


def shard_covers(shard, blocks, sizes, patterns, n_patterns):
    """The sample weight of the shard's rows in each block of each round's hypothesis, and
    (a product's) in each sign pattern of its terms: per round, an array of shape
    (sizes[t],) and one of shape (n_patterns[t],) (empty for the other kinds)."""
    weight = shard.sample_weight
    blocks, patterns = _resolved(blocks, shard.dataset), _resolved(patterns, shard.dataset)
    return [(np.bincount(each, weights=weight, minlength=size),
             np.zeros(0) if pattern is None else
             np.bincount(pattern, weights=weight, minlength=n_pattern))
            for each, size, pattern, n_pattern in zip(blocks, sizes, patterns, n_patterns,
                                                      strict=True)]


class ClusterReducer:
    """The ``engine/reduction.Reducer`` over the shards of a cluster.

    ``sum`` and ``apply`` cost one round trip each: one task per shard, the pairwise
    reduction tree on the workers, one result to the client; ``rows`` none (an
    ``OnShards`` that each shard evaluates where a later call reads it).

    Parameters
    ----------
    shards : Shards
    """

    def __init__(self, shards):
        self.shards = shards

    def sum(self, function, dataset, weights, labels, *args, out=None):
        return self.shards.reduce(shard_sum, function, args)

    def rows(self, function, dataset, *args):
        return OnShards(function, args)

    def apply(self, function, scheme, *args):
        return self.shards.run(shard_apply, function, args)

    def covers(self, blocks, sizes, patterns, n_patterns):
        """The training cover of each round's hypothesis and of a product's sign patterns
        (``shard_covers``), summed."""
        return self.shards.reduce(shard_covers, blocks, sizes, patterns, n_patterns)


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
    the partitions' value codes, its text columns' postings of the partitions' documents),
    encode its labels, start D (AdaBoost.MO with a code of
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
    # a text column's documents follow the value codes; the header's column (a
    # ``text.ColumnVocabulary``) makes their postings over the common vocabulary
    text = [column.of_rows(np.concatenate([piece[3][len(categorical) + c] for piece in pieces]))
            for c, column in enumerate(header.text)]
    dataset = dataclasses.replace(header, codes=codes, categorical=categorical, text=text,
                                  n_samples=X.shape[0])
    if mr:
        scheme = MRScheme(signs, sample_weight, total_weight=total_weight)
    elif code is not None and code.shape[1] > 1:
        scheme = MOScheme(encoded, code, decoding, sample_weight, total_weight=total_weight)
    else:
        scheme = MHScheme(signs, sample_weight, single_label, init, total_weight=total_weight)
    return Shard(dataset, scheme, sample_weight)


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


def _add(*parts):
    """Arrays of one shape or floats, or lists or tuples of them, summed (a node of the
    reduction)."""
    if isinstance(parts[0], (list, tuple)):
        return type(parts[0])(_add(*group) for group in zip(*parts, strict=True))
    return parts[0] + sum(parts[1:])


def _pairwise(parts):
    """``parts`` summed by pairwise additions in the order of ``_tree_sum`` (new arrays)."""
    while len(parts) > 1:
        parts = ([_add(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
                 + parts[len(parts) - len(parts) % 2:])
    return _add(parts[0])


def _sum_key(function, args):
    """(``function``, ``args``) of a sum when its arguments are plain values (None,
    numbers, strings, functions, tuples of them), which compare equal from round to round;
    else None (a value kept on the shards, an array: not taken ahead)."""

    def plain(value):
        if isinstance(value, tuple):
            return all(plain(item) for item in value)
        return (value is None or isinstance(value, (bool, int, float, str))
                or inspect.isfunction(value))

    return (function, args) if plain(args) else None


#: ``Shards.pending`` before the fit's first sum or change.
_START = object()

#: The most shards whose results the client gathers and adds itself (above: a reduction
#: tree on the workers). The client then receives CLIENT_SUM results a trip, each the size
#: of one histogram, and the trip saves the tree's hops between workers.
CLIENT_SUM = 8


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

    Parameters
    ----------
    client : distributed.Client
    build : callable
        ``build()`` -> list of shard futures, from the input partitions.
    timeout : float
        Seconds one step's results may take.
    max_retries : int
    """

    def __init__(self, client, build, timeout, max_retries):
        self.client = client
        self.build = build
        self.timeout = timeout
        self.max_retries = max_retries
        self.steps = []  # (function, args) of every change applied, to replay after a rebuild
        self.rounds_done = 0  # kept by the fit's ``RoundCount``: a failure names its round
        self.trips = 0  # round trips waited for
        self.futures = None
        # which sum follows which change: a change (its function) -> the key (``_sum_key``)
        # of the sum that came next after it last time (None: another change came); the
        # fit's first sum, guessed for a change not seen yet; the last change while nothing
        # has followed it (``_START`` before any)
        self.follows, self.first_sum, self.pending = {}, None, _START
        self.ahead = None  # (key, total): a sum of the current shards, taken ahead
        self.attempt(lambda: None)

    def reduce(self, function, *args):
        """Σ over the shards of ``function(shard, *args)`` (one task each, on the worker's
        threads), summed (``total``); under ``attempt``. The sum taken ahead with the last
        change, when it is this one, costs no trip."""
        key = _sum_key(function, args) if function is shard_sum else None
        ahead, self.ahead = self.ahead, None
        if self.pending is _START:
            self.first_sum = key
        elif self.pending is not None:
            self.follows[self.pending] = key
        self.pending = None
        if key is not None and ahead is not None and ahead[0] == key:
            return ahead[1]
        return self.attempt(lambda: self.total(self.each(function, self.futures, *args)))

    def run(self, function, *args):
        """Every shard ← ``function(shard, *args)`` (a new shard), under ``attempt``;
        returns the new shards' ``result`` summed. The same tasks take the sum that followed
        this change last time (the first change: the fit's first sum; ``shard_step``), kept
        for the next ``reduce``. The step is recorded, to replay after a rebuild."""
        if self.pending not in (None, _START):  # a change followed by a change
            self.follows[self.pending] = None
        change = (function, args[0] if args and callable(args[0]) else None)
        then, self.ahead, self.pending = self.follows.get(change, self.first_sum), None, change

        def step():
            new_futures = self.each(shard_step, self.futures, function, args,
                                    None if then is None else then[1])
            total = self.total([self.client.submit(shard_result, future, pure=False)
                                for future in new_futures])
            self.futures = new_futures
            self.steps.append((function, args))
            if then is None:
                return total
            total, ahead = total
            self.ahead = (then, ahead)
            return total

        return self.attempt(step)

    def each(self, function, futures, *args):
        """One task ``function(future's value, *args)`` per future, on the worker's threads."""
        return [self.client.submit(_in_worker, function, future, *args, pure=False)
                for future in futures]

    def total(self, futures):
        """The sum of the values (arrays, floats, or lists or tuples of them) of
        ``futures`` (new arrays, which the caller may change): added on the client up to
        ``CLIENT_SUM`` of them, else by the reduction tree on the workers. One round trip.
        """
        self.trips += 1
        if len(futures) > CLIENT_SUM:
            return _tree_sum(self.client, futures).result(timeout=self.timeout)
        wait(futures, timeout=self.timeout)
        return _pairwise(self.client.gather(futures))

    def attempt(self, step):
        """``step()``, which reads the current shards ``futures``. A failure (a lost worker,
        ``timeout``) rebuilds the shards from the input partitions, replays the steps so far
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
                        f"distributed fit failed at round {self.rounds_done + 1} after "
                        f"{attempt + 1} tries (each within timeout={self.timeout:g} s, the "
                        f"shards rebuilt from the input partitions between tries): "
                        f"{type(error).__name__}: {str(error) or 'no result in time'}") from error
        raise AssertionError("unreachable")

    def _replay(self, futures):
        for function, args in self.steps:
            futures = self.each(function, futures, *args)
        return futures
