"""Seconds per 16-leaf tree round: confboost against LightGBM, each in its own fresh process.

confboost grows one tree a round for all k labels (a label tree, ``weak_learner="tree"``),
LightGBM k trees a round (``num_leaves=16``, one per class); both from the same binned data,
binning apart. Every timing runs in a fresh Python process that imports one library only,
so no library's threads or OpenMP settings touch another's. Within a process the rounds are
timed after a warm-up (the numba kernels load from their cache, the thread pool starts),
and the median of ``TREE_REPEATS`` runs (default 3) is kept; across processes the median of
``--alternations`` fresh processes per (library, task, threads), run in turn so that a busy
moment falls on every column alike. With two alternations or more, a ratio cell also gives
the range of the ratios of the processes run one after the other (the first confboost
process against the first LightGBM one, and so on): a short task (satimage's 30 rounds
last 60-90 ms) moves with the host more than with the code, and the range says by how much.

Run alone: ``python benchmarks/bench_trees.py [task ...] [--before SRC] [--threads 1 2]`` (the
tasks first: ``--threads`` takes every number after it).
``--before SRC`` adds a column for confboost imported from another source tree (``SRC``
holds the ``confboost`` package, as ``src/`` of a checkout), timed in the same run,
alternating with this checkout's: a before/after ratio on a shared machine. ``--cpu``
reports the process's CPU seconds per round instead of wall seconds: on cores shared with
other work a one-thread process's CPU time hardly moves while its wall time follows the
load (with more threads it adds the threads' time and any spin-waiting, so it shows no
speed-up from them).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

#: task -> rounds per timed run
TASKS = {
    "binary 400k x 50": 10,
    "binary 1M x 50": 5,
    "5 classes 400k x 50": 5,
    "satimage": 30,
    "letter": 10,
    "fashion-mnist": 2,
}

REPEATS = int(os.environ.get("TREE_REPEATS", "3"))
LEAVES = 16
LEARNING_RATE = 0.5


def load_task(task):
    """(X, y) of a task's training part, float32 (the synthetic sets are made once and kept
    in the temporary folder: making 1M rows takes longer than the timing)."""
    if task.startswith(("binary", "5 classes")):
        import common

        n = 400_000 if "400k" in task else 1_000_000
        n_classes = 5 if task.startswith("5 classes") else 2
        suffix = "" if n_classes == 2 else f"-{n_classes}"
        cached = Path(tempfile.gettempdir()) / f"confboost-bench-trees-{n}{suffix}.npz"
        if cached.exists():
            data = np.load(cached)
            return data["X"], data["y"]
        X, y, _, _ = common.synthetic(n, n_classes=n_classes)
        np.savez(cached, X=X, y=y)
        return X, y
    from confboost.datasets import load

    split = load(task, dtype=np.float32)
    return split.X_train, split.y_train


def median_round(function, rounds):
    """Median wall and CPU seconds per round of ``REPEATS`` runs of ``function``."""
    wall, cpu = [], []
    for _ in range(REPEATS):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return {"seconds": statistics.median(wall) / rounds,
            "cpu": statistics.median(cpu) / rounds}


def time_confboost(task, threads, stages=None):
    """Seconds per round of confboost's 16-leaf trees; with ``stages`` (a dict), the
    stages' seconds and calls per round are added to it (``wrap_stages``)."""
    import numba

    from confboost import BoostClassifier
    from confboost.data.dataset import Dataset
    from confboost.engine.boosting import run_boosting
    from confboost.engine.learners import LEARNERS
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import mode_code

    X, y = load_task(task)
    numba.set_num_threads(threads)
    probe_rows = np.linspace(0, len(y) - 1, 200).astype(np.intp)
    probe = BoostClassifier(n_estimators=1, n_jobs=threads).fit(X[probe_rows], y[probe_rows])
    signs, _ = probe._encode_targets(y)
    weight = np.ones(len(y))
    smoothing = 1.0 / (2.0 * len(y) * signs.shape[1])
    dataset = Dataset.from_array(X, 255, 0, weight)
    mode = mode_code("real")
    rounds = TASKS[task]

    def boost(n_rounds=rounds):
        scheme = MHScheme(signs, weight, signs.shape[1] > 1)
        learner = LEARNERS["tree"](mode, smoothing, max_leaves=LEAVES)
        return run_boosting(dataset, scheme, learner, n_rounds, "auto", mode, smoothing)

    boost(2)  # warm-up: kernels from the cache, the thread pool
    if stages is None:
        return median_round(boost, rounds)
    clock = time.process_time if threads == 1 else time.perf_counter
    totals = wrap_stages(clock, len(y))
    start = clock()
    boost()
    stages["round"] = [(clock() - start) / rounds, 1.0]
    for name, (seconds, calls) in totals.items():
        stages[name] = [seconds / rounds, calls / rounds]
    return stages


#: Stages of a tree round: (module, name of a kernel it calls) -> stage.
STAGES = {
    ("confboost.engine.learners.tree", "build_node_histogram_binary"): "histogram",
    ("confboost.engine.learners.tree", "build_node_histogram"): "histogram",
    ("confboost.engine.learners.tree", "build_histogram_masses"): "histogram",
    ("confboost.engine.learners.grower", "partition_rows"): "partition",
    ("confboost.engine.learners.grower", "children_splits"): "split search",
    ("confboost.engine.learners.tree", "label_masses"): "label masses",
    ("confboost.engine.learners.tree", "leaf_statistics"): "leaf values",
}

#: Node sizes (share of the rows) by which ``--sizes`` splits the histograms' time.
SIZE_EDGES = (1 / 32, 1 / 8, 1 / 2)


def wrap_stages(clock, n_samples):
    """Wrap each kernel of ``STAGES`` where its module calls it, to add its time (by
    ``clock``) and calls to the returned {stage: [seconds, calls]}; a histogram's also to
    "histogram, nodes < share" of its node's size."""
    import importlib

    totals = {}

    def wrapped(kernel, stage):
        def timed(*args, **kwargs):
            start = clock()
            result = kernel(*args, **kwargs)
            seconds = clock() - start
            names = [stage]
            if stage == "histogram":
                rows = args[1]
                share = 1.0 if rows is None else len(rows) / n_samples
                edge = next((edge for edge in SIZE_EDGES if share < edge), None)
                names.append("histogram, root" if rows is None else
                             f"histogram, nodes < {edge:.3g}" if edge else
                             f"histogram, nodes >= {SIZE_EDGES[-1]:.3g}")
            for name in names:
                total = totals.setdefault(name, [0.0, 0])
                total[0] += seconds
                total[1] += 1
            return result

        return timed

    for (module_name, name), stage in STAGES.items():
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            setattr(module, name, wrapped(getattr(module, name), stage))
    return totals


def time_lightgbm(task, threads):
    import lightgbm as lgb

    X, y = load_task(task)
    classes, y = np.unique(y, return_inverse=True)
    n_classes = len(classes)
    params = {"num_leaves": LEAVES, "max_bin": 255, "learning_rate": LEARNING_RATE,
              "num_threads": threads, "verbose": -1,
              "objective": "binary" if n_classes == 2 else "multiclass"}
    if n_classes > 2:
        params["num_class"] = n_classes
    train = lgb.Dataset(X, y, params={"max_bin": 255, "verbose": -1}).construct()
    rounds = TASKS[task]
    lgb.train(params, train, 2)  # warm-up
    return median_round(lambda: lgb.train(params, train, rounds), rounds)


def child(library, task, threads):
    """The timing of one (library, task, threads) in this process, printed as JSON
    (``library`` "stages": confboost's stages)."""
    sys.path.insert(0, str(HERE))
    if library == "stages":
        print(json.dumps(time_confboost(task, threads, stages={})))
        return
    timer = time_lightgbm if library == "lightgbm" else time_confboost
    print(json.dumps(timer(task, threads)))


def stage_table(tasks, threads, sizes=False):
    """The markdown table of ``--stages``: milliseconds per round of each stage, its share
    of the round and its calls per round, a line per (task, threads)."""
    names = ["histogram", "partition", "split search", "label masses", "leaf values"]
    if sizes:
        names[1:1] = ["histogram, root", *(f"histogram, nodes < {edge:.3g}"
                                           for edge in SIZE_EDGES),
                      f"histogram, nodes >= {SIZE_EDGES[-1]:.3g}"]
    yield ("| task | threads | round ms | " + " | ".join(names)
           + " | rest |\n" + "|---" * (len(names) + 4) + "|")
    for task in tasks:
        for n_threads in threads:
            out = subprocess.run([sys.executable, __file__, "--child", "stages", task,
                                  str(n_threads)], capture_output=True, text=True)
            if out.returncode:
                raise RuntimeError(f"stages of {task} failed:\n{out.stderr}")
            stages = json.loads(out.stdout.strip().splitlines()[-1])
            round_seconds = stages["round"][0]
            cells = []
            for name in names:
                seconds, calls = stages.get(name, (0.0, 0.0))
                cells.append(f"{seconds * 1e3:.2f} ({seconds / round_seconds:.0%}, "
                             f"{calls:.3g} calls)")
            rest = round_seconds - sum(stages.get(name, (0.0,))[0] for name in
                                       names if not name.startswith("histogram, "))
            yield (f"| {task} | {n_threads} | {round_seconds * 1e3:.2f} | "
                   + " | ".join(cells) + f" | {rest * 1e3:.2f} ({rest / round_seconds:.0%}) |")


def fresh(library, task, threads, source=None, measure="seconds"):
    """Seconds per round measured in a fresh process (``measure``: "seconds", wall, or
    "cpu"); ``source``: confboost's package root."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", library, task, str(threads)],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{library} on {task} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])[measure]


def table(tasks=tuple(TASKS), threads=(1, 2), before=None, alternations=2, measure="seconds"):
    """The markdown table, a line at a time as each row is measured: seconds per round
    (``measure``: "seconds", wall, or "cpu") of confboost, of the source tree ``before``
    when given, and of LightGBM, for each task and thread count."""
    columns = [("confboost", None)]
    if before:
        columns.insert(0, ("before", Path(before).resolve()))
    columns.append(("lightgbm", None))
    header = ["task", "threads", *(name for name, _ in columns), "confboost / LightGBM"]
    if before:
        header.insert(-1, "after / before")
    yield "| " + " | ".join(header) + " |"
    yield "|" + "---|" * len(header)
    for task in tasks:
        for n_threads in threads:
            times = {name: [] for name, _ in columns}
            for _ in range(alternations):
                for name, source in columns:
                    library = "lightgbm" if name == "lightgbm" else "confboost"
                    times[name].append(fresh(library, task, n_threads, source, measure))
            medians = {name: statistics.median(values) for name, values in times.items()}
            cells = [task, str(n_threads), *(f"{medians[name]:.4f}" for name, _ in columns)]
            if before:
                cells.append(ratio_cell(times["confboost"], times["before"]))
            cells.append(ratio_cell(times["confboost"], times["lightgbm"]))
            yield "| " + " | ".join(cells) + " |"


def ratio_cell(numerators, denominators):
    """The ratio of the two columns' medians, and with several processes each, the range
    of the ratios of the processes that ran one after the other: "0.63 (0.55-0.82)"."""
    cell = f"{statistics.median(numerators) / statistics.median(denominators):.2f}"
    if len(numerators) > 1:
        paired = [top / bottom for top, bottom in zip(numerators, denominators, strict=True)]
        cell += f" ({min(paired):.2f}-{max(paired):.2f})"
    return cell


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tasks", nargs="*", default=list(TASKS))
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--before", help="source tree of the confboost to compare against")
    parser.add_argument("--alternations", type=int, default=2)
    parser.add_argument("--cpu", action="store_true",
                        help="CPU seconds per round instead of wall seconds")
    parser.add_argument("--stages", action="store_true",
                        help="confboost's seconds per round by stage instead")
    parser.add_argument("--sizes", action="store_true",
                        help="with --stages: the histograms' time by node size too")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return
    if args.stages:
        print(f"# load average at start: {os.getloadavg()[0]:.2f}; one run of each task's "
              f"rounds a process; {'CPU' if args.threads == [1] else 'wall (CPU on 1 thread)'}"
              " ms per round (share of the round, calls per round)", flush=True)
        for line in stage_table(args.tasks, args.threads, args.sizes):
            print(line, flush=True)
        print(f"# load average at end: {os.getloadavg()[0]:.2f}", flush=True)
        return
    print(f"# load average at start: {os.getloadavg()[0]:.2f}; {REPEATS} timed runs a "
          f"process, median of {args.alternations} processes; "
          f"{'CPU' if args.cpu else 'wall'} seconds per round", flush=True)
    for line in table(args.tasks, args.threads, args.before, args.alternations,
                      "cpu" if args.cpu else "seconds"):
        print(line, flush=True)
    print(f"# load average at end: {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
