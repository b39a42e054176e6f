"""Milliseconds per stump round: confboost against LightGBM (2 leaves), each in a fresh process.

The rounds of ``bench_rounds.py``'s stump tasks (its data, rounds and LightGBM
configuration), without the accuracy fits and the other libraries, so that before/after
comparisons are quick: confboost's rounds are timed as ``common.run_confboost`` times them
(``run_boosting`` of an ``MHScheme`` and a ``StumpLearner`` on the binned data), LightGBM's
as ``common.run_lightgbm``. Every timing runs in a fresh Python process that imports one
library; within it the rounds are timed after a warm-up run, and the median of
``BENCH_REPEATS`` runs (default 5) is kept; across processes the median of
``--alternations`` processes per (library, task, threads), run in turn so that a busy moment
falls on every column alike.

Run alone: ``python benchmarks/bench_stump_rounds.py [task ...] [--before SRC]
[--threads 1 2] [--cpu]`` (the tasks first: ``--threads`` takes every number after it).
``--before SRC`` adds a column for confboost imported from another source tree (``SRC``
holds the ``confboost`` package, as ``src/`` of a checkout), timed in the same run,
alternating with this checkout's. ``--cpu`` reports the process's CPU time per round instead
of wall time: on cores shared with other work a one-thread process's CPU time hardly moves
while its wall time follows the load (with more threads it counts their waits as well).
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

#: task -> (rounds, LightGBM's lambda_l2: the configuration bench_rounds.py reported)
TASKS = {
    "binary 10k x 50": (100, 1.0),
    "10 classes 100k x 50": (10, 0.0),
}

REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))


def load_task(task, folder):
    """The path of the task's split (``bench_rounds.TASKS``' loader), saved once in
    ``folder``."""
    import bench_rounds
    import common

    path = Path(folder) / f"{task.replace(' ', '_')}.npz"
    if not path.exists():
        common.save_split(bench_rounds.TASKS[task][0](), folder, path.stem)
    return str(path)


def _timed(function, rounds):
    """(wall, CPU) seconds per round: medians of ``REPEATS`` calls after a warm-up."""
    function()
    walls, cpus = [], []
    for _ in range(REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append((time.perf_counter() - wall) / rounds)
        cpus.append((time.process_time() - cpu) / rounds)
    return {"seconds": statistics.median(walls), "cpu": statistics.median(cpus)}


def time_confboost(path, rounds, threads):
    """Seconds per round of confboost's stumps, as ``common.run_confboost`` times them."""
    import common
    import numba

    from confboost import BoostClassifier
    from confboost.data.dataset import Dataset
    from confboost.engine.boosting import run_boosting
    from confboost.engine.learners import LEARNERS
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import mode_code

    X, y, _, _ = common.load_split(path)
    numba.set_num_threads(threads)
    probe_rows = np.linspace(0, len(y) - 1, 200).astype(np.intp)
    probe = BoostClassifier(n_estimators=1, n_jobs=threads).fit(X[probe_rows], y[probe_rows])
    signs, _ = probe._encode_targets(y)
    weight = np.ones(len(y))
    smoothing = 1.0 / (2.0 * len(y) * signs.shape[1])
    dataset = Dataset.from_array(X, 255, 0, weight)
    mode = mode_code("real")

    def boost():
        scheme = MHScheme(signs, weight, signs.shape[1] > 1)
        learner = LEARNERS["stump"](mode, smoothing)
        run_boosting(dataset, scheme, learner, rounds, "auto", mode, smoothing)

    return _timed(boost, rounds)


def time_lightgbm(path, rounds, threads, lambda_l2):
    """Seconds per round of LightGBM's 2-leaf trees, as ``common.run_lightgbm`` times them."""
    import common
    import lightgbm as lgb

    X, y, _, _ = common.load_split(path)
    n_classes = len(np.unique(y))
    params = {"num_leaves": 2, "max_bin": 255, "learning_rate": common.LEARNING_RATE,
              "num_threads": threads, "verbose": -1, "lambda_l2": lambda_l2,
              "objective": "binary" if n_classes == 2 else "multiclass"}
    if n_classes > 2:
        params["num_class"] = n_classes
    train = lgb.Dataset(X, y, params={"max_bin": 255, "verbose": -1}).construct()
    return _timed(lambda: lgb.train(params, train, rounds), rounds)


def child(library, task, path, threads):
    """In a fresh process: print the JSON of one library's seconds per round."""
    rounds, lambda_l2 = TASKS[task]
    if library == "lightgbm":
        print(json.dumps(time_lightgbm(path, rounds, threads, lambda_l2)))
    else:
        print(json.dumps(time_confboost(path, rounds, threads)))


def fresh(library, task, path, threads, source=None, measure="seconds"):
    """Seconds per round measured in a fresh process (``measure``: "seconds", wall, or
    "cpu"); ``source``: confboost's package root."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", library, task, path,
                          str(threads)], env=env, cwd=HERE, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{library} on {task} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])[measure]


def table(tasks, threads, before=None, alternations=3, measure="seconds"):
    """The markdown table, a line at a time: milliseconds per round (median and range over
    the processes) of confboost, of the source tree ``before`` when given, and of
    LightGBM, for each task and thread count."""
    columns = [("confboost", None)]
    if before:
        columns.insert(0, ("before", Path(before).resolve()))
    columns.append(("lightgbm", None))
    header = ["task", "threads", *(name for name, _ in columns)]
    if before:
        header += ["after / before", "before / LightGBM"]
    header.append("confboost / LightGBM")
    yield "| " + " | ".join(header) + " |"
    yield "|" + "---|" * len(header)
    with tempfile.TemporaryDirectory() as folder:
        for task in tasks:
            path = load_task(task, folder)
            for n_threads in threads:
                times = {name: [] for name, _ in columns}
                for _ in range(alternations):
                    for name, source in columns:
                        library = "lightgbm" if name == "lightgbm" else "confboost"
                        times[name].append(fresh(library, task, path, n_threads, source,
                                                 measure))
                medians = {name: statistics.median(values) for name, values in times.items()}
                cells = [task, str(n_threads)]
                cells += [f"{medians[name] * 1e3:.3f} ({min(times[name]) * 1e3:.3f}-"
                          f"{max(times[name]) * 1e3:.3f})" for name, _ in columns]
                if before:
                    cells.append(f"{medians['confboost'] / medians['before']:.2f}")
                    cells.append(f"{medians['before'] / medians['lightgbm']:.2f}")
                cells.append(f"{medians['confboost'] / medians['lightgbm']:.2f}")
                yield "| " + " | ".join(cells) + " |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tasks", nargs="*", default=list(TASKS))
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--before", help="source tree of the confboost to compare against")
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--cpu", action="store_true",
                        help="CPU seconds per round instead of wall seconds")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.child[2], int(args.child[3]))
        return
    print(f"# load average at start: {os.getloadavg()[0]:.2f}; {REPEATS} timed runs a "
          f"process, median (range) of {args.alternations} processes; "
          f"{'CPU' if args.cpu else 'wall'} ms per round", flush=True)
    for line in table(args.tasks, args.threads, args.before, args.alternations,
                      "cpu" if args.cpu else "seconds"):
        print(line, flush=True)
    print(f"# load average at end: {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
