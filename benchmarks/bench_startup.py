"""Start-up, in fresh processes: ``import confboost``, import plus first tiny fits from the numba
cache (warm) and with an empty cache (the first run's compile time), and the command lines
``confboost train -S satimage -n 100`` and ``confboost classify`` of 40 lines with the model
it wrote, from a warm cache.

Wall seconds are medians of ``REPEATS`` fresh processes; CPU seconds (user + system, of the
child) say what the process cost when the machine is busy and wall time is not its own; the
peak resident memory is the child's own (``os.wait4``).
The satimage files are icsiboost's (``GOLDEN/satimage``, gunzipped into a temporary folder;
``GOLDEN`` is ``$CONFBOOST_GOLDEN/icsiboost``, else ``../shared/golden/icsiboost`` beside the
checkout); without them that row is left out. The command fits a ``Booster``: it imports
no scikit-learn. "In process" is the snippet's own clock, from its first import to its
last fit; the whole process adds the interpreter's start and its exit (the exit walks every
object numba made unless something froze them, ``cli.app.command_line``). A second table
splits the warm snippet into its stages (``STAGES``: NumPy's import, ``sklearn.base``'s, then
confboost's own import, fits and prediction), wall and CPU, from fresh processes that
alternate with the others: the first two stages are the floor of any scikit-learn
estimator's first fit.

``--peers`` (``peers()``) runs the same two fits through LightGBM's and XGBoost's
scikit-learn estimators and scikit-learn's ``HistGradientBoostingClassifier``, each library
in its own fresh process, the libraries alternating: the whole process (what a script or a
notebook's restarted kernel pays: each of these libraries imports scikit-learn, and the
exit walks every object the imports made), and the snippet again with NumPy and
scikit-learn imported before its clock starts (a notebook that has used scikit-learn); and,
as their floor, a fresh process that imports NumPy and ``sklearn.base`` and fits nothing.

``--cold-trees`` (``cold_trees()``) fits ``BoostClassifier()``'s default trees on an empty
numba cache (``NUMBA_CACHE_DIR``, a new temporary folder per process), one fresh process per
shape of ``COLD_SHAPES`` (satimage's, a binary set's, letter's, and fashion-mnist's tree per
label over a few rounds: what a user's first fit after ``pip install`` compiles), and lists
each kernel numba compiled: its build (parallel or serial), its specialisations, and their
compile CPU seconds with everything compiled inside them (helpers, numba's own overloads),
from numba's compile events. With ``--compiled``, ``confboost compile`` fills a cache first
(its seconds are listed), each fit starts from a copy of it, and shows what it left to
compile.

``python benchmarks/bench_startup.py [--cold] [--before SRC | --python PYTHON] [--peers]
[--cold-trees [--compiled] [--shapes SHAPE ...] [--n-jobs N ...]]``:
``--before`` runs the same processes on another source tree (another checkout's ``src``,
with its own numba cache), alternating with this checkout's, and prints both columns and
their ratio. ``--python`` runs this checkout's processes with another interpreter as well,
alternating: an environment with other packages installed (``pip install confboost``
installs confboost's dependencies only; where pandas is installed, ``sklearn.base``
imports it, and pyarrow, into every fresh process).
"""

import gzip
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

# as tests/cli/test_icsiboost.py: $CONFBOOST_GOLDEN is the folder that holds icsiboost/
GOLDEN = Path(os.environ.get("CONFBOOST_GOLDEN", common.ROOT.parent / "shared" / "golden")
              ) / "icsiboost"

#: The same first fits for every library: a binary fit of 5 rounds on 500 x 5, a prediction,
#: then a 3-class fit. ``{make}`` is the estimator's construction.
FITS = ("X = np.random.default_rng(0).normal(size=(500, 5)); y = (X[:, 0] > 0).astype(int); "
        "c = {make}.fit(X, y); c.predict(X); {make}.fit(X, y + (X[:, 1] > 0)); ")
#: Each library's import and its estimator with 5 rounds, otherwise its defaults.
LIBRARIES = {
    "confboost": ("from confboost import BoostClassifier", "BoostClassifier(5)"),
    "LightGBM": ("from lightgbm import LGBMClassifier",
                 "LGBMClassifier(n_estimators=5, verbose=-1)"),
    "XGBoost": ("from xgboost import XGBClassifier", "XGBClassifier(n_estimators=5)"),
    "HistGradientBoosting": ("from sklearn.ensemble import HistGradientBoostingClassifier",
                             "HistGradientBoostingClassifier(max_iter=5)"),
}
#: What a notebook has imported before its first fit: NumPy and scikit-learn.
NOTEBOOK = "import numpy as np; import sklearn.base; "
#: The floor of every row of ``peers``: a process that imports NumPy and scikit-learn's
#: estimator base (which each library's estimator subclasses), and fits nothing.
FLOOR = "import numpy, sklearn.base"
FLOOR_NAME = "(NumPy and sklearn.base imported, no fit)"


def snippet(library="confboost", notebook=False):
    """The code a fresh process runs: ``library``'s import and first fits, printing their
    wall and CPU seconds; with ``notebook``, NumPy and scikit-learn are imported before the
    clock starts."""
    imported, make = LIBRARIES[library]
    clock = "import time; t0, c0 = time.perf_counter(), time.process_time(); "
    return ((NOTEBOOK if notebook else "") + clock
            + ("" if notebook else "import numpy as np; ") + imported + "; "
            + FITS.format(make=make)
            + "print(time.perf_counter() - t0, time.process_time() - c0)")


SNIPPET = snippet()
IMPORT = "import time; t = time.perf_counter(); import confboost; print(time.perf_counter() - t)"

#: The warm snippet's stages, in order: NumPy's import and scikit-learn's estimator base (the
#: floor: every scikit-learn estimator's import pays them, ``FLOOR``), confboost's own import
#: on top of them, then the snippet's fits and prediction.
STAGES = ("import numpy", "import sklearn.base", "from confboost import BoostClassifier",
          "first fit (binary)", "predict", "second fit (3 classes)")
#: The snippet (``SNIPPET``'s imports and fits) with a clock between its stages: prints each
#: stage's wall and CPU milliseconds, "wall,cpu" a stage.
STAGED = """import time
T, C = time.perf_counter, time.process_time
marks = [(T(), C())]
import numpy as np
marks.append((T(), C()))
import sklearn.base
marks.append((T(), C()))
from confboost import BoostClassifier
marks.append((T(), C()))
X = np.random.default_rng(0).normal(size=(500, 5)); y = (X[:, 0] > 0).astype(int)
c = BoostClassifier(5).fit(X, y)
marks.append((T(), C()))
c.predict(X)
marks.append((T(), C()))
BoostClassifier(5).fit(X, y + (X[:, 1] > 0))
marks.append((T(), C()))
print(" ".join(f"{(b[0] - a[0]) * 1e3:.3f},{(b[1] - a[1]) * 1e3:.3f}"
               for a, b in zip(marks, marks[1:])))
"""


SRC = common.ROOT / "src"

#: ``--cold-trees``' fits: ``make_classification``'s arguments and ``BoostClassifier``'s
#: (its defaults otherwise), each the shape of a set the benchmarks fit. binary: 100k cells,
#: so one thread (``threads.SMALL_WORK``) and the kernels' serial builds; binary200k: the
#: default table's "binary 200k x 50", large enough for every thread.
COLD_SHAPES = {
    "satimage": ({"n_samples": 4435, "n_features": 36, "n_informative": 12, "n_classes": 6},
                 {}),
    "binary": ({"n_samples": 5000, "n_features": 20, "n_informative": 8, "n_classes": 2}, {}),
    "letter": ({"n_samples": 16000, "n_features": 16, "n_informative": 12, "n_classes": 26},
               {}),
    "fashion": ({"n_samples": 3000, "n_features": 784, "n_informative": 40, "n_classes": 10},
                {"n_estimators": 3}),
    "binary200k": ({"n_samples": 200_000, "n_features": 50, "n_informative": 20,
                    "n_classes": 2}, {}),
}


def _env(src=SRC):
    return {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}


def _timed(command, cwd=None, memory=False, src=SRC, env=None):
    """(stdout, wall seconds, CPU seconds) of one child process, and its peak resident MB
    when ``memory``; ``env`` adds variables to the child's environment."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        child = subprocess.Popen(command, env={**_env(src), **(env or {})}, cwd=cwd, stdout=out,
                                 stderr=subprocess.DEVNULL, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise subprocess.CalledProcessError(child.returncode, command)
        out.seek(0)
        result = (out.read(), wall, usage.ru_utime + usage.ru_stime)
    return (*result, usage.ru_maxrss / 1024) if memory else result


def _fresh(code=SNIPPET, src=SRC, python=sys.executable):
    """(the snippet's own wall seconds, the process's wall and CPU seconds) of a fresh
    ``python`` process."""
    out, wall, cpu = _timed([python, "-c", code], src=src)
    return float(out.split()[0]), wall, cpu


def _stages(src=SRC, python=sys.executable):
    """One fresh ``python`` process's ``STAGED`` snippet: a (wall, CPU) pair of milliseconds
    per stage of ``STAGES``."""
    out = _timed([python, "-c", STAGED], src=src)[0]
    return [tuple(float(v) for v in stage.split(",")) for stage in out.split()]


def clear_cache(src=SRC):
    for cache in (Path(src) / "confboost").rglob("__pycache__"):
        for path in cache.glob("*.nb[ic]"):
            path.unlink()


def _median(values):
    return sorted(values)[len(values) // 2]


def _satimage(folder):
    """Copy icsiboost's satimage files into ``folder``, 40 test lines as ``forty.data``;
    False without them."""
    source = GOLDEN / "satimage"
    if not (source / "satimage.names").exists():
        return False
    for name in ("satimage.names", "satimage.data.gz", "satimage.test.gz"):
        target = Path(folder) / name.removesuffix(".gz")
        if name.endswith(".gz"):
            with gzip.open(source / name, "rb") as raw:
                target.write_bytes(raw.read())
        else:
            shutil.copy(source / name, target)
    lines = (Path(folder) / "satimage.test").read_text().splitlines(keepends=True)
    (Path(folder) / "forty.data").write_text("".join(lines[:40]))
    return True


def _commands(rounds, python=sys.executable):
    train = [python, "-m", "confboost.cli", "train", "-S", "satimage", "-n", str(rounds)]
    classify = [python, "-m", "confboost.cli", "classify", "-S", "satimage", "-i",
                "forty.data"]
    return train, classify


def measure(sources=(SRC,), cold=True, rounds=100, pythons=None):
    """Each source tree's figures, its processes alternating with the others'; each run by
    its interpreter in ``pythons`` (default: this one for all), so that one source tree can
    be measured in two environments (``--python``).

    Returns a list (one per source) of dicts: ``cold_in_process``, ``cold_process``,
    ``cold_cpu`` (the first snippet after emptying the numba cache, with ``cold``);
    ``warm_in_process``, ``warm_process``, ``warm_cpu`` (medians of ``REPEATS``);
    ``import``; ``train_satimage_100`` (wall, CPU) of ``confboost train -S satimage -n
    rounds`` and ``classify_40`` (wall, CPU, peak MB) of ``confboost classify`` on 40 lines
    with its model, None without the satimage files; ``load`` (one-minute load average at
    the end); ``stages``, a list per process of ``STAGED``'s (wall, CPU) milliseconds per
    stage of ``STAGES``.
    """
    pythons = pythons or [sys.executable] * len(sources)
    setups = list(zip(sources, pythons, strict=True))
    results = [{} for _ in sources]
    if cold:
        for (src, python), result in zip(setups, results, strict=True):
            clear_cache(src)
            cold_run = _fresh(src=src, python=python)
            result["cold_in_process"], result["cold_process"], result["cold_cpu"] = cold_run
    for src, python in setups:
        _fresh(src=src, python=python)
    runs = [[] for _ in sources]
    imports = [[] for _ in sources]
    staged = [[] for _ in sources]
    for _ in range(common.REPEATS):
        for i, (src, python) in enumerate(setups):
            runs[i].append(_fresh(src=src, python=python))
            imports[i].append(_fresh(IMPORT, src=src, python=python))
            staged[i].append(_stages(src, python))
    for result, timed, imported in zip(results, runs, imports, strict=True):
        result["warm_in_process"] = _median([r[0] for r in timed])
        result["warm_process"] = _median([r[1] for r in timed])
        result["warm_cpu"] = _median([r[2] for r in timed])
        result["import"] = _median([r[0] for r in imported])
    for result, stages in zip(results, staged, strict=True):
        result["stages"] = stages
    with tempfile.TemporaryDirectory() as folder:
        found = _satimage(folder)
        commands = [_commands(rounds, python) for python in pythons]
        trained = [[] for _ in sources]
        scored = [[] for _ in sources]
        if found:
            for src, (train, classify) in zip(sources, commands, strict=True):
                _timed(train, folder, src=src)  # each tree's kernels into its cache
                _timed(classify, folder, src=src)
            for _ in range(common.REPEATS):
                for i, (src, (train, classify)) in enumerate(zip(sources, commands,
                                                                 strict=True)):
                    trained[i].append(_timed(train, folder, src=src)[1:])
                    scored[i].append(_timed(classify, folder, memory=True, src=src)[1:])
    for result, train_runs, classify_runs in zip(results, trained, scored, strict=True):
        result["train_satimage_100"] = (tuple(_median([r[i] for r in train_runs])
                                              for i in range(2)) if found else None)
        result["classify_40"] = (tuple(_median([r[i] for r in classify_runs])
                                       for i in range(3)) if found else None)
        result["load"] = os.getloadavg()[0]
    return results


def _installed(library):
    module = LIBRARIES[library][0].split()[1].split(".")[0]
    return importlib.util.find_spec(module) is not None


def peers(libraries=tuple(LIBRARIES)):
    """The same first fits through each library's scikit-learn estimator, each in its own
    fresh process, the libraries alternating (a warm numba cache for confboost: one process
    runs first): medians of ``REPEATS``.

    Returns a dict, per installed library, of ``process`` and ``cpu`` (the whole fresh
    process's wall and CPU seconds), ``in_process`` (the snippet's wall: imports and fits),
    ``outside_cpu`` (the process's CPU seconds outside the snippet: the interpreter's start
    and exit), ``notebook`` and ``notebook_cpu`` (the snippet's wall and CPU seconds when NumPy and
    scikit-learn were imported before its clock started); under ``FLOOR_NAME`` the
    ``process`` and ``cpu`` of a fresh process that only imports NumPy and ``sklearn.base``
    (``FLOOR``), alternating with them; and ``load`` (one-minute load average at the end).
    """
    libraries = [name for name in libraries if _installed(name)]
    runs = {name: [] for name in libraries}
    floor = []
    _fresh(snippet("confboost"))
    for _ in range(common.REPEATS):
        floor.append(_timed([sys.executable, "-c", FLOOR])[1:])
        for name in libraries:
            out, wall, cpu = _timed([sys.executable, "-c", snippet(name)])
            in_process, in_process_cpu = (float(v) for v in out.split())
            out = _timed([sys.executable, "-c", snippet(name, notebook=True)])[0]
            notebook, notebook_cpu = (float(v) for v in out.split())
            runs[name].append((wall, cpu, in_process, cpu - in_process_cpu, notebook,
                               notebook_cpu))
    keys = ("process", "cpu", "in_process", "outside_cpu", "notebook", "notebook_cpu")
    result = {name: {key: _median([r[i] for r in timed]) for i, key in enumerate(keys)}
              for name, timed in runs.items()}
    result[FLOOR_NAME] = {"process": _median([f[0] for f in floor]),
                          "cpu": _median([f[1] for f in floor])}
    return {**result, "load": os.getloadavg()[0]}


def cold_tree_fit(shape, n_jobs="default"):
    """In a child whose numba cache is empty: ``COLD_SHAPES[shape]``'s default fit, with
    ``n_jobs`` unless it is "default". Returns a
    dict: ``wall`` and ``cpu`` (the fit's seconds), ``learner`` (``weak_learner_``) and
    ``compiles``, [kernel, parallel, signature, CPU s with what compiled inside it] for each
    specialisation numba compiled at the top level (the fit's own calls)."""
    import bench_kernel_load
    from sklearn.datasets import make_classification

    from confboost import BoostClassifier
    from confboost.utils.lazy_numba import on_load

    listened = []  # the listener's list, once numba loads

    def listen(numba):
        from numba.core import event

        listened.append(bench_kernel_load.listen_compiles(event))

    on_load(listen)
    data, params = COLD_SHAPES[shape]
    if n_jobs != "default":
        params = {**params, "n_jobs": n_jobs}
    X, y = make_classification(**data, random_state=0)
    wall, cpu = time.perf_counter(), time.process_time()
    fitted = BoostClassifier(**params).fit(X, y)
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
            "learner": fitted.weak_learner_,
            "compiles": listened[0] if listened else []}


def cold_trees(sources=(SRC,), shapes=tuple(COLD_SHAPES), compiled=False,
               n_jobs=("default",)):
    """``cold_tree_fit`` of each shape (and each ``n_jobs``: "default" is the estimator's) in
    a fresh process on a new, empty numba cache, the source trees alternating; a list (one
    per source) of dicts by shape (``"shape, n_jobs=..."`` where ``n_jobs`` names others
    than "default"), and ``load`` (the one-minute load average at the end). With
    ``compiled``, ``confboost compile`` first fills a cache per source, in a fresh process
    of its own (its (wall, CPU) seconds are ``compile``), and each fit starts from a copy of
    it: the fits show what it left to compile."""
    results = [{} for _ in sources]
    with tempfile.TemporaryDirectory() as folder:
        compiled_caches = []
        for i, (src, result) in enumerate(zip(sources, results, strict=True)):
            compiled_caches.append(Path(folder) / str(i))
            if compiled:
                command = [sys.executable, "-m", "confboost.cli", "compile"]
                result["compile"] = _timed(command, src=src, env={
                    "NUMBA_CACHE_DIR": str(compiled_caches[-1])})[1:]
        runs = [(shape, jobs) for shape in shapes for jobs in n_jobs]
        for shape, jobs in runs:
            row = shape if tuple(n_jobs) == ("default",) else f"{shape}, n_jobs={jobs}"
            for src, result, filled in zip(sources, results, compiled_caches, strict=True):
                with tempfile.TemporaryDirectory() as cache:
                    if compiled:
                        shutil.copytree(filled, cache, dirs_exist_ok=True)
                    result[row] = common.fresh("bench_startup", "cold_tree_fit", shape, jobs,
                                               env={"PYTHONPATH": str(src),
                                                    "NUMBA_CACHE_DIR": cache})
    for result in results:
        result["load"] = os.getloadavg()[0]
    return results


def cold_trees_table(results, names):
    """Markdown lines for ``cold_trees()``'s results: per shape, the fit's CPU and wall
    seconds and its compile CPU seconds per source, then per source and shape each kernel's
    build, specialisations and compile CPU seconds."""
    shapes = [shape for shape in results[0] if shape not in ("load", "compile")]
    lines = ["| shape | learner | " + " | ".join(
        f"{name}: fit CPU / wall (s) | {name}: compile CPU (s)" for name in names) + " |",
        "|---|---|" + "---|---|" * len(names)]
    for shape in shapes:
        cells = []
        for result in results:
            fit = result[shape]
            cells += [f"{fit['cpu']:.1f} / {fit['wall']:.1f}",
                      f"{sum(c[3] for c in fit['compiles']):.1f}"]
        lines.append(f"| {shape} | {results[0][shape]['learner']} | " + " | ".join(cells)
                     + " |")
    for name, result in zip(names, results, strict=True):
        for shape in shapes:
            kernels = {}
            for kernel, parallel, _, seconds in result[shape]["compiles"]:
                count, total = kernels.get((kernel, parallel), (0, 0.0))
                kernels[kernel, parallel] = (count + 1, total + seconds)
            lines += ["", f"{name}, {shape}:", "",
                      "| kernel | build | specialisations | compile CPU (s) |", "|---|---|---|---|"]
            for (kernel, parallel), (count, total) in sorted(kernels.items(),
                                                             key=lambda item: -item[1][1]):
                lines.append(f"| {kernel} | {'parallel' if parallel else 'serial'} | {count} | "
                             f"{total:.2f} |")
    for name, result in zip(names, results, strict=True):
        if "compile" in result:
            wall, cpu = result["compile"]
            lines += ["", f"{name}: `confboost compile` first, {wall:.0f} s wall, {cpu:.0f} s "
                          "CPU."]
    loads = ", ".join(f"{result['load']:.1f}" for result in results)
    return lines + ["", f"Load average at the end of each column's last run: {loads}."]


def peers_table(result):
    """Markdown lines for ``peers()``'s result."""
    lines = ["| library | fresh process wall (s) | fresh process CPU (s) | imports + fits in "
             "process (s) | start and exit CPU (s) | NumPy and scikit-learn imported first: "
             "wall (s) | CPU (s) |", "|---|---|---|---|---|---|---|"]
    for name, r in result.items():
        if name == FLOOR_NAME:
            lines.append(f"| {name} | {r['process']:.3f} | {r['cpu']:.3f} | | | | |")
        elif name != "load":
            lines.append(f"| {name} | {r['process']:.3f} | {r['cpu']:.3f} | "
                         f"{r['in_process']:.3f} | {r['outside_cpu']:.3f} | "
                         f"{r['notebook']:.3f} | "
                         f"{r['notebook_cpu']:.3f} |")
    return lines + ["", f"Load average at the end: {result['load']:.1f}."]


def run(cold=True):
    """This checkout's figures (``measure``'s dict)."""
    return measure((SRC,), cold)[0]


def stages_table(results, names):
    """Markdown lines: the warm snippet's stages (``STAGES``), a row each, and their sum; per
    source (``names``), the median and the range of its processes' wall and CPU
    milliseconds."""
    header = ["stage"] + [f"{name} {kind} (ms)" for name in names for kind in ("wall", "CPU")]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    rows = [(stage, lambda run, i=i: run[i]) for i, stage in enumerate(STAGES)]
    rows.append(("all (the snippet in process)",
                 lambda run: tuple(sum(stage[j] for stage in run) for j in range(2))))
    for label, pick in rows:
        cells = []
        for result in results:
            for j in range(2):
                values = sorted(pick(run)[j] for run in result["stages"])
                cells.append(f"{_median(values):.1f} [{values[0]:.1f}-{values[-1]:.1f}]")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines + ["", "Medians [ranges] of REPEATS fresh processes, alternating with the "
                        "other figures' (`STAGED`). The first two rows are the floor every "
                        "scikit-learn estimator's first fit pays."]


def table(results, names):
    """Markdown lines: a row per figure, a column per source (``names``), and the ratio of
    the last to the first when there are two."""
    rows = [("cold: snippet in process (s)", "cold_in_process", None),
            ("cold: whole process wall (s)", "cold_process", None),
            ("cold: whole process CPU (s)", "cold_cpu", None),
            ("warm: snippet in process (s)", "warm_in_process", None),
            ("warm: whole process wall (s)", "warm_process", None),
            ("warm: whole process CPU (s)", "warm_cpu", None),
            ("`import confboost` (s)", "import", None),
            ("`train -S satimage -n 100` wall (s)", "train_satimage_100", 0),
            ("`train -S satimage -n 100` CPU (s)", "train_satimage_100", 1),
            ("`classify` 40 lines wall (s)", "classify_40", 0),
            ("`classify` 40 lines CPU (s)", "classify_40", 1),
            ("`classify` 40 lines peak (MB)", "classify_40", 2)]
    header = ["figure", *names] + (["ratio"] if len(names) == 2 else [])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, key, index in rows:
        values = [r.get(key) for r in results]
        if any(v is None for v in values):
            continue
        values = [v if index is None else v[index] for v in values]
        cells = [f"{v:.3f}" for v in values]
        if len(values) == 2:
            cells.append(f"{values[1] / values[0]:.2f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    loads = ", ".join(f"{r['load']:.1f}" for r in results)
    return lines + ["", f"Load average at the end of each column's last run: {loads}."]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="also the empty-cache run")
    parser.add_argument("--before", help="source tree to compare against (its src folder)")
    parser.add_argument("--python", help="another environment's interpreter to compare "
                                         "this one with, on this checkout")
    parser.add_argument("--peers", action="store_true",
                        help="only the first fits of confboost, LightGBM, XGBoost and "
                             "HistGradientBoosting, each in its own process")
    parser.add_argument("--cold-trees", action="store_true",
                        help="only the default tree fits on an empty numba cache, and what "
                             "each kernel's compilation cost")
    parser.add_argument("--compiled", action="store_true",
                        help="with --cold-trees: run `confboost compile` into each empty "
                             "cache before the fit")
    parser.add_argument("--shapes", nargs="+", choices=tuple(COLD_SHAPES),
                        default=tuple(COLD_SHAPES), help="with --cold-trees: these shapes only")
    parser.add_argument("--n-jobs", nargs="+", default=("default",),
                        type=lambda v: v if v == "default" else None if v == "None" else int(v),
                        help="with --cold-trees: fit each shape with each of these n_jobs "
                             "(an int, None, or default: the estimator's)")
    args = parser.parse_args()
    if args.peers:
        print(f"load average at start: {os.getloadavg()[0]:.1f}; REPEATS={common.REPEATS}")
        print("\n".join(peers_table(peers())))
        sys.exit(0)
    if args.python and (args.before or args.cold_trees):
        parser.error("--python compares the warm start-up of two environments: without "
                     "--before or --cold-trees")
    sources = ((Path(args.before).resolve(), SRC) if args.before
               else (SRC, SRC) if args.python else (SRC,))
    pythons = (sys.executable, args.python) if args.python else None
    print(f"load average at start: {os.getloadavg()[0]:.1f}; REPEATS={common.REPEATS}")
    names = (["before", "after"] if args.before
             else [sys.executable, args.python] if args.python else ["this checkout"])
    if args.cold_trees:
        print("\n".join(cold_trees_table(cold_trees(sources, args.shapes, args.compiled,
                                                     args.n_jobs), names)))
        sys.exit(0)
    measured = measure(sources, args.cold, pythons=pythons)
    print("\n".join(table(measured, names)))
    print()
    print("\n".join(stages_table(measured, names)))
