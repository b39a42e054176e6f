"""Where a fresh process's first fits spend their time: each import, numba's first load, and
every kernel's load from numba's cache (per function and specialisation).

Each run is a fresh process (``common.fresh``) that times, in this order: ``import numpy``;
``import sklearn.base`` (what ``BoostClassifier`` needs); confboost's modules (``from
confboost import BoostClassifier``); the first tiny fit (500 x 5, binary), a prediction, and
a second fit (3 classes), as ``bench_startup.py``'s snippet (their stump rounds run the
kernels' NumPy twins, ``kernels/stump_twins.py``: no numba); then what a fit that runs
kernels pays first: ``import numba`` and numba's registries (the first compiled call's fixed
cost: numba imports its NumPy implementations and SciPy's BLAS).

``defaults()`` (``--defaults``) is ``bench_defaults.py``'s satimage row in one fresh process:
its 200-row warm-up, then the first full default fit and the second, each with the kernels it
loaded from the cache and their load time. The warm-up runs one thread, so the serial builds
of the parallel kernels (``lazy_numba.serial_kernels``); the full fit runs the parallel
builds, each a cache load of its own at its first call. Without the satimage files
(``$CONFBOOST_DATA``) it is left out.

A wrapper around numba's cache look-up records each kernel's load (wall time). Wall and CPU
seconds, medians over ``REPEATS`` processes; a warm cache (one process runs first).

``--cold`` also runs the snippet once on a copy of ``src`` with an empty cache and lists
what each kernel's compilation cost (CPU seconds, from numba's compile events; a kernel
another one calls is compiled inside it and counted there). Run alone: ``python
benchmarks/bench_kernel_load.py [--cold] [--defaults]``.
"""

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

# no module-level import of the benchmarks' common (it imports NumPy): the child times it


def _record_loads(numba, loads):
    """Append (kernel, signature, load s, found) to ``loads`` for each cache look-up."""
    from numba.core import caching

    load_overload = caching.Cache.load_overload

    def timed_load(self, sig, target_context):
        start = time.perf_counter()
        result = load_overload(self, sig, target_context)
        loads.append((self._name.split(" at ")[0].removeprefix("<function "), str(sig),
                      time.perf_counter() - start, result is not None))
        return result

    caching.Cache.load_overload = timed_load


def phases():
    """In a child: [(phase, wall s, CPU s)] and whether the tiny fits left numba
    unloaded."""
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
    X = np.random.default_rng(0).normal(size=(500, 5))
    clf = BoostClassifier(5).fit(X, X[:, 0] > 0)
    mark("first fit (binary)")
    clf.predict(X)
    mark("predict")
    BoostClassifier(5).fit(X, (X[:, 0] > 0) + (X[:, 1] > 0))
    mark("second fit (3 classes)")
    without_numba = "numba" not in sys.modules
    from confboost.utils.lazy_numba import load_numba, load_registries

    numba = load_numba()
    mark("numba's load (its import, the kernels' dispatchers: a fit that runs kernels)")
    load_registries(numba)
    mark("numba's registries (its first compiled call or cache load)")
    return {"phases": marks, "without_numba": without_numba}


def defaults():
    """In a child: ``bench_defaults``' satimage warm-up and first two full default fits:
    [(step, wall s, CPU s, [(kernel, signature, load s, found)])], or None without the
    data."""
    import bench_defaults
    import numpy as np

    try:
        X, y, _, _ = bench_defaults.data("satimage")
    except (OSError, ValueError):
        return None
    from confboost.utils.lazy_numba import on_load

    loads = []
    on_load(lambda numba: _record_loads(numba, loads))
    steps = []
    first = np.linspace(0, len(y) - 1, 200).astype(np.intp)
    warm = bench_defaults.model("confboost")
    warm.set_params(weak_learner=bench_defaults.full_learner(warm, X, y))
    for step, rows in (("warm-up, 200 rows", first), ("first full fit", slice(None)),
                       ("second full fit", slice(None))):
        clf = warm if rows is first else bench_defaults.model("confboost")
        before, wall, cpu = len(loads), time.perf_counter(), time.process_time()
        clf.fit(X[rows], y[rows])
        steps.append((step, time.perf_counter() - wall, time.process_time() - cpu,
                      loads[before:]))
    return steps


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
    found = listen_compiles(event)
    began = time.process_time()
    _fits()
    records = [(kernel, parallel, cpu) for kernel, parallel, _, cpu in found]
    return records, imported, time.process_time() - began


def listen_compiles(event):
    """Register a listener of numba's compile events (``event``: ``numba.core.event``);
    returns the list it appends [kernel, parallel, signature, CPU s] to for each kernel
    compiled at the top level (what compiles inside one counted in its CPU s)."""
    found, stack = [], []

    class Compiles(event.Listener):
        def on_start(self, ev):
            stack.append(time.process_time())

        def on_end(self, ev):
            began = stack.pop()
            if not stack:
                dispatcher = ev.data["dispatcher"]
                found.append([dispatcher.py_func.__qualname__,
                              bool(dispatcher.targetoptions.get("parallel")),
                              str(ev.data.get("args")), time.process_time() - began])

    event.register("numba:compile", Compiles())
    return found


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


def _median_loads(load_lists):
    """[(kernel, signature, found, median load s)] over several runs' load lists."""
    kernels = {}
    for loads in load_lists:
        for name, signature, seconds, hit in loads:
            kernels.setdefault((name, signature, hit), []).append(seconds)
    return [(name, signature, hit, statistics.median(times))
            for (name, signature, hit), times in kernels.items()]


def run(repeats=None):
    import common

    repeats = repeats or common.REPEATS
    common.fresh("bench_kernel_load", "phases")  # the cache warm
    runs = [common.fresh("bench_kernel_load", "phases") for _ in range(repeats)]
    names = [phase[0] for phase in runs[0]["phases"]]
    table = {name: (statistics.median(r["phases"][i][1] for r in runs),
                    statistics.median(r["phases"][i][2] for r in runs))
             for i, name in enumerate(names)}
    return {"phases": table, "without_numba": all(r["without_numba"] for r in runs),
            "load": os.getloadavg()[0], "repeats": repeats}


def run_defaults(repeats=None):
    """``defaults()`` in ``REPEATS`` fresh processes (one first warms the cache): per step
    the median wall and CPU seconds, the median number of kernels loaded and of their load
    seconds, and the kernels' median loads; None without the data."""
    import common

    repeats = repeats or common.REPEATS
    if common.fresh("bench_kernel_load", "defaults") is None:
        return None
    runs = [common.fresh("bench_kernel_load", "defaults") for _ in range(repeats)]
    steps = []
    for i, (name, *_) in enumerate(runs[0]):
        step = [r[i] for r in runs]
        steps.append((name, statistics.median(s[1] for s in step),
                      statistics.median(s[2] for s in step),
                      statistics.median(len(s[3]) for s in step),
                      statistics.median(sum(load[2] for load in s[3]) for s in step),
                      _median_loads(s[3] for s in step)))
    return {"steps": steps, "load": os.getloadavg()[0], "repeats": repeats}


def _loads_table(loads):
    lines = ["| kernel loaded from numba's cache | specialisation | from cache | ms |",
             "|---|---|---|---|"]
    for name, signature, hit, seconds in sorted(loads, key=lambda r: -r[3]):
        short = signature.replace("Array(", "").replace(", aligned=True)", "")
        lines.append(f"| {name} | {short[:80]} | {'yes' if hit else 'no'} | "
                     f"{seconds * 1e3:.1f} |")
    return lines


def table(result):
    """Markdown lines for ``run()``'s result."""
    lines = [f"Fresh processes, warm numba cache, median of {result['repeats']} (load average "
             f"{result['load']:.1f}; the tiny fits "
             f"{'loaded no numba' if result['without_numba'] else 'loaded numba'}).", "",
             "| phase | wall (s) | CPU (s) |", "|---|---|---|"]
    for name, (wall, cpu) in result["phases"].items():
        lines.append(f"| {name} | {wall:.3f} | {cpu:.3f} |")
    total_wall = sum(wall for wall, _ in result["phases"].values())
    total_cpu = sum(cpu for _, cpu in result["phases"].values())
    return lines + [f"| total | {total_wall:.3f} | {total_cpu:.3f} |"]


def defaults_table(result):
    """Markdown lines for ``run_defaults()``'s result."""
    lines = [f"satimage, ``BoostClassifier()`` as ``bench_defaults.py`` fits it, fresh "
             f"processes, median of {result['repeats']} (load average {result['load']:.1f}).",
             "", "| step | wall (s) | CPU (s) | kernels loaded | their load (s) |",
             "|---|---|---|---|---|"]
    for name, wall, cpu, count, seconds, _ in result["steps"]:
        lines.append(f"| {name} | {wall:.3f} | {cpu:.3f} | {count:g} | {seconds:.3f} |")
    for name, *_, loads in result["steps"]:
        if loads:
            lines += ["", f"{name}:", "", *_loads_table(loads)]
    return lines


if __name__ == "__main__":
    print("\n".join(table(run())))
    if "--defaults" in sys.argv:
        defaults_result = run_defaults()
        print("\n" + ("\n".join(defaults_table(defaults_result)) if defaults_result
                      else "(no satimage data: --defaults left out)"))
    if "--cold" in sys.argv:
        print("\n" + "\n".join(cold_table(run_cold())))
