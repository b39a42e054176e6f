"""The shards of the Dask layer and the client's handles on them.

A *shard* (``Shard``) is the rows of the input partitions that one worker holds,
concatenated (``build_shards``), binned with the common bins and coded with the common
vocabularies (a ``Dataset``), and the local scheme (``MHScheme``, ``MOScheme``,
``MRScheme``) over them, normalised by the whole set's weight so that every shard's D, loss
and Z_t are its share of the whole set's.

A trip runs several rounds, one task per shard (``collective.shard_rounds``): each round
the engine's learner and the scheme's update on the worker, their sums allreduced between
the fit's workers (``dask/collective.py``); the client's loop takes the rounds one by one
from the trip's results (``Shards.round``), as many a trip as ``batch_size`` says. The
shard keeps its state across rounds (the task changes it in place, on its worker); a round
the client took is recorded (``collective.Recorded``) so that after a failure (a lost
worker, ``timeout``) ``Shards.attempt`` rebuilds the shards from the input partitions and
replays the rounds (``collective.shard_replay``) before trying again; rounds the shards ran
past the client's last (its loop stopped inside a trip) are dropped with the shards, which
the next step rebuilds to the client's round (``Shards.drop_ahead``).

``ClusterReducer`` is the client scheme's ``engine/protocols.Reducer``: the client's
scheme of no rows runs the same ``choose_alpha`` and ``update`` as the workers' and reads
each sum from the round's log; the covers of the fit's hypotheses are taken in their
rounds (one allreduce at the end of the round), or, for rounds that did not take them (a
resumed checkpoint's), one reduction over the shards after the rounds.
"""

import dataclasses
import math
import time
import uuid
from collections import deque

import numpy as np
from dask import delayed
from distributed import wait

from confboost.dask.collective import (
    CLUSTER_SLICE_CELLS,
    CollectiveLearner,
    OnShards,
    _worker_threads,
    resolved,
    shard_listen,
    shard_replay,
    shard_rounds,
)
from confboost.dask.link import children
from confboost.engine.schemes.mh import MHScheme
from confboost.engine.schemes.mo import MOScheme
from confboost.engine.schemes.mr import MRScheme
from confboost.utils.threads import numba_threads


class Shard:
    """One worker's rows and training state (changed in place by its rounds).

    Attributes
    ----------
    dataset : Dataset
        The rows, binned with the common bins and coded with the common vocabularies.
    scheme : MHScheme, MOScheme or MRScheme
        D (or MR's v), f and the label signs of the rows, normalised by the whole set's
        weight.
    sample_weight : ndarray of shape (n_rows,)
    unit_weight : bool
        Every sample weight is 1 (a round's cover is then counted).
    rounds : int
        Steps applied so far: rounds, and a resumed checkpoint's changes
        (``shard_change``).
    link, server, token, reducer, learner
        The collective's state on this worker (``collective.run_round``), None before
        the first round.
    """

    def __init__(self, dataset, scheme, sample_weight):
        self.dataset = dataset
        self.scheme = scheme
        self.sample_weight = sample_weight
        self.unit_weight = bool(np.all(sample_weight == 1.0))
        self.rounds = 0
        self.link = self.server = self.token = self.reducer = self.learner = None

    def close(self):
        """Close the collective's sockets (a failed round, a new rendezvous)."""
        for held in (self.link, self.server):
            if held is not None:
                held.close()
        self.link = self.server = None

    def __getstate__(self):
        """A copy (Dask moving the shard, or recomputing it) without the collective's
        state: its rounds then fail at once (``link.join``) and the fit rebuilds."""
        state = dict(self.__dict__)
        state.update(link=None, server=None, token=None, reducer=None, learner=None)
        return state

    def __del__(self):
        self.close()


def shard_sum(shard, function, args):
    """``function`` of the shard's rows, weights and label signs (``ClusterReducer.sum``)."""
    scheme = shard.scheme
    return function(shard.dataset, np.ascontiguousarray(scheme.learner_weights),
                    scheme.labels, *resolved(args, shard.dataset))


def shard_change(shard, function, args):
    """A change of the shard's scheme outside a round (``Shards.change``): ``function(its
    scheme, *args)``, the values kept on the shards among ``args`` made on this shard."""
    function(shard.scheme, *resolved(args, shard.dataset))
    shard.rounds += 1
    return shard


def shard_covers(shard, blocks, sizes, patterns, n_patterns):
    """The sample weight of the shard's rows in each block of each round's hypothesis, and
    (a product's) in each sign pattern of its terms: per round, an array of shape
    (sizes[t],) and one of shape (n_patterns[t],) (empty for the other kinds)."""
    weight = shard.sample_weight
    blocks, patterns = resolved(blocks, shard.dataset), resolved(patterns, shard.dataset)
    return [(np.bincount(each, weights=weight, minlength=size),
             np.zeros(0) if pattern is None else
             np.bincount(pattern, weights=weight, minlength=n_pattern))
            for each, size, pattern, n_pattern in zip(blocks, sizes, patterns, n_patterns,
                                                      strict=True)]


class ClusterReducer:
    """The ``engine/protocols.Reducer`` of the client's scheme of no rows over the shards.

    ``apply`` answers from the last round's log (``collective.CollectiveLearner``: the
    workers' scheme took the same steps, its sums allreduced); ``sum`` is one reduction
    over the shards (one round trip); ``rows`` none (an ``OnShards`` that each shard
    evaluates where a later call reads it); ``total`` refuses (the client has no rows to
    sum: the learners that take it run on the workers).

    Parameters
    ----------
    shards : Shards

    Attributes
    ----------
    log : list
        The last round's results not read yet.
    slice_cells : int
        The workers' (``collective.CLUSTER_SLICE_CELLS``).
    """

    slice_cells = CLUSTER_SLICE_CELLS

    def __init__(self, shards):
        self.shards = shards
        self.log = []

    def sum(self, function, dataset, weights, labels, *args, out=None):
        return self.shards.reduce(shard_sum, function, args)

    def total(self, value, out=None):
        raise RuntimeError("a value of a shard's own rows is summed on the workers, in a "
                           "round (the client holds no rows)")

    def rows(self, function, dataset, *args):
        return OnShards(function, args)

    def apply(self, function, scheme, *args):
        if not self.log:
            raise RuntimeError(f"{getattr(function, '__name__', function)}: a change of the "
                               "scheme outside a round (a round's changes run on the workers)")
        return self.log.pop(0)

    def change(self, function, *args):
        """``function(a shard's scheme, *args)`` on every shard outside a round (a resumed
        checkpoint's recorded changes, ``checkpoint.replay_steps``): ``Shards.change``."""
        self.shards.change(function, *args)

    def learner(self, spec):
        """The client's learner of rounds on the shards (``collective.CollectiveLearner``)."""
        return CollectiveLearner(self.shards, self, spec)

    def covers(self, blocks, sizes, patterns, n_patterns):
        """The training cover of each round's hypothesis and of a product's sign patterns:
        the one its round took (``OnShards.cover``, no trip), else ``shard_covers``' of
        the rest, summed (one trip: a resumed checkpoint's rounds)."""
        known = [_known_cover(each, pattern) for each, pattern
                 in zip(blocks, patterns, strict=True)]
        missing = [t for t, cover in enumerate(known) if cover is None]
        if missing:
            taken = self.shards.reduce(shard_covers, *([values[t] for t in missing] for values
                                                       in (blocks, sizes, patterns,
                                                           n_patterns)))
            for t, cover in zip(missing, taken, strict=True):
                known[t] = cover
        return known


def _known_cover(blocks, patterns):
    """(cover, pattern cover) of a round whose task took them (``OnShards.cover``), the
    second empty without sign patterns; None if it did not."""
    cover = getattr(blocks, "cover", None)
    if cover is None:
        return None
    if patterns is None:
        return cover, np.zeros(0)
    pattern_cover = getattr(patterns, "cover", None)
    return None if pattern_cover is None else (cover, pattern_cover)


def _piece(*part):
    """One input partition, computed: (X, y, sample_weight, value codes)."""
    return part


def build_shards(client, parts, timeout, *arguments):
    """One shard per worker, of the input partitions it holds: list of Future.

    Each partition is computed where Dask puts it (``parts``: delayed (X, y, w, value
    codes), ``dask_input.partitions``); then every worker concatenates its own, in partition
    order, into one shard (``make_shard(pieces, *arguments)``), as LightGBM's Dask layer
    gives each worker one local data set: a round then costs one task per worker, not one
    per partition, and no partition moves. The shard's binning runs on the worker's threads
    (``_in_worker``), as its rounds do, not on every core of the machine in every worker.
    """
    pieces = client.compute([delayed(_piece)(*part) for part in parts])
    wait(pieces, timeout=timeout)
    holders = client.who_has(pieces)
    groups = {}
    for piece in pieces:
        groups.setdefault(holders[piece.key][0], []).append(piece)
    return [client.submit(_in_worker, make_shard, group, *arguments, workers=[worker],
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
        scheme = MRScheme(signs, sample_weight, multilabel, total_weight=total_weight)
    elif code is not None and code.shape[1] > 1:
        scheme = MOScheme(encoded, code, decoding, sample_weight, total_weight=total_weight)
    else:
        scheme = MHScheme(signs, sample_weight, single_label, init, total_weight=total_weight)
    return Shard(dataset, scheme, sample_weight)


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
    """``parts`` summed by pairwise additions, neighbours first (new arrays)."""
    while len(parts) > 1:
        parts = ([_add(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
                 + parts[len(parts) - len(parts) % 2:])
    return _add(parts[0])


def _first_error(futures, timeout):
    """Wait for ``futures`` until all are done, one fails (its error raised: the others
    wait on it) or ``timeout`` seconds pass (``TimeoutError``)."""
    deadline, pending = time.monotonic() + timeout, set(futures)
    while pending:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"a round's tasks did not end within {timeout:g} s")
        try:
            done, pending = wait(pending, timeout=left, return_when="FIRST_COMPLETED")
        except TimeoutError:
            continue
        for future in done:
            if future.status == "error":
                future.result()


#: The seconds of rounds a trip should carry (``batch_size``): a trip's own cost (the
#: scheduler, the tasks' start, the results' way back: ~10 ms on a quiet machine, several
#: times that on a loaded one) is then about 1% of it, and a loop that stops inside a trip
#: wastes at most this long on the workers.
TRIP_SECONDS = 1.0
#: The most rounds a trip carries: what the workers may run past a stop is bounded.
MAX_ROUNDS_A_TRIP = 16


def batch_size(round_seconds, left):
    """The rounds of the next trip: enough that it carries ``TRIP_SECONDS`` of rounds at the
    last trip's pace (``round_seconds`` a round), at most ``MAX_ROUNDS_A_TRIP`` and the
    rounds ``left``; one for the run's first trip (no pace yet) or an unknown ``left``."""
    if round_seconds is None or left is None:
        return 1
    return max(1, min(left, MAX_ROUNDS_A_TRIP, math.ceil(TRIP_SECONDS / round_seconds)))


class Shards:
    """The client's handles on the shards, with what it takes to rebuild them.

    Parameters
    ----------
    client : distributed.Client
    build : callable
        ``build()`` -> list of shard futures, from the input partitions.
    timeout : float
        Seconds one step's results may take (a trip's: as many times as its rounds), and a
        socket of the collective may wait.
    max_retries : int
    """

    def __init__(self, client, build, timeout, max_retries):
        self.client = client
        self.build = build
        self.timeout = timeout
        self.max_retries = max_retries
        self.steps = []  # (function, args) of every round, to replay after a rebuild
        self.rounds_done = 0  # kept by the fit's ``RoundCount``: a failure names its round
        self.trips = 0  # round trips waited for
        self.ahead = deque()  # the last trip's rounds the client has not taken yet
        self.round_seconds = None  # the last trip's wall time over its rounds
        self.futures = None
        self.workers = self.addresses = self.token = None  # the collective's rendezvous
        self.attempt(lambda: None)

    def reduce(self, function, *args):
        """Σ over the shards of ``function(shard, *args)`` (one task each, on the worker's
        threads), summed (``total``); under ``attempt``."""
        return self.attempt(lambda: self.total(self.each(function, self.futures, *args)))

    def round(self, spec, left=None):
        """The next round on every shard (``collective.shard_rounds``): from the rounds the
        last trip brought, else from a new trip of ``batch_size(.., left)`` rounds (a task
        per shard on its worker); returns rank 0's ``Recorded`` and records it for a
        replay.

        Parameters
        ----------
        spec : round_learner.RoundSpec
        left : int or None
            The rounds the client's loop will ask for at most, this one included (None:
            unknown, a trip of one round).
        """
        if not self.ahead:
            self.ahead = deque(self.attempt(lambda: self._trip(spec, batch_size(
                self.round_seconds, left))))
        recorded = self.ahead.popleft()
        self.steps.append((shard_replay, (recorded, spec)))
        return recorded

    def _trip(self, spec, count):
        """``count`` rounds on every shard in one trip (fewer when one leaves no edge):
        rank 0's ``Recorded`` of each; their wall time noted (``round_seconds``)."""
        size, start = len(self.futures), time.perf_counter()
        futures = [self.client.submit(shard_rounds, future, rank, size, self.addresses,
                                      self.token, spec, len(self.steps), count, self.timeout,
                                      workers=[worker], allow_other_workers=True, pure=False)
                   for rank, (future, worker) in enumerate(zip(self.futures, self.workers,
                                                               strict=True))]
        self.trips += 1
        try:
            _first_error(futures, self.timeout * count)
            recorded = futures[0].result()
        except Exception:
            self.client.cancel(futures)
            raise
        self.round_seconds = (time.perf_counter() - start) / len(recorded)
        return recorded

    def drop_ahead(self):
        """Drop the rounds the shards ran past the client's last (its loop stopped inside a
        trip: early stopping, a callback): the shards are let go, and the next step
        rebuilds them at the client's round (``attempt``: the recorded rounds replayed)."""
        if self.ahead:
            self.ahead.clear()
            self.client.cancel(self.futures)
            self.futures = None

    def change(self, function, *args):
        """``shard_change(shard, function, args)`` on every shard, recorded for a replay like
        a round; the changed shards then meet in a new collective (three trips)."""
        self.attempt(lambda: self._rendezvous(self.each(shard_change, self.futures, function,
                                                        args)))
        self.steps.append((shard_change, (function, args)))

    def each(self, function, futures, *args):
        """One task ``function(future's value, *args)`` per future, on the worker's threads."""
        return [self.client.submit(_in_worker, function, future, *args, pure=False)
                for future in futures]

    def total(self, futures):
        """The sum of the values (arrays, floats, or lists or tuples of them) of
        ``futures`` (new arrays, which the caller may change), added on the client in a
        fixed pairwise order. One round trip."""
        self.trips += 1
        wait(futures, timeout=self.timeout)
        return _pairwise(self.client.gather(futures))

    def attempt(self, step):
        """``step()``, which reads the current shards ``futures``. A failure (a lost worker,
        ``timeout``) rebuilds the shards from the input partitions, replays the rounds so
        far and calls ``step`` again, ``max_retries`` times, then raises ``RuntimeError``
        naming the round (1-based) and the last failure (a lost worker's error names it)."""
        for attempt in range(self.max_retries + 1):
            try:
                if self.futures is None:
                    self._rendezvous(self._replay(self.build()))
                return step()
            except Exception as error:  # noqa: BLE001 - any failure of the cluster
                if self.futures is not None:
                    self.client.cancel(self.futures)
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

    def _rendezvous(self, futures):
        """The shards in place (their workers, one trip) and the listening address of every
        rank with children in the collective's tree (one more trip with more than one
        shard, their ``shard_listen`` tasks at once): a new collective."""
        wait(futures, timeout=self.timeout)
        self.trips += 1
        holders = self.client.who_has(futures)
        self.workers = [holders[future.key][0] for future in futures]
        self.token, self.addresses = uuid.uuid4().bytes, [None] * len(futures)
        listening = [rank for rank in range(len(futures)) if children(rank, len(futures))]
        if listening:
            self.trips += 1
            listened = [self.client.submit(shard_listen, futures[rank], self.timeout,
                                           workers=[self.workers[rank]],
                                           allow_other_workers=True, pure=False)
                        for rank in listening]
            wait(listened, timeout=self.timeout)
            for rank, address in zip(listening, self.client.gather(listened), strict=True):
                self.addresses[rank] = address
        self.futures = futures
