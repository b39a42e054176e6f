"""Milliseconds of AdaBoost.MR's multi-label cut θ_t per round, on one machine.

The cut (``engine/schemes/mr_cut.py``) is taken after every round of multi-label MR from
histograms of the training scores summed through the scheme's reducer; before, one machine
took it by a sort of every score (``hamming_threshold``, now ``hamming_threshold_naive``).
A child process boosts real MR stumps on a task with the cut turned off, keeps the scores
f after rounds ``SNAPSHOTS``, then times the cut of its source tree on each (median of
``BENCH_REPEATS`` calls, default 5, after a warm-up), CPU and wall milliseconds, and the
whole round's (the cut included) for scale. The cut is NumPy on one thread.

Run alone: ``python benchmarks/bench_mr_cut.py [task ...] [--before SRC]
[--alternations N]``. ``--before SRC`` adds the confboost of another source tree
(``SRC`` holds the ``confboost`` package, as ``src/`` of a checkout), its processes
alternating with this checkout's.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
#: The rounds after which the cut is timed.
SNAPSHOTS = (1, 5, 20)
#: task -> (rows, features, labels); yeast-ml's rows are its train and test parts.
TASKS = {
    "yeast-ml 2417 x 14 labels": None,
    "synthetic 100k x 20 labels": (100_000, 20, 20),
}


def task_data(task):
    """(X, Y) of a task: yeast-ml from the data folder, or linear labels over Gaussian
    features (each label on for about a quarter of the rows)."""
    if TASKS[task] is None:
        from confboost.datasets import load

        split = load("yeast-ml")
        return (np.vstack([split.X_train, split.X_test]),
                np.vstack([split.y_train, split.y_test]))
    n, d, k = TASKS[task]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)).astype(np.float32)
    Y = (X @ rng.normal(size=(d, k)) + rng.normal(size=(n, k)) > 1.0).astype(np.int64)
    return X, Y


def _cut(scheme):
    """The cut of the imported source tree on ``scheme``'s scores."""
    try:
        from confboost.engine.schemes.mr_cut import cut_threshold
    except ImportError:  # before: the sort
        from confboost.engine.schemes.mr import hamming_threshold

        return hamming_threshold(scheme.labels.signs, scheme.scores, scheme._sample_weight)
    return cut_threshold(scheme.reducer, scheme)


def _median_ms(function):
    """(CPU, wall) median milliseconds of ``REPEATS`` calls after a warm-up."""
    function()
    cpus, walls = [], []
    for _ in range(REPEATS):
        cpu, wall = time.process_time(), time.perf_counter()
        function()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return 1e3 * statistics.median(cpus), 1e3 * statistics.median(walls)


def child(task):
    """In a fresh process: the JSON of {round: [cut CPU ms, cut wall ms, θ]} and the
    whole round's CPU ms (mean over the last rounds, the cut included)."""
    import numba

    from confboost.data.dataset import Dataset
    from confboost.engine.boosting import run_boosting
    from confboost.engine.learners import StumpLearner
    from confboost.engine.schemes.mr import MRScheme
    from confboost.kernels.criterion_numpy import mode_code

    numba.set_num_threads(1)
    X, Y = task_data(task)
    signs = np.where(Y > 0, 1, -1).astype(np.int8)
    weight = np.ones(len(Y))
    mode, smoothing = mode_code("real"), 100.0 / (2.0 * signs.size)
    dataset = Dataset.from_array(X, 255, 0, weight)
    scheme = MRScheme(signs, weight, False)
    snapshots = {}

    def keep(env):
        if env.round_index + 1 in SNAPSHOTS:
            snapshots[env.round_index + 1] = scheme.scores.copy()

    run_boosting(dataset, scheme, StumpLearner(mode, smoothing), max(SNAPSHOTS), "auto",
                 mode, smoothing, callbacks=[keep])
    out = {}
    for rounds, scores in snapshots.items():
        scheme.scores[...] = scores
        cpu, wall = _median_ms(lambda: _cut(scheme))
        out[rounds] = [cpu, wall, _cut(scheme)]
    multilabel = MRScheme(signs, weight, True)
    run_boosting(dataset, multilabel, StumpLearner(mode, smoothing), 2, "auto", mode, smoothing)
    start = time.process_time()
    run_boosting(dataset, multilabel, StumpLearner(mode, smoothing), 10, "auto", mode,
                 smoothing)
    return {"cut": out, "round": 1e3 * (time.process_time() - start) / 10}


def fresh(task, source):
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", task], env=env, cwd=HERE,
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{task} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tasks", nargs="*", default=list(TASKS))
    parser.add_argument("--before", help="source tree of the confboost to compare against")
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    columns = [("after", None)]
    if args.before:
        columns.insert(0, ("before", Path(args.before).resolve()))
    print(f"# load average at start: {os.getloadavg()[0]:.2f}; median (range) over "
          f"{args.alternations} processes of each's median of {REPEATS} cuts; ms, one thread")
    print("| task | after round | " + " | ".join(f"{name} cut CPU ms" for name, _ in columns)
          + " | " + " | ".join(f"{name} round CPU ms" for name, _ in columns) + " |")
    print("|---|---|" + "---|" * (2 * len(columns)))
    for task in args.tasks:
        results = {name: [] for name, _ in columns}
        for _ in range(args.alternations):
            for name, source in columns:
                results[name].append(fresh(task, source))
        thetas = {json.dumps([r["cut"][str(t)][2] for r in results[name] for t in SNAPSHOTS])
                  for name, _ in columns}
        for t in SNAPSHOTS:
            cells = [task, str(t)]
            for name, _ in columns:
                values = [r["cut"][str(t)][0] for r in results[name]]
                cells.append(f"{statistics.median(values):.2f} ({min(values):.2f}-"
                             f"{max(values):.2f})")
            for name, _ in columns:
                values = [r["round"] for r in results[name]]
                cells.append(f"{statistics.median(values):.1f} ({min(values):.1f}-"
                             f"{max(values):.1f})")
            print("| " + " | ".join(cells) + " |", flush=True)
        print(f"# {task}: the same θ in every column and process: {len(thetas) == 1}")
    print(f"# load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
