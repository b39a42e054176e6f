"""numba's threading layers on a busy machine: the default ``n_jobs`` against ``n_jobs=1``
under TBB (what confboost runs on when the ``tbb`` package is installed), under OpenMP's
default wait policy, and under OpenMP with ``OMP_WAIT_POLICY=PASSIVE`` (what confboost set
process-wide before it stopped changing the environment).

Each layer runs in its own fresh process (the layer and OpenMP's wait policy are chosen once
per process; the environment variables are set for that child only). Whole fits, binning
included, the default threads and one thread interleaved, median of ``LAYER_REPEATS``
(default 5) each, with two busy processes on the cores as in ``bench_busy.py`` (``BUSY=0``:
none, the machine as it is). Run alone: ``python benchmarks/bench_layers.py``.
"""

import os
import subprocess
import sys
import time

import common

REPEATS = int(os.environ.get("LAYER_REPEATS", "5"))

#: layer name -> environment variables of its child process
LAYERS = {
    "tbb": {},
    "omp": {"NUMBA_THREADING_LAYER": "omp"},
    "omp, OMP_WAIT_POLICY=PASSIVE": {"NUMBA_THREADING_LAYER": "omp",
                                     "OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"},
}

#: task -> (common.synthetic arguments or "shuttle", estimator parameters)
TASKS = {
    "binary 10k x 50, 100 stumps": ((10_000,), {"n_estimators": 100}),
    "binary 100k x 50, 30 stumps": ((100_000,), {"n_estimators": 30}),
    "shuttle-like 43.5k x 9, 30 8-leaf trees": ("shuttle", {"n_estimators": 30,
                                                           "weak_learner": "tree",
                                                           "max_leaves": 8}),
}


def fit_times(task):
    """In the child: {'layer', 'default', 'single'} median seconds of whole fits."""
    import numba
    import numpy as np

    from confboost import BoostClassifier

    source, params = TASKS[task]
    if source == "shuttle":
        import bench_busy

        X, y = bench_busy.shuttle_like()
    else:
        X, y = common.synthetic(*source)[:2]
    params = {"weak_learner": "stump", "calibration": None, **params}
    BoostClassifier(**{**params, "n_estimators": 2}).fit(X[:2000], y[:2000])  # the kernels
    default, single = [], []
    for repeat in range(REPEATS):
        pair = ((None, default), (1, single))
        for n_jobs, times in pair if repeat % 2 == 0 else pair[::-1]:
            start = time.perf_counter()
            BoostClassifier(**params, n_jobs=n_jobs).fit(X, y)
            times.append(time.perf_counter() - start)
    return {"layer": numba.threading_layer(), "default": float(np.median(default)),
            "single": float(np.median(single))}


def run():
    """{(task, layer name): child result}, each in a fresh process, on busy cores."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(2 if os.environ.get("BUSY", "1") != "0" else 0)]
    try:
        rows = {}
        for task in TASKS:
            for name, env in LAYERS.items():
                rows[task, name] = common.fresh("bench_layers", "fit_times", task, env=env)
                print(task, name, rows[task, name], file=sys.stderr, flush=True)
        load = os.getloadavg()[0]
    finally:
        for process in busy:
            process.kill()
            process.wait()
    return {"rows": rows, "load": load, "busy": len(busy)}


def table(result):
    """Markdown lines for ``run()``'s result."""
    lines = [f"numba's threading layers, each in a fresh process, {result['busy']} busy "
             f"processes started (load average {result['load']:.1f} at the end); whole fits, "
             f"median of {REPEATS}, "
             "interleaved. A ratio above 1: the default threads were slower than one.", "",
             "| task | layer (as numba reports it) | default n_jobs (s) | n_jobs=1 (s) | "
             "default / n_jobs=1 |", "|---|---|---|---|---|"]
    for (task, name), row in result["rows"].items():
        lines.append(f"| {task} | {name} ({row['layer']}) | {row['default']:.3f} | "
                     f"{row['single']:.3f} | {row['default'] / row['single']:.2f} |")
    return lines


if __name__ == "__main__":
    print("\n".join(table(run())))
