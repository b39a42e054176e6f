"""Where a fresh process's first fits spend their time: each import, numba's first load, and
every kernel's load from numba's cache (per function and specialisation).

Each run is a fresh process (``common.fresh``) that times, in this order: ``import numpy``;
``import sklearn.base`` (what ``BoostClassifier`` needs); confboost's modules (``from
confboost import BoostClassifier``); ``import numba``; numba's registries (the first
compiled call's fixed cost: numba imports its NumPy implementations and SciPy's BLAS);
the first tiny fit (500 x 5, binary), a prediction, and a second fit (3 classes), as
``bench_startup.py``'s snippet. A wrapper around numba's cache look-up records each
kernel's load (CPU time). Wall and CPU seconds, medians over ``REPEATS`` processes; a warm
cache (one process runs first). Run alone: ``python benchmarks/bench_kernel_load.py``.
"""

import os
import statistics
import time

# no module-level import of the benchmarks' common (it imports NumPy): the child times it


def phases():
    """In a child: [(phase, wall s, CPU s)] and [(kernel, signature, load s)]."""
    marks = []
    clock = [time.perf_counter(), time.process_time()]

    def mark(name):
        wall, cpu = time.perf_counter(), time.process_time()
        marks.append((name, wall - clock[0], cpu - clock[1]))
        clock[:] = [time.perf_counter(), time.process_time()]

    import numpy as np
    mark("import numpy")
    import sklearn.base  # noqa: F401
    mark("import sklearn.base")
    from confboost import BoostClassifier
    mark("confboost's modules (from confboost import BoostClassifier)")
    import numba
    from numba.core import caching
    from numba.core.registry import cpu_target
    mark("import numba")
    loads = []
    load_overload = caching.Cache.load_overload

    def timed_load(self, sig, target_context):
        start = time.process_time()
        result = load_overload(self, sig, target_context)
        loads.append((self._name.split(" at ")[0].removeprefix("<function "), str(sig),
                      time.process_time() - start, result is not None))
        return result

    caching.Cache.load_overload = timed_load
    cpu_target.target_context.refresh()
    mark("numba's registries (first compiled call)")
    X = np.random.default_rng(0).normal(size=(500, 5))
    clf = BoostClassifier(5).fit(X, X[:, 0] > 0)
    mark("first fit (binary), its kernels' loads included")
    clf.predict(X)
    mark("predict")
    BoostClassifier(5).fit(X, (X[:, 0] > 0) + (X[:, 1] > 0))
    mark("second fit (3 classes)")
    return {"phases": marks, "loads": loads, "layer": numba.threading_layer()}


def run(repeats=None):
    import common

    repeats = repeats or common.REPEATS
    common.fresh("bench_kernel_load", "phases")  # the cache warm
    runs = [common.fresh("bench_kernel_load", "phases") for _ in range(repeats)]
    names = [phase[0] for phase in runs[0]["phases"]]
    table = {name: (statistics.median(r["phases"][i][1] for r in runs),
                    statistics.median(r["phases"][i][2] for r in runs))
             for i, name in enumerate(names)}
    kernels = {}
    for r in runs:
        for name, signature, seconds, hit in r["loads"]:
            kernels.setdefault((name, signature, hit), []).append(seconds)
    loads = [(name, signature, hit, statistics.median(times))
             for (name, signature, hit), times in kernels.items()]
    return {"phases": table, "loads": loads, "layer": runs[0]["layer"],
            "load": os.getloadavg()[0], "repeats": repeats}


def table(result):
    """Markdown lines for ``run()``'s result."""
    lines = [f"Fresh processes, warm numba cache, median of {result['repeats']} (load average "
             f"{result['load']:.1f}; numba's layer: {result['layer']}).", "",
             "| phase | wall (s) | CPU (s) |", "|---|---|---|"]
    for name, (wall, cpu) in result["phases"].items():
        lines.append(f"| {name} | {wall:.3f} | {cpu:.3f} |")
    total_wall = sum(wall for wall, _ in result["phases"].values())
    total_cpu = sum(cpu for _, cpu in result["phases"].values())
    lines += [f"| total | {total_wall:.3f} | {total_cpu:.3f} |", "",
              "| kernel loaded from numba's cache | specialisation | from cache | CPU ms |",
              "|---|---|---|---|"]
    for name, signature, hit, seconds in sorted(result["loads"], key=lambda r: -r[3]):
        short = signature.replace("Array(", "").replace(", aligned=True)", "")
        lines.append(f"| {name} | {short[:80]} | {'yes' if hit else 'no'} | "
                     f"{seconds * 1e3:.1f} |")
    return lines


if __name__ == "__main__":
    print("\n".join(table(run())))
