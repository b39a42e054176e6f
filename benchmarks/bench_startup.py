"""Start-up: import plus a first tiny fit in a fresh process, from the numba cache (warm),
and with an empty cache (the first run's compile time), in subprocesses."""

import shutil
import subprocess
import sys
import time

import common

SNIPPET = ("import time; t = time.perf_counter(); import numpy as np; from confboost import "
           "BoostClassifier; X = np.random.default_rng(0).normal(size=(500, 5)); "
           "c = BoostClassifier(5).fit(X, X[:, 0] > 0); c.predict(X); "
           "BoostClassifier(5).fit(X, (X[:, 0] > 0) + (X[:, 1] > 0)); "
           "print(time.perf_counter() - t)")


def _fresh():
    env = {"PYTHONPATH": str(common.ROOT / "src"), "PATH": "/usr/bin:/bin"}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", SNIPPET], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip()), time.perf_counter() - start


def clear_cache():
    for cache in (common.ROOT / "src" / "confboost").rglob("__pycache__"):
        for path in cache.glob("*.nb[ic]"):
            path.unlink()


def run(cold=True):
    result = {}
    if cold:
        clear_cache()
        result["cold_in_process"], result["cold_process"] = _fresh()
    _fresh()
    runs = [_fresh() for _ in range(common.REPEATS)]
    result["warm_in_process"] = sorted(r[0] for r in runs)[len(runs) // 2]
    result["warm_process"] = sorted(r[1] for r in runs)[len(runs) // 2]
    return result


if __name__ == "__main__":
    shutil.which("true")
    print(run())
