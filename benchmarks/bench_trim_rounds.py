"""Milliseconds per trimmed stump round, this checkout against another source tree, each
timing in a fresh process, the two alternating.

A round is ``run_boosting``'s (the ``StumpLearner`` with ``trim=β``, then the ``MHScheme``'s
update) on ``common.synthetic``'s data, binned once per process; within a process the
rounds are timed after a warm-up run and the median of ``BENCH_REPEATS`` runs (default 3)
is kept; across processes the median and range of ``--alternations`` processes per
(tree, task, threads). Each process also reports the mean share of the rows the histograms
read and how many rounds fell back to every row, which two trees with the same rule give
alike.

Run: ``python benchmarks/bench_trim_rounds.py --before SRC [--tasks binary 10-class]
[--trim 0.1] [--threads 1] [--cpu]`` (``SRC`` holds the ``confboost`` package, as ``src/``
of a checkout). ``--cpu`` reports the process's CPU time per round instead of wall time.
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

#: task -> (rows, classes, rounds a timed run)
TASKS = {"binary": (200_000, 2, 20), "10-class": (200_000, 10, 10)}

REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))


def child(path, task, beta, threads):
    """In a fresh process: the JSON of (wall, CPU) seconds per round, the kept share and
    the fall-backs of one timed run."""
    import common
    import numba

    from confboost.data.dataset import Dataset
    from confboost.engine.boosting import run_boosting
    from confboost.engine.learners import StumpLearner
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import mode_code

    X, y, _, _ = common.load_split(path)
    numba.set_num_threads(threads)
    n_classes, rounds = TASKS[task][1:]
    signs = (np.where(y[:, None] == 1, 1, -1) if n_classes == 2 else
             np.where(y[:, None] == np.arange(n_classes), 1, -1)).astype(np.int8)
    weight = np.ones(len(y))
    mode = mode_code("real")
    smoothing = 1.0 / (2.0 * signs.size)
    dataset = Dataset.from_array(X, 255, 0, weight)

    def boost():
        learner = StumpLearner(mode, smoothing, trim=beta)
        run_boosting(dataset, MHScheme(signs, weight, n_classes > 2), learner, rounds,
                     "auto", mode, smoothing)
        return learner.kept_

    boost()
    walls, cpus = [], []
    for _ in range(REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        kept = boost()
        walls.append((time.perf_counter() - wall) / rounds)
        cpus.append((time.process_time() - cpu) / rounds)
    print(json.dumps({"seconds": statistics.median(walls), "cpu": statistics.median(cpus),
                      "kept": float(np.mean(kept)) / len(y),
                      "fallbacks": sum(count == len(y) for count in kept)}))


def fresh(path, task, beta, threads, source):
    """``child``'s result in a fresh process importing confboost from ``source`` (None:
    where this process imports it from)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", path, task, str(beta),
                          str(threads)], env=env, cwd=HERE, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{task} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(tasks, beta, threads, before, alternations, measure):
    """The markdown table, a line at a time."""
    import common

    columns = [("before", Path(before).resolve()), ("after", None)]
    yield "| task | threads | before ms | after ms | after / before | rows read / fall-backs |"
    yield "|---|---|---|---|---|---|"
    with tempfile.TemporaryDirectory() as folder:
        for task in tasks:
            n_rows, n_classes, _ = TASKS[task]
            path = common.save_split(common.synthetic(n_rows, n_classes), folder, "split")
            for n_threads in threads:
                runs = {name: [] for name, _ in columns}
                for _ in range(alternations):
                    for name, source in columns:
                        runs[name].append(fresh(path, task, beta, n_threads, source))
                times = {name: [run[measure] * 1e3 for run in values]
                         for name, values in runs.items()}
                cells = [f"{statistics.median(t):.1f} ({min(t):.1f}-{max(t):.1f})"
                         for t in times.values()]
                ratio = statistics.median(times["after"]) / statistics.median(times["before"])
                read = {f"{run['kept']:.3f}/{run['fallbacks']}" for values in runs.values()
                        for run in values}
                yield (f"| {task} | {n_threads} | {cells[0]} | {cells[1]} | {ratio:.3f} | "
                       f"{' '.join(sorted(read))} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=False,
                        help="source tree of the confboost to compare against")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--trim", type=float, default=0.1)
    parser.add_argument("--threads", nargs="+", type=int, default=[1])
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--cpu", action="store_true",
                        help="CPU seconds per round instead of wall seconds")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], float(args.child[2]), int(args.child[3]))
        return
    if not args.before:
        parser.error("--before SRC is required")
    print(f"# load average at start: {os.getloadavg()[0]:.2f}; trim={args.trim}; {REPEATS} "
          f"timed runs a process, median (range) of {args.alternations} processes; "
          f"{'CPU' if args.cpu else 'wall'} ms per round; rows read: mean share/fall-backs",
          flush=True)
    for line in table(args.tasks, args.trim, args.threads, args.before, args.alternations,
                      "cpu" if args.cpu else "seconds"):
        print(line, flush=True)
    print(f"# load average at end: {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
