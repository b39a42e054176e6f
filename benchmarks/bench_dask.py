"""Distributed fit on Dask against the local fit: seconds per round, whole fit, overhead.

Binary stumps, then trees of 8 leaves, on ``common.synthetic`` data (default 2M x 50,
``BENCH_DASK_ROWS``), 20 rounds (``BENCH_DASK_ROUNDS``): ``BoostClassifier`` on ``THREADS``
threads, then
``DaskBoostClassifier`` on a process ``LocalCluster`` of 1 worker (``THREADS`` threads) and of
2 workers (``THREADS // 2`` threads each, at least 1), the data in 8 partitions scattered to
the workers before the clock starts; both fits uncalibrated (one run each). Per round is the
time from the first round's end to the last round's, over the rounds after the first (a
callback on the client, ``bench_dask_scale.RoundEnds``; the first round, which waits for
binning and start-up and is a trip of its own, left out), for the local fit and Dask alike:
a Dask trip carries several rounds (``collective.batch_size``), which end on the client at
once, so a median of the times between two rounds' ends would read ~0 inside a trip. Not a
difference of two fits' wall times, which is noise below about 30 rounds. "overhead" is the
share of a distributed round not spent in the local engine's work, 1 - local s/round /
distributed s/round (scheduling, the allreduces, moving the rounds' results); "trips/round"
the round trips the client waited for after the first round's end, over the rounds after
the first. "CPU s/round" is the CPU (user + system) of every process of the fit (the
client's, which runs a process ``LocalCluster``'s scheduler and nannies, and the workers')
over the same rounds, "CPU share" 1 - local CPU s/round / distributed CPU s/round: on a
loaded machine, where the wall time a round waits for a core moves by tens of percent,
the CPU a round takes moves less.

Both fits bin alike in every run (``binned``): the data is the codes of one ``BinMapper``
(seed 0) fitted on the generated X, so every feature has at most 255 distinct values,
which both fits' bins keep exact (the local fit's 200,000-row subsample and the Dask fit's
sample of the partitions alike). The two fits grow the same trees (the rows' bins are the
generated data's under those bins), so the local round and the Dask round do the same work,
run after run ("max abs Δf": the largest difference of the two models' decision functions on
the test rows; the fits' sums are added in other orders, so ~1e-15, not 0). Without it,
the local fit's bins came from another random sample each fit, and its trees, and its
time a round, moved with them.

``BENCH_DASK_WORKERS`` (default "1,2") picks the clusters, ``BENCH_DASK_LEARNERS``
(default "stumps,trees") the weak learners. Run alone: ``python
benchmarks/bench_dask.py``; against another source tree (before/after),
``PYTHONPATH=<its src> python benchmarks/bench_dask.py`` (the workers inherit it); with
Dask's worker profiler off (it samples a task's stack every 10 ms, on by default),
``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False`` (the workers inherit it too).

**Fresh process pairs** (``python benchmarks/bench_dask.py``, the default): one fit's
round time moves by a third between runs minutes apart on a quiet machine (the local tree
round read 0.064-0.089 s with identical bins), and a share taken from one local fit and one
Dask fit in one process reads whatever each happened to get. So the bench makes the data
once (a ``.npz`` in a temporary folder), then runs ``BENCH_DASK_PAIRS`` (default 5) pairs of
fresh processes, each pair one process of the local fit and one of each Dask cluster
(``fit_in_process``), the local one first in even pairs and last in odd ones, so that a busy
moment falls on either side alike; each process compiles (a fit of 2 rounds) and then times
its fit as above. A pair's overhead is 1 - its local s/round / its Dask s/round; the bench
prints every pair, then, per learner and cluster, the median and range (min-max) over the
pairs of the overhead (wall and CPU) and of both s/round. ``--before SRC`` runs every pair
with ``SRC`` (the ``src`` of another checkout, its ``PYTHONPATH``) too, alternated with this
checkout's within the pair. ``BENCH_DASK_PAIRS=0`` is the single-process run of both fits
described above (the measurement before the pairs; ``run``).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import bench_dask_scale
import common

ROWS = int(os.environ.get("BENCH_DASK_ROWS", "2000000"))
ROUNDS = int(os.environ.get("BENCH_DASK_ROUNDS", "20"))
WORKERS = [int(n) for n in os.environ.get("BENCH_DASK_WORKERS", "1,2").split(",")]
PAIRS = int(os.environ.get("BENCH_DASK_PAIRS", "5"))


def _cpu_seconds():
    """CPU seconds (user + system) of this process and its children (a process
    ``LocalCluster``'s workers; its scheduler and nannies run here) so far."""
    import psutil

    here = psutil.Process()
    total = 0.0
    for process in [here, *here.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def _per_round(fit):
    """(seconds per round, whole fit of ROUNDS rounds, the model, trips per round, CPU
    seconds per round): ``fit`` called with the rounds and a callback that notes each
    round's end, the client's round trips and the CPU of every process of the fit by then
    (``_cpu_seconds``: under load, CPU says more than wall)."""
    trips = common.counted_trips()
    callback = bench_dask_scale.RoundEnds(lambda: (trips(), _cpu_seconds()))
    bench_dask_scale.round_ends(clear=True)
    start = time.perf_counter()
    model = fit(ROUNDS, [callback])
    whole = time.perf_counter() - start
    ends, by_then = bench_dask_scale.round_ends(), bench_dask_scale.ROUND_TRIPS
    after_first = len(ends) - 1
    return ((ends[-1] - ends[0]) / after_first, whole, model,
            (by_then[-1][0] - by_then[0][0]) / after_first,
            (by_then[-1][1] - by_then[0][1]) / after_first)


#: The weak learners timed, by row name (``BENCH_DASK_LEARNERS``: "stumps", "trees" or
#: both, the default).
LEARNERS = {name: params for name, params in (
    ("stumps", {"weak_learner": "stump"}),
    ("trees of 8 leaves", {"weak_learner": "tree", "max_leaves": 8}))
    if name.split()[0] in os.environ.get("BENCH_DASK_LEARNERS", "stumps,trees").split(",")}


def binned(X, Xt):
    """X and Xt (float32) as their codes under a ``BinMapper`` (seed 0) fitted on X
    (module docstring)."""
    import numpy as np

    from confboost.data.bin_mapper import BinMapper

    mapper = BinMapper(random_state=0).fit(X)
    return tuple(np.ascontiguousarray(mapper.transform(A).T, dtype=np.float32)
                 for A in (X, Xt))


def run():
    """{row name: (s/round, whole fit s, test accuracy, overhead share, trips/round,
    max abs Δf against the local model, CPU s/round, CPU overhead share)}."""
    X, y, Xt, yt = common.synthetic(ROWS)
    X, Xt = binned(X, Xt)
    rows = {}
    for learner, params in LEARNERS.items():
        for name, row in _run(X, y, Xt, yt, params).items():
            rows[f"{learner}, {name}"] = row
    return rows


def _scattered(client, X, y):
    """X and y as dask arrays of 8 partitions whose blocks were scattered to the workers
    (not written into the graph, which would make every fit's graph hold the data)."""
    import dask
    import dask.array as da

    chunk = -(-ROWS // 8)
    starts = range(0, X.shape[0], chunk)

    def scattered(array):
        futures = client.scatter([array[i:i + chunk] for i in starts])
        return da.concatenate([
            da.from_delayed(dask.delayed(future), (min(chunk, array.shape[0] - i),)
                            + array.shape[1:], array.dtype)
            for i, future in zip(starts, futures, strict=True)])

    return scattered(X), scattered(y)


def _local_fit(X, y, params):
    """The local fit of ``rounds`` rounds with ``callbacks`` (on ``THREADS`` threads), compiled."""
    from confboost import BoostClassifier

    def fit(rounds, callbacks=None):
        return BoostClassifier(n_estimators=rounds, n_jobs=common.THREADS, calibration=None,
                               random_state=0, **params).fit(X, y, callbacks=callbacks)

    fit(2)  # compile
    return fit


def _dask_timed(X, y, n_workers, params):
    """(s/round, whole fit s, the local copy of the model, trips/round, CPU s/round) of a
    Dask fit on a fresh process ``LocalCluster`` of ``n_workers`` workers, compiled first."""
    from distributed import Client, LocalCluster

    from confboost.dask import DaskBoostClassifier

    threads = max(1, common.THREADS // n_workers)
    with LocalCluster(n_workers=n_workers, threads_per_worker=threads, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        Xd, yd = _scattered(client, X, y)

        def fit(rounds, callbacks=None):
            return DaskBoostClassifier(n_estimators=rounds, client=client, calibration=None,
                                       random_state=0, **params).fit(
                Xd, yd, callbacks=callbacks)

        fit(2)  # compile on the workers
        seconds, whole, model, trips, cpu = _per_round(fit)
        return seconds, whole, model.to_local(), trips, cpu


def _cluster_name(n_workers):
    return f"{n_workers} worker(s) x {max(1, common.THREADS // n_workers)} thread(s)"


def _run(X, y, Xt, yt, params):
    local_round, local_whole, local_model, _, local_cpu = _per_round(
        _local_fit(X, y, params))
    local_f = local_model.decision_function(Xt)
    rows = {"local": (local_round, local_whole, local_model.score(Xt, yt), 0.0, 0.0, 0.0,
                      local_cpu, 0.0)}
    for n_workers in WORKERS:
        seconds, whole, model, trips, cpu = _dask_timed(X, y, n_workers, params)
        rows[_cluster_name(n_workers)] = (
            seconds, whole, model.score(Xt, yt), 1.0 - local_round / seconds, trips,
            float(abs(model.decision_function(Xt) - local_f).max()), cpu,
            1.0 - local_cpu / cpu)
    return rows


def fit_in_process(path, learner, n_workers, f_path):
    """In a fresh process (``common.fresh``): the fit of ``learner`` (a ``LEARNERS`` key)
    on the binned split at ``path``, locally (``n_workers`` 0) or on a ``LocalCluster`` of
    ``n_workers`` workers, timed as ``run`` times it: [s/round, whole fit s, test accuracy,
    trips/round, CPU s/round]; its decision function on the test rows saved to ``f_path``
    (``.npy``)."""
    import numpy as np

    X, y, Xt, yt = common.load_split(path)
    params = LEARNERS[learner]
    if n_workers == 0:
        seconds, whole, model, trips, cpu = _per_round(_local_fit(X, y, params))
    else:
        seconds, whole, model, trips, cpu = _dask_timed(X, y, n_workers, params)
    np.save(f_path, model.decision_function(Xt))
    return [seconds, whole, float(model.score(Xt, yt)), trips, cpu]


def pairs(n_pairs=PAIRS, before=None):
    """The fresh-process pairs (module docstring): {(learner, source, cluster): [pair's
    (s/round, overhead, trips/round, CPU s/round, CPU share, max abs Δf), ...]}, ``source``
    "after" (this checkout) or "before" (``before``'s src), ``cluster`` "local" or a
    Dask cluster's name; each pair's rows printed as it ends."""
    import numpy as np

    sources = [("after", None)] + ([("before", str(Path(before).resolve()))] if before else [])
    runs = {}
    with tempfile.TemporaryDirectory() as folder:
        X, y, Xt, yt = common.synthetic(ROWS)
        X, Xt = binned(X, Xt)
        path = common.save_split((X, y, Xt, yt), folder, "bench_dask")
        del X, Xt
        for pair in range(n_pairs):
            for learner in LEARNERS:
                order = [0, *WORKERS] if pair % 2 == 0 else [*WORKERS, 0]
                for source, src in sources if pair % 2 == 0 else sources[::-1]:
                    env = {"PYTHONPATH": src} if src else None
                    got = {}
                    for n_workers in order:
                        f_path = str(Path(folder) / f"f{n_workers}.npy")
                        got[n_workers] = (common.fresh("bench_dask", "fit_in_process", path,
                                                       learner, n_workers, f_path, env=env),
                                          np.load(f_path))
                    local = got[0][0]
                    for n_workers in order:
                        (seconds, _, _, trips, cpu), f = got[n_workers]
                        name = "local" if n_workers == 0 else _cluster_name(n_workers)
                        row = (seconds, 1.0 - local[0] / seconds, trips, cpu,
                               1.0 - local[4] / cpu, float(abs(f - got[0][1]).max()))
                        runs.setdefault((learner, source, name), []).append(row)
                        print(f"| {pair + 1} | {learner}, {name} | {source} | {seconds:.3f} | "
                              f"{row[1]:.0%} | {trips:.2f} | {cpu:.3f} | {row[4]:.0%} | "
                              f"{row[5]:.1e} | {time.strftime('%H:%M:%S', time.gmtime())} "
                              f"{os.getloadavg()[0]:.1f} |", flush=True)
    return runs


def _spread(values, form):
    return (f"{form.format(statistics.median(values))} "
            f"({form.format(min(values))} to {form.format(max(values))})")


def _main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", help="src of another checkout, run in every pair too")
    args = parser.parse_args()
    if PAIRS == 0:
        print(f"| {ROWS:,} x 50 binary, {ROUNDS} rounds | s/round | whole fit (s) | test acc | "
              "overhead share | trips/round | max abs Δf | CPU s/round | CPU share |"
              "\n|---|---|---|---|---|---|---|---|---|")
        for name, (seconds, whole, accuracy, overhead, trips, delta, cpu, cpu_share) in \
                run().items():
            print(f"| {name} | {seconds:.3f} | {whole:.2f} | {accuracy:.4f} | {overhead:.0%} | "
                  f"{trips:.1f} | {delta:.1e} | {cpu:.3f} | {cpu_share:.0%} |")
        return
    print(f"| pair | {ROWS:,} x 50 binary, {ROUNDS} rounds | src | s/round | overhead | "
          "trips/round | CPU s/round | CPU share | max abs Δf | end (UTC), load |"
          "\n|---|---|---|---|---|---|---|---|---|---|", flush=True)
    runs = pairs(PAIRS, args.before)
    print(f"\n| {PAIRS} pairs, median (range) | src | s/round | overhead | CPU share |"
          "\n|---|---|---|---|---|")
    for (learner, source, name), rows in runs.items():
        columns = list(zip(*rows, strict=True))
        share = ("—" if name == "local" else _spread(columns[1], "{:.0%}"))
        cpu_share = ("—" if name == "local" else _spread(columns[4], "{:.0%}"))
        print(f"| {learner}, {name} | {source} | {_spread(columns[0], '{:.3f}')} | {share} | "
              f"{cpu_share} |")


if __name__ == "__main__":
    sys.exit(_main())
