"""Distributed fits at scale: confboost, LightGBM and XGBoost on one Dask cluster, and the
cost model of a distributed round.

A size ladder (``BENCH_SCALE_ROWS``, default "1000000,5000000,20000000") of binary data
sets of 50 float32 columns. Each set is 16 partitions, each generated on its own worker from
its own seed (``partition``: 10 informative columns, one interaction, noise); nothing is
gathered on the client. For each size, each library runs in its own fresh process with its
own process ``LocalCluster`` of ``BENCH_SCALE_WORKERS`` workers (default 4, one thread
each), the partitions spread evenly over them:

- ``DaskBoostClassifier`` (also on each of ``BENCH_SCALE_MODEL_WORKERS``, default "1,2",
  workers, for the cost model);
- LightGBM's ``DaskLGBMClassifier`` (``num_leaves`` 2 or 8);
- XGBoost's ``DaskXGBClassifier`` (``max_depth=1``, or ``lossguide`` with ``max_leaves=8``);
- ``BoostClassifier`` on ``THREADS`` threads (the local reference), in its own process with
  no cluster, on the same 16 partitions made by the same generator there.

LightGBM, XGBoost and the local fit run at the sizes of ``BENCH_SCALE_PEER_ROWS`` (default:
every size of the ladder); ``BENCH_SCALE_LIBRARIES`` picks libraries.

Each fits stumps and trees of 8 leaves, uncalibrated, once for ``BENCH_SCALE_ROUNDS``
rounds (default 5), after a warm-up fit on 20,000 rows (numba's compilation, the
connections). "s/round" is the time from the first round's end to the last's over the rounds
after the first (a callback: on the client for confboost, on a worker for LightGBM and
XGBoost; the first round, which waits for binning and start-up, left out; not a median of
the gaps, which reads ~0 inside a confboost trip of several rounds); "whole fit" is the
fit's wall time, binning and start-up included. Memory is the worker processes' resident
set, sampled every 0.2 s from the client (``Sampler``): "data MB" once the partitions are
on the workers, "peak MB" the largest over the whole run (data, fits); the local row: the
one process. The load average is printed before and after each process;
``BENCH_SCALE_RUNS`` sets the processes and their order.

The cost model of a confboost round (``model``), for the collective (one task per worker a
round, every sum allreduced up and down a binomial tree of the workers, ``dask/link.py``):
t = c_rows · rows / min(workers, cores) + c_reduce · B · steps(workers) + c_trip · trips,
where B is the bytes allreduced a round and steps(P) = 2 ⌈log2 P⌉ the messages on an
allreduce's longest path (up the tree, then down; none on one worker), so c_reduce is
seconds a byte over one link. The rows term is the shards' kernels (workers beyond this
machine's ``cores`` share them); B is counted on the workers (``count_allreduces``); the
trips term is the client's waits on the scheduler (a trip carries several rounds:
``trips`` is a round's share). The three constants are
fitted by non-negative least squares, for each learner (a tree's rows cost several
stumps'), to every confboost Dask round of the run (the ladder x 1, 2, 4 workers). On one
machine's cores the workers' processes share the cores, so the fitted c_reduce holds their
contention, not a network's cost: each confboost Dask process therefore also times the link
itself (``time_link``: allreduces of known sizes between its workers, their latency and
bytes a second a message), and the script prints what the model predicts for 1,000,000,000
rows on 100 workers of one core each twice: with the fitted c_reduce, and with a stated
network in its place (``BENCH_SCALE_GBIT``, default 1 Gbit/s, and
``BENCH_SCALE_LATENCY_US``, default 100 µs a message; the link's own figures printed
beside). Run alone: ``python benchmarks/bench_dask_scale.py``.
"""

import os
import sys
import threading
import time

import common
import numpy as np

LADDER = [int(n) for n in os.environ.get("BENCH_SCALE_ROWS",
                                         "1000000,5000000,20000000").split(",") if n]
WORKERS = int(os.environ.get("BENCH_SCALE_WORKERS", "4"))
ROUNDS = int(os.environ.get("BENCH_SCALE_ROUNDS", "5"))
MODEL_WORKERS = [int(n) for n in os.environ.get("BENCH_SCALE_MODEL_WORKERS", "1,2").split(",")
                 if n]
PEER_ROWS = [int(n) for n in os.environ.get("BENCH_SCALE_PEER_ROWS", "").split(",") if n]
CORES = int(os.environ.get("BENCH_SCALE_CORES", str(os.cpu_count())))
LIBRARIES = os.environ.get("BENCH_SCALE_LIBRARIES",
                           "confboost local,confboost dask,lightgbm dask,xgboost dask"
                           ).split(",")
N_FEATURES = 50
PARTITIONS = 16
WARM_ROWS = 20_000
LEARNERS = ("stumps", "trees of 8 leaves")
#: The 100-worker, 1-billion-row cluster the model is asked about, and its network.
TARGET = (1_000_000_000, 100)
GBIT = float(os.environ.get("BENCH_SCALE_GBIT", "1"))
LATENCY = float(os.environ.get("BENCH_SCALE_LATENCY_US", "100")) * 1e-6
#: The allreduce sizes the link is timed at (bytes): a number, a stump round's histogram
#: (50 features x 256 bins x W+/W-), a tree round's bytes in one message.
LINK_BYTES = (8, 204_800, 1_434_000)
LINK_REPEATS = 20


def partition(index, n_rows):
    """Partition ``index`` of a data set: (X float32 (n_rows, 50), y int32 (n_rows,)), from
    its own seed, so any process makes the same rows."""
    rng = np.random.default_rng([20261202, index])
    X = rng.standard_normal((n_rows, N_FEATURES), dtype=np.float32)
    weights = np.random.default_rng(1).normal(size=10).astype(np.float32)
    logit = X[:, :10] @ weights + 2.0 * X[:, 0] * X[:, 1]
    logit += rng.standard_normal(n_rows, dtype=np.float32)
    return X, (logit > 0).astype(np.int32)


def sizes(rows):
    """The 16 partitions' row counts."""
    return [rows // PARTITIONS + (i < rows % PARTITIONS) for i in range(PARTITIONS)]


def local_data(rows):
    """The data set of ``rows`` rows in this process: the 16 partitions, concatenated."""
    X = np.empty((rows, N_FEATURES), dtype=np.float32)
    y = np.empty(rows, dtype=np.int32)
    start = 0
    for index, n in enumerate(sizes(rows)):
        X[start:start + n], y[start:start + n] = partition(index, n)
        start += n
    return X, y


def cluster_data(client, rows):
    """(X, y) as dask arrays whose partitions were made on the workers, partition i on
    worker i mod workers; waits until they are all there."""
    import dask.array as da
    from dask import delayed
    from distributed import wait

    workers = sorted(client.scheduler_info()["workers"])
    xs, ys = [], []
    for index, n in enumerate(sizes(rows)):
        where = [workers[index % len(workers)]]
        both = client.submit(partition, index, n, workers=where, pure=False)
        xs.append(client.submit(lambda pair: pair[0], both, workers=where, pure=False))
        ys.append(client.submit(lambda pair: pair[1], both, workers=where, pure=False))
        del both  # released once its two parts are made
    wait(xs + ys)
    X = da.concatenate([da.from_delayed(delayed(f), (n, N_FEATURES), np.float32)
                        for f, n in zip(xs, sizes(rows), strict=True)])
    y = da.concatenate([da.from_delayed(delayed(f), (n,), np.int32)
                        for f, n in zip(ys, sizes(rows), strict=True)])
    return X, y, xs + ys


class Sampler:
    """The resident set of some processes, sampled every 0.2 s in a thread: the largest
    seen per process (``peak``) and the latest (``now``), in MB."""

    def __init__(self, pids):
        import psutil

        self.processes = [psutil.Process(pid) for pid in pids]
        self.peaks = [0.0] * len(pids)
        self.latest = [0.0] * len(pids)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stopped.wait(0.2):
            self.sample()

    def sample(self):
        for i, process in enumerate(self.processes):
            try:
                rss = process.memory_info().rss / 2**20
            except Exception:  # a process gone: its last sample stands
                continue
            self.latest[i] = rss
            self.peaks[i] = max(self.peaks[i], rss)

    def now(self):
        self.sample()
        return max(self.latest)

    def peak(self):
        self.stopped.set()
        self.thread.join()
        self.sample()
        return max(self.peaks)


def _params(library, learner):
    tree = learner != "stumps"
    rate = common.LEARNING_RATE
    if library.startswith("confboost"):
        return ({"weak_learner": "tree", "max_leaves": 8} if tree else
                {"weak_learner": "stump"}) | {"calibration": None}
    if library == "lightgbm dask":
        return {"num_leaves": 8 if tree else 2, "learning_rate": rate, "max_bin": 255,
                "min_child_samples": 1, "verbose": -1, "num_threads": 1}
    return ({"grow_policy": "lossguide", "max_leaves": 8, "max_depth": 0} if tree else
            {"max_depth": 1}) | {"learning_rate": rate, "tree_method": "hist", "max_bin": 256,
                                 "nthread": 1}


def _estimator(library, learner, rounds, client):
    params = _params(library, learner)
    if library == "confboost local":
        from confboost import BoostClassifier

        return BoostClassifier(n_estimators=rounds, n_jobs=common.THREADS, **params)
    if library == "confboost dask":
        from confboost.dask import DaskBoostClassifier

        return DaskBoostClassifier(n_estimators=rounds, client=client, **params)
    if library == "lightgbm dask":
        from lightgbm import DaskLGBMClassifier

        return DaskLGBMClassifier(n_estimators=rounds, client=client, **params)
    from xgboost.dask import DaskXGBClassifier

    return DaskXGBClassifier(n_estimators=rounds, **params)


def count_allreduces():
    """On a worker: count what its collective sends (bytes, messages) from now on; a
    function that reads the counts. A rank sends its subtree's sum to its parent and the
    total to each of its children; a leaf of the tree (an odd rank) sends its part once an
    allreduce."""
    from confboost.dask import link

    counts = [0, 0]
    send = getattr(link._send, "original", link._send)

    def counted(peer, array):
        counts[0] += array.nbytes
        counts[1] += 1
        send(peer, array)

    counted.original = send
    link._send = counted
    return counts


def _counts(dask_worker):
    return list(dask_worker._bench_counts)


def _install(dask_worker):
    dask_worker._bench_counts = count_allreduces()


#: The ends of this process's boosting rounds (``perf_counter``), written by ``RoundEnds``,
#: and the client's round trips by then (confboost on a cluster).
ROUND_ENDS = []
ROUND_TRIPS = []


class RoundEnds:
    """A callback for every library that notes when each round ends (in ``ROUND_ENDS`` of
    the process it runs in: a worker's for LightGBM and XGBoost, the client's for
    confboost), and, given ``trips``, the client's round trips by then."""

    def __init__(self, trips=None):
        self.trips = trips

    def __call__(self, *args):  # LightGBM's f(env)
        return self.after_iteration()

    def after_iteration(self, *args):  # confboost's and XGBoost's TrainingCallback
        ROUND_ENDS.append(time.perf_counter())
        if self.trips is not None:
            ROUND_TRIPS.append(self.trips())
        return False


def round_ends(clear=False):
    """ROUND_ENDS of this process (emptied first with ``clear``)."""
    if clear:
        ROUND_ENDS.clear()
        ROUND_TRIPS.clear()
    return list(ROUND_ENDS)


def _measure(library, learner, X, y, client, counts=None):
    """[round s, whole fit s, trips/round, bytes allreduced a round, allreduces a round] of
    one fit of ``ROUNDS`` rounds of ``learner`` on (X, y). A round is the time from the
    first round's end to the last's over the rounds after the first (the first, which
    waits for binning and start-up, left out), and so are the trips; the last three from
    ``counts()`` (trips, per-worker [bytes, messages] sent), confboost on a cluster only."""
    from xgboost.callback import TrainingCallback

    estimator = _estimator(library, learner, ROUNDS, client)
    callback = RoundEnds(counts.trips if counts else None)
    if library == "xgboost dask":  # XGBoost checks the callback's class
        callback = type("XGBRoundEnds", (RoundEnds, TrainingCallback), {})()
        estimator.set_params(callbacks=[callback])
    on_workers = library in ("lightgbm dask", "xgboost dask")
    if on_workers:
        client.run(round_ends, True)
    round_ends(True)
    before = counts() if counts else None
    start = time.perf_counter()
    if library == "xgboost dask":
        estimator.fit(X, y)
    else:
        estimator.fit(X, y, callbacks=[callback])
    whole = time.perf_counter() - start
    ends = (max(client.run(round_ends).values(), key=len) if on_workers
            else round_ends())
    row = [(ends[-1] - ends[0]) / (len(ends) - 1), whole, None, None, None]
    if counts:
        (_, c0), (_, c1) = before, counts()
        row[2] = (ROUND_TRIPS[-1] - ROUND_TRIPS[0]) / (len(ends) - 1)  # not binning's
        per_worker = (c1 - c0) / ROUNDS
        # the least any worker sent is a leaf's part, once an allreduce
        row[3], row[4] = per_worker.min(axis=0).tolist() if len(per_worker) > 1 else [0, 0]
    return row


def run_one(library, rows, n_workers):
    """In a fresh process: ({learner: ``_measure``'s row}, the data's MB per worker, the
    peak MB per worker, confboost Dask's ``time_link`` after its fits or None). A warm-up
    first: each learner on 20,000 rows (numba's compilation, the connections)."""
    if library == "confboost local":
        sampler = Sampler([os.getpid()])
        X, y = local_data(rows)
        data_mb = sampler.now()
        Xw, yw = local_data(WARM_ROWS)
        for learner in LEARNERS:
            _estimator(library, learner, 2, None).fit(Xw, yw)
        out = {learner: _measure(library, learner, X, y, None) for learner in LEARNERS}
        return out, data_mb, sampler.peak(), None
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      memory_limit=0, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(n_workers)  # slow to start on a busy machine
        sampler = Sampler(client.run(os.getpid).values())
        X, y, futures = cluster_data(client, rows)
        data_mb = sampler.now()
        Xw, yw, warm = cluster_data(client, WARM_ROWS)
        counts = None
        if library == "confboost dask":
            client.run(_install)
            trips = common.counted_trips()

            def counts():
                return trips(), np.array(list(client.run(_counts).values()))

            counts.trips = trips

        for learner in LEARNERS:
            _estimator(library, learner, 2, client).fit(Xw, yw)
        out = {learner: _measure(library, learner, X, y, client, counts)
               for learner in LEARNERS}
        del futures, warm
        link = time_link(client) if library == "confboost dask" else None
        return out, data_mb, sampler.peak(), link


def _listen_here():
    """A task: a listening socket kept on this worker (for ``_timed_allreduces``); its
    address."""
    from distributed import get_worker

    from confboost.dask.link import listen

    get_worker().bench_server, address = listen(60.0)
    return address


def _timed_allreduces(rank, size, addresses, token):
    """A task: this rank of a collective of ``size`` joined (``link.join``), then the median
    seconds of ``LINK_REPEATS`` allreduces of each of ``LINK_BYTES`` (two more first)."""
    from distributed import get_worker, secede

    from confboost.dask.link import join

    secede()  # the other ranks' tasks must start
    worker = get_worker()
    server, worker.bench_server = getattr(worker, "bench_server", None), None
    link = join(rank, size, server, addresses, token, 60.0)
    medians = []
    for nbytes in LINK_BYTES:
        part = np.ones(nbytes // 8)
        times = []
        for _ in range(LINK_REPEATS + 2):
            start = time.perf_counter()
            link.allreduce(part)
            times.append(time.perf_counter() - start)
        medians.append(float(np.median(times[2:])))
    link.close()
    return medians


def time_link(client):
    """The collective's link between the cluster's workers, timed alone: (latency s a
    message: the 8-byte allreduce over its steps(workers) messages; s a byte a message: the
    difference of the two larger sizes' over theirs; the median s of an allreduce of each
    of ``LINK_BYTES``); None on one worker."""
    import uuid

    from confboost.dask.link import children

    workers = sorted(client.scheduler_info()["workers"])
    size = len(workers)
    if size == 1:
        return None
    addresses = [client.submit(_listen_here, workers=[worker], pure=False).result()
                 if children(rank, size) else None for rank, worker in enumerate(workers)]
    token = uuid.uuid4().bytes
    medians = client.gather([client.submit(_timed_allreduces, rank, size, addresses, token,
                                           workers=[worker], pure=False)
                             for rank, worker in enumerate(workers)])[0]
    per_byte = (medians[2] - medians[1]) / ((LINK_BYTES[2] - LINK_BYTES[1]) * steps(size))
    return medians[0] / steps(size), per_byte, medians


def steps(workers):
    """Messages on an allreduce's longest path in the binomial tree: ⌈log2 workers⌉ up,
    as many down."""
    return 2 * int(np.ceil(np.log2(workers))) if workers > 1 else 0


def _columns(rows, workers, nbytes, trips, cores=CORES):
    """The model's three terms' factors; ``cores``: the cores the workers share."""
    return [rows / min(workers, cores), nbytes * steps(workers), trips]


def model(points):
    """(c_rows, c_reduce, c_trip) fitted to [rows, workers, bytes, trips, s/round] points by
    non-negative least squares."""
    from scipy.optimize import nnls

    A = np.array([_columns(*point[:4]) for point in points])
    t = np.array([point[4] for point in points])
    return nnls(A, t)[0]


def _load():
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def _available_gb():
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    return float("nan")


def _runs():
    """(library, rows, workers) of every process: ``BENCH_SCALE_RUNS`` ("library:rows:workers"
    items, ";"-separated) in its order if set; otherwise the ladder in order, at each size
    confboost on ``WORKERS`` workers first, the peers and the local fit, then confboost on
    the model's other clusters."""
    if os.environ.get("BENCH_SCALE_RUNS"):
        return [(library, int(rows), int(workers)) for library, rows, workers in
                (item.split(":") for item in os.environ["BENCH_SCALE_RUNS"].split(";"))]
    runs = []
    for rows in LADDER:
        for library in ("confboost dask", "lightgbm dask", "xgboost dask", "confboost local"):
            if library not in LIBRARIES or (library != "confboost dask" and PEER_ROWS
                                            and rows not in PEER_ROWS):
                continue
            runs.append((library, rows, 1 if library == "confboost local" else WORKERS))
        if "confboost dask" in LIBRARIES:
            runs += [("confboost dask", rows, n) for n in MODEL_WORKERS if n != WORKERS]
    return runs


def _row(library, rows, n_workers, learner, measured, data_mb, peak):
    seconds, whole, trips, nbytes, calls = measured
    workers = (f"local, {common.THREADS} threads" if library == "confboost local"
               else f"{n_workers} x 1 thread")
    tail = ("| | | |" if trips is None else
            f"| {trips:.2f} | {nbytes / 1e3:.0f} | {calls:.1f} |")
    return (f"| {library} | {learner} | {rows:,} | {workers} | {seconds:.3f} | {whole:.1f} | "
            f"{data_mb:.0f} | {peak:.0f} {tail}")


def main():
    """Every process of ``_runs`` (each one's result appended to ``BENCH_SCALE_RESULTS``,
    if set, and read back from it on a rerun: an interrupted ladder resumes), the table,
    then the cost model."""
    import json

    saved = os.environ.get("BENCH_SCALE_RESULTS")
    results = {}
    if saved and os.path.exists(saved):
        with open(saved) as lines:
            for line in lines:
                key, value = json.loads(line)
                results[tuple(key)] = value
    print(f"| library | learner | rows x 50 | workers | s/round | whole fit ({ROUNDS} rounds, "
          f"s) | data MB/worker | peak MB/worker | trips/round | allreduced kB/round | "
          f"allreduces/round |\n|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for key in _runs():
        library, rows, n_workers = key
        if key not in results:
            before = (f"{time.strftime('%H:%M:%S', time.gmtime())} UTC, {_load()}, "
                      f"{_available_gb():.1f} GB available")
            start = time.perf_counter()
            try:
                results[key] = common.fresh("bench_dask_scale", "run_one", *key)
            except RuntimeError as error:  # reported, the other runs go on
                print(f"{library}, {rows:,} rows, {n_workers} workers: failed: "
                      f"{str(error)[-600:]}", file=sys.stderr)
            print(f"# {library}, {rows:,} rows, {n_workers} workers: before {before}; after "
                  f"{time.perf_counter() - start:.0f} s, {_load()}", flush=True)
            if saved and key in results:
                with open(saved, "a") as out:
                    out.write(json.dumps([key, results[key]]) + "\n")
        if key in results:
            rounds, data_mb, peak = results[key][:3]
            for learner, measured in rounds.items():
                print(_row(*key, learner, measured, data_mb, peak), flush=True)
    links = {key: value[3] for key, value in results.items() if len(value) > 3 and value[3]}
    for (_, rows, n_workers), (latency, per_byte, medians) in links.items():
        each = ", ".join(f"{nbytes:,} B {seconds * 1e3:.2f} ms"
                         for nbytes, seconds in zip(LINK_BYTES, medians, strict=True))
        print(f"# link alone, {rows:,} rows, {n_workers} workers ({steps(n_workers)} steps an "
              f"allreduce; {each}): {latency * 1e6:.0f} us a message, {1e-6 / per_byte:.0f} "
              "MB/s a message", flush=True)
    points = [[rows, n_workers, measured[3], measured[2], measured[0], learner, measured[4]]
              for (library, rows, n_workers), value in results.items()
              if library == "confboost dask" for learner, measured in value[0].items()]
    if len(points) >= 3:
        print_model(points)


def print_model(points):
    """Per learner (a tree's row costs several stumps'): the fitted constants, each point
    against the model, and the 100-worker, 1-billion-row prediction, with the fitted
    c_reduce and with ``GBIT`` and ``LATENCY`` in its place."""
    target_rows, target_workers = TARGET
    for learner in LEARNERS:
        own = [p for p in points if p[5] == learner]
        if len(own) < 3:
            continue
        constants = model(own)
        print(f"\n{learner}: cost model from {len(own)} confboost rounds (mean round; "
              f"cores = {CORES}): c_rows = {constants[0]:.3g} s/row, c_reduce = "
              f"{constants[1]:.3g} s/byte a tree step, c_trip = {constants[2]:.3g} s/trip")
        for rows, workers, nbytes, trips, seconds, _, _ in own:
            fitted = float(np.dot(constants, _columns(rows, workers, nbytes, trips)))
            print(f"model check: {rows:,} rows, {workers} workers: measured {seconds:.3f}, "
                  f"model {fitted:.3f} s/round")
        nbytes, calls = max(p[2] for p in own), max(p[6] for p in own)
        terms = constants * np.array(_columns(target_rows, target_workers, nbytes, 1.0,
                                              cores=target_workers))
        network = steps(target_workers) * (nbytes / (GBIT * 1.25e8) + calls * LATENCY)
        print(f"predicted: {target_rows:,} rows on {target_workers} workers of one core, "
              f"{nbytes / 1e3:.0f} kB in {calls:.0f} allreduces a round, "
              f"{steps(target_workers)} tree steps each, 1 trip: {terms.sum():.3f} s/round "
              f"(rows {terms[0]:.3f}, reduce {terms[1]:.3f}, trip {terms[2]:.3f}); with "
              f"{GBIT:g} Gbit/s and {LATENCY * 1e6:.0f} us a message for the reduce: "
              f"{terms[0] + network + terms[2]:.3f} s/round (reduce {network:.3f})")
        print(f"rank 0's traffic a round at {target_workers} workers: "
              f"{steps(target_workers) * nbytes / 1e6:.1f} MB in the tree, "
              f"{2 * (target_workers - 1) * nbytes / 1e6:.1f} MB were it to gather every part")


if __name__ == "__main__":
    main()
