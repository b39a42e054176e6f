"""Where a fresh process's first fits spend their time: each import, numba's first load, and
every kernel's load from numba's cache (per function and specialisation).

Each run is a fresh process (``common.fresh``) that times, in this order: ``import numpy``;
``import sklearn.base`` (what ``BoostClassifier`` needs); ``import sklearn.model_selection``
(the calibration's folds, at the first fit); confboost's modules (``from confboost import
BoostClassifier``); ``import numba``; numba's registries (the first compiled call's fixed
cost: numba imports its NumPy implementations and SciPy's BLAS); the first tiny fit (500 x
5, binary), a prediction, and a second fit (3 classes), as ``bench_startup.py``'s snippet.
A wrapper around numba's cache look-up records each kernel's load (CPU time). Wall and CPU
seconds, medians over ``REPEATS`` processes; a warm cache (one process runs first).

``--cold`` also runs the snippet once on a copy of ``src`` with an empty cache and lists
what each kernel's compilation cost (CPU seconds, from numba's compile events; a kernel
another one calls is compiled inside it and counted there). Run alone: ``python
benchmarks/bench_kernel_load.py [--cold]``.
"""

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

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
    import sklearn.model_selection  # noqa: F401
    mark("import sklearn.model_selection (the calibration's folds)")
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


def _fits():
    import numpy as np

    from confboost import BoostClassifier

    X = np.random.default_rng(0).normal(size=(500, 5))
    BoostClassifier(5).fit(X, X[:, 0] > 0).predict(X)
    BoostClassifier(5).fit(X, (X[:, 0] > 0) + (X[:, 1] > 0))


def compiles():
    """In a child whose numba cache is empty: ([(kernel, parallel, CPU s)] of each kernel
    compiled at the top level, CPU s of the imports (scikit-learn, numba and its registries
    included), CPU s of the fits)."""
    start = time.process_time()
    from confboost import BoostClassifier  # noqa: F401  (scikit-learn with it)
    from confboost.utils.lazy_numba import load_numba, load_registries

    numba = load_numba()
    load_registries(numba)
    from numba.core import event

    imported = time.process_time() - start
    records, stack = [], []

    class Compiles(event.Listener):
        def on_start(self, ev):
            stack.append(time.process_time())

        def on_end(self, ev):
            began = stack.pop()
            if not stack:
                dispatcher = ev.data["dispatcher"]
                records.append((dispatcher.py_func.__qualname__,
                                bool(dispatcher.targetoptions.get("parallel")),
                                time.process_time() - began))

    event.register("numba:compile", Compiles())
    began = time.process_time()
    _fits()
    return records, imported, time.process_time() - began


def run_cold():
    """``compiles()`` in a fresh process on a copy of this checkout's ``src`` without its
    numba cache."""
    import common

    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(common.ROOT / "src", Path(folder) / "src",
                        ignore=shutil.ignore_patterns("*.nbi", "*.nbc"))
        return common.fresh("bench_kernel_load", "compiles",
                            env={"PYTHONPATH": str(Path(folder) / "src")})


def cold_table(result):
    """Markdown lines for ``run_cold()``'s result."""
    records, imported, fits = result
    lines = [f"Empty numba cache, one fresh process (load average {os.getloadavg()[0]:.1f}): "
             f"imports (scikit-learn, numba and its registries included) {imported:.2f} s CPU; "
             f"the fits "
             f"{fits:.2f} s CPU, of which compiling (each kernel with those it calls):", "",
             "| kernel | parallel | compile CPU (s) |", "|---|---|---|"]
    for name, parallel, seconds in sorted(records, key=lambda r: -r[2]):
        lines.append(f"| {name} | {'yes' if parallel else 'no'} | {seconds:.2f} |")
    lines.append(f"| total | | {sum(r[2] for r in records):.2f} |")
    return lines


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
    if "--cold" in sys.argv:
        print("\n" + "\n".join(cold_table(run_cold())))
